/**
 * The worker bootstrap: what a process that runs a surface's tasks starts. Graph runs (one per
 * task at a time: the runtime's lease), delivery of events, review timers, the listener that
 * stops runs cancelled or redirected elsewhere, and (in servers) retention.
 */
import { z } from 'zod';
import type { Queryable } from '../db/queryable.js';
import type { AbortListener } from './abort-listener.js';
import type { Runner } from './api.js';
import { advanceQueue, RUN_KEY_SQL, taskJobSchema } from './job-names.js';
import { createTimerHandler, type TimerHandlerDeps } from './on-timer.js';
import { type Purger, type RetentionSettings, startRetention } from './retention.js';
import { timerJobSchema, timerQueue } from './timers.js';
import type { Surface, Task } from './types.js';

/** Review timers handled at once in one process (a reminder never waits for a run). */
const TIMER_WORKERS = 4;

/** What the timers need, and the runner, the abort listener and how to queue a task's run. */
export interface WorkerDeps extends TimerHandlerDeps {
  runner: Runner;
  abortListener: AbortListener;
  /** Queues a run of the task (by default at `RUN_PRIORITY.resume`). */
  enqueue(db: Queryable, task: Pick<Task, 'id' | 'surface'>, priority?: number): Promise<unknown>;
  retention: RetentionSettings & { purgers: Purger[] };
}

export async function startWorkers(
  deps: WorkerDeps,
  surface: Surface,
  concurrency: number,
  options: { retention?: boolean } = {},
): Promise<void> {
  const { pool, runtime, runner } = deps;
  runtime.work(advanceQueue(surface), { concurrency, data: taskJobSchema }, runner.advance);
  await deps.abortListener.start();
  await deps.delivery.work(surface, concurrency);
  const onTimer = createTimerHandler(deps);
  runtime.work(timerQueue(surface), { concurrency: TIMER_WORKERS, data: timerJobSchema }, (claim) =>
    onTimer(claim.data),
  );
  if (options.retention) {
    const { purgers, ...settings } = deps.retention;
    await startRetention({ ...deps, settings, purgers });
  }
  // A task left working with no run asked for continues: looked for now and then every lease
  // length, by one process at a time (a job of its own). With the runtime's promises there is
  // none; this is the net under them (a job row deleted by hand, a bug), as cheap as a look.
  const sweep = `signoff-sweep-${surface}`;
  runtime.work(
    sweep,
    { concurrency: 1, data: z.unknown(), pollingSeconds: runtime.ttlMs / 1000 },
    async () => {
      const lost = await pool.query<{ id: string }>(
        `SELECT id FROM signoff.tasks t WHERE surface = $1 AND status = 'working'
         AND NOT EXISTS (SELECT 1 FROM signoff.jobs j WHERE j.key = ${RUN_KEY_SQL('t.id')}) LIMIT 100`,
        [surface],
      );
      for (const { id } of lost.rows) await deps.enqueue(pool, { id, surface });
      if (lost.rows.length) runtime.wake(advanceQueue(surface));
      return { againInMs: runtime.ttlMs };
    },
  );
  await runtime.schedule(pool, { queue: sweep, key: sweep, keep: true });
  runtime.wake(sweep);
}
