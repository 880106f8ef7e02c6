/**
 * A claimed job's lease: the right to run it, held by one process at a time. It holds no
 * connection open while an agent thinks, works through a transaction-mode pooler, and cannot
 * vanish unnoticed: the moment a heartbeat finds the job taken, or none has succeeded for most of
 * the lease's lifetime (the database is gone), `signal` aborts. Whatever the holder then writes
 * goes through `fence`, which refuses inside the writer's own transaction unless the lease is
 * still held, so a holder that lost its lease applies nothing.
 */
import type pg from 'pg';
import type { Queryable } from '../../db/queryable.js';
import { SignoffError } from '../../errors.js';
import type { Logger } from '../../logger.js';

export interface Lease {
  readonly key: string;
  /** This claim's token: unique to it, written with the run's checkpoints (their fence). */
  readonly holder: string;
  /** Aborts the moment the lease is known to be lost. */
  readonly signal: AbortSignal;
  /**
   * Whether the lease is still safely held by this process's own clock, checked on the spot: a
   * process frozen past its lease (a GC pause, a stopped VM) sees false the moment it wakes,
   * before its timers have had a chance to abort `signal`. Ask it right before an outside
   * effect that no database fence can cover (a Slack post).
   */
  held(): boolean;
  /**
   * Inside the caller's transaction: throws `lease_lost` unless the lease is still held, and keeps
   * it until commit (FOR SHARE: no claim takes the job over meanwhile). Lock what the job is
   * about (its task) first: a decision locks the task and then asks for the job, and the two
   * must not take their locks in opposite orders.
   */
  fence(db: Queryable): Promise<void>;
}

/** Renewals per lifetime; a holder stops when none succeeded for `STOP_AFTER` of it. */
const HEARTBEATS_PER_TTL = 3;
const STOP_AFTER = 0.8;

/** The lease just claimed (at `sentAt`, by this process's clock): its heartbeat, signal and fence. */
export function holdLease(deps: {
  key: string;
  holder: string;
  sentAt: number;
  ttlMs: number;
  /** Where the heartbeat renews the lease (runtime/index.ts). */
  heartbeats: pg.Pool;
  logger: Logger;
}): Lease & { stop(): void } {
  const { key, holder, ttlMs, heartbeats, logger } = deps;
  const controller = new AbortController();
  const lose = (why: string) => {
    if (controller.signal.aborted) return;
    logger.warn({ lease: key, why }, 'lease lost; stopping what it guarded');
    controller.abort(new SignoffError('lease_lost', `lease ${key} lost: ${why}`));
  };
  let deadline: NodeJS.Timeout;
  let deadlineAt = 0;
  const armDeadline = (from: number) => {
    clearTimeout(deadline);
    deadlineAt = from + ttlMs * STOP_AFTER;
    deadline = setTimeout(() => lose('not renewed in time'), deadlineAt - Date.now());
    deadline.unref();
  };
  armDeadline(deps.sentAt);
  let stopped = false;
  const heartbeat = setInterval(() => {
    const at = Date.now();
    heartbeats
      .query(
        `UPDATE signoff.jobs SET expires_at = now() + $3 * interval '1 millisecond'
         WHERE key = $1 AND holder = $2`,
        [key, holder, ttlMs],
      )
      .then(
        (r) => {
          // A renewal answered after the lease was let go means nothing any more.
          if (stopped) return;
          if (r.rowCount) armDeadline(at);
          else lose('taken by another holder');
        },
        (err: Error) => logger.warn({ lease: key, err }, 'lease renewal failed'),
      );
  }, ttlMs / HEARTBEATS_PER_TTL);
  heartbeat.unref();

  return {
    key,
    holder,
    signal: controller.signal,
    held: () => {
      if (Date.now() >= deadlineAt) lose('not renewed in time');
      return !controller.signal.aborted;
    },
    fence: async (db) => {
      const held = await db.query(
        'SELECT 1 FROM signoff.jobs WHERE key = $1 AND holder = $2 AND expires_at > now() FOR SHARE',
        [key, holder],
      );
      if (!held.rowCount || controller.signal.aborted) {
        lose('found expired or taken');
        throw new SignoffError('lease_lost', `lease ${key} is no longer held`);
      }
    },
    stop: () => {
      stopped = true;
      clearInterval(heartbeat);
      clearTimeout(deadline);
    },
  };
}
