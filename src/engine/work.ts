/**
 * The worker bootstrap: what a process that runs a surface's tasks starts. Graph runs (one per
 * task at a time, under its lease; a busy task is queued again, never waited for), delivery of
 * events, review timers, the listener that stops runs cancelled or redirected elsewhere, and
 * (in servers) retention.
 */
import type pg from 'pg';
import type { Queryable } from '../db/queryable.js';
import type { AbortListener } from './abort-listener.js';
import type { Runner } from './api.js';
import { createTimerHandler, type TimerHandlerDeps } from './on-timer.js';
import { type Purger, type RetentionSettings, startRetention } from './retention.js';
import { type TimerJob, timerJobSchema, timerQueue } from './timers.js';
import type { Surface, Task } from './types.js';

export const advanceQueue = (surface: Surface) => `signoff-advance-${surface}`;

/**
 * Which runs a free worker takes first (pg-boss fetches the highest priority, then the oldest):
 * a decision's resume (and a retry's, a redirect's, a recovered run's) before any task's first
 * run, so that a hundred starts queued by one person never stand between a reviewer's click and
 * the agents carrying on.
 */
export const RUN_PRIORITY = { start: 0, resume: 10 } as const;

/** How soon a task whose run lease is taken is tried again. */
const BUSY_RETRY_MS = 1000;
/** Review timers handled at once in one process (a reminder never waits for a run). */
const TIMER_WORKERS = 4;

/** What the timers need, and the runner, the abort listener and how to queue a task's run. */
export interface WorkerDeps extends TimerHandlerDeps {
  runner: Runner;
  abortListener: AbortListener;
  /** Queues a run of the task (by default at `RUN_PRIORITY.resume`). */
  enqueue(db: Queryable, task: Pick<Task, 'id' | 'surface'>, priority?: number): Promise<unknown>;
  /** How long a lease lives: how often orphaned runs are looked for. */
  leaseTtlMs: number;
  /** Registers what to stop at shutdown. */
  onStop(stop: () => void): void;
  retention: RetentionSettings & { purgers: Purger[] };
}

export async function startWorkers(
  deps: WorkerDeps,
  surface: Surface,
  concurrency: number,
  options: { retention?: boolean } = {},
): Promise<void> {
  const { pool, queue, runner } = deps;
  await queue.declare(advanceQueue(surface));
  await queue.work<{ taskId: string }>(advanceQueue(surface), concurrency, async ({ taskId }, job) => {
    const outcome = await runner.advance(taskId, job.attempt);
    if (outcome === 'done') return;
    // Busy elsewhere: try again shortly rather than wait (a worker is never pinned by a busy task).
    // Stopped (this process is going): queued again for whichever process runs tasks next.
    const wait = outcome === 'busy' ? BUSY_RETRY_MS : 0;
    await queue.send(
      advanceQueue(surface),
      { taskId },
      {
        singletonKey: taskId,
        startAfter: new Date(Date.now() + wait),
        // Its place kept when busy; decisions still waiting ('more') are a resume's.
        priority: outcome === 'busy' ? job.priority : RUN_PRIORITY.resume,
      },
    );
  });
  await deps.abortListener.start();
  await deps.delivery.work(surface, concurrency);
  await queue.declare(timerQueue(surface));
  const onTimer = createTimerHandler(deps);
  await queue.work<TimerJob>(timerQueue(surface), TIMER_WORKERS, (data) =>
    onTimer(timerJobSchema.parse(data)),
  );
  if (options.retention) {
    const { purgers, ...settings } = deps.retention;
    await startRetention({ ...deps, settings, purgers });
  }
  // Tasks whose run was cut short (a crash, a deploy) continue now, not when their job expires.
  const unfinished = await pool.query<{ id: string }>(
    `SELECT id FROM signoff.tasks WHERE surface = $1 AND status = 'working'`,
    [surface],
  );
  for (const { id } of unfinished.rows) await deps.enqueue(pool, { id, surface });
  queue.wake(advanceQueue(surface));
  // And while this process runs: a worker killed mid-run leaves its task working, its job active
  // until the queue expires it (minutes). Once its lease has ended, the task is queued again.
  const sweep = setInterval(() => {
    orphanedRuns(pool, surface)
      .then(async (ids) => {
        for (const id of ids) await deps.enqueue(pool, { id, surface });
        if (ids.length) queue.wake(advanceQueue(surface));
      })
      .catch((err: Error) => deps.logger.warn({ err }, 'run sweep failed'));
  }, deps.leaseTtlMs);
  sweep.unref();
  deps.onStop(() => clearInterval(sweep));
}

/** Working tasks that nobody runs: no live run lease, no run job waiting. */
async function orphanedRuns(pool: pg.Pool, surface: Surface): Promise<string[]> {
  const r = await pool.query<{ id: string }>(
    `SELECT t.id FROM signoff.tasks t
     WHERE t.surface = $1 AND t.status = 'working'
       AND NOT EXISTS (SELECT 1 FROM signoff.leases l WHERE l.key = 'run:' || t.id AND l.expires_at > now())
       AND NOT EXISTS (SELECT 1 FROM pgboss.job j
                       WHERE j.name = $2 AND j.singleton_key = t.id AND j.state IN ('created', 'retry'))
     LIMIT 100`,
    [surface, advanceQueue(surface)],
  );
  return r.rows.map((row) => row.id);
}
