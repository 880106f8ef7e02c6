/**
 * What signoff posted, by key: recorded once Slack answers, and carried in the message's own
 * metadata so that an attempt after one that died between posting and recording finds it.
 */
import type { Queryable } from '../db/queryable.js';

/** Message metadata that names the post's key. */
export const POST_METADATA_TYPE = 'signoff_post';

export const postMetadata = (key: string) => ({ event_type: POST_METADATA_TYPE, event_payload: { key } });

type MessageWithMetadata = { ts?: string; metadata?: { event_type?: string; event_payload?: unknown } };

/** The message among `messages` (read with their metadata) that was posted as `key`. */
export const postedAs = (messages: MessageWithMetadata[] | undefined, key: string): string | undefined =>
  messages?.find(
    (m) =>
      m.metadata?.event_type === POST_METADATA_TYPE &&
      (m.metadata.event_payload as { key?: string } | undefined)?.key === key,
  )?.ts;

/**
 * Recorded (with the thread's root) when a review's card went out plain, without its content:
 * every redraw of that card stays plain.
 */
export const plainCardKey = (reviewId: string) => `plain-card:${reviewId}`;

/** The thread posts that carry a long review's content ahead of its card, in order. */
export const reviewTextKey = (reviewId: string, part: number) => `card:${reviewId}:text:${part}`;

/**
 * Whether a review's card is redrawn plain: it went out plain, or its content is longer than a
 * card and was never posted above it (a card posted before signoff did that), so that no redraw
 * offers Approve on content nobody can see from the card.
 */
export async function redrawnPlain(db: Queryable, reviewId: string, longContent: boolean): Promise<boolean> {
  const r = await db.query<{ key: string }>('SELECT key FROM signoff.slack_posts WHERE key = ANY($1)', [
    [plainCardKey(reviewId), reviewTextKey(reviewId, 0)],
  ]);
  const keys = new Set(r.rows.map((row) => row.key));
  return keys.has(plainCardKey(reviewId)) || (longContent && !keys.has(reviewTextKey(reviewId, 0)));
}

/** The message a key was posted as, if it was. */
export async function findPost(
  db: Queryable,
  key: string,
): Promise<{ channel: string; ts: string } | undefined> {
  const r = await db.query<{ channel: string; ts: string }>(
    'SELECT channel, ts FROM signoff.slack_posts WHERE key = $1',
    [key],
  );
  return r.rows[0];
}

export async function recordPost(db: Queryable, key: string, channel: string, ts: string): Promise<void> {
  await db.query(
    'INSERT INTO signoff.slack_posts (key, channel, ts) VALUES ($1, $2, $3) ON CONFLICT (key) DO NOTHING',
    [key, channel, ts],
  );
}

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
 * same one at once, and one this caller fails to finish is tried again soon.
 */
export async function takeUnfinishedStarts(
  db: Queryable,
  olderThanMs: number,
  retryMs: number,
): Promise<{ key: string; start: unknown; rootTs: string | null }[]> {
  const r = await db.query<{ key: string; start: unknown; root_ts: string | null }>(
    `WITH stale AS (
       SELECT key, created_at FROM signoff.slack_requests
       WHERE start IS NOT NULL AND task_id IS NULL AND created_at < now() - $1 * interval '1 millisecond'
       ORDER BY created_at LIMIT 20 FOR UPDATE SKIP LOCKED)
     UPDATE signoff.slack_requests r
     SET created_at = now() - ($1 - $2) * interval '1 millisecond' FROM stale WHERE r.key = stale.key
     RETURNING r.key, r.start, r.root_ts`,
    [olderThanMs, retryMs],
  );
  return r.rows.map((row) => ({ key: row.key, start: row.start, rootTs: row.root_ts }));
}

export async function linkRequest(db: Queryable, key: string, taskId: string): Promise<void> {
  await db.query('UPDATE signoff.slack_requests SET task_id = $2 WHERE key = $1', [key, taskId]);
}
