/**
 * Scenario files (seed 004's "parrot services"): every one shipped under examples/scenarios runs
 * through `signoff test` and holds; a broken expectation exits 1 with the first difference; a bad
 * file exits 2 naming its line.
 */
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILT_IN_WORKFLOWS } from '../../src/workflows/index.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { runSignoff } from '../helpers/processes.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase('scenarios');
});
afterAll(async () => {
  await db?.drop();
});

const DIR = join(import.meta.dirname, '..', '..', 'examples', 'scenarios');
const files = readdirSync(DIR).filter((f) => f.endsWith('.yml'));
/** A shipped scenario's workflow: the longest workflow name its file name starts with. */
const workflowOf = (file: string) =>
  BUILT_IN_WORKFLOWS.map((w) => w.name)
    .filter((name) => file.startsWith(`${name}-`))
    .sort((a, b) => b.length - a.length)[0] as string;
const scratch = (name: string, text: string) => {
  const file = join(mkdtempSync(join(tmpdir(), 'scenario-')), name);
  writeFileSync(file, text);
  return file;
};

describe('signoff test', () => {
  it('ships a scenario for every built-in workflow', () => {
    expect(new Set(files.map(workflowOf))).toEqual(new Set(BUILT_IN_WORKFLOWS.map((w) => w.name)));
  });

  for (const file of files) {
    it(`${file} holds`, async () => {
      const r = await runSignoff(['test', workflowOf(file), '--scenario', join(DIR, file)], {
        DATABASE_URL: db.url,
      });
      expect(r.stdout.trim().split('\n').at(-1), r.stdout + r.stderr).toMatch(/^scenario ".+": ok \(/);
      expect(r.code).toBe(0);
    });
  }

  it('a broken expectation exits 1 with the first difference', async () => {
    const file = scratch(
      'wrong.yml',
      'task: write the haiku\nreviews:\n  review: [reject]\nexpect:\n  status: done\n  contains: [haiku]\n',
    );
    const r = await runSignoff(['test', 'pair', '--scenario', file], { DATABASE_URL: db.url });
    expect(r.code).toBe(1);
    expect(r.stdout.trim().split('\n').at(-1)).toBe(
      'scenario "wrong.yml": FAILED: expected status done, got rejected (rejected at review)',
    );
  });

  it('a bad file exits 2 naming its line', async () => {
    const file = scratch('bad.yml', 'task: x\nreviews:\n  review:\n    - maybe\nexpect:\n  status: done\n');
    const r = await runSignoff(['test', 'pair', '--scenario', file], { DATABASE_URL: db.url });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${file}:4:7 reviews.review.0:`);
  });
});
