/**
 * `signoff docs add`: a document of any size is stored in parts that Postgres's full-text search
 * can hold (one tsvector holds at most 1 MB), and found; a folder goes in whole or not at all,
 * so a file that cannot be stored (not text, not UTF-8) leaves the collection as it was, and says
 * which file.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../src/db/database.js';
import { createDocuments, type Documents } from '../../src/docs/documents.js';
import { createLogger } from '../../src/logger.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

let testDb: TestDatabase;
let db: Database;
let documents: Documents;
const dirs: string[] = [];

beforeAll(async () => {
  testDb = await createTestDatabase('documents');
  db = await openDatabase({ url: testDb.url, dataDir: '.data', logger: createLogger('silent') });
  documents = createDocuments(db.pool);
});
afterAll(async () => {
  await db?.close();
  await testDb?.drop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function folder(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'signoff-docs-'));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

/** Over 2.5 MB of distinct words: its one tsvector would be several times Postgres's 1 MB limit. */
function bigDocument(): string {
  const words: string[] = ['Field notes on migratory birds.\n\n'];
  for (let i = 0; i < 400_000; i++) words.push(`w${i.toString(36)}x${i % 50 === 49 ? '.\n' : ' '}`);
  words.push('\n\nThe last entry: a zebrafinch nesting under the eaves.\n');
  return words.join('');
}

describe('documents', () => {
  it('a document bigger than the tsvector limit goes in, in parts, and is found by words from its end', async () => {
    const big = bigDocument();
    expect(big.length).toBeGreaterThan(2_500_000);
    const dir = folder({ 'birds.md': big, 'garden.txt': 'Compost and raised beds.' });
    expect(await documents.addFolder(dir, 'nature')).toEqual({ collection: 'nature', files: 2 });
    expect(await documents.count('nature')).toBe(2);
    const found = await documents.search('nature', 'zebrafinch');
    expect(found[0]?.name).toBe('birds.md');
    expect(found[0]?.text).toContain('zebrafinch');
    expect((await documents.search('nature', 'compost'))[0]?.name).toBe('garden.txt');
    // Re-adding a smaller version replaces every part of the old one.
    writeFileSync(join(dir, 'birds.md'), 'Only a robin this year.');
    await documents.addFolder(dir, 'nature');
    expect(await documents.search('nature', 'zebrafinch')).toEqual([]);
    expect((await documents.search('nature', 'robin'))[0]?.text).toBe('Only a robin this year');
  });

  it('a file that cannot be stored mid-way leaves the collection as it was, and says which file', async () => {
    const dir = folder({ 'a.md': 'Quarterly plan, first draft.', 'c.md': 'Hiring notes.' });
    await documents.addFolder(dir, 'plans');
    // A second pass: a.md changed, and b.txt (between a and c) is not text at all.
    writeFileSync(join(dir, 'a.md'), 'Quarterly plan, second draft.');
    writeFileSync(join(dir, 'b.txt'), 'PK\u0003\u0004\u0000\u0000binary');
    const failed = await documents.addFolder(dir, 'plans').then(
      () => undefined,
      (error: Error) => error,
    );
    expect(await documents.count('plans')).toBe(2);
    expect((await documents.search('plans', 'draft'))[0]?.text).toBe('Quarterly plan, first draft');
    expect(failed?.message).toBe(
      '"b.txt" is not text (it holds NUL bytes); nothing was added, the collection "plans" is as it was.',
    );
  });

  it('a file that is not UTF-8 (Latin-1) is refused by name, and nothing of the folder is added', async () => {
    const dir = folder({ 'a.md': 'Menu, first draft.' });
    await documents.addFolder(dir, 'menus');
    writeFileSync(join(dir, 'a.md'), 'Menu, second draft.');
    // "Café crème" in Latin-1: é and è are single bytes that are no UTF-8.
    writeFileSync(join(dir, 'b.md'), Buffer.from('Caf\xe9 cr\xe8me', 'latin1'));
    const failed = await documents.addFolder(dir, 'menus').then(
      () => undefined,
      (error: Error) => error,
    );
    expect(failed?.message).toBe(
      '"b.md" is not UTF-8 text; save it as UTF-8 and add it again. Nothing was added: the collection "menus" is as it was.',
    );
    expect(await documents.count('menus')).toBe(1);
    expect((await documents.search('menus', 'draft'))[0]?.text).toBe('Menu, first draft');
    // Saved as UTF-8, it goes in, its words searchable as written.
    writeFileSync(join(dir, 'b.md'), 'Café crème');
    await documents.addFolder(dir, 'menus');
    expect((await documents.search('menus', 'crème'))[0]?.name).toBe('b.md');
  });
});
