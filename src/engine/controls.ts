/**
 * Cancel, redirect and retry: the commands that steer a task as a whole (what each guarantees is
 * written on `Controls`, in api.ts). Each checks its actor (see authorize.ts) unless the actor is
 * the operator at the terminal; user-group membership is asked of the surface's directory before
 * any row is locked, so a slow Slack never holds a task's lock.
 */
import type pg from 'pg';
import { type WorkflowsConfig, workflowSettings } from '../config/workflows.js';
import { inTransaction, type Queryable } from '../db/queryable.js';
import { SignoffError } from '../errors.js';
import { ABORT_CHANNEL } from './abort-listener.js';
import { type Controls, MAX_TASK_LENGTH, type Runner } from './api.js';
import { assertMayControl, type ControlAction, withControlGroups } from './authorize.js';
import type { Delivery } from './delivery.js';
import { releaseUnreachable } from './delivery-failures.js';
import { advanceQueue } from './job-names.js';
import { stopSteps } from './plan-steps.js';
import { cancelPendingReviews } from './review-rows.js';
import type { Runtime } from './runtime/index.js';
import { audit, getTask, redirectTask, replaceProgress, setStatus } from './task-rows.js';
import {
  type Actor,
  type Clock,
  FINAL_STATUSES,
  type GroupDirectory,
  type Surface,
  type Task,
  threadOf,
} from './types.js';

export interface ControlDeps {
  pool: pg.Pool;
  runtime: Runtime;
  delivery: Delivery;
  runner: Runner;
  config: WorkflowsConfig;
  clock: Clock;
  /** Who is in which user group, by surface: asked before the task's row is locked. */
  directories: Partial<Record<Surface, GroupDirectory>>;
  enqueue(db: Queryable, task: Pick<Task, 'id' | 'surface'>): Promise<unknown>;
}

