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
import { holdLease, type Lease } from './lease.js';

export type { JobSpec } from './jobs.js';
export type { Lease } from './lease.js';

/** A job as its handler gets it. */
export interface Claim {
  readonly key: string;
  readonly data: unknown;
  /** 1 the first time; each claim since the job last finished counts (a crash too). */
  readonly attempt: number;
  readonly priority: number;
  readonly lease: Lease;
}

/**
 * What a handler says of its job when it returns: nothing (finished; it runs again only if asked
 * meanwhile), or when to run it again (`againAt`, or `againInMs` from now). A handler that
 * throws has its job tried again with backoff (at most five minutes apart).
 */
export type After = undefined | { againAt: Date } | { againInMs: number };

export type Handler = (claim: Claim) => Promise<After>;

export interface Runtime {
  /** How long a lease lives without a heartbeat: how soon a dead holder's job is taken again. */
  readonly ttlMs: number;
  /** Asks for a job, inside the caller's transaction; `wake` its queue once that committed. */
  schedule(db: Queryable, job: jobs.JobSpec): Promise<void>;
  /** Tells this process's idle workers on `queue` to look now rather than at their next poll. */
  wake(queue: string): void;
  /** Runs up to `concurrency` of `queue`'s jobs at a time in this process, until `stop`. */
  work(queue: string, concurrency: number, handler: Handler): void;
  /** Jobs of `queue` due by `now` run at once (the engine's clock was moved on). */
  runDue(queue: string, now: Date): Promise<number>;
  depth(): Promise<{ queue: string; state: string; jobs: number }[]>;
  /** No new claims; waits (a little) for the jobs under way, whose leases are then let go or run out. */
  stop(): Promise<void>;
}

/** Attempts after which a job that keeps throwing is logged as an error (it is still tried again). */
export const MAX_ATTEMPTS = 9;
/** How long stopping waits for the jobs under way. */
const STOP_WAIT_MS = 10_000;

/** Backoff after a failed attempt: 1 s, 2 s, 4 s … up to five minutes. */
const backoffMs = (attempt: number) => Math.min(2 ** (attempt - 1), 300) * 1000;

export function createRuntime(deps: {
  pool: pg.Pool;
  /** Where heartbeats renew leases (a pool of their own, so busy work never delays them). */
  heartbeats: pg.Pool;
  ttlSeconds: number;
  /** Seconds between looks for due jobs when nothing in this process said there is one. */
  pollingSeconds?: number;
  logger: Logger;
}): Runtime {
  const { pool, logger } = deps;
  const ttlMs = deps.ttlSeconds * 1000;
  const pollMs = (deps.pollingSeconds ?? 0.5) * 1000;
  const processId = randomUUID().slice(0, 8);
  const pokes = new Map<string, () => void>();
  const running = new Set<Promise<void>>();
  const loops: Promise<void>[] = [];
  let stopping = false;

  const wake = (queue: string) => pokes.get(queue)?.();

  async function runOne(queue: string, row: jobs.ClaimedRow, handler: Handler): Promise<void> {
    const lease = holdLease({
      key: row.key,
      holder: row.holder,
      sentAt: Date.now(),
      ttlMs,
      heartbeats: deps.heartbeats,
      logger,
    });
    let outcome: { againInMs?: number; finished: boolean };
    try {
      const after = await handler({ ...row, lease });
      const again = after
        ? 'againAt' in after
          ? after.againAt.getTime() - Date.now()
          : after.againInMs
        : undefined;
      outcome = { finished: true, againInMs: again };
    } catch (err) {
      // Never dropped: a job stands for work nobody else will ask for again (a run left working,
      // events left undelivered). Past MAX_ATTEMPTS it is an error worth a person's look.
      const many = row.attempt >= MAX_ATTEMPTS;
      logger[many ? 'error' : 'warn'](
        { err, job: row.key, attempt: row.attempt },
        'job failed; it will be tried again',
      );
      outcome = { finished: false, againInMs: backoffMs(row.attempt) };
    } finally {
      lease.stop();
    }
    try {
      const next = await jobs.release(pool, row, outcome);
      if (next && next.getTime() <= Date.now()) wake(queue);
    } catch (err) {
      // The lease runs out by itself; the job is then taken again.
      logger.warn({ err, job: row.key }, 'could not let a job go; it is taken again once its lease ends');
    }
  }

  function work(queue: string, concurrency: number, handler: Handler): void {
    let poked = false;
    let wait: (() => void) | undefined;
    const mine = new Set<Promise<void>>();
    pokes.set(queue, () => {
      poked = true;
      wait?.();
    });
    const loop = async () => {
      while (!stopping) {
        poked = false;
        const free = concurrency - mine.size;
        let claimed: jobs.ClaimedRow[] = [];
        if (free > 0) {
          try {
            claimed = await jobs.claim(pool, queue, free, processId, ttlMs);
          } catch (err) {
            logger.warn({ err, queue }, 'could not look for jobs; looking again shortly');
          }
        }
        for (const row of claimed) {
          const done: Promise<void> = runOne(queue, row, handler).finally(() => {
            mine.delete(done);
            running.delete(done);
            wake(queue);
          });
          mine.add(done);
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
    loops.push(loop());
  }

  return {
    ttlMs,
    schedule: jobs.schedule,
    wake,
    work,
    runDue: (queue, now) => jobs.runDue(pool, queue, now),
    depth: () => jobs.depth(pool),
    stop: async () => {
      stopping = true;
      for (const poke of pokes.values()) poke();
      await Promise.all(loops);
      await Promise.race([
        Promise.allSettled([...running]),
        new Promise((r) => setTimeout(r, STOP_WAIT_MS).unref()),
      ]);
    },
  };
}
