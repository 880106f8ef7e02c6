/**
 * Recording a decision (what it guarantees is written on `Engine.decide`, in api.ts): a person's,
 * checked against the review's rules with the user groups their right hinges on asked of their
 * surface's directory before any row is locked, or a timer's (`automatic`). An approval towards a
 * quorum (N of M) counts once per person, and only on what the review shows.
 */
import type pg from 'pg';
import { checkpointSettings, type WorkflowsConfig } from '../config/workflows.js';
import { inTransaction, type Queryable } from '../db/queryable.js';
import type { Logger } from '../logger.js';
import { contentHash } from '../workflows/protocol/content-hash.js';
import { editMeans } from '../workflows/protocol/standard-interrupts.js';
import { type Decided, type DecideInput, type DecisionRefusal, DecisionRefused } from './api.js';
import { refusedText } from './audit-trail.js';
import { askGroups, groupsToAsk, rightRefused, seatFor } from './authorize.js';
import { invalidDecision } from './decision-input.js';
import type { Delivery } from './delivery.js';
import { eventKey } from './event-keys.js';
import { wasDelivered } from './event-store.js';
import { advanceQueue } from './job-names.js';
import type { Metrics } from './metrics.js';
import { getReviewWithTask } from './review-rows.js';
import { countApproval, countEdit, decideReview } from './review-updates.js';
import type { Runtime } from './runtime/index.js';
import { addApproval, approvalsNeeded, editOutsideRules, timerMayNotApprove } from './sign-off-rules.js';
import { audit } from './task-rows.js';
import {
  type Actor,
  approves,
  type Clock,
  type Decision,
  type GroupDirectory,
  type Review,
  type Surface,
  type Task,
} from './types.js';
import { renewRoundBudget } from './usage.js';

export interface DecisionDeps {
  pool: pg.Pool;
  runtime: Runtime;
  delivery: Delivery;
  clock: Clock;
  logger: Logger;
  metrics: Pick<Metrics, 'decided'>;
  /** Who is in which user group, by surface: asked only before a transaction. */
  directories: Partial<Record<Surface, GroupDirectory>>;
  /** Queues the run a decision resumes, in the caller's transaction. */
  enqueue(db: Queryable, task: Pick<Task, 'id' | 'surface'>): Promise<unknown>;
  /** The checkpoints' rules, applied again to what an Edit would run. */
  config: WorkflowsConfig;
}

const STALE =
  'This card is out of date: what it shows has changed since you saw it. Nothing was recorded; the current version is shown now.';

/** What a caller writes in a decision's transaction once it is recorded (the review as it is now). */
export type Also = (db: Queryable, review: Review, task: Task) => Promise<void>;

type Refused = { refused: DecisionRefusal; message: string; review?: Review };
type Locked =
  | Refused
  | { review: Review; task: Task; counted?: true }
  | { askGroups: { groups: string[]; task: Task } };

/** The refusal of a decision on a review that is no longer pending, saying who closed it. */
function closed(review: Review): Refused {
  const what =
    review.status === 'decided'
      ? `It was already decided (${review.decision?.action}) by ${review.decidedBy}.`
      : 'It was cancelled.';
  return { refused: 'review_not_pending', message: `This review is closed. ${what}`, review };
}

