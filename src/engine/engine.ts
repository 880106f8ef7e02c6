/**
 * The engine (its API is `Engine`, in api.ts): start, decide, cancel, redirect, retry in; events
 * out, through the sinks given at creation. Slack and the terminal call the same functions.
 */
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { type WorkflowsConfig, workflowSettings } from '../config/workflows.js';
import { inTransaction, type Queryable } from '../db/queryable.js';
import { SignoffError } from '../errors.js';
import type { Logger } from '../logger.js';
import { createAbortListener } from './abort-listener.js';
import {
  type Decided,
  type DecideInput,
  type DecisionRefusal,
  DecisionRefused,
  type Engine,
  MAX_TASK_LENGTH,
  type Runner,
  type StartInput,
} from './api.js';
import { auditTrail, refusedText } from './audit-trail.js';
import { askGroups, choicesAt, groupsToAsk, rightRefused } from './authorize.js';
import { contentHash } from './content-hash.js';
import { createControls } from './controls.js';
import { invalidDecision } from './decision-input.js';
import type { Delivery } from './delivery.js';
import { eventKey } from './event-keys.js';
import { type EventRecord, eventRecords, eventsOf, record, wasDelivered } from './event-store.js';
import type { Metrics } from './metrics.js';
import type { JobQueue } from './queue.js';
import type { Purger, RetentionSettings } from './retention.js';
import { getReviewWithTask, lockReviewWithTask, reviewsOf } from './review-rows.js';
import { reviewTimes } from './review-stats.js';
import { countApproval, countEdit, decideReview } from './review-updates.js';
import type { LoadedWorkflow } from './runner.js';
import { addApproval, approvalsNeeded, timerMayNotApprove } from './sign-off-rules.js';
import { editMeans } from './standard-interrupts.js';
import { assertMayStart, startRefusal } from './start-limits.js';
import { audit, getTask, insertTask, listTasks, type TaskFilter, taskAt } from './task-rows.js';
import { releaseDueTimers, timerQueue } from './timers.js';
import {
  type Actor,
  approves,
  type Clock,
  type Decision,
  type DeliveredEvent,
  type GroupDirectory,
  type Review,
  type Surface,
  type Task,
} from './types.js';
import { waitingFor, waitingPlaces } from './waiting-reviews.js';
import { advanceQueue, RUN_PRIORITY, startWorkers } from './work.js';

export interface EngineDeps {
  /** How long a task's run lease lives without a heartbeat. */
  leaseTtlMs: number;
  pool: pg.Pool;
  queue: JobQueue;
  delivery: Delivery;
  runner: Runner;
  workflows: ReadonlyMap<string, LoadedWorkflow>;
  config: WorkflowsConfig;
  clock: Clock;
  logger: Logger;
  /** Counts what this process decides (metrics.ts). */
  metrics: Pick<Metrics, 'decided'>;
  /**
   * Who is in which user group, by surface (Slack's directory): asked only before a transaction.
   * A surface without one has no groups: a right through a group is not theirs there.
   */
  directories: Partial<Record<Surface, GroupDirectory>>;
  /** What finished tasks keep, and for how long (retention.ts); surfaces add their own purgers. */
  retention: RetentionSettings & { purgers: Purger[] };
}

const STALE =
  'This card is out of date: what it shows has changed since you saw it. Nothing was recorded; the current version is shown now.';

