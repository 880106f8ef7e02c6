/**
 * Per-task leases: who runs a task's graph (`run:<task>`) and who delivers its events
 * (`deliver:<task>`), one holder at a time across every process.
 *
 * A lease is a row with a holder and an expiry, taken by one conditional upsert and renewed by a
 * heartbeat. Unlike a session advisory lock it holds no connection open while an agent thinks,
 * works through a transaction-mode pooler, and cannot vanish unnoticed: the moment a heartbeat
 * finds the lease taken, or none has succeeded for most of its lifetime (the database is gone),
 * the holder's `signal` aborts. Whatever the holder then writes goes through `fence`, which
 * refuses inside the writer's own transaction unless the lease is still held, so a holder that
 * lost its lease applies nothing. Taking a lease never waits: a busy task is tried again later.
 */
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { Queryable } from '../db/queryable.js';
import { SignoffError } from '../errors.js';
import type { Logger } from '../logger.js';
import { taskFromRow } from './rows.js';
import type { Task } from './types.js';

export interface Lease {
  readonly key: string;
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
   * Inside the caller's transaction: throws `lease_lost` unless the lease is still held (and
   * keeps it until commit); locks and returns the task `taskId` (the first lock any change of a
   * task and its reviews takes), read in the same statement.
   */
  fence(db: Queryable, taskId: string): Promise<Task | undefined>;
  /** Gives the lease up (it expires by itself if this fails). */
  release(): Promise<void>;
  /**
   * Gives the lease up in the same statement as `tail` (more CTEs, `, name AS (…)`, then a
   * SELECT): "what is left to do?" asked as the lease goes, so that nothing recorded while it
   * was held is missed. Throws if the statement fails.
   */
  releaseWith<R extends pg.QueryResultRow>(tail: Tail): Promise<R[]>;
}

/**
 * The rest of a lease's statement, written with `param`: each call adds a value to the statement
 * and returns its placeholder (`$n`), so that a tail never needs to know how many parameters the
 * lease's own part takes.
 */
export type Tail = (param: (value: unknown) => string) => string;

/** The statement `head` + `tail`, its values numbered after `values` (the head's own). */
function withTail(head: string, values: unknown[], tail: Tail): { text: string; values: unknown[] } {
  const all = [...values];
  const text = tail((value) => {
    all.push(value);
    return `$${all.length}`;
  });
  return { text: `${head} ${text}`, values: all };
}

export interface Leases {
  /** Takes the lease if it is free or expired; undefined when someone else holds it. */
  acquire(key: string): Promise<Lease | undefined>;
  /**
   * Takes the lease and reads what its holder needs, in one statement. `tail` follows the CTE
   * `lease` (one row when taken): more CTEs (`, name AS (…)`, any change in them conditional on
   * `EXISTS (SELECT 1 FROM lease)`), then a SELECT of one row with a boolean column `leased`
   * (`EXISTS (SELECT 1 FROM lease) AS leased`).
   */
  acquireWith<R extends pg.QueryResultRow>(
    key: string,
    tail: Tail,
  ): Promise<{ lease: Lease | undefined; row: R | undefined }>;
  readonly ttlMs: number;
}

/** Renewals per lifetime; a holder stops when none succeeded for `STOP_AFTER` of it. */
const HEARTBEATS_PER_TTL = 3;
const STOP_AFTER = 0.8;

