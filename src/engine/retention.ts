/**
 * Retention: once a day, what finished tasks older than the configured age leave behind is
 * deleted: their graph threads (every generation), their delivered events, and what surfaces
 * kept to post them (given as `purgers`). The tasks, their reviews (who decided what) and the
 * audit log stay; the audit log is trimmed only when an age is set for it. Runs as a queue job
 * that schedules its next run, so that one server process does it a day, whichever is up (a
 * terminal command never takes it: see Engine.work).
 */
import type pg from 'pg';
import { z } from 'zod';
import { inTransaction, type Queryable } from '../db/queryable.js';
import type { Logger } from '../logger.js';
import { CHECKPOINT_SCHEMA } from './prune.js';
import type { Runtime } from './runtime/index.js';
import { type Clock, FINAL_STATUSES, threadOf } from './types.js';

export interface RetentionSettings {
  /** Finished tasks older than this many days lose their checkpoints, events and bookkeeping. */
  days: number;
  /** Audit entries older than this many days are deleted; 0 keeps them all. */
  auditDays: number;
}

/**
 * What a surface deletes of its own for the purged tasks (and their reviews), and of what it
 * keeps apart from any task, older than `cutoff`; returns the rows deleted.
 */
export type Purger = (
  db: Queryable,
  old: { ids: string[]; reviewIds: string[]; cutoff: Date },
) => Promise<number>;

export const RETENTION_QUEUE = 'signoff-retention';
const DAY_MS = 86_400_000;
/** Tasks per transaction: each batch holds its locks briefly. */
const BATCH = 100;

/** Deletes what the retention settings say is old, by `clock`'s now. */
export async function purgeOld(
  pool: pg.Pool,
  settings: RetentionSettings,
  clock: Clock,
  purgers: Purger[] = [],
): Promise<{ tasks: number; rows: number; audit: number }> {
  const cutoff = new Date(clock.now().getTime() - settings.days * DAY_MS);
  const total = { tasks: 0, rows: 0, audit: 0 };
  for (;;) {
    const batch = await inTransaction(pool, async (db) => {
      const old = await db.query<{ id: string; generation: number }>(
        `UPDATE signoff.tasks SET purged_at = now()
         WHERE id IN (SELECT id FROM signoff.tasks
                      WHERE purged_at IS NULL AND status = ANY($1) AND updated_at < $2
                      ORDER BY updated_at LIMIT ${BATCH} FOR UPDATE SKIP LOCKED)
         RETURNING id, generation`,
        [FINAL_STATUSES, cutoff],
      );
      if (!old.rows.length) {
        let rows = 0;
        for (const purge of purgers) rows += await purge(db, { ids: [], reviewIds: [], cutoff });
        return { tasks: 0, rows };
      }
      const ids = old.rows.map((t) => t.id);
      // Every generation's graph thread.
      const threads = old.rows.flatMap((t) =>
        Array.from({ length: t.generation + 1 }, (_, generation) => threadOf({ id: t.id, generation })),
      );
      const deleted = await db.query<{ n: string }>(
        `WITH c AS (DELETE FROM ${CHECKPOINT_SCHEMA}.checkpoints WHERE thread_id = ANY($1) RETURNING 1),
              w AS (DELETE FROM ${CHECKPOINT_SCHEMA}.checkpoint_writes WHERE thread_id = ANY($1) RETURNING 1),
              b AS (DELETE FROM ${CHECKPOINT_SCHEMA}.checkpoint_blobs WHERE thread_id = ANY($1) RETURNING 1),
              e AS (DELETE FROM signoff.events WHERE task_id = ANY($2)
                      AND (delivered_at IS NOT NULL OR failed_at IS NOT NULL) RETURNING 1)
         SELECT (SELECT count(*) FROM c) + (SELECT count(*) FROM w) + (SELECT count(*) FROM b)
              + (SELECT count(*) FROM e) AS n`,
        [threads, ids],
      );
      const reviewIds = (
        await db.query<{ id: string }>('SELECT id FROM signoff.reviews WHERE task_id = ANY($1)', [ids])
      ).rows.map((r) => r.id);
      let rows = Number(deleted.rows[0]?.n ?? 0);
      for (const purge of purgers) rows += await purge(db, { ids, reviewIds, cutoff });
      return { tasks: ids.length, rows };
    });
    total.tasks += batch.tasks;
    total.rows += batch.rows;
    if (batch.tasks < BATCH) break;
  }
  if (settings.auditDays > 0) {
    const r = await pool.query('DELETE FROM signoff.audit WHERE at < $1', [
      new Date(clock.now().getTime() - settings.auditDays * DAY_MS),
    ]);
    total.audit = r.rowCount ?? 0;
  }
  return total;
}

/** Runs retention in this process's share of the queue, every day after the last run. */
export async function startRetention(deps: {
  pool: pg.Pool;
  runtime: Runtime;
  settings: RetentionSettings;
  clock: Clock;
  logger: Logger;
  purgers: Purger[];
}): Promise<void> {
  const { runtime } = deps;
  // Due once a day: looked for every half minute, not every half second.
  runtime.work(RETENTION_QUEUE, { concurrency: 1, data: z.unknown(), pollingSeconds: 30 }, async () => {
    const purged = await purgeOld(deps.pool, deps.settings, deps.clock, deps.purgers);
    deps.logger.info({ ...purged, days: deps.settings.days }, 'retention: old finished tasks purged');
    return { againInMs: DAY_MS };
  });
  // A minute after start, unless a run is scheduled already (one job for every process: one key).
  await runtime.schedule(deps.pool, {
    queue: RETENTION_QUEUE,
    key: 'retention',
    at: new Date(Date.now() + 60_000),
    keep: true,
  });
}
