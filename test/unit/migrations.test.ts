import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readMigrations } from '../../src/db/migrate.js';

const ROOT = join(import.meta.dirname, '..', '..');

describe('migrations', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('two files with one number are refused by name (the second would never run): branches that each add one must renumber', () => {
    dir = mkdtempSync(join(tmpdir(), 'signoff-migrations-'));
    for (const name of ['016_a.sql', '017_permalinks.sql', '017_pending_index.sql'])
      writeFileSync(join(dir, name), 'SELECT 1;');
    expect(() => readMigrations(dir as string)).toThrow(
      /two migrations share a number: 017_pending_index\.sql and 017_permalinks\.sql/,
    );
  });

  it("the project's migrations each have a number of their own", () => {
    const ids = readMigrations(join(ROOT, 'migrations')).map((m) => m.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBeGreaterThanOrEqual(16);
  });
});
