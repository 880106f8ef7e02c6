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
import type { z } from 'zod';
import type { Queryable } from '../../db/queryable.js';
import type { Logger } from '../../logger.js';
import * as jobs from './jobs.js';
import { holdLease, type Lease } from './lease.js';

export type { JobSpec } from './jobs.js';
export type { Lease } from './lease.js';

/** A job as its handler gets it. */
export interface Claim<T> {
  readonly key: string;
  readonly data: T;
  /** 1 the first time; each claim since the job last finished counts (a crash too). */
  readonly attempt: number;
  readonly priority: number;
  readonly lease: Lease;
}

/**
 * What a handler says of its job when it returns: nothing (finished; it runs again only if asked
 * meanwhile), or when to run it again (`againAt`, a time of the database's or this process's; or
 * `againInMs` from now). A handler that throws has its job tried again with backoff.
 */
export type After = undefined | { againAt: Date } | { againInMs: number };

export interface WorkOptions<T> {
  concurrency: number;
  /** The shape of the jobs' data: a job whose data does not fit is logged and dropped. */
  data: z.ZodType<T>;
  /** Seconds between looks when nothing in this process said there is a job (default: the runtime's). */
  pollingSeconds?: number;
}

/** Attempts after which a job that keeps throwing is logged as an error (it is still tried again). */
const MAX_ATTEMPTS = 9;

/** Backoff after a failed attempt: 1 s, 2 s, 4 s … up to five minutes. */
const backoffMs = (attempt: number) => Math.min(2 ** (attempt - 1), 300) * 1000;

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

/** Waits between tries of a release that failed (a connection lost for a moment). */
const RELEASE_RETRIES_MS = [100, 500, 2000];

export function createRuntime(deps: {
  pool: pg.Pool;
  /** Where heartbeats renew leases (a pool of their own, so busy work never delays them). */
  heartbeats: pg.Pool;
  ttlSeconds: number;
  logger: Logger;
}): Runtime {
  const { pool, logger } = deps;
  const processId = randomUUID().slice(0, 8);
  const ttlMs = deps.ttlSeconds * 1000;
  let stopping = false;
  const queues = new Map<string, ReturnType<typeof startQueueLoop>>();
  let stopped: Promise<void> | undefined;

  /** Runs one claimed job under its lease and lets it go. */
  async function runOne<T>(
    row: jobs.ClaimedRow,
    sentAt: number,
    options: WorkOptions<T>,
    handler: (claim: Claim<T>) => Promise<After>,
  ): Promise<Date | undefined> {
    const data = options.data.safeParse(row.data);
    if (!data.success) {
      // Nothing would ever read it: running it again cannot help.
      logger.error({ job: row.key, issues: data.error.issues }, 'a job whose data cannot be read is dropped');
      return releaseSoon(row, { finished: true });
    }
    // The lease's own clock starts when the claim was sent: a process that stalled after the
    // claim must not count that time as held.
    const lease = holdLease({ ...deps, ttlMs, key: row.key, holder: row.holder, sentAt });
    let outcome: jobs.Outcome;
    try {
      const after = await handler({ ...row, data: data.data, lease });
      const again = after && ('againAt' in after ? { at: after.againAt } : { inMs: after.againInMs });
      // A handler cut short by its lease's loss did not finish, whatever it returned: the job
      // runs again (here, once its lease is free, when only a heartbeat came late; or wherever
      // it was taken over, whose holder this release then leaves alone).
      outcome = lease.signal.aborted ? { finished: false, again: { inMs: 0 } } : { finished: true, again };
    } catch (err) {
      // Never dropped: a job stands for work nobody else will ask for again (a run left working,
      // events left undelivered). Past MAX_ATTEMPTS it is an error worth a person's look.
      const level = row.attempt >= MAX_ATTEMPTS ? 'error' : 'warn';
      logger[level]({ err, job: row.key, attempt: row.attempt }, 'job failed; it will be tried again');
      outcome = { finished: false, again: { inMs: backoffMs(row.attempt) } };
    }
    // The heartbeat goes on until the job is let go: a release that fails for a moment is tried
    // again, and meanwhile nobody waits for the lease to run out.
    try {
      return await releaseSoon(row, outcome);
    } finally {
      lease.stop();
    }
  }

  async function releaseSoon(row: jobs.ClaimedRow, outcome: jobs.Outcome) {
    for (let i = 0; ; i++) {
      try {
        return await jobs.release(pool, row, outcome);
      } catch (err) {
        const wait = RELEASE_RETRIES_MS[i];
        if (wait === undefined) {
          // The lease runs out by itself; the job is then taken again.
          logger.warn({ err, job: row.key }, 'could not let a job go; it is taken again once its lease ends');
          return undefined;
        }
        await new Promise((r) => setTimeout(r, wait));
      }
    }
  }

  /**
   * A queue's workers in this process: a loop that claims due jobs while it has room, runs each
   * under its lease, and lets it go with what the handler said. It looks again at once when a job
   * ends or someone in this process asks (`wake`), else every poll.
   */
  function startQueueLoop<T>(
    queue: string,
    options: WorkOptions<T>,
    handler: (claim: Claim<T>) => Promise<After>,
  ): { wake(): void; loop: Promise<void>; running: Set<Promise<unknown>> } {
    const running = new Set<Promise<unknown>>();
    const pollMs = options.pollingSeconds ? options.pollingSeconds * 1000 : POLL_MS;
    let poked = false;
    let wait: (() => void) | undefined;
    const wake = () => {
      poked = true;
      wait?.();
    };
    const loop = async () => {
      while (!stopping) {
        poked = false;
        const free = options.concurrency - running.size;
        let claimed: jobs.ClaimedRow[] = [];
        const sentAt = Date.now();
        if (free > 0) {
          try {
            claimed = await jobs.claim(pool, queue, free, processId, ttlMs);
          } catch (err) {
            logger.warn({ err, queue }, 'could not look for jobs; looking again shortly');
          }
        }
        if (claimed.length && stopping) {
          // Claimed as the process began stopping: back to the queue for the next process, now.
          await jobs
            .giveBack(pool, claimed)
            .catch((err: Error) =>
              logger.warn(
                { err, queue },
                'could not hand jobs back; they are taken again once their leases end',
              ),
            );
          return;
        }
        for (const row of claimed) {
          const done: Promise<unknown> = runOne(row, sentAt, options, handler).then((next) => {
            running.delete(done);
            // Looks again: a slot is free, and the job may be due again already, or soon (a
            // delivery waiting for its rate-limit slot): then at that moment, not the next poll.
            wake();
            const left = next ? next.getTime() - Date.now() : Number.POSITIVE_INFINITY;
            if (left > 0 && left < pollMs) setTimeout(wake, left).unref();
          });
          running.add(done);
        }
        // A full batch: there may be more waiting, so look again at once (when a slot is free).
        if ((claimed.length && claimed.length === free) || poked) continue;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, pollMs);
          wait = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        wait = undefined;
      }
    };
    return { wake, loop: loop(), running };
  }

  return {
    ttlMs,
    schedule: jobs.schedule,
    wake: (queue) => queues.get(queue)?.wake(),
    work: (queue, options, handler) => {
      // One loop per queue and process: a second would be woken by nobody.
      if (queues.has(queue)) throw new Error(`the jobs of ${queue} are worked already in this process`);
      queues.set(queue, startQueueLoop(queue, options, handler));
    },
    runDue: (queue, now) => jobs.runDue(pool, queue, now),
    depth: () => jobs.depth(pool),
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
