/**
 * Events go through an outbox: recorded once per (task, key), then delivered to the task's
 * surface in id order, and marked delivered. A crash between the two means a retry delivers the
 * rest; a step that runs again after a crash records nothing new (same key).
 */
import type pg from 'pg';
import type { Logger } from '../logger.js';
import type { Say } from '../workflows/shared/types.js';
import { getTask, insertEvent, markDelivered, undeliveredEvents } from './store.js';
import type { EngineEvent, Sink, Surface } from './types.js';

export interface Outbox {
  /** Records `event` for the task unless `key` was recorded before; then delivers. */
  record(taskId: string, key: string, event: EngineEvent): Promise<void>;
  /** Delivers what is undelivered for the task, in order; throws if the surface failed. */
  deliver(taskId: string): Promise<void>;
  /** `say` for workflows: an agent message keyed by graph step and node. */
  say: Say;
}

export function createOutbox(deps: {
  pool: pg.Pool;
  sinks: Partial<Record<Surface, Sink>>;
  logger: Logger;
}): Outbox {
  const { pool, sinks, logger } = deps;
  // One delivery at a time per task in this process; other processes never deliver a task's
  // events while this one holds the task's run lock.
  const chains = new Map<string, Promise<void>>();

  const deliverNow = async (taskId: string) => {
    const task = await getTask(pool, taskId);
    const sink = task && sinks[task.surface];
    if (!task || !sink) return;
    for (const event of await undeliveredEvents(pool, taskId)) {
      await sink(event, task);
      await markDelivered(pool, event.id);
    }
  };

  const deliver = (taskId: string) => {
    const previous = chains.get(taskId) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(() => deliverNow(taskId));
    chains.set(taskId, next);
    void next
      .finally(() => {
        if (chains.get(taskId) === next) chains.delete(taskId);
      })
      .catch(() => undefined);
    return next;
  };

  const record = async (taskId: string, key: string, event: EngineEvent) => {
    if (await insertEvent(pool, taskId, key, event)) await deliver(taskId);
  };

  const say: Say = async (config, message) => {
    const taskId = config.configurable?.thread_id as string;
    const meta = config.metadata ?? {};
    const key = `said:${meta.langgraph_step}:${meta.langgraph_node}:${message.part ?? 0}`;
    const recorded = await insertEvent(pool, taskId, key, {
      type: 'agent_said',
      agent: message.agent,
      text: message.text,
    });
    // A surface that fails now must not fail the agent's step: the run delivers again at its end.
    if (recorded)
      await deliver(taskId).catch((err) => logger.warn({ err, task: taskId }, 'delivery failed; will retry'));
  };

  return { record, deliver, say };
}
