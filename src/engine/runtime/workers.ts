/**
 * A queue's workers in one process: a loop that claims due jobs while it has room, runs each
 * under its lease, and lets it go with what the handler said. It looks again at once when a job
 * ends or someone in this process asks (`wake`), else every poll.
 */
import type pg from 'pg';
import type { z } from 'zod';
import type { Logger } from '../../logger.js';
import * as jobs from './jobs.js';
import { holdLease, type Lease } from './lease.js';

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
export const MAX_ATTEMPTS = 9;

/** Backoff after a failed attempt: 1 s, 2 s, 4 s … up to five minutes. */
const backoffMs = (attempt: number) => Math.min(2 ** (attempt - 1), 300) * 1000;

export interface LoopDeps {
  pool: pg.Pool;
  heartbeats: pg.Pool;
  processId: string;
  ttlMs: number;
  pollMs: number;
  logger: Logger;
  /** Whether this process is stopping: no job is started any more. */
  stopping(): boolean;
}

/** Runs one claimed job under its lease and lets it go. */
async function runOne<T>(
  deps: LoopDeps,
  row: jobs.ClaimedRow,
  sentAt: number,
  options: WorkOptions<T>,
  handler: (claim: Claim<T>) => Promise<After>,
): Promise<Date | undefined> {
  const data = options.data.safeParse(row.data);
  if (!data.success) {
    // Nothing would ever read it: running it again cannot help.
    deps.logger.error(
      { job: row.key, issues: data.error.issues },
      'a job whose data cannot be read is dropped',
    );
    return releaseSoon(deps, row, { finished: true });
  }
  // The lease's own clock starts when the claim was sent: a process that stalled after the
  // claim must not count that time as held.
  const lease = holdLease({ ...deps, key: row.key, holder: row.holder, sentAt });
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
    deps.logger[level]({ err, job: row.key, attempt: row.attempt }, 'job failed; it will be tried again');
    outcome = { finished: false, again: { inMs: backoffMs(row.attempt) } };
  }
  // The heartbeat goes on until the job is let go: a release that fails for a moment is tried
  // again, and meanwhile nobody waits for the lease to run out.
  try {
    return await releaseSoon(deps, row, outcome);
  } finally {
    lease.stop();
  }
}

/** Waits between tries of a release that failed (a connection lost for a moment). */
const RELEASE_RETRIES_MS = [100, 500, 2000];

async function releaseSoon(deps: LoopDeps, row: jobs.ClaimedRow, outcome: jobs.Outcome) {
  for (let i = 0; ; i++) {
    try {
      return await jobs.release(deps.pool, row, outcome);
    } catch (err) {
      const wait = RELEASE_RETRIES_MS[i];
      if (wait === undefined) {
        // The lease runs out by itself; the job is then taken again.
        deps.logger.warn(
          { err, job: row.key },
          'could not let a job go; it is taken again once its lease ends',
        );
        return undefined;
      }
      await new Promise((r) => setTimeout(r, wait));
    }
  }
}

/** Starts the loop of `queue` in this process; returns how to wake it and what it is doing. */
export function startQueueLoop<T>(
  deps: LoopDeps,
  queue: string,
  options: WorkOptions<T>,
  handler: (claim: Claim<T>) => Promise<After>,
): { wake(): void; loop: Promise<void>; running: Set<Promise<unknown>> } {
  const { pool, logger } = deps;
  const running = new Set<Promise<unknown>>();
  const pollMs = (options.pollingSeconds ?? deps.pollMs / 1000) * 1000;
  let poked = false;
  let wait: (() => void) | undefined;
  const wake = () => {
    poked = true;
    wait?.();
  };
  const loop = async () => {
    while (!deps.stopping()) {
      poked = false;
      const free = options.concurrency - running.size;
      let claimed: jobs.ClaimedRow[] = [];
      const sentAt = Date.now();
      if (free > 0) {
        try {
          claimed = await jobs.claim(pool, queue, free, deps.processId, deps.ttlMs);
        } catch (err) {
          logger.warn({ err, queue }, 'could not look for jobs; looking again shortly');
        }
      }
      if (claimed.length && deps.stopping()) {
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
        const done: Promise<unknown> = runOne(deps, row, sentAt, options, handler).then((next) => {
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
