/**
 * A checkpoint's sign-off rules on a real database: N of M approvals (concurrent clicks reach
 * the quorum once, a person counts once, the requester not at all when self-approval is off, a
 * reject ends it), escalation at the deadline then the final action, and timer decisions the
 * graph receives marked as automatic.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { timerJob } from '../../src/engine/timers.js';
import type { DeliveredEvent } from '../../src/engine/types.js';
import type { GoalPlanStateType } from '../../src/workflows/goal-plan/goal-plan-state.js';
import { harnessPerFile, testClock } from '../helpers/harness.js';
import { runSignoff } from '../helpers/processes.js';
import { until } from '../helpers/slack-thread.js';

const YAML = `workflows:
  pair:
    maxIterations: 1
    checkpoints:
      review:
        reviewers: [U0ALICE, U0BOB, U0CAROL, requester]
        approvals: 2
        allowSelfApproval: false
  specialist:
    checkpoints:
      review:
        reviewers: [U0ALICE]
        timeout: 2h
        onTimeout: escalate
        escalation:
          - { to: [U0LEAD], after: 1h }
          - { to: [U0CTO], after: 30m }
        finalAction: reject
  goal-plan:
    checkpoints:
      plan:
        timeout: 30m
        onTimeout: reject
`;

const clock = testClock();
const t = harnessPerFile('sign_off_rules', () => ({ yaml: YAML, clock }));

const eventsOf = async (taskId: string, type: DeliveredEvent['event']['type']) =>
  (await t.h.engine.events(taskId)).filter((e) => e.event.type === type);
const approve = (reviewId: string, id: string) =>
  t.h.engine.decide({ reviewId, actor: { id }, action: 'approve' });
const auditOf = async (reviewId: string) =>
  (
    await t.h.db.pool.query<{ actor: string; action: string }>(
      'SELECT actor, action FROM signoff.audit WHERE review_id = $1 ORDER BY id',
      [reviewId],
    )
  ).rows;

/** Moves the clock, lets the queue know, and waits for what the timers do. */
async function passTime(seconds: number, done: () => Promise<boolean>) {
  clock.advance(seconds);
  await t.h.engine.releaseDueTimers('cli');
  for (let i = 0; i < 400 && !(await done()); i++) await new Promise((r) => setTimeout(r, 25));
  expect(await done()).toBe(true);
}

