/**
 * Review timeouts and reminders, with a clock the tests move: a reminder at half time, the
 * deadline's action through the exactly-once path, nothing for a review decided in time, a
 * timer that fires after a restart, and no approval by a timer of a tool call or of content
 * whose card could not be shown.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeliveredEvent } from '../../src/engine/types.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { type Harness, openHarness, testClock } from '../helpers/harness.js';
import { until } from '../helpers/slack-thread.js';

// The default approves on timeout: it reaches the tool calls of mail (a module's graph), which
// the config cannot refuse there as it does under checkpoints.tool_call.
const YAML = `defaults:
  checkpoint:
    timeout: 2h
    onTimeout: approve
workflows:
  mail:
    module: ./test/fixtures/hitl-graph.ts
  pair:
    maxIterations: 1
    checkpoints:
      review:
        timeout: 2h
        onTimeout: approve
  specialist:
    checkpoints:
      review:
        timeout: 1d
        onTimeout: cancel
        reminders: [12h, 1h]
`;

let db: TestDatabase;
let h: Harness;
const clock = testClock();
/** Tasks whose card the surface refuses for good. */
const refusedCards = new Set<string>();
const refuse = (e: DeliveredEvent) => e.event.type === 'review_requested' && refusedCards.has(e.taskId);

beforeAll(async () => {
  db = await createTestDatabase('timers');
  h = await openHarness({ url: db.url, yaml: YAML, clock, refuse });
});
afterAll(async () => {
  await h?.close();
  await db?.drop();
});

const eventsOf = async (taskId: string, type: DeliveredEvent['event']['type']) =>
  (await h.engine.events(taskId)).filter((e) => e.event.type === type);

/** The reminder a review's deadline sent instead of its action, if it did. */
const overdueReminder = async (taskId: string) =>
  (await eventsOf(taskId, 'review_reminder')).find((e) => (e.event as { overdue?: boolean }).overdue);

/** Moves the clock, lets the queue know, and waits for what the timers do. */
async function passTime(seconds: number, until: () => Promise<boolean>) {
  clock.advance(seconds);
  await h.engine.releaseDueTimers('cli');
  for (let i = 0; i < 400 && !(await until()); i++) await new Promise((r) => setTimeout(r, 25));
  expect(await until()).toBe(true);
}

