/**
 * Tasks this terminal runs but does not follow. A command that runs tasks also continues the
 * ones left working (an earlier command stopped by Ctrl-C, a decision taken in another terminal),
 * perhaps with other model settings than they started with, where they can fail. Nothing of that
 * may happen unseen: each such task is announced as its run starts here, and how it ends (done,
 * failed, waiting for review) is said with the command that shows it. What its agents say stays
 * with whoever follows it. Written where notices go (stderr): stdout's last line stays the status
 * of the task this session follows.
 */
import type { DeliveredEvent, Task } from '../engine/index.js';
import { atTheKeyboard } from '../failures.js';
import { excerpt } from '../text.js';
import { CLI } from './help.js';
import { printable, statusWords } from './printer.js';

/**
 * `modelAddress`: this process's model service, where the tasks it announces ran and ended; `cli`:
 * the command as its hints name it (help.ts's commandWith).
 */
export function createUnfollowed(write: (text: string) => void, modelAddress?: string, cli = CLI) {
  /** Tasks this session follows (their events are on its screen already). */
  const followed = new Set<string>();
  /** Tasks announced whose end is not shown yet. */
  const announced = new Set<string>();
  return {
    /** The session follows `taskId`: said before any of its runs can start here. */
    follow(taskId: string): void {
      followed.add(taskId);
      announced.delete(taskId);
    },
    /** A run of `task` starts in this process (runner.ts). */
    ran(task: Task): void {
      if (followed.has(task.id) || announced.has(task.id)) return;
      announced.add(task.id);
      write(
        `\nContinuing task ${task.id} here (${task.workflow}: ${printable(excerpt(task.text, 60))}): this terminal does not follow it, so only how it ends is shown. Follow it with: ${cli} resume ${task.id}\n`,
      );
    },
    /** An event delivered in this process: an announced task's status is how it ended. */
    seen(delivered: DeliveredEvent, task: Task): void {
      const { event } = delivered;
      if (event.type !== 'task_status' || event.status === 'working' || !announced.has(task.id)) return;
      // A later run here is announced again.
      announced.delete(task.id);
      const reason = event.reason ? ` (${atTheKeyboard(printable(event.reason), modelAddress)})` : '';
      const next =
        event.status === 'waiting'
          ? `Answer it with: ${cli} resume ${task.id}`
          : event.status === 'failed'
            ? `See it with: ${cli} events ${task.id}; try again with: ${cli} retry ${task.id}`
            : `See what happened with: ${cli} events ${task.id}`;
      write(`\nTask ${task.id} (continued here): ${statusWords(event.status)}${reason}. ${next}\n`);
    },
  };
}

export type Unfollowed = ReturnType<typeof createUnfollowed>;
