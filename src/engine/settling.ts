/**
 * Settling a run: what it decided lands in one transaction behind the run's fence. Its pending
 * interrupts become reviews (the task waits), or the task finishes.
 *
 * A settling that fails rolls back and its job is retried. One that keeps failing for a reason
 * that is not a lost connection (a request the database refuses, a row too large, a workflow's
 * outcome that throws) would be retried for ever while the task shows "working": after a few
 * attempts of its job the task fails instead, with a sentence and Retry, and the error is logged.
 */
import type { StateSnapshot } from '@langchain/langgraph';
import type pg from 'pg';
import { checkpointSettings, type WorkflowsConfig } from '../config/workflows.js';
import { inTransaction, isConnectionError, type Queryable } from '../db/queryable.js';
import { isSignoffError } from '../errors.js';
import { FAILURE_SENTENCES } from '../failures.js';
import type { Logger } from '../logger.js';
import { contentHash } from '../workflows/protocol/content-hash.js';
import { toReviewRequest } from '../workflows/protocol/review-request.js';
import { pendingInterrupts } from '../workflows/protocol/standard-interrupts.js';
import type { RunnableGraph, WorkflowDefinition } from '../workflows/shared/types.js';
import { lockRulesOf, ruleApplied, ruleCovering } from './allow-rules.js';
import { withAwayDelegates } from './away.js';
import type { Delivery } from './delivery.js';
import { runJob } from './job-names.js';
import { honestOutcome } from './outcome.js';
import { writePlan } from './progress.js';
import { insertReview, reviewsOf } from './review-rows.js';
import { decideReview } from './review-updates.js';
import type { Lease, Runtime } from './runtime/index.js';
import { applyRules, narrowRules, reviewFacts } from './sign-off-rules.js';
import { audit, getTask, setStatus, writeProgress } from './task-rows.js';
import { scheduleTimers } from './timers.js';
import {
  type Clock,
  type Decision,
  type Progress,
  type ReviewRequest,
  SYSTEM_ACTOR,
  type Task,
} from './types.js';
import { renewRoundBudget } from './usage.js';

/** What a run left for settling. */
export interface RunResult {
  interrupts: { id: string; value: unknown }[];
  finished: boolean;
  values?: Record<string, unknown>;
  /**
   * The run's plan as it ended, when it moved since its last write (progress.ts); of a run settled
   * from saved state, what that state vouches for (plan-steps.ts's settledPlan).
   */
  plan?: Progress;
}

/** What settling needs, read from saved state when an advance ran nothing. */
export const fromState = (state: StateSnapshot, plan?: Progress): RunResult => ({
  interrupts: pendingInterrupts(state),
  // Not `next`: it leaves out tasks whose writes were saved (a step cut off before its checkpoint).
  finished: state.tasks.length === 0,
  values: state.values as Record<string, unknown>,
  ...(plan && { plan }),
});

export interface LoadedWorkflow {
  definition: WorkflowDefinition;
  graph: RunnableGraph;
}

/** Attempts of a run's job at settling before its task fails (the job's own retries count). */
const SETTLE_ATTEMPTS = 3;