describe('review timers', () => {
  it('reminds at half time, then applies the default action at the deadline', async () => {
    const task = await h.start('pair', 'write the release notes');
    const review = await h.nextReview(task.id);
    expect(review.dueAt).toBe(new Date(clock.now().getTime() + 2 * 3600_000).toISOString());

    await passTime(3600 + 1, async () => (await eventsOf(task.id, 'review_reminder')).length === 1);
    const [reminder] = await eventsOf(task.id, 'review_reminder');
    expect(reminder?.event).toMatchObject({ n: 1, overdue: false });
    expect((await h.engine.getTask(task.id))?.status).toBe('waiting');

    await passTime(3600, async () => (await h.engine.getTask(task.id))?.status === 'done');
    const [decided] = await h.engine.reviews(task.id, 'decided');
    expect(decided?.decision).toMatchObject({
      action: 'approve',
      by: 'signoff',
      automatic: 'no decision within 2h; this step approves on timeout',
    });
  });

  it('a review decided before its deadline is never touched by its timers', async () => {
    const task = await h.start('pair', 'check the totals');
    const review = await h.nextReview(task.id);
    await h.engine.decide({ reviewId: review.id, actor: { id: 'bob' }, action: 'approve' });
    await h.waitFor(task.id, (t) => t.status === 'done');
    const before = (await h.engine.events(task.id)).length;
    clock.advance(3 * 3600);
    expect(await h.engine.releaseDueTimers('cli')).toBeGreaterThanOrEqual(2);
    // The released timers run (each job, once finished, is gone): they find the review decided
    // and do nothing.
    await until('both timers ran', async () => {
      const left = await h.db.pool.query(
        "SELECT 1 FROM signoff.jobs WHERE queue = 'signoff-timer-cli' AND data->>'reviewId' = $1",
        [review.id],
      );
      return left.rowCount === 0 ? true : undefined;
    });
    expect((await h.engine.events(task.id)).length).toBe(before);
    expect((await h.engine.reviews(task.id, 'decided'))[0]?.decidedBy).toBe('bob');
  });

  it('reminders at the configured times; cancel at the deadline closes the review and says why', async () => {
    const task = await h.start('specialist', 'audit the travel claims');
    await h.nextReview(task.id);
    await passTime(12 * 3600 + 1, async () => (await eventsOf(task.id, 'review_reminder')).length === 1);
    await passTime(11 * 3600, async () => (await eventsOf(task.id, 'review_reminder')).length === 2);
    await passTime(3600, async () => (await h.engine.getTask(task.id))?.status === 'cancelled');
    expect((await h.engine.getTask(task.id))?.statusReason).toBe('no decision within 1d');
    const [closed] = await eventsOf(task.id, 'review_closed');
    expect(closed?.event).toMatchObject({ by: 'signoff', reason: 'no decision within 1d' });
  });

  it('two timers the runtime runs early both wait again, under their own keys, and both fire', async () => {
    const task = await h.start('pair', 'reconcile the ledgers');
    const review = await h.nextReview(task.id);
    const timers = `queue = 'signoff-timer-cli' AND data->>'reviewId' = $1`;
    // The runtime runs both (the reminder and the deadline) before the engine's clock says so.
    const early = await h.db.pool.query(
      `UPDATE signoff.jobs SET due_at = now() WHERE ${timers} AND holder IS NULL`,
      [review.id],
    );
    expect(early.rowCount).toBe(2);
    const waitingAgain = async () =>
      (
        await h.db.pool.query(
          `SELECT count(*)::int AS n FROM signoff.jobs WHERE ${timers} AND holder IS NULL AND due_at > now() + interval '1 minute'`,
          [review.id],
        )
      ).rows[0].n;
    for (let i = 0; i < 200 && (await waitingAgain()) < 2; i++) await new Promise((r) => setTimeout(r, 25));
    expect(await waitingAgain()).toBe(2);
    await passTime(3600 + 1, async () => (await eventsOf(task.id, 'review_reminder')).length === 1);
    await passTime(3600, async () => (await h.engine.getTask(task.id))?.status === 'done');
    expect((await h.engine.reviews(task.id, 'decided'))[0]?.decision?.automatic).toContain(
      'approves on timeout',
    );
  });

  it('a tool call is never approved by its deadline: it keeps waiting for a person, the thread and the audit say why', async () => {
    const task = await h.start('mail', 'one');
    const review = await h.nextReview(task.id);
    const overdue = () => overdueReminder(task.id);
    await passTime(2 * 3600 + 1, async () => Boolean(await overdue()));
    expect((await overdue())?.event).toMatchObject({
      withheld: 'Not approved automatically: a tool call goes ahead only when a person approves it.',
    });
    expect((await h.engine.reviews(task.id, 'pending')).map((r) => r.id)).toEqual([review.id]);
    expect((await h.engine.getTask(task.id))?.status).toBe('waiting');
    const trail = [];
    for await (const entry of h.engine.auditTrail({ taskId: task.id })) trail.push(entry);
    expect(trail.find((e) => e.who === 'signoff')).toMatchObject({
      action: 'approve',
      result: 'refused',
      code: 'approval_withheld',
      reason: 'Not approved automatically: a tool call goes ahead only when a person approves it.',
    });
    // A person still decides it, and only then does the call run.
    await h.engine.decide({ reviewId: review.id, actor: { id: 'bob' }, action: 'approve' });
    await h.waitFor(task.id, (t) => t.status === 'done');
    expect((await h.engine.reviews(task.id, 'decided'))[0]?.decision).toMatchObject({ by: 'bob' });
  });

  it('content whose card could not be shown is never approved by its deadline', async () => {
    const task = await h.start('pair', 'write the board letter');
    refusedCards.add(task.id);
    await until('the card refused for good', async () =>
      (await eventsOf(task.id, 'delivery_failed')).length ? true : undefined,
    );
    const [review] = await h.engine.reviews(task.id, 'pending');
    const overdue = () => overdueReminder(task.id);
    await passTime(2 * 3600 + 1, async () => Boolean(await overdue()));
    expect((await overdue())?.event).toMatchObject({
      withheld:
        'Not approved automatically: its card could not show what it asks, so nobody saw what would be approved.',
    });
    expect((await h.engine.reviews(task.id, 'pending')).map((r) => r.id)).toEqual([review?.id]);
    expect((await h.engine.getTask(task.id))?.status).toBe('waiting');
    await h.engine.decide({ reviewId: review?.id as string, actor: { id: 'bob' }, action: 'reject' });
    await h.waitFor(task.id, (t) => t.status === 'rejected');
  });

  it('a timer fires after a restart', async () => {
    const task = await h.start('pair', 'plan the migration');
    await h.nextReview(task.id);
    await h.close();
    clock.advance(2 * 3600 + 1);
    h = await openHarness({ url: db.url, yaml: YAML, clock });
    await passTime(0, async () => (await h.engine.getTask(task.id))?.status === 'done');
    expect((await h.engine.reviews(task.id, 'decided'))[0]?.decision?.automatic).toContain(
      'approves on timeout',
    );
  });
});
