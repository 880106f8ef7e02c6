/**
 * Starting a task: which workflows a person may start (and where), the checks before anything is
 * posted, and the start itself: the task, its first event, its audit entry and its run queued in
 * one transaction, under the start limits.
 */
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { didYouMean } from '../config/names.js';
import { type WorkflowsConfig, workflowSettings } from '../config/workflows.js';
import { inTransaction, type Queryable } from '../db/queryable.js';
import { SignoffError } from '../errors.js';
import { type Engine, MAX_TASK_LENGTH } from './api.js';
import type { Delivery } from './delivery.js';
import { eventKey } from './event-keys.js';
import { record } from './event-store.js';
import { advanceQueue, RUN_PRIORITY } from './job-names.js';
import type { LoadedWorkflow } from './runner.js';
import type { Runtime } from './runtime/index.js';
import { assertMayStart } from './start-limits.js';
import { audit, getTask, insertTask } from './task-rows.js';
import type { Task } from './types.js';
import { startBudget } from './usage.js';

export interface StartDeps {
  pool: pg.Pool;
  runtime: Runtime;
  delivery: Delivery;
  workflows: ReadonlyMap<string, LoadedWorkflow>;
  config: WorkflowsConfig;
  /** Queues a run of the task in the caller's transaction, at the priority given. */
  enqueue(db: Queryable, task: Pick<Task, 'id' | 'surface'>, priority: number): Promise<unknown>;
}

export function createStarts(deps: StartDeps) {
  const { pool, runtime, delivery, enqueue } = deps;

  const available: Engine['available'] = (channel) =>
    [...deps.workflows.values()].flatMap(({ definition: { name, description } }) => {
      const s = workflowSettings(deps.config, name);
      const here = s.enabled && (!channel || !s.channels || s.channels.includes(channel));
      return here ? [{ name, description: s.description ?? description }] : [];
    });

  const validate: Engine['validate'] = (input) => {
    const names = available(input.channel).map((w) => w.name);
    if (!deps.workflows.has(input.workflow)) {
      throw new SignoffError(
        'unknown_workflow',
        `There is no workflow "${input.workflow}"${didYouMean(input.workflow, names)}. Try one of: ${names.join(', ')}.`,
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
  };

  const start: Engine['start'] = async (input) => {
    const text = validate(input);
    const { workflow, surface, requester } = input;
    const origin = input.origin ?? {};
    const id = input.id ?? `${surface}-${randomUUID().slice(0, 8)}`;
    const result = await inTransaction(pool, async (db) => {
      // A start repeated (Slack's retry, a sweep) finds its task, whatever the limits say now.
      const existing = input.id ? await getTask(db, input.id) : undefined;
      if (existing) return { task: existing, created: false };
      await assertMayStart(db, deps.config.starts, input);
      const { door = null, input: given = null } = input;
      const inserted = await insertTask(db, {
        id,
        workflow,
        surface,
        text,
        requester,
        origin,
        door,
        input: given,
        budgetUsd: startBudget(deps.config, workflow),
      });
      if (inserted.created) {
        await record(db, id, eventKey.started(), { type: 'task_started', task: inserted.task });
        await audit(db, {
          taskId: id,
          actor: requester,
          action: 'start',
          detail: door ? { workflow, door } : { workflow },
        });
        await enqueue(db, inserted.task, RUN_PRIORITY.start);
      }
      return inserted;
    });
    if (result.created) {
      runtime.wake(advanceQueue(surface));
      void delivery.kick(result.task);
    }
    return result;
  };

  return { available, validate, start };
}
