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
/** The retention job: due now, due in a day (the next run scheduled), or held by a worker. */
const retentionJobs = async () =>
  (
    await pool.query<{ state: string }>(
      `SELECT CASE WHEN holder IS NOT NULL THEN 'held' WHEN due_at <= now() THEN 'due'
                   WHEN due_at > now() + interval '23 hours' THEN 'tomorrow' ELSE 'later' END AS state
       FROM signoff.jobs WHERE queue = $1 AND key = 'retention'`,
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
    // The daily run a server scheduled.
    await h.runtime.schedule(h.db.pool, {
      queue: RETENTION_QUEUE,
      key: 'retention',
      at: new Date(Date.now() + 3600_000),
    });
  } finally {
    await h.close();
  }
  await pool.query(`UPDATE signoff.tasks SET updated_at = now() - interval '3 days' WHERE id = $1`, [taskId]);
  // And it is due now.
  await pool.query(`UPDATE signoff.jobs SET due_at = now() WHERE queue = $1`, [RETENTION_QUEUE]);
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
    expect(await retentionJobs()).toEqual(['due']);
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
        return jobs.length === 1 && jobs[0] === 'tomorrow' ? true : undefined;
      });
      // The task and its decision stay.
      expect(await count('SELECT count(*) AS n FROM signoff.reviews WHERE task_id = $1', [taskId])).toBe(1);
    } finally {
      await service.stop();
    }
  });
});
