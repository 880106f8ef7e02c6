/**
 * What the Slack surface kept to post a task once (its posts' keys and ts, the requests that
 * started it, the replies it asked about), deleted with the task's other leftovers by retention
 * (engine/retention.ts); and, by age, what Slack last said of where people belong (their standing,
 * the channels they are in) and links to messages.
 */
import type { Queryable } from '../db/queryable.js';
import type { Purger } from '../engine/index.js';

/** The review a card's or a DM's key names (`card:R`, `dm:R:U`, `dm:remind:R:n:U`, `dm:overdue:R:U`). */
const REVIEW_OF_KEY = '^(?:card|dm)(?::remind|:overdue)?:([^:]+)';

export const purgeSlackBookkeeping: Purger = async (db: Queryable, { ids, reviewIds, cutoff }) => {
  // A task's own posts are keyed `<task id>:…` (task ids have no colon). Event claims (a thread
  // reply handled once) belong to no task: they go by age.
  const r = await db.query<{ n: string }>(
    `WITH p AS (DELETE FROM signoff.slack_posts
                WHERE cardinality($1::text[]) > 0
                  AND (split_part(key, ':', 1) = ANY($1) OR substring(key from '${REVIEW_OF_KEY}') = ANY($2))
                RETURNING 1),
          q AS (DELETE FROM signoff.slack_requests
                WHERE task_id = ANY($1) OR (key LIKE 'event:%' AND created_at < $3)
                   -- A start refused for good (not in the channel, say) has no task to go with.
                   OR (task_id IS NULL AND start IS NULL AND created_at < $3) RETURNING 1),
          -- A reply's question is long gone from its author's screen by the cutoff.
          r AS (DELETE FROM signoff.slack_replies WHERE task_id = ANY($1) OR created_at < $3 RETURNING 1),
          -- Slack's last word on where someone belongs stands for a day at most (directory.ts).
          s AS (DELETE FROM signoff.slack_standing WHERE answered_at < $3 RETURNING 1),
          -- The channels someone is in are trusted for a minute (user-channels.ts).
          u AS (DELETE FROM signoff.slack_user_channels WHERE answered_at < $3 RETURNING 1),
          -- A link still needed after the cutoff (an open task's) is asked of Slack again.
          l AS (DELETE FROM signoff.slack_permalinks WHERE created_at < $3 RETURNING 1),
          -- A task's streamed messages are its posts (their keys are the streams' ids).
          t AS (DELETE FROM signoff.slack_streams WHERE task_id = ANY($1) RETURNING 1)
     SELECT (SELECT count(*) FROM p) + (SELECT count(*) FROM q) + (SELECT count(*) FROM r)
          + (SELECT count(*) FROM s) + (SELECT count(*) FROM l) + (SELECT count(*) FROM u)
          + (SELECT count(*) FROM t) AS n`,
    [ids, reviewIds, cutoff],
  );
  return Number(r.rows[0]?.n ?? 0);
};
