/**
 * Advancing a task: the job handler behind "advance task T". It holds the task's advisory lock
 * while it runs, so two workers (or two replicas) never run one graph thread at once: LangGraph
 * itself would run a doubly resumed node twice and fork the history. Everything it does is
 * derived from the database, so running it again after a crash, or for nothing, is harmless:
 *
 * 1. deliver events left undelivered;
 * 2. pick the input: the task's start, the decisions not yet applied (resumed by interrupt id),
 *    or nothing but a retry of a step that failed or was cut off by a crash;
 * 3. run the graph; 4. prune superseded checkpoints;
 * 5. turn pending interrupts into reviews, or finish the task; 6. deliver the new events.
 */
import {
  Command,
  INTERRUPT,
  isUnknownInterruptError,
  type LangGraphRunnableConfig,
  type StateSnapshot,
} from '@langchain/langgraph';
import type pg from 'pg';
import { inTransaction, isConnectionError, withClient } from '../db/queryable.js';
import { excerpt } from '../llm/scripted.js';
import type { Logger } from '../logger.js';
import { checkpointSettings, type WorkflowsConfig, workflowSettings } from '../workflow-config.js';
import type { RunnableGraph, WorkflowDefinition } from '../workflows/shared/types.js';
import type { Outbox } from './outbox.js';
import { pruneCheckpoints } from './prune.js';
import type { JobQueue } from './queue.js';
import { toReviewRequest } from './review-request.js';
import { resumeValue } from './standard-interrupts.js';
import * as store from './store.js';
import { scheduleTimers } from './timers.js';
import {
  type Clock,
  type Decision,
  FINAL_STATUSES,
  type Review,
  type ReviewSettings,
  type Task,
  threadOf,
} from './types.js';

interface RunResult {
  interrupts: { id: string; value: unknown }[];
  finished: boolean;
  values?: Record<string, unknown>;
}

/** What settling needs, read from saved state when this advance ran nothing. */
function fromState(state: StateSnapshot): RunResult {
  return {
    interrupts: pendingInterrupts(state),
    finished: state.next.length === 0,
    values: state.values as Record<string, unknown>,
  };
}

const RECURSION_LIMIT = 1000;

/** Postgres NOTIFY channel on which cancel and redirect ask whichever process runs a task to stop. */
export const ABORT_CHANNEL = 'signoff_abort';

/** Steps between prunes inside one run (a prune is one statement of indexed deletes). */
const PRUNE_EVERY_STEPS = 20;

export interface LoadedWorkflow {
  definition: WorkflowDefinition;
  graph: RunnableGraph;
}

export interface RunnerDeps {
  pool: pg.Pool;
  queue: JobQueue;
  outbox: Outbox;
  workflows: ReadonlyMap<string, LoadedWorkflow>;
  config: WorkflowsConfig;
  clock: Clock;
  logger: Logger;
}

/** The pending interrupts of a graph state: listed in `tasks`, not yet answered (`result` unset). */
export function pendingInterrupts(state: StateSnapshot): { id: string; value: unknown }[] {
  return state.tasks
    .filter((t) => (t as { result?: unknown }).result === undefined)
    .flatMap((t) => t.interrupts.map((i) => ({ id: i.id as string, value: i.value })));
}

