/**
 * What a failed delivery attempt means for the event and its task: tried again when the surface's
 * rate limit allows (not an attempt), retried with backoff a bounded number of times (both hold
 * back the later events of its lane), replaced by a short fallback once refused for good (later
 * events go on), or, when the task's thread is gone (the bot removed from the channel), the task
 * failed with the surface's sentence and its events held until a retry of the task.
 */
import type pg from 'pg';
import type { Queryable } from '../db/queryable.js';
import { DeliveryError, SIGNOFF_FAILED } from '../errors.js';
import type { Logger } from '../logger.js';
import { eventKey } from './event-keys.js';
import { record } from './event-store.js';
import { setStatus } from './task-rows.js';
import { type DeliveredEvent, FINAL_STATUSES, type Task } from './types.js';

/** A refused event is tried this many times before it is marked failed. */
const REFUSED_ATTEMPTS = 3;
/** A temporary failure is retried this many times (backoff up to 5 minutes: about an hour). */
const TEMPORARY_ATTEMPTS = 16;
const MAX_BACKOFF_MS = 5 * 60_000;

/**
 * A wait this long or longer is said at warn, not info: an event held back that long (its lane
 * with it) is what a person would notice as a card that does not come.
 */
const LONG_WAIT_MS = 30_000;

const backoffMs = (attempts: number) => Math.min(1000 * 2 ** Math.max(0, attempts - 1), MAX_BACKOFF_MS);

/** What marks an event held back because its task's thread could not be reached (`unreachable`). */
const UNREACHABLE = 'unreachable:';

/**
 * The events held back because the task's thread could not be reached, due again (a retry of the
 * task, in its transaction); events refused for good stay failed.
 */
export async function releaseUnreachable(db: Queryable, taskId: string): Promise<void> {
  await db.query(
    `UPDATE signoff.events SET failed_at = NULL, attempts = 0, next_attempt_at = NULL
     WHERE task_id = $1 AND failed_at IS NOT NULL AND starts_with(last_error, $2)`,
    [taskId, UNREACHABLE],
  );
}

export function createFailedAttempts({ pool, logger }: { pool: pg.Pool; logger: Logger }) {
  /**
   * What a failed attempt means for the event and the task: 'later' (the surface's rate limit;
   * not an attempt) and 'retry' hold the event's lane back, 'skip' goes on past it,
   * 'unreachable' stops the task's delivery.
   */
  return async function failed(
    task: Task,
    event: DeliveredEvent,
    error: unknown,
  ): Promise<'later' | 'retry' | 'skip' | 'unreachable'> {
    // Anything but the surface's own answer failed in signoff (a database error, a payload that
    // would not parse): not the message refused, so tried again as an outage is (with backoff, a
    // bounded number of times); its text goes to the log, never into a fallback people read.
    const ours = !(error instanceof DeliveryError);
    const failure = ours ? new DeliveryError('temporary', SIGNOFF_FAILED, { cause: error }) : error;
    const log = { task: task.id, event: event.key, attempts: event.attempts, code: failure.code };
    if (ours) logger.warn({ ...log, err: error }, 'showing an event failed in signoff');
    if (failure.kind === 'limited') {
      // Not an attempt: the round uncounts it as it lets go.
      const waitMs = failure.retryAfterMs ?? 1000;
      if (waitMs >= LONG_WAIT_MS) logger.warn({ ...log, waitMs }, 'delivery waits for Slack’s limit');
      await pool.query(
        `UPDATE signoff.events SET next_attempt_at = now() + $2 * interval '1 millisecond' WHERE id = $1`,
        [event.id, waitMs],
      );
      return 'later';
    }
    if (failure.kind === 'unreachable') {
      logger.warn({ ...log, err: error }, 'the task cannot be shown any more; it fails');
      const reason =
        failure.reason ?? `its thread cannot be reached any more (${failure.code}); fix that, then retry`;
      if (!FINAL_STATUSES.includes(task.status)) await setStatus(pool, task.id, 'failed', reason);
      await pool.query(
        `UPDATE signoff.events SET failed_at = now(), last_error = $2
         WHERE task_id = $1 AND delivered_at IS NULL AND failed_at IS NULL`,
        [task.id, `${UNREACHABLE} ${failure.code}`],
      );
      return 'unreachable';
    }
    const limit = failure.kind === 'temporary' ? TEMPORARY_ATTEMPTS : REFUSED_ATTEMPTS;
    if (event.attempts < limit) {
      // The surface's own wait (a post Slack may still be making) is a floor under the backoff.
      const waitMs = Math.max(failure.retryAfterMs ?? 0, backoffMs(event.attempts));
      logger[waitMs >= LONG_WAIT_MS ? 'warn' : 'info']({ ...log, waitMs }, 'delivery failed; will retry');
      await pool.query(
        `UPDATE signoff.events SET last_error = $2, next_attempt_at = now() + $3 * interval '1 millisecond' WHERE id = $1`,
        [event.id, `${failure.kind}: ${failure.code}`, waitMs],
      );
      return 'retry';
    }
    logger.error(
      { ...log, err: error },
      'the surface refused this event for good; a fallback is shown instead',
    );
    await pool.query(`UPDATE signoff.events SET failed_at = now(), last_error = $2 WHERE id = $1`, [
      event.id,
      `${failure.kind}: ${failure.code}`,
    ]);
    // A fallback that is refused too is not replaced again.
    if (event.event.type !== 'delivery_failed') {
      await record(pool, task.id, eventKey.fallback(event.key), {
        type: 'delivery_failed',
        failedKey: event.key,
        failedType: event.event.type,
        code: failure.code,
        // A card that could not be shown, or redrawn for content an edit changed: shown plain.
        review:
          event.event.type === 'review_requested' || event.event.type === 'review_progress'
            ? event.event.review
            : undefined,
      });
    }
    return 'skip';
  };
}
