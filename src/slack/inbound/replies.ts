/**
 * Replies heard in a task's thread that got their author a private question: the words as Slack
 * delivered them (in a signed event), kept here so that a click on the question uses them.
 */
import type { Queryable } from '../../db/queryable.js';
import { FIELD_MAX } from '../../engine/index.js';

export interface HeardReply {
  channel: string;
  /** The reply message's ts: with the channel, the key a question's buttons carry. */
  ts: string;
  taskId: string;
  user: string;
  text: string;
}

/**
 * How much of a reply is kept: the most any review takes as words (a checkpoint's
 * `feedback.maxLength` is at most this), so every reply that may be sent is kept whole.
 */
export const REPLY_KEPT = FIELD_MAX;

/**
 * Keeps the reply: whole up to `REPLY_KEPT` characters; a longer one (Slack allows 40,000) as its
 * first `REPLY_KEPT` and a note of its length. That is longer than any review takes, so a kept
 * excerpt is never sent as someone's words: the question offers nothing that would send it, and
 * the engine would refuse it.
 */
export async function recordReply(db: Queryable, r: HeardReply): Promise<void> {
  const text =
    r.text.length <= REPLY_KEPT
      ? r.text
      : `${r.text.slice(0, REPLY_KEPT)}… [${r.text.length} characters; the first ${REPLY_KEPT} kept]`;
  await db.query(
    `INSERT INTO signoff.slack_replies (channel, ts, task_id, user_id, text) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (channel, ts) DO NOTHING`,
    [r.channel, r.ts, r.taskId, r.user, text],
  );
}

export async function findReply(db: Queryable, channel: string, ts: string): Promise<HeardReply | undefined> {
  const r = await db.query<{ task_id: string; user_id: string; text: string }>(
    'SELECT task_id, user_id, text FROM signoff.slack_replies WHERE channel = $1 AND ts = $2',
    [channel, ts],
  );
  const row = r.rows[0];
  return row && { channel, ts, taskId: row.task_id, user: row.user_id, text: row.text };
}
