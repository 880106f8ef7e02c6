/**
 * The durable job queue: pg-boss on the project's own pool. Jobs survive crashes (an expired
 * active job is retried), can be delayed (`startAfter`), and one per task waits at a time
 * (queue policy `short` + singletonKey = task id: a second "advance T" while one is queued is
 * the same job, since the queued one will read everything when it runs).
 */

import type pg from 'pg';
import PgBoss from 'pg-boss';
import type { Queryable } from '../db/queryable.js';
import type { Logger } from '../logger.js';

export interface SendOptions {
  /** Enqueue inside the caller's transaction. */
  db?: Queryable;
  singletonKey?: string;
  startAfter?: Date;
  /** Higher first: a waiting job of higher priority is fetched before older ones of lower (default 0). */
  priority?: number;
}

export interface JobQueue {
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Creates the queue (idempotent) with per-key dedupe of waiting jobs. */
  declare(name: string): Promise<void>;
  /** Enqueues a job; with `db`, call `wake(name)` once the caller's transaction has committed. */
  send(name: string, data: object, options?: SendOptions): Promise<string | null>;
  /** Tells this process's idle workers on `name` to fetch now rather than at their next poll. */
  wake(name: string): void;
  /**
   * Runs `concurrency` workers on `name`; a handler that throws has its job retried with backoff.
   * `attempt` counts the job's runs (1 the first; its retries, as pg-boss keeps them, after);
   * `priority` is the one it was sent with.
   */
  work<T extends object>(
    name: string,
    concurrency: number,
    handler: (data: T, job: { attempt: number; priority: number }) => Promise<void>,
  ): Promise<void>;
}

export interface QueueOptions {
  pool: pg.Pool;
  logger: Logger;
  /** How long a job may run before it counts as lost (its worker died) and is retried. */
  expireSeconds: number;
  /** Seconds between polls when nothing in this process said there is work. */
  pollingSeconds?: number;
}

/** pg-boss's completeJobs and failJobsById statements (the ones it runs without awaiting). */
export const UNAWAITED = /SET completed_on = now\(\)|DELETE FROM \S+\.job\s+WHERE name = \$1 AND id IN/;

export function createQueue(options: QueueOptions): JobQueue {
  const { pool, logger } = options;
  const boss = new PgBoss({
    db: {
      executeSql: (text, values) => {
        const result = pool.query(text, values);
        if (!UNAWAITED.test(text)) return result;
        // pg-boss 10 completes and fails a worker's jobs without awaiting or catching the query
        // (manager.js onFetch): with the database gone at that moment, the rejection would
        // crash the process. Such a job stays active, expires and is retried, as after a crash.
        return result.catch((err: Error) => {
          logger.warn({ err }, 'could not mark a job finished; it will be retried');
          return { rows: [{ count: '0' }] } as never;
        });
      },
    },
    schema: 'pgboss',
    schedule: false,
    expireInSeconds: options.expireSeconds,
    retryLimit: 8,
    retryDelay: 1,
    retryBackoff: true,
    monitorStateIntervalSeconds: 30,
    maintenanceIntervalSeconds: 30,
  });
  boss.on('error', (error) => logger.warn({ err: error }, 'job queue error'));
  const workerIds = new Map<string, string[]>();
  const busy = new Set<string>();
  const turn = new Map<string, number>();
  const declared = new Set<string>();

  // One idle worker, in rotation, so that two jobs sent together wake two workers while a
  // single job does not send every worker to fetch. Busy workers look again when they finish.
  const wake = (name: string) => {
    const ids = workerIds.get(name) ?? [];
    const start = turn.get(name) ?? 0;
    for (let k = 0; k < ids.length; k++) {
      const id = ids[(start + k) % ids.length] as string;
      if (!busy.has(id)) {
        turn.set(name, (start + k + 1) % ids.length);
        boss.notifyWorker(id);
        return;
      }
    }
  };

  const declare = async (name: string) => {
    if (declared.has(name)) return;
    if (!(await boss.getQueue(name))) {
      try {
        await boss.createQueue(name, { name, policy: 'short' });
      } catch (error) {
        // Two processes declaring at once: the loser finds the queue made.
        if (!(await boss.getQueue(name))) throw error;
      }
    }
    declared.add(name);
  };

  return {
    start: async () => {
      await boss.start();
    },
    stop: async () => {
      await boss.stop({ graceful: true, wait: true, timeout: 10_000 });
    },
    declare,
    send: async (name, data, opts = {}) => {
      // A process that only sends (a web replica) must not depend on a worker having declared it.
      await declare(name);
      const id = await boss.send(name, data, {
        singletonKey: opts.singletonKey,
        startAfter: opts.startAfter,
        // pg-boss refuses `priority: undefined` ("priority must be an integer"): absent, or a number.
        ...(opts.priority === undefined ? {} : { priority: opts.priority }),
        db: opts.db && {
          executeSql: (text: string, values: unknown[]) => (opts.db as Queryable).query(text, values),
        },
      });
      // A job sent inside a transaction is invisible until the caller commits; the caller wakes then.
      if (!opts.db) wake(name);
      return id;
    },
    wake,
    work: async <T extends object>(
      name: string,
      concurrency: number,
      handler: (data: T, job: { attempt: number; priority: number }) => Promise<void>,
    ) => {
      const ids: string[] = [];
      for (let i = 0; i < concurrency; i++) {
        let self = '';
        self = await boss.work<T>(
          name,
          { batchSize: 1, pollingIntervalSeconds: options.pollingSeconds ?? 0.5, includeMetadata: true },
          async (jobs) => {
            try {
              for (const job of jobs)
                await handler(job.data, { attempt: job.retryCount + 1, priority: job.priority });
            } finally {
              // pg-boss 10 sleeps out the polling interval after every job, even with more
              // waiting; a worker that just found work looks again at once.
              if (jobs.length) boss.notifyWorker(self);
            }
          },
        );
        ids.push(self);
      }
      workerIds.set(name, [...(workerIds.get(name) ?? []), ...ids]);
    },
  };
}
