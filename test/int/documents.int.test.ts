/**
 * `signoff docs add`: a document of any size is stored in parts that Postgres's full-text search
 * can hold (one tsvector holds at most 1 MB), and found; a folder goes in whole or not at all,
 * so a file that cannot be stored leaves the collection as it was, and says which file.
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
});
