/**
 * The runtime's statements over `signoff.jobs` (migration 023): a row per job key, at once its
 * schedule (`due_at`) and its lease (`holder`, `expires_at`).
 */
import type pg from 'pg';
import type { Queryable } from '../../db/queryable.js';

export interface JobSpec {
  queue: string;
  /** One job per key: asking again while it waits moves it earlier, never adds a second. */
  key: string;
  data?: object;
  /** When to run it (default: now). */
  at?: Date;
  /** Higher first among the jobs due in its queue (default 0); a job keeps the highest asked. */
  priority?: number;
  /** Leave the job as it is when it is already there (waiting or running): a standing schedule. */
  keep?: boolean;
}

export interface ClaimedRow {
  key: string;
  data: unknown;
  attempt: number;
  priority: number;
  holder: string;
}

export async function schedule(db: Queryable, job: JobSpec): Promise<void> {
  await db.query(
    `INSERT INTO signoff.jobs (key, queue, data, due_at, priority)
     VALUES ($1, $2, $3, coalesce($4, now()), $5)
     ON CONFLICT (key) DO UPDATE SET
       due_at = least(jobs.due_at, excluded.due_at), -- least() passes over a NULL
       priority = greatest(jobs.priority, excluded.priority),
       data = excluded.data, queue = excluded.queue
     WHERE NOT $6`,
    [
      job.key,
      job.queue,
      JSON.stringify(job.data ?? {}),
      job.at ?? null,
      job.priority ?? 0,
      job.keep ?? false,
    ],
  );
}

/**
 * Claims up to `limit` jobs of `queue` that are due, or whose holder's lease ran out (it died or
 * froze: whatever it was asked to do is done again). A claim clears `due_at`, so an ask made while
 * the job runs makes it run once more, and counts an attempt.
 */
export async function claim(
  pool: pg.Pool,
  queue: string,
  limit: number,
  processId: string,
  ttlMs: number,
): Promise<ClaimedRow[]> {
  const r = await pool.query<ClaimedRow>(
    `UPDATE signoff.jobs j
     SET holder = $2 || ':' || left(gen_random_uuid()::text, 8),
         expires_at = now() + $3 * interval '1 millisecond', due_at = NULL, attempt = j.attempt + 1
     FROM (SELECT key FROM signoff.jobs
           WHERE queue = $1 AND ((holder IS NULL AND due_at <= now()) OR (holder IS NOT NULL AND expires_at < now()))
           ORDER BY priority DESC, coalesce(due_at, expires_at)
           LIMIT $4 FOR UPDATE SKIP LOCKED) c
     WHERE j.key = c.key
     RETURNING j.key, j.data, j.attempt, j.priority, j.holder`,
    [queue, processId, ttlMs, limit],
  );
  return r.rows;
}

/**
 * How a claim ends: `again` asks for another run, at `at` (the database's time, or this
 * process's) or `inMs` from now, no later than any ask made meanwhile; `finished` starts the
 * attempts over.
 */
export interface Outcome {
  again?: { at?: Date; inMs?: number };
  finished: boolean;
}

/**
 * Lets a claim go as `outcome` says. A job nobody asks for any more is deleted. Returns when it is
 * due next (undefined: not asked, or the lease was not ours any more).
 */
export async function release(
  pool: pg.Pool,
  claimed: Pick<ClaimedRow, 'key' | 'holder'>,
  { again, finished }: Outcome,
): Promise<Date | undefined> {
  // The common end in one statement: finished, and nobody asked again meanwhile.
  if (finished && !again) {
    const gone = await pool.query(
      'DELETE FROM signoff.jobs WHERE key = $1 AND holder = $2 AND due_at IS NULL',
      [claimed.key, claimed.holder],
    );
    if (gone.rowCount) return undefined;
  }
  const r = await pool.query<{ due_at: Date | null }>(
    `UPDATE signoff.jobs SET holder = NULL, expires_at = NULL,
       due_at = least(due_at, coalesce($3::timestamptz, now() + $4 * interval '1 millisecond')),
       attempt = CASE WHEN $5 THEN 0 ELSE attempt END
     WHERE key = $1 AND holder = $2
     RETURNING due_at`,
    [claimed.key, claimed.holder, again?.at ?? null, again?.inMs ?? null, finished],
  );
  return r.rows[0]?.due_at ?? undefined;
}

/** Hands claims back untouched (the process began stopping as it claimed them): due at once, the attempt uncounted. */
export async function giveBack(pool: pg.Pool, claimed: Pick<ClaimedRow, 'key' | 'holder'>[]): Promise<void> {
  await pool.query(
    `UPDATE signoff.jobs j SET holder = NULL, expires_at = NULL, due_at = now(), attempt = j.attempt - 1
     FROM unnest($1::text[], $2::text[]) AS g(key, holder) WHERE j.key = g.key AND j.holder = g.holder`,
    [claimed.map((c) => c.key), claimed.map((c) => c.holder)],
  );
}

/** Jobs of `queue` due by `now` (a clock moved on: tests, or an operator) become due at once. */
export async function runDue(pool: pg.Pool, queue: string, now: Date): Promise<number> {
  const r = await pool.query(
    `UPDATE signoff.jobs SET due_at = now()
     WHERE queue = $1 AND holder IS NULL AND due_at > now() AND due_at <= $2`,
    [queue, now],
  );
  return r.rowCount ?? 0;
}

/** Jobs per queue: waiting (due), delayed (due later), active (held) and expired (its holder gone). */
export async function depth(pool: pg.Pool): Promise<{ queue: string; state: string; jobs: number }[]> {
  const r = await pool.query<{ queue: string; state: string; jobs: number }>(
    `SELECT queue,
            CASE WHEN expires_at < now() THEN 'expired' WHEN holder IS NOT NULL THEN 'active'
                 WHEN due_at <= now() THEN 'waiting' ELSE 'delayed' END AS state,
            count(*)::int AS jobs
     FROM signoff.jobs WHERE holder IS NOT NULL OR due_at IS NOT NULL GROUP BY 1, 2`,
  );
  return r.rows;
}
