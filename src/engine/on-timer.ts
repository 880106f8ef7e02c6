/**
 * What a review's timer does when it runs (see timers.ts for when): nothing once the review is
 * closed; otherwise a reminder, or the deadline's action through the same paths as a person's.
 */
import type pg from 'pg';
import { inTransaction } from '../db/queryable.js';
import type { Logger } from '../logger.js';
import { type Decided, type DecideInput, DecisionRefused } from './api.js';
import type { Delivery } from './delivery.js';
import { eventKey } from './event-keys.js';
import { record } from './event-store.js';
import { getReviewWithTask } from './review-rows.js';
import { escalateReview } from './review-updates.js';
import type { After, Runtime } from './runtime/index.js';
import { atDeadline, type DeadlineStep, escalatedReviewers, stepsTaken } from './sign-off-rules.js';
import { getTask } from './task-rows.js';
import { formatDuration, isDue, type TimerJob, timerJob, timerTime } from './timers.js';
import { type Actor, type Clock, type Review, SYSTEM_ACTOR, type Task } from './types.js';

export interface TimerHandlerDeps {
  pool: pg.Pool;
  runtime: Runtime;
  delivery: Delivery;
  clock: Clock;
  logger: Logger;
  /** A decision the engine makes itself, saying why (`automatic`): no actor is checked. */
  decideAutomatically(input: DecideInput, why: string): Promise<Decided>;
  cancel(taskId: string, actor: Actor, options: { reason: string; system: true }): Promise<unknown>;
}

export function createTimerHandler(deps: TimerHandlerDeps) {
  return async function onTimer(job: TimerJob): Promise<After> {
    const found = await getReviewWithTask(deps.pool, job.reviewId);
    if (found?.review.status !== 'pending') return undefined;
    const time = await timerTime(deps.pool, deps.clock);
    // Run early (released by hand): it waits again, counted from the database's now (the clock
    // the runtime runs it by), and at least a second: a job must never come straight back.
    if (!isDue(job, time.now)) {
      const wait = Math.max(1000, Date.parse(job.fireAt) - time.now.getTime());
      return { againAt: new Date(time.database.getTime() + wait) };
    }
    await fire(job, found.review, found.task);
    return undefined;
  };

  async function fire(job: TimerJob, review: Review, task: Task): Promise<void> {
    const remind = async (overdue: boolean, withheld?: string) => {
      const key = overdue ? eventKey.overdue(review.id) : eventKey.reminder(review.id, job.n);
      await record(deps.pool, task.id, key, {
        type: 'review_reminder',
        review,
        n: job.n,
        overdue,
        ...(withheld ? { withheld } : {}),
      });
      // Delivered on its own path: a reminder never waits for the task's run.
      await deps.delivery.kick(task);
    };
    if (job.kind === 'remind') return remind(false);
    // A deadline of an earlier escalation step has had its turn (a retried job, run late).
    if (job.n !== stepsTaken(review.settings)) return;
    const step = atDeadline(review.settings);
    if (step.kind === 'escalate') return escalate(review, task, job, step);
    const { action } = step;
    const late = `no decision within ${formatDuration(step.waitedSeconds)}${stepsTaken(review.settings) ? ', escalated included' : ''}`;
    const actor = { id: SYSTEM_ACTOR };
    if (action === 'cancel') {
      await deps.cancel(task.id, actor, { reason: late, system: true });
      return;
    }
    if (action === 'remind' || !review.request.actions.includes(action)) return remind(true);
    try {
      await deps.decideAutomatically(
        { reviewId: review.id, actor, action },
        `${late}; this step ${action === 'approve' ? 'approves' : 'rejects'} on timeout`,
      );
    } catch (error) {
      if (!(error instanceof DecisionRefused)) throw error;
      // What a timer may never approve (a tool call; content nobody could see) keeps waiting for
      // a person: the thread says why, as the audit does (the refusal is recorded).
      if (error.code === 'approval_withheld') return remind(true, error.message);
      // Otherwise refused only when a person decided in the meantime, which is as it should be.
      deps.logger.info({ review: review.id, code: error.code }, 'timeout found the review decided');
    }
  }

  /**
   * An escalation step: new reviewers, a new deadline (its timer sent in the same transaction, so
   * a crash loses neither), and the surfaces told whom to ping. The task row is locked first, as
   * every writer of a task and its reviews does: a click or a cancel at the deadline waits for
   * this (or this for it), never deadlocks with it.
   */
  async function escalate(
    review: Review,
    task: Task,
    job: TimerJob,
    step: Extract<DeadlineStep, { kind: 'escalate' }>,
  ): Promise<void> {
    const dueAt = new Date(deps.clock.now().getTime() + step.afterSeconds * 1000);
    const reason = `no decision within ${formatDuration(step.waitedSeconds)}`;
    const escalated = await inTransaction(deps.pool, async (db) => {
      await getTask(db, task.id, true);
      // Then the review as it is now (decided, cancelled or escalated while this waited).
      const now = (await getReviewWithTask(db, review.id))?.review;
      if (now?.status !== 'pending' || stepsTaken(now.settings) !== step.step - 1) return undefined;
      const done = await escalateReview(db, review.id, {
        step: step.step,
        to: step.to,
        reviewers: escalatedReviewers(now.settings.reviewers, step.to),
        dueAt,
        reason,
      });
      if (!done) return undefined;
      const next: TimerJob = { ...job, kind: 'deadline', n: step.step, fireAt: dueAt.toISOString() };
      await deps.runtime.schedule(db, timerJob(task.surface, next));
      return done;
    });
    if (escalated) await deps.delivery.kick(task);
  }
}