export function createRunner(deps: RunnerDeps) {
  const { pool, outbox, logger } = deps;
  const inFlight = new Map<string, AbortController>();

  async function withTaskLock<T>(taskId: string, fn: () => Promise<T>): Promise<T> {
    return withClient(pool, async (client, discard) => {
      const key = `signoff:task:${taskId}`;
      await client.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [key]);
      try {
        return await fn();
      } finally {
        // If the unlock fails the connection goes, and the lock with it: never back to the pool.
        await client.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [key]).catch(discard);
      }
    });
  }

  async function advance(taskId: string): Promise<void> {
    await withTaskLock(taskId, async () => {
      // Independent reads and the delivery of what is pending go out together.
      const [, task, decided] = await Promise.all([
        outbox.deliver(taskId),
        store.getTask(pool, taskId),
        store.unappliedDecisions(pool, taskId),
      ]);
      if (!task) return;
      if (!FINAL_STATUSES.includes(task.status) && task.status !== 'failed') await step(task, decided);
      await outbox.deliver(taskId);
    });
  }

  async function step(task: Task, decided: Review[]): Promise<void> {
    const log = logger.child({ task: task.id, workflow: task.workflow });
    const workflow = deps.workflows.get(task.workflow);
    if (!workflow) {
      await store.setStatus(
        pool,
        task.id,
        'failed',
        `the workflow "${task.workflow}" is not available any more`,
      );
      return;
    }
    const config: LangGraphRunnableConfig = {
      configurable: { thread_id: threadOf(task), __pregel_strict_resume: true },
      // LangGraph's default (25 steps per run) would fail a long cycle; runs pause at reviews,
      // so this only guards against a workflow that loops without ever asking anyone.
      recursionLimit: RECURSION_LIMIT,
    };
    const resume = (reviews: Review[]) =>
      new Command({
        resume: Object.fromEntries(
          reviews.map((r) => [r.id, resumeValue(r.request, r.decision as Decision)]),
        ),
      });

    /** Runs the graph once; undefined when the run failed (the task says why) or was cancelled. */
    const execute = async (input: unknown): Promise<RunResult | undefined> => {
      if (task.status !== 'working' && (await store.setStatus(pool, task.id, 'working', null))) {
        // Shown while the graph starts; the delivery chain keeps it ahead of what agents say.
        void outbox.deliver(task.id).catch((err) => log.warn({ err }, 'delivery failed; will retry'));
      }
      const controller = new AbortController();
      inFlight.set(task.id, controller);
      try {
        return await run(task, workflow, input, { ...config, signal: controller.signal });
      } catch (error) {
        if (isConnectionError(error) || isUnknownInterruptError(error)) throw error;
        const current = await store.getTask(pool, task.id);
        // Stopped on purpose: the next run starts the new goal (a redirect) or nothing (cancel).
        if (current?.status === 'cancelled' || current?.generation !== task.generation) return undefined;
        log.warn({ err: error }, 'workflow step failed');
        const reason = excerpt(error instanceof Error ? error.message : String(error), 300);
        await store.setStatus(pool, task.id, 'failed', reason);
        return undefined;
      } finally {
        inFlight.delete(task.id);
      }
    };

    let toApply = decided;
    let ran: RunResult | undefined;
    let readState = decided.length === 0;
    if (decided.length) {
      // The common path: resume by interrupt id without reading the state first. Strict resume
      // refuses, before running anything, an id no longer pending: one consumed by a run that
      // crashed before it could say so. Then the saved state decides, below.
      try {
        ran = await execute(resume(decided));
        if (!ran) return;
      } catch (error) {
        if (!isUnknownInterruptError(error)) throw error;
        readState = true;
      }
    }
    if (readState) {
      const before = await workflow.graph.getState(config);
      const pending = new Set(pendingInterrupts(before).map((i) => i.id));
      // Nothing is resumed twice.
      await store.markApplied(
        pool,
        decided.filter((r) => !pending.has(r.id)).map((r) => r.id),
      );
      toApply = decided.filter((r) => pending.has(r.id));
      let input: unknown;
      if (!before.createdAt) input = workflow.definition.input(withHistory(task));
      else if (toApply.length) input = resume(toApply);
      // A step cut off by a crash or a failure runs again from its checkpoint.
      else if (before.next.length && pending.size === 0) input = null;
      if (input !== undefined) {
        ran = await execute(input);
        if (!ran) return;
      }
    }
    // Before the task is announced as waiting or finished, so nobody sees the history it drops.
    const [current] = await Promise.all([
      store.getTask(pool, task.id),
      pruneCheckpoints(pool, threadOf(task)),
      store.markApplied(
        pool,
        toApply.map((r) => r.id),
      ),
    ]);
    if (!current || FINAL_STATUSES.includes(current.status)) return;
    await settle(task, workflow, ran ?? fromState(await workflow.graph.getState(config)));
  }

  /**
   * Runs the graph stepwise (a long run prunes as it goes and never holds a quadratic history)
   * and keeps what settling needs: the interrupts pending at the end (a run re-emits those it
   * leaves pending) and the final values.
   */
  async function run(
    task: Task,
    workflow: LoadedWorkflow,
    input: unknown,
    config: LangGraphRunnableConfig,
  ): Promise<RunResult> {
    const durability =
      workflowSettings(deps.config, task.workflow).durability ?? workflow.definition.durability;
    const interrupts = new Map<string, unknown>();
    let values: Record<string, unknown> | undefined;
    let steps = 0;
    const stream = await workflow.graph.stream(input, {
      ...config,
      durability,
      streamMode: ['updates', 'values'],
    });
    for await (const [mode, chunk] of stream as AsyncIterable<[string, Record<string, unknown>]>) {
      const pending = chunk[INTERRUPT] as { id: string; value: unknown }[] | undefined;
      if (pending) for (const i of pending) interrupts.set(i.id, i.value);
      else if (mode === 'values') values = chunk;
      else if (workflow.definition.announce) {
        for (const [node, update] of Object.entries(chunk)) {
          for (const m of workflow.definition.announce(node, update)) {
            await outbox.sayKeyed(task.id, `said:${m.key}`, m);
          }
        }
      }
      if (mode === 'updates' && !pending && ++steps % PRUNE_EVERY_STEPS === 0)
        await pruneCheckpoints(pool, threadOf(task));
    }
    return {
      interrupts: [...interrupts].map(([id, value]) => ({ id, value })),
      finished: interrupts.size === 0,
      values,
    };
  }

  /** After a run: pending interrupts become reviews (waiting), or the task is finished. */
  async function settle(task: Task, workflow: LoadedWorkflow, result: RunResult): Promise<void> {
    for (const interrupt of result.interrupts) {
      const request = toReviewRequest(interrupt.value);
      const settings = reviewSettings(deps.config, task.workflow, request.kind);
      const dueAt = settings.timeoutSeconds
        ? new Date(deps.clock.now().getTime() + settings.timeoutSeconds * 1000)
        : null;
      // The review with its review_requested event (one statement), and its timers, together.
      await inTransaction(pool, async (db) => {
        const review = await store.insertReview(db, {
          id: interrupt.id,
          taskId: task.id,
          request,
          settings,
          dueAt,
        });
        if (review) await scheduleTimers(deps.queue, db, task.surface, review);
      });
    }
    // A review still pending from before this run (a parallel branch) keeps the task waiting too.
    if (result.interrupts.length || (await store.reviewsOf(pool, task.id, 'pending')).length) {
      await store.setStatus(pool, task.id, 'waiting', null);
      return;
    }
    if (result.finished) {
      const outcome = workflow.definition.outcome(result.values ?? {});
      await store.setStatus(pool, task.id, outcome.status, outcome.reason ?? null);
    }
  }

  let listening: pg.PoolClient | undefined;
  /** Stops local runs when another process cancels or redirects their task. */
  async function listenForAborts(): Promise<void> {
    if (listening) return;
    listening = await pool.connect();
    listening.on('notification', (n) => {
      if (n.channel === ABORT_CHANNEL && n.payload) inFlight.get(n.payload)?.abort(new Error('stopped'));
    });
    // A broken listening connection must not crash the process; aborts then stay local.
    listening.on('error', (err) => logger.warn({ err }, 'abort listener lost its connection'));
    await listening.query(`LISTEN ${ABORT_CHANNEL}`);
  }

  return {
    advance,
    listenForAborts,
    /** Gives the listening connection back (at shutdown). */
    stopListening: () => {
      listening?.release(true);
      listening = undefined;
    },
    /** Delivers a task's undelivered events under its lock (as a run would, never beside one). */
    deliver: (taskId: string) => withTaskLock(taskId, () => outbox.deliver(taskId)),
    /** Stops the task's graph run if it runs in this process (cancel, redirect). */
    abort: (taskId: string) => inFlight.get(taskId)?.abort(new Error('cancelled')),
  };
}

export type Runner = ReturnType<typeof createRunner>;

export function reviewSettings(
  config: WorkflowsConfig,
  workflow: string,
  checkpoint: string,
): ReviewSettings {
  const c = checkpointSettings(config, workflow, checkpoint);
  return {
    reviewers: c.reviewers,
    allowSelfApproval: c.allowSelfApproval,
    timeoutSeconds: c.timeout,
    onTimeout: c.onTimeout,
    remindersBeforeSeconds: c.reminders,
    allowSkip: c.allowSkip,
    dmReviewers: c.dmReviewers,
    feedback: c.feedback,
  };
}

/**
 * The task as its workflow starts: after a redirect, the new goal says which goals it replaces,
 * so that the agents re-plan knowing what was asked before (seed 003 keeps the abandoned goal).
 */
export function withHistory(task: Task): Task {
  if (task.abandonedGoals.length === 0) return task;
  const dropped = task.abandonedGoals.map((g) => `"${g.text}"`).join(', ');
  return {
    ...task,
    text: `${task.text}\n\n(This replaces the earlier goal ${dropped}, which is abandoned.)`,
  };
}
