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

/** Claims a Slack request key; false when it was handled before (a retry). */
export async function claimRequest(db: Queryable, key: string): Promise<boolean> {
  const r = await db.query(
    'INSERT INTO signoff.slack_requests (key) VALUES ($1) ON CONFLICT (key) DO NOTHING',
    [key],
  );
  return (r.rowCount ?? 0) > 0;
}

export async function linkRequest(db: Queryable, key: string, taskId: string): Promise<void> {
  await db.query('UPDATE signoff.slack_requests SET task_id = $2 WHERE key = $1', [key, taskId]);
}
