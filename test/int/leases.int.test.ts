/**
 * One run per task, whatever happens to connections and leases: connections killed mid-run, a
 * second engine trying the same task, a lease taken away before the run could apply its result,
 * and Approve racing Cancel.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { type Harness, openHarness } from '../helpers/harness.js';
import { scriptedWith, thinkUnlessAborted } from '../helpers/slack-service.js';

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
      const nudge = () =>
        other.queue.send('signoff-advance-cli', { taskId: task.id }, { singletonKey: task.id });
      for (let i = 0; i < 20; i++)
        if (
          await nudge().then(
            () => true,
            () => false,
          )
        )
          break;
      await h.nextReview(task.id);
      // Both engines have had every chance to run it again.
      await new Promise((r) => setTimeout(r, 1500));
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

  it('a run whose lease was taken applies nothing; the task reaches its review once the lease is free', async () => {
    const text = 'summarise the board minutes';
    let stolenUntil: Date | undefined;
    hooks.push(async (task) => {
      if (!task.includes(text) || stolenUntil) return;
      const r = await h.db.pool.query<{ expires_at: Date }>(
        `UPDATE signoff.leases SET holder = 'thief', expires_at = now() + interval '1 second'
         WHERE key LIKE 'run:%' RETURNING expires_at`,
      );
      stolenUntil = r.rows[0]?.expires_at;
    });
    try {
      const task = await h.start('pair', text);
      const review = await h.nextReview(task.id);
      expect(stolenUntil, JSON.stringify(calls)).toBeInstanceOf(Date);
      // The first run finished its step, but its result landed only after the thief's lease ended.
      expect(new Date(review.createdAt).getTime()).toBeGreaterThanOrEqual((stolenUntil as Date).getTime());
      expect(calls.filter((c) => c.task.includes(text))).toHaveLength(1);
      expect(await h.engine.reviews(task.id)).toHaveLength(1);
    } finally {
      hooks.length = 0;
    }
  });

  it('Approve and Cancel at the same moment, 50 times: no deadlock, and every task ends cancelled', async () => {
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
          expect(decided.status, String((decided as PromiseRejectedResult).reason)).toBe('fulfilled');
          expect(cancelled.status, String((cancelled as PromiseRejectedResult).reason)).toBe('fulfilled');
          const approved = decided.status === 'fulfilled' && decided.value.ok;
          if (approved) outcomes.approvedFirst++;
          else outcomes.cancelledFirst++;
          const [after] = await h.engine.reviews(task.id);
          expect(after?.status).toBe(approved ? 'decided' : 'cancelled');
          const ended = await h.waitFor(task.id, (t) => t.status !== 'working');
          expect(ended.status).toBe('cancelled');
        }),
      );
    }
    expect(outcomes.approvedFirst + outcomes.cancelledFirst).toBe(50);
  });
});
