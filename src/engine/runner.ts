/**
 * Advancing a task: the handler of its run job (api.ts's Runner). One holder per job, because
 * LangGraph itself would run a doubly resumed node twice and fork the history. Everything it does
 * is derived from the database, so running it again after a crash, or for nothing, is harmless:
 *
 * 1. pick the input: the task's start, the decisions not yet applied (resumed by interrupt id),
 *    or nothing but a retry of a step that failed or was cut off by a crash;
 * 2. run the graph; 3. prune superseded checkpoints;
 * 4. in one transaction behind the fence: mark the decisions applied, turn pending interrupts
 *    into reviews, or finish the task;
 * 5. ask for the new events to be delivered (delivery is its own path: see delivery.ts).
 *
 * A decision recorded while it runs asks for the job again: it runs once more after this one.
 */

import {
  Command,
  isUnknownInterruptError,
  type LangGraphRunnableConfig,
  type StateSnapshot,
} from '@langchain/langgraph';
import type pg from 'pg';
import type { WorkflowsConfig } from '../config/workflows.js';
import { inTransaction } from '../db/queryable.js';
import { isSignoffError } from '../errors.js';
import { describeFailure, failureLogLevel } from '../failures.js';
import type { Logger } from '../logger.js';
import { resumeValue } from '../workflows/protocol/standard-answers.js';
import { pendingInterrupts } from '../workflows/protocol/standard-interrupts.js';
import type { Runner } from './api.js';
import { LEASE_KEY } from './checkpointer.js';
import type { Delivery } from './delivery.js';
import { saidNotShown } from './event-store.js';
import { createGraphRun } from './graph-run.js';
import type { TaskJob } from './job-names.js';
import { type LiveView, openLive } from './live.js';
import type { UsageCounter } from './model-usage.js';
import { settledPlan } from './plan-steps.js';
import { createProgress } from './progress.js';
import { pruneCheckpoints } from './prune.js';
import { markApplied, unappliedDecisionsJson } from './review-rows.js';
import { reviewFromRow, taskFromRow } from './rows.js';
import { createRunAborts } from './run-aborts.js';
import { RunStopped, runEnding } from './run-endings.js';
import type { After, Claim, Lease, Runtime } from './runtime/index.js';
import { createSettling, fromState, type LoadedWorkflow, type RunResult } from './settling.js';
import { getTask, setStatus } from './task-rows.js';
import {
  type Clock,
  type Decision,
  type Review,
  runsOver,
  type Surface,
  type Task,
  threadOf,
} from './types.js';
import { pauseAtBudget, settleBudgets } from './usage.js';

export interface RunnerDeps {
  pool: pg.Pool;
  runtime: Runtime;
  delivery: Delivery;
  workflows: ReadonlyMap<string, LoadedWorkflow>;
  config: WorkflowsConfig;
  clock: Clock;
  logger: Logger;
  /**
   * Told each time a task's graph runs in this process, whoever started the task: the
   * terminal announces the tasks it runs without following them (left working by an earlier
   * command), so that none goes on, or fails, unseen.
   */
  onRun?: (task: Task) => void;
  /** What each surface shows of a run while it goes (live.ts); a surface without one sees words once saved. */
  lives?: Partial<Record<Surface, LiveView>>;
  /** Counts what the models use (the handler on every model main.ts makes) and watches budgets. */
  usage: UsageCounter;
  /** How often a run may redraw its plan (progress.ts; a second). */
  planEveryMs?: number;
}

export type { LoadedWorkflow } from './settling.js';

