import type { Queryable } from '../db/queryable.js';

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
