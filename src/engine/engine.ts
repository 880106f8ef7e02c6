/**
 * The engine (its API is `Engine`, in api.ts): wires the parts (starts.ts, decisions.ts,
 * controls.ts, the workers in work.ts) and answers the queries.
 */
import type pg from 'pg';
import type { WorkflowsConfig } from '../config/workflows.js';
import type { Queryable } from '../db/queryable.js';
import type { Logger } from '../logger.js';
import { createAbortListener } from './abort-listener.js';
import type { Engine, Runner } from './api.js';
import { auditTrail } from './audit-trail.js';
import { choicesAt } from './authorize.js';
import { createClaims } from './claims.js';
import { createControls } from './controls.js';
import { createDecisions } from './decisions.js';
import type { Delivery } from './delivery.js';
import { eventRecords, eventsOf } from './event-store.js';
import { RUN_PRIORITY, runJob } from './job-names.js';
import type { Metrics } from './metrics.js';
import type { Purger, RetentionSettings } from './retention.js';
import { getReviewWithTask, reviewsOf } from './review-rows.js';
import { reviewTimes } from './review-stats.js';
import { createRuleControls } from './rule-decisions.js';
import type { LoadedWorkflow } from './runner.js';
import type { Runtime } from './runtime/index.js';
import { startRefusal } from './start-limits.js';
import { createStarts } from './starts.js';
import { audit, getTask, listTasks, taskAt } from './task-rows.js';
import { timerQueue } from './timers.js';
import { type Clock, FINAL_STATUSES, type GroupDirectory, type Surface, type Task } from './types.js';
import { waitingFor, waitingPlaces } from './waiting-reviews.js';
import { startWorkers } from './work.js';

export interface EngineDeps {
  pool: pg.Pool;
  runtime: Runtime;
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

/** Creates the engine; call `work(surface)` in processes that should run graphs. */
export function createEngine(deps: EngineDeps): Engine {
  const { pool, runtime, runner, delivery, logger } = deps;
  // A payload `task#N` (a redirect to generation N) stops only older generations' runs: the
  // new goal's run may already have started by the time the notification arrives.
  const abortListener = createAbortListener({
    pool,
    logger,
    onAbort: (payload) => {
      const [taskId, generation] = payload.split('#');
      runner.abort(taskId as string, generation ? Number(generation) : undefined);
    },
    // What a missed abort would have said, read from the tasks: cancelled (or otherwise ended),
    // or redirected to a newer generation than the run's. Not failed: a failed task may be retried
    // between this read and the abort, and the abort would stop the retry's run.
    checkRuns: async () => {
      for (const id of runner.running()) {
        const task = await getTask(pool, id);
        runner.abort(id, !task || FINAL_STATUSES.includes(task.status) ? undefined : task.generation, true);
      }
    },
  });

  /** Queues a run of the task: a decision's, a retry's or a redirect's ahead of every start waiting. */
  const enqueue = (
    db: Queryable,
    task: Pick<Task, 'id' | 'surface'>,
    priority: number = RUN_PRIORITY.resume,
  ) => runtime.schedule(db, runJob(task, priority));
  const controls = createControls({ ...deps, enqueue });
  const { available, validate, start } = createStarts({ ...deps, enqueue });
  const { decide } = createDecisions({ ...deps, enqueue });
  const workerDeps = {
    ...deps,
    abortListener,
    decideAutomatically: decide,
    cancel: controls.cancel,
    enqueue,
  };

  return {
    rules: createRuleControls({ ...deps, decide }),
    claims: createClaims(deps),
    available,
    validate,
    startRefusal: (input) => startRefusal(pool, deps.config.starts, input),
    start,
    // Only the engine's own timers decide automatically or cancel as the system.
    decide: (input) => decide(input),
    cancel: (taskId, actor, options) => controls.cancel(taskId, actor, { reason: options?.reason }),
    redirect: controls.redirect,
    retry: controls.retry,
    work: (surface, concurrency, options) => startWorkers(workerDeps, surface, concurrency, options),
    releaseDueTimers: async (surface) => {
      const released = await runtime.runDue(timerQueue(surface), deps.clock.now());
      runtime.wake(timerQueue(surface));
      return released;
    },
    getTask: (id) => getTask(pool, id),
    taskAt: (surface, place) => taskAt(pool, surface, place),
    review: (id) => getReviewWithTask(pool, id),
    listTasks: (filter) => listTasks(pool, filter),
    choicesFor: (review, task, actor) => choicesAt(deps.directories[task.surface], review, task, actor),
    reviewsFor: (surface, actor, query) => waitingFor(pool, deps.directories[surface], surface, actor, query),
    reviewPlaces: (surface) => waitingPlaces(pool, surface),
    reviews: (taskId, status) => reviewsOf(pool, taskId, status),
    events: (taskId) => eventsOf(pool, taskId),
    eventRecords: (taskId) => eventRecords(pool, taskId),
    auditTrail: (filter) => auditTrail(pool, filter),
    auditRefusal: ({ code, message, detail, action, ...about }) =>
      audit(pool, { ...about, action: `refused:${action}`, detail: { ...detail, code, message } }),
    reviewTimes: (surface, since) => reviewTimes(pool, surface, since),
    stop: async () => {
      await delivery.stop();
      await abortListener.stop();
    },
  };
}
