/**
 * One run per task, whatever happens to connections and leases: connections killed mid-run, a
 * second engine trying the same task, a lease taken away before the run could apply its result,
 * and Approve racing Cancel.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { advanceQueue, runJob } from '../../src/engine/job-names.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { type Harness, openHarness } from '../helpers/harness.js';
import { scriptedWith, thinkUnlessAborted } from '../helpers/slack-service.js';
import { until } from '../helpers/slack-thread.js';

const YAML = 'workflows:\n  pair:\n    maxIterations: 1\n';
const LEASES = { SIGNOFF_LEASE_SECONDS: '2' };

let db: TestDatabase;
let h: Harness;
let other: Harness;
/** What each model call did, in order: per task, which agent was asked. */
const calls: { task: string; agent: string }[] = [];
const hooks: ((task: string, signal?: AbortSignal) => Promise<void>)[] = [];

/** What a model call was given, as one text (the task's own text is in it). */
const taskIn = (input: { content: unknown }[]) => input.map((m) => String(m.content)).join('\n');

beforeAll(async () => {
  db = await createTestDatabase('leases');
  const modelFor = scriptedWith(async (agent, input, options) => {
    const task = taskIn(input as never);
    calls.push({ task, agent });
    for (const hook of hooks) await hook(task, options?.signal);
  });
  h = await openHarness({ url: db.url, yaml: YAML, env: LEASES, modelFor });
  // A second engine on the same database, as a second worker process would be.
  other = await openHarness({ url: db.url, yaml: YAML, env: LEASES, modelFor, delivered: h.delivered });
});
afterAll(async () => {
  await other?.close();
  await h?.close();
  await db?.drop();
});

const killConnections = () =>
  h.db.pool.query(
    `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
     WHERE datname = current_database() AND pid <> pg_backend_pid()`,
  );

