/**
 * The engine's jobs in the runtime (runtime/): a task's runs and deliveries, one key each per
 * task (so one holder each), in a queue per surface (so only the processes that serve a surface
 * take its jobs).
 */
import { z } from 'zod';
import type { JobSpec } from './runtime/index.js';
import type { Surface, Task } from './types.js';

export const advanceQueue = (surface: Surface) => `signoff-advance-${surface}`;
export const deliveryQueue = (surface: Surface) => `signoff-deliver-${surface}`;

/**
 * Which runs a free worker takes first: a decision's resume (and a retry's, a redirect's, a
 * recovered run's) before any task's first run, so that a hundred starts queued by one person
 * never stand between a reviewer's click and the agents carrying on.
 */
export const RUN_PRIORITY = { start: 0, resume: 10 } as const;

export const taskJobSchema = z.object({ taskId: z.string() });
export type TaskJob = z.infer<typeof taskJobSchema>;

type TaskRef = Pick<Task, 'id' | 'surface'>;

/**
 * A task's run job, keyed `run:<task>`: also what the checkpoint fence (migration 023's trigger)
 * looks up from a checkpoint's thread; the two must match. `RUN_KEY_SQL` is that key in SQL, of
 * the task id expression `id`.
 */
export const RUN_KEY_SQL = (id: string) => `'run:' || ${id}`;

export const runJob = (task: TaskRef, priority: number = RUN_PRIORITY.resume): JobSpec => ({
  queue: advanceQueue(task.surface),
  key: `run:${task.id}`,
  data: { taskId: task.id },
  priority,
});

export const deliveryJob = (task: TaskRef, at?: Date): JobSpec => ({
  queue: deliveryQueue(task.surface),
  key: `deliver:${task.id}`,
  data: { taskId: task.id },
  at,
});