export function createRunner(deps: RunnerDeps): Runner {
  const { pool, delivery, logger } = deps;
  const { settle, gaveUp, fail } = createSettling(deps);
  const run = createGraphRun({ ...deps, progress: createProgress({ ...deps, everyMs: deps.planEveryMs }) });
  /** The runs under way here; once the process stops, no run starts and one cut short fails nothing. */
  const runs = createRunAborts();

  /** What the task's surface shows of this run while it goes (live.ts), if it shows anything. */
  const liveView = (task: Task, lease: Lease) =>
    openLive(deps.lives, task, lease, {
      unshown: () => saidNotShown(pool, task.id),
      status: async () => (await getTask(pool, task.id))?.status,
    });

  /**
   * The task and its decisions not yet applied are read once the lease is held, so they include
   * everything its last holder wrote.
   */
  async function advance(claim: Claim<TaskJob>): Promise<After> {
    const { taskId } = claim.data;
    if (runs.stopping()) return { againInMs: 0 };
    const r = await pool.query<{ task: unknown; decided: unknown[] }>(
      `SELECT (SELECT to_jsonb(t) FROM signoff.tasks t WHERE t.id = $1) AS task, ${unappliedDecisionsJson('$1')} AS decided`,
      [taskId],
    );
    const row = r.rows[0];
    const task = row?.task ? taskFromRow(row.task) : undefined;
    if (!task || runsOver(task)) return undefined;
    try {
      await step(task, (row?.decided ?? []).map(reviewFromRow), claim.lease, claim.attempt);
    } catch (error) {
      if (error instanceof RunStopped) return { againInMs: 0 };
      if (!isSignoffError(error, 'lease_lost')) throw error;
      // Nothing of this run was applied. It runs again (a checkpoint refused by the fence says so
      // before the lease's signal knows); whoever holds the job then decides from the database
      // what is left.
      logger.warn({ task: taskId }, 'run stopped: its lease was lost; nothing of it was applied');
      return { againInMs: 0 };
    }
    return undefined;
  }

  async function step(task: Task, all: Review[], lease: Lease, attempt: number): Promise<void> {
    const log = logger.child({ task: task.id, workflow: task.workflow });
    // A budget review is the engine's to answer (usage.ts): continue, or the task stops here.
    const { stopped, rest: decided } = await settleBudgets(pool, task, lease, all, deps.config);
    if (stopped) return void delivery.kick(task);
    const workflow = deps.workflows.get(task.workflow);
    if (!workflow) {
      await setStatus(pool, task.id, 'failed', `the workflow "${task.workflow}" is not available any more`);
      void delivery.kick(task);
      return;
    }
    const config: LangGraphRunnableConfig = {
      // The lease goes with the run down to its checkpoints, which are refused without it.
      configurable: { thread_id: threadOf(task), __pregel_strict_resume: true, [LEASE_KEY]: lease.holder },
      // LangGraph's default (25 steps per run) would fail a long cycle; runs pause at reviews,
      // so this only guards against a workflow that loops without ever asking anyone.
      recursionLimit: 1000,
    };
    const resume = (reviews: Review[]) =>
      new Command({
        resume: Object.fromEntries(
          reviews.map((r) => [r.id, resumeValue(r.request, r.decision as Decision)]),
        ),
      });

    /** The step failed: the task says why in a sentence, unless it was stopped on purpose. */
    const failStep = async (error: unknown) => {
      const current = await getTask(pool, task.id);
      // Stopped on purpose: the next run starts the new goal (a redirect) or nothing (a cancel, or
      // the task ended elsewhere meanwhile: it is not failed again).
      if (!current || runsOver(current) || current.generation !== task.generation) return;
      // People see a coded sentence; the provider's own words stay in the log.
      const { code, sentence: reason } = describeFailure(error);
      log[failureLogLevel(code)]({ err: error, failure: code }, 'workflow step failed');
      await fail(task, lease, reason);
      void delivery.kick(task);
    };

    /** Runs the graph once; undefined when the run failed (the task says why) or was cancelled. */
    const execute = async (input: unknown): Promise<RunResult | undefined> => {
      try {
        deps.onRun?.(task);
      } catch (err) {
        // Telling the surface is not the run: a surface that fails to listen fails nothing.
        log.warn({ err }, 'onRun failed');
      }
      if (task.status !== 'working' && (await setStatus(pool, task.id, 'working', null))) {
        // Shown while the graph starts, ahead of what the agents say.
        void delivery.kick(task, { soon: true });
      }
      // Stopping began while this run took its lease, or a cancel came after the task was read:
      // it stops at once, rather than hold the exit (or the task) for its whole step.
      const { controller, done } = runs.register(task.id, task.generation);
      // At the task's budget the run stops before its next model call (model-usage.ts).
      const watching = deps.usage.watch(task, (r) => controller.abort(r));
      try {
        const metadata = { ...config.metadata, ...watching.metadata };
        const options = { ...config, signal: AbortSignal.any([controller.signal, lease.signal]), metadata };
        return await run(task, workflow, input, options, lease, liveView(task, lease));
      } catch (error) {
        const ending = runEnding(error, {
          pool,
          lease: lease.signal,
          aborted: controller.signal.reason,
          stopping: runs.stopping(),
        });
        if ('rethrow' in ending) throw ending.rethrow;
        if ('failed' in ending) await failStep(ending.failed);
        else {
          await pauseAtBudget(deps, task, lease, ending.budget);
          void delivery.kick(task);
        }
        return undefined;
      } finally {
        done();
        watching.stop();
      }
    };

    let toApply = decided;
    let ran: RunResult | undefined;
    if (decided.length) {
      // The common path: resume by interrupt id without reading the state first. Strict resume
      // refuses, before running anything, an id no longer pending: one consumed by a run that
      // crashed before it could say so. Then the saved state decides, below.
      try {
        ran = await execute(resume(decided));
        if (!ran) return;
      } catch (error) {
        if (!isUnknownInterruptError(error)) throw error;
      }
    }
    if (!ran) {
      let before: StateSnapshot;
      try {
        before = await workflow.graph.getState(config);
      } catch (error) {
        // A read of the saved state fails as a run does (a graph whose state lives on a server
        // that is down): a sentence and Retry, never a task left working while its job retries.
        const ending = runEnding(error, { pool, lease: lease.signal, stopping: runs.stopping(), read: true });
        if ('rethrow' in ending) throw ending.rethrow;
        await failStep('failed' in ending ? ending.failed : error);
        return;
      }
      const pending = new Set(pendingInterrupts(before).map((i) => i.id));
      toApply = decided.filter((r) => pending.has(r.id));
      // Nothing is resumed twice.
      await markApplied(
        pool,
        decided.filter((r) => !pending.has(r.id)).map((r) => r.id),
      );
      let input: unknown;
      if (!before.createdAt) {
        input = workflow.definition.input({
          text: task.text,
          requester: task.requester,
          abandonedGoals: task.abandonedGoals.map((g) => g.text),
          input: task.input,
        });
      } else if (toApply.length) input = resume(toApply);
      // A step cut off by a crash or a failure runs again from its checkpoint (its tasks that
      // finished keep their saved writes and do not run again).
      else if (before.tasks.length && pending.size === 0) input = null;
      if (input !== undefined) {
        ran = await execute(input);
        if (!ran) return;
      } else {
        // Nothing to run (a run died after saving its step, before settling it, or its settling
        // failed): its streams would stay open until the task's next run or end. A view opened and
        // closed here closes what it left; its plan says what the saved state vouches for.
        await liveView(task, lease)?.view.close('stopped');
        const unfinished = before.tasks.filter((t) => t.result === undefined);
        ran = fromState(before, settledPlan(task, workflow.graph, unfinished));
      }
    }
    try {
      // Before the task is announced as waiting or finished, so nobody sees the history it drops.
      await pruneCheckpoints(pool, threadOf(task));
      // Everything the run decided lands together, and only while the lease is held.
      await inTransaction(pool, async (db) => {
        // The task row first, as in every command that changes a task and its reviews (no deadlock).
        const current = await getTask(db, task.id, true);
        await lease.fence(db);
        await markApplied(
          db,
          toApply.map((r) => r.id),
        );
        if (current && !runsOver(current) && current.generation === task.generation)
          await settle(db, task, workflow, ran);
      });
    } catch (error) {
      if (!(await gaveUp(task, lease, error, attempt, ran.plan))) throw error;
    }
    void delivery.kick(task);
  }

  return {
    advance,
    abort: runs.abort,
    running: runs.running,
    // Ctrl-C: the runs' model calls are aborted as a cancel aborts them, instead of holding the
    // exit until their step ends; a job claimed meanwhile is handed back.
    stop: runs.stop,
  };
}