describe('N of M approvals', () => {
  it('three reviewers clicking Approve at once on a 2-of-3 review: two count, the quorum is reached once, one resume', async () => {
    const task = await t.h.start('pair', 'pay the March invoices');
    const review = await t.h.nextReview(task.id);
    const results = await Promise.allSettled(
      ['U0ALICE', 'U0BOB', 'U0CAROL'].map((u) => approve(review.id, u)),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(2);
    const refused = results.find((r) => r.status === 'rejected');
    expect(refused?.reason).toMatchObject({ code: 'review_not_pending' });
    const done = await t.h.waitFor(task.id, (x) => x.status !== 'working' && x.status !== 'waiting');
    expect(done.status).toBe('done');
    await t.h.shown(task.id);
    const [decided] = await t.h.engine.reviews(task.id, 'decided');
    expect(decided?.decision?.approvals).toHaveLength(2);
    expect(new Set(decided?.decision?.approvals?.map((a) => a.by)).size).toBe(2);
    expect(await eventsOf(task.id, 'review_decided')).toHaveLength(1);
    expect(await eventsOf(task.id, 'review_progress')).toHaveLength(1);
    // One resume: the graph consumed one decision and ended once.
    expect(
      (await eventsOf(task.id, 'task_status')).filter(
        (e) => e.event.type === 'task_status' && e.event.status === 'done',
      ),
    ).toHaveLength(1);
    const trail = await auditOf(review.id);
    expect(
      trail
        .filter((a) => a.action === 'approve')
        .map((a) => a.actor)
        .sort(),
    ).toEqual(decided?.decision?.approvals?.map((a) => a.by).sort());
    expect(trail.filter((a) => a.action.startsWith('refused:'))).toHaveLength(1);
  });

  it('one person double-clicking Approve counts once; the review waits for someone else', async () => {
    const task = await t.h.start('pair', 'renew the office lease');
    const review = await t.h.nextReview(task.id);
    const both = await Promise.allSettled([approve(review.id, 'U0ALICE'), approve(review.id, 'U0ALICE')]);
    expect(both.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect(both.find((r) => r.status === 'rejected')?.reason).toMatchObject({ code: 'counted_already' });
    const [pending] = await t.h.engine.reviews(task.id, 'pending');
    expect(pending?.approvals.map((x) => x.by)).toEqual(['U0ALICE']);
    expect((await t.h.engine.getTask(task.id))?.status).toBe('waiting');
    // The requester may not count towards the quorum when self-approval is off.
    await expect(approve(review.id, 'ann')).rejects.toMatchObject({ code: 'not_allowed' });
    await approve(review.id, 'U0BOB');
    expect((await t.h.waitFor(task.id, (x) => x.status === 'done')).status).toBe('done');
  });

  it('a reject after one approval ends the review and the task, and the approval given is kept on record', async () => {
    const task = await t.h.start('pair', 'sign the vendor contract');
    const review = await t.h.nextReview(task.id);
    await approve(review.id, 'U0ALICE');
    await t.h.engine.decide({
      reviewId: review.id,
      actor: { id: 'U0CAROL' },
      action: 'reject',
      feedback: 'the liability cap is missing',
    });
    expect((await t.h.waitFor(task.id, (x) => x.status === 'rejected')).statusReason).toBe(
      'rejected at review',
    );
    const [decided] = await t.h.engine.reviews(task.id, 'decided');
    expect(decided).toMatchObject({ decidedBy: 'U0CAROL', approvals: [{ by: 'U0ALICE' }] });
    await expect(approve(review.id, 'U0BOB')).rejects.toMatchObject({ code: 'review_not_pending' });
  });

  it('a revise from any reviewer sends it back with that feedback; the next round needs its approvals again', async () => {
    const task = await t.h.start('pair', 'draft the offer letter');
    const review = await t.h.nextReview(task.id);
    await approve(review.id, 'U0ALICE');
    await t.h.engine.decide({
      reviewId: review.id,
      actor: { id: 'U0BOB' },
      action: 'revise',
      feedback: 'state the start date',
    });
    const next = await t.h.nextReview(task.id, review.id);
    expect(next.approvals).toEqual([]);
    await approve(next.id, 'U0ALICE');
    expect((await t.h.engine.getTask(task.id))?.status).toBe('waiting');
    await approve(next.id, 'U0CAROL');
    expect((await t.h.waitFor(task.id, (x) => x.status === 'done')).status).toBe('done');
  });
});

describe('escalation and honest timeouts', () => {
  it('at each deadline the review is escalated a step (new reviewer, new deadline, told; a stale deadline does nothing), then the final action applies, marked automatic', async () => {
    const task = await t.h.start('specialist', 'approve the Q3 budget');
    const review = await t.h.nextReview(task.id);
    // Before the deadline the escalation's reviewer may not decide.
    await expect(approve(review.id, 'U0LEAD')).rejects.toMatchObject({ code: 'not_allowed' });

    await passTime(2 * 3600 + 1, async () => (await eventsOf(task.id, 'review_escalated')).length === 1);
    const [escalated] = await eventsOf(task.id, 'review_escalated');
    expect(escalated?.event).toMatchObject({ to: ['U0LEAD'], reason: 'no decision within 2h' });
    const [pending] = await t.h.engine.reviews(task.id, 'pending');
    expect(pending?.settings.reviewers).toEqual(['U0ALICE', 'U0LEAD']);
    expect(Date.parse(pending?.dueAt ?? '')).toBe(clock.now().getTime() + 3600_000);
    expect((await t.h.engine.getTask(task.id))?.status).toBe('waiting');

    // The first deadline's job run again (a retry after a crash) is stale: nothing escalates twice.
    const stale = timerJob('cli', {
      reviewId: review.id,
      taskId: task.id,
      kind: 'deadline',
      n: 0,
      fireAt: new Date(clock.now().getTime() - 1000).toISOString(),
    });
    await t.h.runtime.schedule(t.h.db.pool, { ...stale, at: new Date() });
    t.h.runtime.wake(stale.queue);
    await until('the stale deadline ran', async () => {
      const r = await t.h.db.pool.query('SELECT 1 FROM signoff.jobs WHERE key = $1', [stale.key]);
      return r.rowCount ? undefined : true;
    });
    expect(await eventsOf(task.id, 'review_escalated')).toHaveLength(1);

    // The second step adds the next person, an hour later.
    await passTime(3600, async () => (await eventsOf(task.id, 'review_escalated')).length === 2);
    const second = (await eventsOf(task.id, 'review_escalated'))[1];
    expect(second?.event).toMatchObject({ to: ['U0CTO'], reason: 'no decision within 3h' });
    expect((await t.h.engine.reviews(task.id, 'pending'))[0]?.settings.reviewers).toEqual([
      'U0ALICE',
      'U0LEAD',
      'U0CTO',
    ]);

    await passTime(30 * 60, async () => (await t.h.engine.getTask(task.id))?.status === 'rejected');
    const ended = await t.h.engine.getTask(task.id);
    expect(ended?.statusReason).toBe(
      'rejected automatically: no decision within 210m, escalated included; this step rejects on timeout',
    );
    const [decided] = await t.h.engine.reviews(task.id, 'decided');
    expect(decided?.decision).toMatchObject({
      action: 'reject',
      by: 'signoff',
      automatic: expect.stringMatching(/^no decision within 210m/),
    });
    expect((await auditOf(review.id)).map((a) => a.action)).toEqual([
      'refused:approve',
      'escalate',
      'escalate',
      'reject',
    ]);
  });

  it('a decision made by the timer reaches the graph marked automatic: the agents read that nobody decided', async () => {
    const task = await t.h.start('goal-plan', 'move the wiki to Markdown');
    const goal = await t.h.nextReview(task.id);
    await approve(goal.id, 'bob');
    await t.h.nextReview(task.id, goal.id);
    await passTime(30 * 60 + 1, async () => (await t.h.engine.getTask(task.id))?.status === 'rejected');
    const state = (await t.h.checkpointer.getTuple({ configurable: { thread_id: task.id } }))?.checkpoint
      .channel_values as unknown as GoalPlanStateType;
    const last = state.collaborationHistory.at(-1);
    expect(last?.content).toBe(
      'no one (no decision within 30m; this step rejects on timeout) rejected the plan',
    );
    expect((await t.h.engine.getTask(task.id))?.statusReason).toMatch(
      /^rejected automatically: no decision within 30m/,
    );
  });
});

describe('races and the terminal', () => {
  it('an escalation at the deadline takes the task lock first: a click holding it meanwhile never deadlocks with it', async () => {
    const task = await t.h.start('specialist', 'approve the travel budget');
    const review = await t.h.nextReview(task.id);
    // A decision in flight: the task row locked (as decide does first), the review not yet written.
    const click = await t.h.db.pool.connect();
    try {
      await click.query('BEGIN');
      await click.query('SELECT 1 FROM signoff.tasks WHERE id = $1 FOR UPDATE', [task.id]);
      clock.advance(2 * 3600 + 1);
      await t.h.engine.releaseDueTimers('cli');
      // The escalation now waits for that lock (had it written the review first, it would hold
      // the review's row while waiting, and the click's write below would deadlock with it).
      await until('the escalation waits for the task lock', async () => {
        const r = await t.h.db.pool.query(
          `SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND pid <> pg_backend_pid()
             AND (query ILIKE '%review_escalated%' OR query ILIKE '%signoff.tasks%FOR UPDATE%')`,
        );
        return r.rowCount ? true : undefined;
      });
      await click.query("SET LOCAL lock_timeout = '5s'");
      await click.query(`UPDATE signoff.reviews SET due_at = due_at WHERE id = $1`, [review.id]);
      await click.query('COMMIT');
    } finally {
      click.release();
    }
    await until('escalated', async () =>
      (await eventsOf(task.id, 'review_escalated')).length ? true : undefined,
    );
    await approve(review.id, 'U0LEAD');
    expect((await t.h.waitFor(task.id, (x) => x.status === 'done')).status).toBe('done');
  });

  it('in the terminal, an approval of a 2-approval review is recorded and the session says it waits for others', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'signoff-quorum-'));
    const file = join(dir, 'signoff.yml');
    writeFileSync(
      file,
      'workflows:\n  pair:\n    maxIterations: 1\n    checkpoints:\n      review: { approvals: 2 }\n',
    );
    const r = await runSignoff(
      ['run', 'pair', 'write the launch post'],
      { DATABASE_URL: t.db.url, SIGNOFF_CONFIG: file },
      'approve\napprove\n',
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('(0 of 2 approvals; any reject ends the review)');
    expect(r.stdout).toMatch(
      /Your approval is recorded \(1 of 2 approvals: cli:[^)]+\); the review waits for other reviewers/,
    );
    expect(r.stdout.trim().split('\n').at(-1)).toMatch(/^task \S+: waiting for review$/);
    // Asked once: the second "approve" was never read as a second approval.
    expect(r.stdout.match(/┌─ Review/g)).toHaveLength(1);
  });
});