describe('run leases', () => {
  it('connections killed mid-run and a second engine trying the task: the step runs once, one review', async () => {
    const text = 'draft the churn analysis';
    hooks.push(async (task, signal) => {
      if (task.includes(text)) await thinkUnlessAborted(1500, signal);
    });
    try {
      const task = await h.start('pair', text);
      for (let i = 0; i < 200 && !calls.some((c) => c.task.includes(text)); i++)
        await new Promise((r) => setTimeout(r, 10));
      await killConnections();
      // The other engine is told to run the same task while the first is still at it (its pool
      // may hand out a killed connection first).
      const nudge = async () => {
        await other.runtime.schedule(other.db.pool, runJob(task));
        other.runtime.wake(advanceQueue('cli'));
      };
      for (let i = 0; i < 20; i++)
        if (
          await nudge().then(
            () => true,
            () => false,
          )
        )
          break;
      await h.nextReview(task.id);
      // Both engines have had every chance to run it again: no run of it is asked for or
      // under way.
      await until('nothing left to run the task', async () => {
        const left = await h.db.pool.query<{ n: number }>(
          `SELECT count(*) AS n FROM signoff.jobs WHERE key = 'run:' || $1`,
          [task.id],
        );
        return Number(left.rows[0]?.n) === 0 ? true : undefined;
      });
      expect(calls.filter((c) => c.task.includes(text))).toHaveLength(1);
      expect(await h.engine.reviews(task.id)).toHaveLength(1);
      const said = (await h.engine.events(task.id)).filter((e) => e.event.type === 'agent_said');
      expect(said).toHaveLength(1);
      const checkpoints = await h.db.pool.query(
        'SELECT count(*)::int AS n FROM langgraph.checkpoints WHERE thread_id = $1',
        [task.id],
      );
      expect(checkpoints.rows[0].n).toBe(1);
    } finally {
      hooks.length = 0;
    }
  });

  it('a run whose lease was taken applies nothing, not even its checkpoint; the task reaches its review once the lease is free', async () => {
    const text = 'summarise the board minutes';
    // Every checkpoint that commits, with the lease it was written under (pruning deletes the
    // table's older rows; this keeps them).
    await h.db.pool.query(`
      CREATE TABLE IF NOT EXISTS public.checkpoint_log (thread_id text, step int, holder text);
      CREATE OR REPLACE FUNCTION public.log_checkpoint() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO public.checkpoint_log VALUES (NEW.thread_id, (NEW.metadata->>'step')::int, NEW.metadata->>'signoff_lease');
        RETURN NEW;
      END $$;
      CREATE OR REPLACE TRIGGER log_checkpoint AFTER INSERT ON langgraph.checkpoints
        FOR EACH ROW EXECUTE FUNCTION public.log_checkpoint();`);
    let stolen: { holder: string; step: number } | undefined;
    hooks.push(async (task) => {
      if (!task.includes(text) || stolen) return;
      // The lease is taken away while the model answers (as if this process had stalled past
      // it): the step finishes, but its checkpoint may not land.
      const r = await h.db.pool.query<{ holder: string; step: number }>(
        `UPDATE signoff.jobs l SET holder = 'thief', expires_at = now() + interval '1 second'
         FROM (SELECT key, holder FROM signoff.jobs WHERE key LIKE 'run:%' AND holder IS NOT NULL FOR UPDATE) old
         WHERE l.key = old.key
         RETURNING old.holder, (SELECT max(step) FROM public.checkpoint_log c WHERE 'run:' || c.thread_id = old.key) AS step`,
      );
      stolen = r.rows[0];
    });
    try {
      const task = await h.start('pair', text);
      const review = await h.nextReview(task.id);
      expect(stolen?.holder).toBeTruthy();
      expect(await h.engine.reviews(task.id)).toEqual([review]);
      // The stalled run wrote nothing after its lease was taken; the next run went on from its
      // last checkpoint, and took up the step's saved result (the model was not asked again).
      const log = await h.db.pool.query<{ step: number; holder: string }>(
        'SELECT step, holder FROM public.checkpoint_log WHERE thread_id = $1',
        [task.id],
      );
      const stale = log.rows.filter((c) => c.holder === stolen?.holder).map((c) => c.step);
      expect(Math.max(...stale)).toBe(stolen?.step);
      expect(log.rows.some((c) => c.holder !== stolen?.holder && c.step > (stolen?.step ?? 0))).toBe(true);
      expect(calls.filter((c) => c.task.includes(text))).toHaveLength(1);
    } finally {
      hooks.length = 0;
    }
  });

  it('Approve and Cancel at the same moment, 50 times: no deadlock, one outcome each: cancelled, or done with the cancel refused when the approved run ended first', async () => {
    const outcomes = { approvedFirst: 0, cancelledFirst: 0 };
    for (let batch = 0; batch < 10; batch++) {
      await Promise.all(
        Array.from({ length: 5 }, async (_, i) => {
          const task = await h.start('pair', `race ${batch}-${i}`);
          const review = await h.nextReview(task.id);
          const [decided, cancelled] = await Promise.allSettled([
            h.engine.decide({ reviewId: review.id, actor: { id: 'bob' }, action: 'approve' }),
            other.engine.cancel(task.id, { id: 'ann' }),
          ]);
          // Refused only as a review the cancel closed first.
          if (decided.status === 'rejected')
            expect(decided.reason).toMatchObject({ code: 'review_not_pending' });
          const approved = decided.status === 'fulfilled';
          if (approved) outcomes.approvedFirst++;
          else outcomes.cancelledFirst++;
          const [after] = await h.engine.reviews(task.id);
          expect(after?.status).toBe(approved ? 'decided' : 'cancelled');
          const ended = await h.waitFor(task.id, (t) => t.status !== 'working');
          if (cancelled.status === 'fulfilled') {
            expect(ended.status).toBe('cancelled');
          } else {
            // On a loaded machine the approved run can end the task before the cancel reaches it:
            // then, and only then, the cancel is refused with the sentence that says so.
            expect(approved).toBe(true);
            expect(ended.status).toBe('done');
            expect(String(cancelled.reason)).toContain('This task has already ended (done).');
          }
        }),
      );
    }
    expect(outcomes.approvedFirst + outcomes.cancelledFirst).toBe(50);
  });

  it('a task left working with no run job (its row deleted by hand) is run again by the sweep within a lease length or two', async () => {
    const task = await h.start('pair', 'reconcile the vendor list');
    await h.nextReview(task.id);
    // As if its run had vanished: working, and nothing asked for or under way.
    await h.db.pool.query("UPDATE signoff.tasks SET status = 'working' WHERE id = $1", [task.id]);
    await h.db.pool.query('DELETE FROM signoff.jobs WHERE key = $1', [`run:${task.id}`]);
    const started = Date.now();
    await h.waitFor(task.id, (t) => t.status === 'waiting', 10_000);
    expect(Date.now() - started).toBeLessThan(6000);
  });
});