export function createLeases(deps: {
  pool: pg.Pool;
  /** Where heartbeats renew leases (a pool of their own, so busy work never delays them). */
  heartbeats?: pg.Pool;
  ttlSeconds: number;
  logger: Logger;
}): Leases {
  const { pool, logger } = deps;
  const heartbeats = deps.heartbeats ?? pool;
  const ttlMs = deps.ttlSeconds * 1000;
  const processId = randomUUID().slice(0, 8);

  async function acquireWith<R extends pg.QueryResultRow>(
    key: string,
    tail: Tail,
  ): Promise<{ lease: Lease | undefined; row: R | undefined }> {
    const holder = `${processId}:${randomUUID().slice(0, 8)}`;
    const sentAt = Date.now();
    // Never waits for another transaction on the lease row (a holder letting go, a heartbeat):
    // a statement that waited would go on reading with the snapshot it began with, and a new
    // holder could then read as undelivered what the last one just marked delivered.
    const statement = withTail(
      `WITH cur AS (SELECT expires_at FROM signoff.leases WHERE key = $1 FOR UPDATE SKIP LOCKED),
       seen AS (SELECT 1 FROM signoff.leases WHERE key = $1),
       taken AS (
         UPDATE signoff.leases SET holder = $2, expires_at = now() + $3 * interval '1 millisecond'
         WHERE key = $1 AND EXISTS (SELECT 1 FROM cur WHERE cur.expires_at < now())
         RETURNING 1),
       inserted AS (
         INSERT INTO signoff.leases (key, holder, expires_at)
         SELECT $1, $2, now() + $3 * interval '1 millisecond' WHERE NOT EXISTS (SELECT 1 FROM seen)
         ON CONFLICT (key) DO NOTHING
         RETURNING 1),
       lease AS (SELECT 1 FROM taken UNION ALL SELECT 1 FROM inserted)`,
      [key, holder, ttlMs],
      tail,
    );
    const r = await pool.query<R & { leased: boolean }>(statement.text, statement.values);
    const row = r.rows[0];
    return { lease: row?.leased ? held(key, holder, sentAt) : undefined, row };
  }

  /** The lease just taken: its heartbeat, its signal, its fence, its release. */
  function held(key: string, holder: string, sentAt: number): Lease {
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
    armDeadline(sentAt);
    const heartbeat = setInterval(() => {
      const at = Date.now();
      heartbeats
        .query(
          `UPDATE signoff.leases SET expires_at = now() + $3 * interval '1 millisecond'
           WHERE key = $1 AND holder = $2`,
          [key, holder, ttlMs],
        )
        .then(
          (r) => {
            // A renewal answered after the lease was let go means nothing any more.
            if (released) return;
            if (r.rowCount) armDeadline(at);
            else lose('taken by another holder');
          },
          (err: Error) => logger.warn({ lease: key, err }, 'lease renewal failed'),
        );
    }, ttlMs / HEARTBEATS_PER_TTL);
    heartbeat.unref();
    let released = false;
    const stop = () => {
      released = true;
      clearInterval(heartbeat);
      clearTimeout(deadline);
    };

    return {
      key,
      holder,
      signal: controller.signal,
      held: () => {
        if (Date.now() >= deadlineAt) lose('not renewed in time');
        return !controller.signal.aborted;
      },
      fence: async (db, taskId) => {
        const r = await db.query<{ held: boolean; task: unknown }>(
          `WITH held AS (
             SELECT 1 FROM signoff.leases WHERE key = $1 AND holder = $2 AND expires_at > now() FOR UPDATE),
           task AS (SELECT * FROM signoff.tasks WHERE id = $3 FOR UPDATE)
           SELECT EXISTS (SELECT 1 FROM held) AS held, (SELECT to_jsonb(task) FROM task) AS task`,
          [key, holder, taskId],
        );
        const row = r.rows[0];
        if (!row?.held || controller.signal.aborted) {
          lose('found expired or taken');
          throw new SignoffError('lease_lost', `lease ${key} is no longer held`);
        }
        return row.task ? taskFromRow(row.task) : undefined;
      },
      releaseWith: async <R extends pg.QueryResultRow>(tail: Tail) => {
        stop();
        const statement = withTail(
          'WITH released AS (DELETE FROM signoff.leases WHERE key = $1 AND holder = $2)',
          [key, holder],
          tail,
        );
        return (await pool.query<R>(statement.text, statement.values)).rows;
      },
      release: async () => {
        stop();
        await pool
          .query('DELETE FROM signoff.leases WHERE key = $1 AND holder = $2', [key, holder])
          .catch((err: Error) =>
            // It expires by itself; until then the task waits for its next try.
            logger.warn({ lease: key, err }, 'could not release a lease'),
          );
      },
    };
  }

  const acquire = async (key: string) =>
    (await acquireWith(key, () => 'SELECT EXISTS (SELECT 1 FROM lease) AS leased')).lease;

  return { acquire, acquireWith, ttlMs };
}
