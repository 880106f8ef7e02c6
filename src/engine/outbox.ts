/**
 * What agents say goes through the outbox: recorded once per (task, key), so a step that runs
 * again after a crash records nothing new, then handed to delivery (delivery.ts), which shows it
 * on the task's surface in order. Recording never waits for a surface.
 */
import type pg from 'pg';
import type { Say } from '../workflows/shared/types.js';
import type { Delivery } from './delivery.js';
import { insertEvent } from './event-store.js';
import { type Task, taskOfThread } from './types.js';

export interface Outbox {
  /** `say` for workflows: an agent message keyed by graph step and node. */
  say: Say;
  /** Records an agent message under a key of the caller's (once per key) and asks for its delivery. */
  sayKeyed(
    task: Pick<Task, 'id'> & Partial<Pick<Task, 'surface'>>,
    key: string,
    message: { agent: string; text: string },
  ): Promise<void>;
}

export function createOutbox(deps: { pool: pg.Pool; delivery: Delivery }): Outbox {
  const { pool } = deps;

  const sayKeyed: Outbox['sayKeyed'] = async (task, key, message) => {
    const recorded = await insertEvent(pool, task.id, key, {
      type: 'agent_said',
      agent: message.agent,
      text: message.text,
    });
    if (recorded) void deps.delivery.kick(task);
  };

  const say: Say = async (config, message) => {
    const thread = config.configurable?.thread_id as string;
    const taskId = taskOfThread(thread);
    // Steps count from 0 again on a redirected task's new thread: its generation keeps keys apart.
    const generation = thread === taskId ? '' : `${thread.slice(taskId.length + 1)}:`;
    const meta = config.metadata ?? {};
    // The run is this process's, so its surface is one this process delivers.
    await sayKeyed(
      { id: taskId },
      `said:${generation}${meta.langgraph_step}:${meta.langgraph_node}:${message.part ?? 0}`,
      message,
    );
  };

  return { say, sayKeyed };
}
