/**
 * Slack's requests, claimed by key so that each is handled once: a command or an event Slack sends
 * again finds its claim taken. A start's claim carries what it asks, then the root message it
 * posted and the task it became; a claim left unfinished is found and finished by the sweep
 * (start-task.ts).
 */
import type { Queryable } from '../../db/queryable.js';

/** Claims a Slack request key, with the start it asks for; false when it was handled before (a retry). */
export async function claimRequest(db: Queryable, key: string, start?: object): Promise<boolean> {
  const r = await db.query(
    'INSERT INTO signoff.slack_requests (key, start) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING',
    [key, start ?? null],
  );
  return (r.rowCount ?? 0) > 0;
}

/** The root message a start posted, unless one was recorded first; returns the recorded one. */
export async function recordRoot(db: Queryable, key: string, ts: string): Promise<string> {
  const r = await db.query<{ root_ts: string }>(
    `WITH set AS (UPDATE signoff.slack_requests SET root_ts = $2 WHERE key = $1 AND root_ts IS NULL RETURNING root_ts)
     SELECT root_ts FROM set UNION ALL SELECT root_ts FROM signoff.slack_requests WHERE key = $1 AND root_ts IS NOT NULL
     LIMIT 1`,
    [key, ts],
  );
  return r.rows[0]?.root_ts ?? ts;
}

/**
 * Starts left unfinished for `olderThanMs` (their process died between claiming and starting),
 * each taken for this caller for `retryMs` by moving its clock on: two sweepers do not take the
 * same one at once, and one this caller fails to finish is tried again soon. `ageMs`: since it
 * was claimed (created_at moves on each take; claimed_at does not).
 */
export async function takeUnfinishedStarts(
  db: Queryable,
  olderThanMs: number,
  retryMs: number,
): Promise<{ key: string; start: unknown; rootTs: string | null; ageMs: number }[]> {
  const r = await db.query<{ key: string; start: unknown; root_ts: string | null; age_ms: number }>(
    `WITH stale AS (
       SELECT key, created_at FROM signoff.slack_requests
       WHERE start IS NOT NULL AND task_id IS NULL AND created_at < now() - $1 * interval '1 millisecond'
       ORDER BY created_at LIMIT 20 FOR UPDATE SKIP LOCKED)
     UPDATE signoff.slack_requests r
     SET created_at = now() - ($1 - $2) * interval '1 millisecond' FROM stale WHERE r.key = stale.key
     RETURNING r.key, r.start, r.root_ts,
       (extract(epoch FROM now() - r.claimed_at) * 1000)::float8 AS age_ms`,
    [olderThanMs, retryMs],
  );
  return r.rows.map((row) => ({
    key: row.key,
    start: row.start,
    rootTs: row.root_ts,
    ageMs: Number(row.age_ms),
  }));
}

export async function linkRequest(db: Queryable, key: string, taskId: string): Promise<void> {
  await db.query('UPDATE signoff.slack_requests SET task_id = $2 WHERE key = $1', [key, taskId]);
}