export function createControls(deps: ControlDeps): Controls {
  const { pool, runtime, runner, delivery, enqueue } = deps;
  const asksGroups = Object.values(deps.directories).some(Boolean);
  const known = (task: Task | undefined, taskId: string): Task => {
    if (!task) throw new SignoffError('unknown_task', `There is no task ${taskId}.`);
    return task;
  };

  /**
   * Runs `change` on the task's locked row after checking the actor (`system`: the engine's own
   * timers, which act on the checkpoint's settings, not as anyone), the actor's groups resolved
   * first, outside the transaction. Then stops a run here (`stopRun`: every run, or, for a redirect
   * to a generation, only older ones: the new goal's run may have started already), wakes a worker
   * and shows what changed.
   */
  async function steer(
    taskId: string,
    actor: Actor,
    what: ControlAction | 'system',
    stopRun: boolean | 'older',
    change: (db: Queryable, current: Task) => Promise<Task>,
  ): Promise<Task> {
    // Only where a surface has a directory to ask is the task read first (no extra round trip
    // otherwise: a cancel racing a run's end should lose as little time as possible).
    let who = actor;
    if (what !== 'system' && !actor.operator && asksGroups) {
      const unlocked = known(await getTask(pool, taskId), taskId);
      const directory = deps.directories[unlocked.surface];
      who = await withControlGroups(directory, pool, deps.config, unlocked, actor, what);
    }
    const task = await inTransaction(pool, async (db) => {
      const current = known(await getTask(db, taskId, true), taskId);
      if (what !== 'system') await assertMayControl(db, deps.config, current, who, what);
      return change(db, current);
    });
    if (stopRun) runner.abort(task.id, stopRun === true ? undefined : task.generation);
    runtime.wake(advanceQueue(task.surface));
    void delivery.kick(task);
    return task;
  }

  const cancel: Controls['cancel'] = async (taskId, actor, options = {}) => {
    await steer(taskId, actor, options.system ? 'system' : 'cancel', true, async (db, current) => {
      if (FINAL_STATUSES.includes(current.status)) {
        throw new SignoffError('task_not_waiting', `This task has already ended (${current.status}).`);
      }
      if (await setStatus(db, taskId, 'cancelled', options.reason ?? `cancelled by ${actor.id}`)) {
        // The step the agents were on says who stopped it (a rule's cancel stops it as no one).
        if (current.progress)
          await replaceProgress(
            db,
            taskId,
            stopSteps(current.progress, options.system ? undefined : actor.id),
          );
        await cancelPendingReviews(db, taskId, {
          by: actor.id,
          reason: options.reason ?? 'the task was cancelled',
        });
        await audit(db, {
          taskId,
          actor: actor.id,
          action: 'cancel',
          // A timeout's cancel is a rule, not a person: the trail says which.
          detail: options.reason
            ? { reason: options.reason, ...(options.system ? { automatic: options.reason } : {}) }
            : {},
        });
        // The run may be in another process: its worker stops the step on this notification.
        await db.query(`SELECT pg_notify('${ABORT_CHANNEL}', $1)`, [taskId]);
        await enqueue(db, current);
      }
      return current;
    });
    return (await getTask(pool, taskId)) as Task;
  };

  const redirect: Controls['redirect'] = async (taskId, text, actor, options = {}) => {
    const goal = text.trim();
    if (!goal) throw new SignoffError('empty_task', 'Say what the new goal is.');
    if (goal.length > MAX_TASK_LENGTH) {
      throw new SignoffError(
        'empty_task',
        `The new goal is ${goal.length} characters; keep it under ${MAX_TASK_LENGTH}.`,
      );
    }
    // Before anything else, so that words meant for people are let be, whoever wrote them.
    if (options.addressed === false) {
      const target = await getTask(pool, taskId);
      if (target && workflowSettings(deps.config, target.workflow).redirect.how === 'addressed') {
        throw new SignoffError(
          'not_addressed',
          'Mention signoff or start with "redirect:" to give a new goal.',
        );
      }
    }
    return steer(taskId, actor, 'redirect', 'older', async (db, current) => {
      if (current.status !== 'working') {
        throw new SignoffError(
          'task_not_working',
          `The task is ${current.status}; only a task whose agents are working can be redirected.`,
        );
      }
      if (options.writtenAt) await refuseOvertaken(db, taskId, options.writtenAt);
      const moved = (await redirectTask(db, taskId, {
        text: goal,
        by: actor.id,
        at: deps.clock.now().toISOString(),
      })) as Task;
      await cancelPendingReviews(db, taskId, { by: actor.id, reason: 'the task was redirected' });
      // `task#N`: only runs of generations before N stop, wherever they run (see engine.ts).
      await db.query(`SELECT pg_notify('${ABORT_CHANNEL}', $1)`, [threadOf(moved)]);
      await enqueue(db, current);
      return moved;
    });
  };

  const retry: Controls['retry'] = async (taskId, actor) => {
    await steer(taskId, actor, 'retry', false, async (db, current) => {
      if (current.status !== 'failed') {
        throw new SignoffError(
          'task_not_waiting',
          `Task ${taskId} is ${current.status}; only a failed task can be retried.`,
        );
      }
      await setStatus(db, taskId, 'working', null);
      // Events held back because the thread could not be reached are tried again with the task.
      await releaseUnreachable(db, taskId);
      await audit(db, { taskId, actor: actor.id, action: 'retry' });
      await enqueue(db, current);
      return current;
    });
    return (await getTask(pool, taskId)) as Task;
  };

  return { cancel, redirect, retry };
}

/**
 * Refuses words written before a person decided one of the task's reviews and read after (a late
 * event, a busy listener): they were about that review, or about a course the decision has changed
 * since; never a new goal. A rule's or a timeout's decision changed nothing a person had in view.
 * `writtenAt` is the surface's clock (Slack's ts), `decided_at` the database's: kept by NTP within
 * a second or so of each other, so only words that close to a decision may be judged wrongly.
 */
async function refuseOvertaken(db: Queryable, taskId: string, writtenAt: Date): Promise<void> {
  const { rows } = await db.query<{ title: string }>(
    `SELECT request->>'title' AS title FROM signoff.reviews
      WHERE task_id = $1 AND status = 'decided' AND decided_at > $2 AND decision->>'automatic' IS NULL
      ORDER BY decided_at LIMIT 1`,
    [taskId, writtenAt],
  );
  const title = rows[0]?.title;
  if (title)
    throw new SignoffError(
      'stale_review',
      `Nothing was recorded: you wrote this before the review "${title}" was decided, and your words were read only after. If you still want the agents to change course, say it again.`,
    );
}