export function createDecisions(deps: DecisionDeps) {
  const { pool, runtime, delivery, logger, enqueue } = deps;
  /** Whether any surface has a directory: else no decision needs its review read before it. */
  const asksGroups = Object.values(deps.directories).some(Boolean);

  /**
   * Records a decision; `automatic` (a timeout's default action, the engine's own) skips the
   * actor's check. `also`: more to write in the decision's transaction once it is recorded or
   * counted (a rule proposed with it); what it throws undoes the decision.
   */
  async function decide(input: DecideInput, automatic?: string, also?: Also): Promise<Decided> {
    // Group membership is the surface's directory's to answer, and may be slow or fail: asked
    // with no row locked, and only when the actor's right hinges on a group (the review is read
    // first to know which), so that a failing lookup stops nobody else.
    let actor = input.actor;
    let asked = new Set<string>();
    const unlocked = !automatic && asksGroups ? await getReviewWithTask(pool, input.reviewId) : undefined;
    if (unlocked) {
      const groups = groupsToAsk(unlocked.review.settings, unlocked.task, actor);
      asked = new Set(groups);
      actor = await askGroups(deps.directories[unlocked.task.surface], actor, groups, unlocked.task);
    }
    // An escalation may name a group after the review was read: the transaction then returns it,
    // unasked, and runs once more after the directory answered (asking nothing the second time).
    for (let ask: ReadonlySet<string> | undefined = asked; ; ask = undefined) {
      const who = actor;
      const outcome = await inTransaction(pool, async (db) => {
        const locked = await decideLocked(db, input, who, automatic, ask);
        if ('task' in locked && 'review' in locked) await also?.(db, locked.review, locked.task);
        return locked;
      });
      if ('askGroups' in outcome) {
        const { groups, task } = outcome.askGroups;
        actor = await askGroups(deps.directories[task.surface], actor, groups, task);
        continue;
      }
      if ('refused' in outcome) {
        const { refused: code, message, review } = outcome;
        await audit(pool, {
          taskId: review?.taskId,
          reviewId: input.reviewId,
          actor: input.actor.id,
          action: `refused:${input.action}`,
          detail: { code, message, contentHash: input.contentHash, ...refusedText(input.feedback) },
        }).catch((err) => logger.warn({ err }, 'audit failed'));
        throw new DecisionRefused(code, message, review);
      }
      if (!outcome.counted) {
        deps.metrics.decided(outcome.task, outcome.review);
        runtime.wake(advanceQueue(outcome.task.surface));
      }
      // The card says at once who decided (or that an approval counted, while the graph waits
      // for the rest of the quorum), whatever run holds the task.
      void delivery.kick(outcome.task);
      return { review: outcome.review, task: outcome.task };
    }
  }

  /**
   * The decision's transaction: the task's row locked, the actor checked, the decision recorded
   * (or an approval counted) and the resume queued. `asked`: the groups asked already; when an
   * escalation named one since, it comes back unasked. Without `asked`, nothing more is asked.
   */
  async function decideLocked(
    db: Queryable,
    input: DecideInput,
    actor: Actor,
    automatic: string | undefined,
    asked?: ReadonlySet<string>,
  ): Promise<Locked> {
    // The task row first, then its review: the order cancel, redirect and a run's settling
    // take them in, so a click and a cancel at the same moment never deadlock.
    const found = await getReviewWithTask(db, input.reviewId, true);
    if (!found || (input.taskId !== undefined && found.review.taskId !== input.taskId)) {
      return { refused: 'unknown_review', message: 'That review does not exist here.' };
    }
    const { review, task } = found;
    // Never asked while this row is locked: an escalation named a group since it was read.
    const more =
      !automatic && asked && deps.directories[task.surface]
        ? groupsToAsk(review.settings, task, actor).filter((g) => !asked.has(g))
        : [];
    if (more.length) return { askGroups: { groups: more, task } };
    // An Edit that leaves every call as shown is an approval; one that rejects them all, a
    // reject: its right is that of what it amounts to (a requester who may not approve may
    // still reject every call through the form).
    const action = input.action === 'edit' ? editMeans(review.request, input.values ?? {}) : input.action;
    // Rights first: whoever may not decide learns nothing more, and their attempt is recorded as that.
    const denied = automatic ? undefined : rightRefused(review.settings, task, actor, action);
    if (denied) return { refused: denied.code, message: denied.message, review };
    if (review.status !== 'pending') return closed(review);
    if (!automatic && review.settings.exclusiveClaims && review.claimedBy && review.claimedBy !== actor.id)
      return {
        refused: 'not_allowed',
        message: `Sorry, <@${review.claimedBy}> has claimed this review, and only they decide it while it is claimed; ask them to hand it over or release it.`,
        review,
      };
    if (automatic && approves(action)) {
      // A timer never approves a tool call, nor content whose card nobody could see.
      const shown = await wasDelivered(db, task.id, eventKey.reviewRequested(review.id));
      const why = timerMayNotApprove(review.request, shown);
      if (why)
        return { refused: 'approval_withheld', message: `Not approved automatically: ${why}.`, review };
    }
    const invalid =
      invalidDecision(review, input) ??
      (action === 'edit'
        ? editOutsideRules(
            checkpointSettings(deps.config, task.workflow, review.checkpoint),
            review,
            task,
            input.values ?? {},
          )
        : undefined);
    if (invalid) return { refused: 'invalid_decision', message: invalid, review };
    const stale = (seen: string) => input.contentHash !== undefined && input.contentHash !== seen;
    let seen = contentHash(review.request);
    if (stale(seen)) return { refused: 'stale_review', message: STALE, review };
    const decision: Decision = {
      action,
      feedback: input.feedback?.trim() || undefined,
      values: action === 'edit' || action === 'revise' ? (input.values ?? {}) : {},
      by: input.actor.id,
      at: deps.clock.now().toISOString(),
      automatic,
      contentHash: seen,
    };
    // N of M: a person's approval counts once; only the one that completes the quorum decides.
    if (approves(action) && !automatic && approvalsNeeded(review.settings) > 1) {
      // Read again now that the task is locked: an approval committed while this waited
      // for the lock is not in the statement's view above, and every writer takes that lock.
      const current = (await getReviewWithTask(db, review.id))?.review ?? review;
      if (current.status !== 'pending') return closed(current);
      // An edit committed meanwhile changed what is approved: this person did not see it.
      decision.contentHash = seen = contentHash(current.request);
      if (stale(seen)) return { refused: 'stale_review', message: STALE, review: current };
      if (action === 'edit') {
        // Read against the review as it is now (a caller that sent no hash saw something).
        const invalidNow = invalidDecision(current, input);
        if (invalidNow) return { refused: 'invalid_decision', message: invalidNow, review: current };
        return { review: (await countEdit(db, current, decision)) ?? current, task, counted: true };
      }
      const seat = seatFor(current.settings, task, actor, current.approvals);
      const approval = {
        by: input.actor.id,
        at: decision.at,
        contentHash: seen,
        ...(seat ? { for: seat } : {}),
      };
      const step = addApproval(current, approval);
      if (step.kind === 'counted_already') {
        const other = current.approvals.find(
          (a) => a.by !== approval.by && (a.for ?? a.by) === (seat ?? approval.by),
        );
        const given = other
          ? `<@${other.by}> has approved this in place of <@${other.for}> already`
          : 'You have approved this already';
        const message = `${given}. It has ${step.count} of ${step.needed} approvals; the rest must come from other reviewers.`;
        return { refused: 'counted_already', message, review: current };
      }
      if (step.kind === 'counted') {
        const counted = await countApproval(db, review.id, approval, step.needed);
        return { review: counted ?? current, task, counted: true };
      }
      decision.approvals = step.approvals.map(({ by, at, for: seat }) => ({
        by,
        at,
        ...(seat ? { for: seat } : {}),
      }));
    }
    const decided = await decideReview(db, review.id, decision, review.request);
    // Closed while this waited for the task's lock: read it again, as it is now.
    if (!decided) return closed((await getReviewWithTask(db, review.id))?.review ?? review);
    await renewRoundBudget(db, task, review);
    await enqueue(db, task);
    return { review: decided, task };
  }

  return { decide };
}