/** Creates the engine; call `work(surface)` in processes that should run graphs. */
export function createEngine(deps: EngineDeps): Engine {
  const { pool, queue, runner, delivery, logger } = deps;
  const stops: (() => void)[] = [];
  /** Whether any surface has a directory: else no decision needs its review read before it. */
  const asksGroups = Object.values(deps.directories).some(Boolean);
  // A payload `task#N` (a redirect to generation N) stops only older generations' runs: the
  // new goal's run may already have started by the time the notification arrives.
  const abortListener = createAbortListener({
    pool,
    logger,
    onAbort: (payload) => {
      const [taskId, generation] = payload.split('#');
      runner.abort(taskId as string, generation ? Number(generation) : undefined);
    },
  });

  /** Queues a run of the task: a decision's, a retry's or a redirect's ahead of every start waiting. */
  const enqueue = (
    db: Queryable,
    task: Pick<Task, 'id' | 'surface'>,
    priority: number = RUN_PRIORITY.resume,
  ) => queue.send(advanceQueue(task.surface), { taskId: task.id }, { db, singletonKey: task.id, priority });
  const controls = createControls({ ...deps, enqueue });

  /** The workflows a person may start (in `channel`, when given). */
  function available(channel?: string): { name: string; description: string }[] {
    return [...deps.workflows.values()]
      .filter(({ definition }) => {
        const s = workflowSettings(deps.config, definition.name);
        return s.enabled && (!channel || !s.channels || s.channels.includes(channel));
      })
      .map(({ definition }) => ({
        name: definition.name,
        description: workflowSettings(deps.config, definition.name).description ?? definition.description,
      }));
  }

  /** Checks a start before anything is posted anywhere; returns the task text, trimmed. */
  function validate(input: Pick<StartInput, 'workflow' | 'text' | 'channel'>): string {
    const names = available(input.channel).map((w) => w.name);
    if (!deps.workflows.has(input.workflow)) {
      throw new SignoffError(
        'unknown_workflow',
        `There is no workflow "${input.workflow}". Try one of: ${names.join(', ')}.`,
      );
    }
    if (!names.includes(input.workflow)) {
      throw new SignoffError(
        'workflow_disabled',
        `The workflow "${input.workflow}" is switched off${input.channel ? ' in this channel' : ''}. Try one of: ${names.join(', ') || '(none)'}.`,
      );
    }
    const text = input.text.trim();
    if (!text) {
      throw new SignoffError(
        'empty_task',
        `Describe the task after the workflow's name, e.g. "${input.workflow} summarise Q3 invoices".`,
      );
    }
    if (text.length > MAX_TASK_LENGTH) {
      throw new SignoffError(
        'empty_task',
        `The task is ${text.length} characters long; keep it under ${MAX_TASK_LENGTH}.`,
      );
    }
    return text;
  }

  async function start(input: StartInput): Promise<{ task: Task; created: boolean }> {
    const text = validate(input);
    const id = input.id ?? `${input.surface}-${randomUUID().slice(0, 8)}`;
    const who = { surface: input.surface, requester: input.requester, channel: input.channel };
    const result = await inTransaction(pool, async (db) => {
      // A start repeated (Slack's retry, a sweep) finds its task, whatever the limits say now.
      const existing = input.id ? await getTask(db, input.id) : undefined;
      if (existing) return { task: existing, created: false };
      await assertMayStart(db, deps.config.starts, who);
      const inserted = await insertTask(db, {
        id,
        workflow: input.workflow,
        surface: input.surface,
        text,
        requester: input.requester,
        origin: input.origin ?? {},
      });
      if (inserted.created) {
        await record(db, id, eventKey.started(), { type: 'task_started', task: inserted.task });
        await audit(db, {
          taskId: id,
          actor: input.requester,
          action: 'start',
          detail: { workflow: input.workflow },
        });
        await enqueue(db, inserted.task, RUN_PRIORITY.start);
      }
      return inserted;
    });
    if (result.created) {
      queue.wake(advanceQueue(input.surface));
      void delivery.kick(result.task);
    }
    return result;
  }

  /** Records a decision; `automatic` (a timeout's default action, the engine's own) skips the actor's check. */
  async function decide(input: DecideInput, automatic?: string): Promise<Decided> {
    const refuse = async (code: DecisionRefusal, message: string, review?: Review): Promise<never> => {
      await audit(pool, {
        taskId: review?.taskId,
        reviewId: input.reviewId,
        actor: input.actor.id,
        action: `refused:${input.action}`,
        detail: { code, message, contentHash: input.contentHash, ...refusedText(input.feedback) },
      }).catch((err) => logger.warn({ err }, 'audit failed'));
      throw new DecisionRefused(code, message, review);
    };
    // Group membership is the surface's directory's to answer, and may be slow or fail: asked
    // with no row locked, and only when the actor's right hinges on a group (the review is read
    // first to know which), so that a failing lookup stops nobody else.
    let actor = input.actor;
    const asked = new Set<string>();
    if (!automatic && asksGroups) {
      const unlocked = await getReviewWithTask(pool, input.reviewId);
      if (unlocked) {
        const groups = groupsToAsk(unlocked.review.settings, unlocked.task, actor);
        for (const g of groups) asked.add(g);
        actor = await askGroups(deps.directories[unlocked.task.surface], actor, groups, unlocked.task);
      }
    }
    // An escalation may name a group after the review was read: the transaction then returns it,
    // unasked, and runs once more after the directory answered (asking nothing the second time).
    for (let ask: ReadonlySet<string> | undefined = asked; ; ask = undefined) {
      const who = actor;
      const outcome = await inTransaction(pool, (db) => decideLocked(db, input, who, automatic, ask));
      if ('askGroups' in outcome) {
        const { groups, task } = outcome.askGroups;
        actor = await askGroups(deps.directories[task.surface], actor, groups, task);
        continue;
      }
      if ('refused' in outcome) return refuse(outcome.refused[0], outcome.refused[1], outcome.review);
      if (!outcome.counted) {
        deps.metrics.decided(outcome.task, outcome.review);
        queue.wake(advanceQueue(outcome.task.surface));
      }
      // The card says at once who decided (or that an approval counted, while the graph waits
      // for the rest of the quorum), whatever run holds the task.
      void delivery.kick(outcome.task);
      return { review: outcome.review, task: outcome.task };
    }
  }

  type Refused = { refused: readonly [DecisionRefusal, string]; review?: Review };
  type Locked =
    | Refused
    | { review: Review; task: Task; counted?: true }
    | { askGroups: { groups: string[]; task: Task } };

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
    const found = await lockReviewWithTask(db, input.reviewId);
    if (!found || (input.taskId !== undefined && found.review.taskId !== input.taskId)) {
      return { refused: ['unknown_review', 'That review does not exist here.'] as const };
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
    if (denied) return { refused: [denied.code, denied.message] as const, review };
    if (review.status !== 'pending') return closed(review);
    if (automatic && approves(action)) {
      // A timer never approves a tool call, nor content whose card nobody could see.
      const shown = await wasDelivered(db, task.id, eventKey.reviewRequested(review.id));
      const why = timerMayNotApprove(review.request, shown);
      if (why)
        return { refused: ['approval_withheld', `Not approved automatically: ${why}.`] as const, review };
    }
    const invalid = invalidDecision(review, input);
    if (invalid) return { refused: ['invalid_decision', invalid] as const, review };
    let seen = contentHash(review.request);
    if (input.contentHash !== undefined && input.contentHash !== seen) {
      return { refused: ['stale_review', STALE] as const, review };
    }
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
      seen = contentHash(current.request);
      if (input.contentHash !== undefined && input.contentHash !== seen) {
        return { refused: ['stale_review', STALE] as const, review: current };
      }
      decision.contentHash = seen;
      if (action === 'edit') {
        // Read against the review as it is now (a caller that sent no hash saw something).
        const invalidNow = invalidDecision(current, input);
        if (invalidNow) return { refused: ['invalid_decision', invalidNow] as const, review: current };
        const edited = await countEdit(db, current, decision);
        return { review: edited ?? current, task, counted: true };
      }
      const approval = { by: input.actor.id, at: decision.at, contentHash: seen };
      const step = addApproval(current, approval);
      if (step.kind === 'counted_already') {
        const more = `It has ${step.count} of ${step.needed} approvals; the rest must come from other reviewers.`;
        return {
          refused: ['counted_already', `You have approved this already. ${more}`] as const,
          review: current,
        };
      }
      if (step.kind === 'counted') {
        const counted = await countApproval(db, review.id, approval, step.needed);
        return { review: counted ?? current, task, counted: true };
      }
      decision.approvals = step.approvals.map(({ by, at }) => ({ by, at }));
    }
    const decided = await decideReview(db, review.id, decision);
    if (!decided) {
      // Closed while this waited for the task's lock: read it again, as it is now.
      const now = await getReviewWithTask(db, review.id);
      return closed(now?.review ?? review);
    }
    await enqueue(db, task);
    return { review: decided, task };
  }

  /** The refusal of a decision on a review that is no longer pending, saying who closed it. */
  function closed(review: Review) {
    const what =
      review.status === 'decided'
        ? `It was already decided (${review.decision?.action}) by ${review.decidedBy}.`
        : 'It was cancelled.';
    return { refused: ['review_not_pending', `This review is closed. ${what}`] as const, review };
  }

  return {
    available,
    validate,
    startRefusal: (input) => startRefusal(pool, deps.config.starts, input),
    start,
    // Only the engine's own timers decide automatically or cancel as the system.
    decide: (input) => decide(input),
    cancel: (taskId, actor, options) => controls.cancel(taskId, actor, { reason: options?.reason }),
    redirect: controls.redirect,
    retry: controls.retry,
    work: (surface, concurrency, options) =>
      startWorkers(
        {
          ...deps,
          abortListener,
          decideAutomatically: (input, why) => decide(input, why),
          cancel: controls.cancel,
          enqueue,
          leaseTtlMs: deps.leaseTtlMs,
          onStop: (stop) => stops.push(stop),
        },
        surface,
        concurrency,
        options,
      ),
    /** Runs the timers due by the engine's clock now (after the clock was moved). */
    releaseDueTimers: async (surface: Surface) => {
      const released = await releaseDueTimers(pool, surface, deps.clock.now());
      queue.wake(timerQueue(surface));
      return released;
    },
    getTask: (id: string) => getTask(pool, id),
    taskAt: (surface, place) => taskAt(pool, surface, place),
    /** One review, for a surface that must show its form before a decision (Slack's modal). */
    review: async (id: string) => (await getReviewWithTask(pool, id))?.review,
    listTasks: (opts?: TaskFilter) => listTasks(pool, opts),
    choicesFor: (review, task, actor) => choicesAt(deps.directories[task.surface], review, task, actor),
    reviewsFor: (surface, actor, query) => waitingFor(pool, deps.directories[surface], surface, actor, query),
    reviewPlaces: (surface) => waitingPlaces(pool, surface),
    reviews: (taskId: string, status?: Review['status']) => reviewsOf(pool, taskId, status),
    events: (taskId: string): Promise<DeliveredEvent[]> => eventsOf(pool, taskId),
    /** Every event of the task with how its delivery went (`signoff events`). */
    eventRecords: (taskId: string): Promise<EventRecord[]> => eventRecords(pool, taskId),
    auditTrail: (filter) => auditTrail(pool, filter),
    reviewTimes: (surface, since) => reviewTimes(pool, surface, since),
    /** Stops listening for aborts and sweeping for undelivered events (at shutdown). */
    stop: async () => {
      for (const stop of stops.splice(0)) stop();
      await delivery.stop();
      await abortListener.stop();
    },
  };
}
