/**
 * Retention runs where the server runs, with the server's settings: a terminal command against
 * the same database (an operator's laptop, `signoff audit` against production) never purges,
 * whatever age its own environment gives, even when the daily run is due; a worker does.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RETENTION_QUEUE } from '../../src/engine/retention.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { FakeSlack } from '../helpers/fake-slack.js';
import { openHarness } from '../helpers/harness.js';
import { runSignoff } from '../helpers/processes.js';
import { startTestSlack } from '../helpers/slack-service.js';
import { until } from '../helpers/slack-thread.js';

let db: TestDatabase;
let pool: pg.Pool;
const slack = new FakeSlack();
let taskId: string;

const count = async (sql: string, args: unknown[] = []) =>
  Number((await pool.query<{ n: string }>(sql, args)).rows[0]?.n);
const checkpoints = () =>
  count('SELECT count(*) AS n FROM langgraph.checkpoints WHERE thread_id = $1', [taskId]);
const retentionJobs = async () =>
  (
    await pool.query<{ state: string }>(
      `SELECT state FROM pgboss.job WHERE name = $1 AND singleton_key = 'retention' ORDER BY created_on`,
      [RETENTION_QUEUE],
    )
  ).rows.map((j) => j.state);

beforeAll(async () => {
  db = await createTestDatabase('retention_roles');
  pool = new pg.Pool({ connectionString: db.url, max: 2 });
  await slack.start();
  // A task that finished three days ago.
  const h = await openHarness({ url: db.url, yaml: 'workflows:\n  pair:\n    maxIterations: 1\n' });
  try {
    const task = await h.start('pair', 'write the data-retention notice');
    taskId = task.id;
    const review = await h.nextReview(task.id);
    await h.engine.decide({ reviewId: review.id, actor: { id: 'bob' }, action: 'approve' });
    await h.waitFor(task.id, (t) => t.status === 'done');
    await h.shown(task.id);
    // The daily run a server scheduled (sent once: a server may have done it already).
    await h.queue.send(
      RETENTION_QUEUE,
      {},
      { singletonKey: 'retention', startAfter: new Date(Date.now() + 3600_000) },
    );
  } finally {
    await h.close();
  }
  await pool.query(`UPDATE signoff.tasks SET updated_at = now() - interval '3 days' WHERE id = $1`, [taskId]);
  // And it is due now.
  await pool.query(`UPDATE pgboss.job SET start_after = now() WHERE name = $1 AND state = 'created'`, [
    RETENTION_QUEUE,
  ]);
});
afterAll(async () => {
  await pool?.end();
  await slack.stop();
  await db?.drop();
});

describe('retention runs in server roles only', () => {
  it('a terminal command with a one-day age in its environment purges nothing, and leaves the due run to a server', async () => {
    expect(await checkpoints()).toBeGreaterThan(0);
    const r = await runSignoff(['audit', taskId], { DATABASE_URL: db.url, SIGNOFF_RETENTION_DAYS: '1' });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('"action":"approve"');
    expect(await checkpoints()).toBeGreaterThan(0);
    expect(await retentionJobs()).toEqual(['created']);
  });

  it('a worker purges with its own settings', async () => {
    const { service } = await startTestSlack({
      url: db.url,
      slack,
      env: { SIGNOFF_ROLE: 'worker', SIGNOFF_RETENTION_DAYS: '1' },
    });
    try {
      await until('the worker purged the old task', async () =>
        (await checkpoints()) === 0 ? true : undefined,
      );
      await until('its run done, the next one scheduled', async () => {
        const jobs = await retentionJobs();
        return jobs.includes('completed') && jobs.includes('created') ? true : undefined;
      });
      // The task and its decision stay.
      expect(await count('SELECT count(*) AS n FROM signoff.reviews WHERE task_id = $1', [taskId])).toBe(1);
    } finally {
      await service.stop();
    }
  });
});
