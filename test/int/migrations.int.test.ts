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

  it("033: a proposal's insight review waiting from before says its Search more goes on (rejectGoesOn), so no list decides it and its confirmation does not say the task ends", async () => {
    const logger = createLogger('silent');
    const open = async () => (await openDatabase({ url: db.url, dataDir: '/nonexistent', logger })).close();
    await open();
    const admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    try {
      await admin.query(
        `INSERT INTO signoff.tasks (id, workflow, surface, text, requester) VALUES ('cli-old', 'proposal', 'cli', 'heat pumps', 'cli:me')`,
      );
      const request = (kind: string) => ({
        kind,
        title: 'Is this the gap to work on? (cycle 1)',
        body: 'The gap.',
        actions: ['approve', 'revise', 'reject'],
        labels: { approve: 'Continue', revise: 'Refine the gap', reject: 'Search more' },
      });
      for (const [id, kind, status] of [
        ['r-waiting', 'insight_review', 'pending'],
        ['r-decided', 'insight_review', 'decided'],
        ['r-other', 'draft_review', 'pending'],
      ])
        await admin.query(
          `INSERT INTO signoff.reviews (id, task_id, checkpoint, request, settings, status) VALUES ($1, 'cli-old', $2, $3, '{}', $4)`,
          [id, kind, request(kind as string), status],
        );
      // As a database from before it: the migration not run yet.
      await admin.query(`DELETE FROM signoff.migrations WHERE name = '033_reject_goes_on.sql'`);
      await open();
      const { rows } = await admin.query<{ id: string; goes: string | null }>(
        `SELECT id, request->>'rejectGoesOn' AS goes FROM signoff.reviews WHERE task_id = 'cli-old' ORDER BY id`,
      );
      expect(rows).toEqual([
        { id: 'r-decided', goes: null },
        { id: 'r-other', goes: null },
        {
          id: 'r-waiting',
          goes: 'The agents search again (for what you write, if anything); the task goes on.',
        },
      ]);
    } finally {
      await admin.end();
    }
  });
});
