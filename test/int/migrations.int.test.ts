/**
 * Running signoff over a database another version migrated: a newer version's migrations run on
 * start; an older version (a rollback) starts too, and says in the log that the database is newer
 * than it knows.
 */
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { MIGRATIONS_DIR, openDatabase } from '../../src/db/database.js';
import { readMigrations } from '../../src/db/migrate.js';
import { createLogger } from '../../src/logger.js';
import { createTestDatabase } from '../helpers/database.js';

const db = await createTestDatabase('migrations');
afterAll(() => db.drop());

describe('a database migrated by another version', () => {
  it('an older version starting on it warns, naming the migrations it does not know; the same version does not', async () => {
    const lines: string[] = [];
    const logger = createLogger('warn', { write: (line: string) => void lines.push(line) });
    const open = async () => (await openDatabase({ url: db.url, dataDir: '/nonexistent', logger })).close();
    await open();
    expect(lines).toEqual([]);

    // What a newer version would have left: a migration this one has never seen.
    const next = (readMigrations(MIGRATIONS_DIR).at(-1)?.id ?? 0) + 1;
    const admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    await admin.query('INSERT INTO signoff.migrations (id, name) VALUES ($1, $2)', [
      next,
      `${next}_later.sql`,
    ]);
    await admin.end();

    await open();
    const warned = lines.map((l) => JSON.parse(l) as { msg: string; newer: string[] });
    expect(warned).toHaveLength(1);
    expect(warned[0]?.newer).toEqual([`${next}_later.sql`]);
    expect(warned[0]?.msg).toMatch(/migrated by a newer signoff .*run the newer version on it/);
  });
});
