/**
 * Events go through an outbox: recorded once per (task, key), then delivered to the task's
 * surface in id order, and marked delivered. A crash between the two means a retry delivers the
 * rest; a step that runs again after a crash records nothing new (same key).
 */
import type pg from 'pg';
import type { Logger } from '../logger.js';
import type { Say } from '../workflows/shared/types.js';
import { eventsOf, insertEvent, markDelivered } from './event-store.js';
import { getTask } from './store.js';
import { type DeliveredEvent, type Sink, type Surface, type Task, taskOfThread } from './types.js';

export interface Outbox {
  /** Delivers what is undelivered for the task, in order; throws if the surface failed. */
  deliver(taskId: string): Promise<void>;
  /** `say` for workflows: an agent message keyed by graph step and node. */
  say: Say;
  sayKeyed(taskId: string, key: string, message: { agent: string; text: string }): Promise<void>;
}

const MAX_CACHED = 1000;

export function createOutbox(deps: {
  pool: pg.Pool;
  sinks: Partial<Record<Surface, Sink>>;
  logger: Logger;
}): Outbox {
  const { pool, sinks, logger } = deps;
  // One delivery at a time per task in this process; other processes never deliver a task's
  // events while this one holds the task's run lock.
  const chains = new Map<string, Promise<void>>();
  // Sinks use a task's fixed fields (surface, origin); status travels in the events themselves.
  const tasks = new Map<string, Task>();
  // Tasks whose every recorded event this process has delivered: a new one can go straight out.
  const clean = new Set<string>();

  const remember = <T>(map: Map<string, T> | Set<string>, key: string, value?: T) => {
    if (map.size >= MAX_CACHED) {
      const oldest = map.keys().next().value as string;
      map.delete(oldest);
    }
    if (map instanceof Map) map.set(key, value as T);
    else map.add(key);
  };

  const taskOf = async (taskId: string) => {
    const cached = tasks.get(taskId);
    if (cached) return cached;
    const task = await getTask(pool, taskId);
    if (task) remember(tasks, taskId, task);
    return task;
  };

  const send = async (taskId: string, events: DeliveredEvent[]) => {
    const task = await taskOf(taskId);
    const sink = task && sinks[task.surface];
    if (!task || !sink) return false;
    // Marked in one statement at the end (or where a sink failed): a crash in between delivers
    // those again, which every sink tolerates (Slack posts once per key).
    const done: number[] = [];
    try {
      for (const event of events) {
        await sink(event, task);
        done.push(event.id);
        // A redirect changed the task's goal: read the task afresh for what follows.
        if (event.event.type === 'task_redirected') tasks.delete(taskId);
      }
    } finally {
      await markDelivered(pool, done);
    }
    return true;
  };

  /** Runs `fn` after the task's previous delivery, whatever its outcome. */
  const chained = (taskId: string, fn: () => Promise<void>) => {
    const next = (chains.get(taskId) ?? Promise.resolve()).catch(() => undefined).then(fn);
    chains.set(taskId, next);
    void next
      .finally(() => {
        if (chains.get(taskId) === next) chains.delete(taskId);
      })
      .catch(() => undefined);
    return next;
  };

  const deliver = (taskId: string) =>
    chained(taskId, async () => {
      clean.delete(taskId);
      if (await send(taskId, await eventsOf(pool, taskId, 'undelivered'))) remember(clean, taskId);
    });

  /** Delivers one just-recorded event: directly when nothing is pending before it. */
  const deliverRecorded = (event: DeliveredEvent) =>
    chained(event.taskId, async () => {
      if (!clean.has(event.taskId)) {
        if (await send(event.taskId, await eventsOf(pool, event.taskId, 'undelivered')))
          remember(clean, event.taskId);
        return;
      }
      clean.delete(event.taskId);
      if (await send(event.taskId, [event])) remember(clean, event.taskId);
    });

  const say: Say = async (config, message) => {
    const thread = config.configurable?.thread_id as string;
    const taskId = taskOfThread(thread);
    // Steps count from 0 again on a redirected task's new thread: its generation keeps keys apart.
    const generation = thread === taskId ? '' : `${thread.slice(taskId.length + 1)}:`;
    const meta = config.metadata ?? {};
    await sayKeyed(
      taskId,
      `said:${generation}${meta.langgraph_step}:${meta.langgraph_node}:${message.part ?? 0}`,
      message,
    );
  };

  /** Records and delivers an agent message under a key of the caller's (once per key). */
  const sayKeyed = async (taskId: string, key: string, message: { agent: string; text: string }) => {
    const recorded = await insertEvent(pool, taskId, key, {
      type: 'agent_said',
      agent: message.agent,
      text: message.text,
    });
    // A surface that fails now must not fail the agent's step: the run delivers again at its end.
    if (recorded) {
      await deliverRecorded(recorded).catch((err) =>
        logger.warn({ err, task: taskId }, 'delivery failed; will retry'),
      );
    }
  };

  return { deliver, say, sayKeyed };
}