export function createSettling(deps: {
  pool: pg.Pool;
  runtime: Runtime;
  config: WorkflowsConfig;
  clock: Clock;
  logger: Logger;
  delivery: Delivery;
}) {
  const { pool, logger } = deps;

  /** Fails the task behind the run's fence (the task row locked first, as everywhere). */
  async function fail(task: Task, lease: Lease, reason: string): Promise<void> {
    await inTransaction(pool, async (db) => {
      await getTask(db, task.id, true);
      await lease.fence(db);
      await setStatus(db, task.id, 'failed', reason);
    });
  }

  /**
   * Opens the review of one pending interrupt, with its checkpoint's rules applied to what it
   * asks; one a rule approves is decided at once, by the rule, and its task runs again. Returns
   * whether it opened one that waits for people.
   */
  async function open(
    db: Queryable,
    task: Task,
    interrupt: RunResult['interrupts'][number],
    state?: Record<string, unknown>,
  ): Promise<boolean> {
    const request = toReviewRequest(interrupt.value);
    const facts = reviewFacts(task, request, state);
    const ruled = applyRules(checkpointSettings(deps.config, task.workflow, request.kind), facts);
    // A request may ask for stricter rules than its checkpoint's (a review asked through a door):
    // then no rule approves it.
    const narrowed = narrowRules(ruled.settings, request.rules).settings;
    // A named reviewer away (`/signoff away`) has their delegate decide beside them.
    const delegated = await withAwayDelegates(db, narrowed);
    const settings = deps.config.alwaysAllow ? { ...delegated, alwaysAllow: true } : delegated;
    const dueAt = settings.timeoutSeconds
      ? new Date(deps.clock.now().getTime() + settings.timeoutSeconds * 1000)
      : null;
    // The review with its review_requested event (one transaction: the run's), and its timers.
    const review = await insertReview(db, { id: interrupt.id, taskId: task.id, request, settings, dueAt });
    if (!review) return false;
    for (const rule of ruled.fired)
      await audit(db, {
        taskId: task.id,
        reviewId: review.id,
        actor: SYSTEM_ACTOR,
        action: 'rule',
        detail: {
          automatic: `rule "${rule.name}"`,
          reason: rule.error
            ? `${rule.effect} (its condition could not be told: ${rule.error})`
            : rule.effect,
        },
      });
    // Neither kind of rule approves a review whose agent asked for stricter rules, nor one a rule
    // of the config file asks people for.
    if (!request.rules && ruled.approvedBy) {
      await approveByRule(db, task, review.id, review.settings, request, { name: ruled.approvedBy });
      return false;
    }
    // Standing rules apply while the config file names who signs them off (else none is in force).
    const standing =
      deps.config.alwaysAllow && !request.rules && !ruled.asksPeople
        ? await ruleCovering(db, task, facts)
        : undefined;
    if (standing) {
      await ruleApplied(db, standing.id);
      await approveByRule(db, task, review.id, review.settings, request, {
        name: `#${standing.id}`,
        id: standing.id,
        proposedBy: standing.proposedBy,
        approvedBy: standing.approvals.map((a) => a.by),
      });
      return false;
    }
    await scheduleTimers(deps.runtime, db, task.surface, review);
    return true;
  }

  /** A review approved by a rule the moment it opens (its card shows it so); its task runs on. */
  async function approveByRule(
    db: Queryable,
    task: Task,
    id: string,
    settings: { budget?: number },
    request: ReviewRequest,
    rule: NonNullable<Decision['rule']>,
  ) {
    await decideReview(db, id, {
      action: 'approve',
      values: {},
      by: SYSTEM_ACTOR,
      at: deps.clock.now().toISOString(),
      automatic:
        rule.id === undefined
          ? `rule "${rule.name}" of the config file`
          : `rule #${rule.id} (proposed by ${rule.proposedBy}, approved by ${rule.approvedBy?.join(' and ')})`,
      rule,
      contentHash: contentHash(request),
    });
    // A round's budget at this checkpoint is renewed by a rule's decision as by a person's.
    await renewRoundBudget(db, task, { id, settings });
    await deps.runtime.schedule(db, runJob(task));
  }

  /** In the run's transaction: pending interrupts become reviews (waiting), or the task is finished. */
  async function settle(db: Queryable, task: Task, workflow: LoadedWorkflow, result: RunResult) {
    if (deps.config.alwaysAllow && result.interrupts.length > 1) await lockRulesOf(db, task.workflow);
    let opened = false;
    for (const interrupt of result.interrupts)
      if (await open(db, task, interrupt, result.values)) opened = true;
    // A review still pending (opened now, or from before this run: a parallel branch) keeps the
    // task waiting; one approved by a rule runs it again. Read only when none opened now waits.
    const waits = opened || (await reviewsOf(db, task.id, 'pending')).length > 0;
    const ends = !waits && !result.interrupts.length && result.finished;
    // The plan's last state, shown by the status set below; a run that goes on at once (its
    // reviews answered by rules) shows it with a status of its own, as a run's timed writes do.
    if (waits) await setStatus(db, task.id, 'waiting', null, result.plan);
    else if (ends) {
      const outcome = await honestOutcome(db, task.id, workflow.definition.outcome(result.values ?? {}));
      await setStatus(db, task.id, outcome.status, outcome.reason ?? null, result.plan);
    } else if (result.plan) await writeProgress(db, task.id, result.plan);
  }

  /**
   * After settling threw on the job's `attempt`: true when the task was failed for it (its last
   * attempt, and not a lost connection or lease, which are always tried again); false to rethrow.
   * Either way, but for a lost connection or lease, the run's last `plan` is written first.
   */
  async function gaveUp(
    task: Task,
    lease: Lease,
    error: unknown,
    attempt: number,
    plan?: Progress,
  ): Promise<boolean> {
    // A lost connection or lease writes nothing now: the job is tried again (a lost lease's at
    // once), and its settling, from the saved state, says what that state vouches for.
    if (isSignoffError(error, 'lease_lost') || isConnectionError(error, pool)) return false;
    // The run's last plan, which settling would have written: the settling tried again (or the
    // failure) has no run's plan to write, so it is kept now, on its own.
    if (plan) await writePlan(deps, task, lease, plan);
    const log = { task: task.id, workflow: task.workflow, attempt, err: error };
    if (attempt < SETTLE_ATTEMPTS) {
      logger.warn(log, 'settling the run failed; its job will try again');
      return false;
    }
    logger.error(log, 'settling the run failed on every attempt; the task fails');
    await fail(task, lease, FAILURE_SENTENCES.unsaved);
    return true;
  }

  return { settle, gaveUp, fail };
}
