/**
 * The runtime: who runs what, and when, across every process on one database. It owns four
 * promises, and runs, delivery, timers and retention see only this interface:
 * - one holder per job key (`run:<task>`, `deliver:<task>`): a task's graph never runs twice at
 *   once, its events never go out twice at once;
 * - a job is scheduled inside the caller's transaction (it exists if and only if what asked for
 *   it committed), and asking again while it waits or runs makes it run once more, not twice;
 * - a dead holder is recovered: its lease runs out and the job is taken again;
 * - a stale holder (frozen past its lease) is fenced: `lease.fence` and the checkpoint trigger
 *   refuse what it writes.
 *
 * Why not a queue library: pg-boss 12 (per-key exclusivity with heartbeats) needs Node ≥ 22.12
 * and a ten-second heartbeat at least, and still needs a fence of our own; graphile-worker keeps a
 * dead worker's job locked for four hours; DBOS recovers a dead executor only through its own
 * service. One table that is both the schedule and the lease does all four in the statements of
 * jobs.ts (README, "How it works").
 */
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { Queryable } from '../../db/queryable.js';
import type { Logger } from '../../logger.js';
import * as jobs from './jobs.js';
import { type After, type Claim, startQueueLoop, type WorkOptions } from './workers.js';

export type { JobSpec } from './jobs.js';
export type { Lease } from './lease.js';
export type { After, Claim } from './workers.js';

export interface Runtime {
  /** How long a lease lives without a heartbeat: how soon a dead holder's job is taken again. */
  readonly ttlMs: number;
  /** Asks for a job, inside the caller's transaction; `wake` its queue once that committed. */
  schedule(db: Queryable, job: jobs.JobSpec): Promise<void>;
  /** Tells this process's idle workers on `queue` to look now rather than at their next poll. */
  wake(queue: string): void;
  /** Runs `queue`'s jobs in this process (up to `concurrency` at a time), until `stop`. Once per queue. */
  work<T>(queue: string, options: WorkOptions<T>, handler: (claim: Claim<T>) => Promise<After>): void;
  /** Jobs of `queue` due by `now` run at once (the engine's clock was moved on). */
  runDue(queue: string, now: Date): Promise<number>;
  depth(): Promise<{ queue: string; state: string; jobs: number }[]>;
  /** No job is claimed any more; waits (up to ten seconds) for the jobs under way. */
  stop(): Promise<void>;
}

/** How long stopping waits for the jobs under way (their leases then run out elsewhere). */
const STOP_WAIT_MS = 10_000;
/** Between looks for due jobs when nothing in this process said there is one. */
const POLL_MS = 500;

export function createRuntime(deps: {
  pool: pg.Pool;
  /** Where heartbeats renew leases (a pool of their own, so busy work never delays them). */
  heartbeats: pg.Pool;
  ttlSeconds: number;
  logger: Logger;
}): Runtime {
  let stopping = false;
  const loopDeps = {
    ...deps,
    processId: randomUUID().slice(0, 8),
    ttlMs: deps.ttlSeconds * 1000,
    pollMs: POLL_MS,
    stopping: () => stopping,
  };
  const queues = new Map<string, ReturnType<typeof startQueueLoop>>();
  let stopped: Promise<void> | undefined;

  return {
    ttlMs: loopDeps.ttlMs,
    schedule: jobs.schedule,
    wake: (queue) => queues.get(queue)?.wake(),
    work: (queue, options, handler) => {
      // One loop per queue and process: a second would be woken by nobody.
      if (queues.has(queue)) throw new Error(`the jobs of ${queue} are worked already in this process`);
      queues.set(queue, startQueueLoop(loopDeps, queue, options, handler));
    },
    runDue: (queue, now) => jobs.runDue(deps.pool, queue, now),
    depth: () => jobs.depth(deps.pool),
    stop: () =>
      (stopped ??= (async () => {
        stopping = true;
        for (const q of queues.values()) q.wake();
        await Promise.all([...queues.values()].map((q) => q.loop));
        const running = [...queues.values()].flatMap((q) => [...q.running]);
        await Promise.race([
          Promise.allSettled(running),
          new Promise((r) => setTimeout(r, STOP_WAIT_MS).unref()),
        ]);
      })()),
  };
}
