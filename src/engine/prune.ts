/**
 * LangGraph's Postgres checkpointer keeps every checkpoint, and each step re-stores every channel
 * that changed (the whole transcript), so a thread's storage grows with the square of its length.
 * signoff needs only the latest checkpoint of each namespace (its own tables keep the history
 * people see), so after each run the superseded checkpoints, their writes and the blobs no
 * remaining checkpoint refers to are deleted: storage stays linear in the content.
 */
import type { Queryable } from '../db/queryable.js';

export const CHECKPOINT_SCHEMA = 'langgraph';

export async function pruneCheckpoints(
  db: Queryable,
  threadId: string,
  schema = CHECKPOINT_SCHEMA,
): Promise<void> {
  await db.query(
    `DELETE FROM ${schema}.checkpoints c
     USING (SELECT checkpoint_ns, max(checkpoint_id) AS latest FROM ${schema}.checkpoints
            WHERE thread_id = $1 GROUP BY checkpoint_ns) l
     WHERE c.thread_id = $1 AND c.checkpoint_ns = l.checkpoint_ns AND c.checkpoint_id < l.latest`,
    [threadId],
  );
  await db.query(
    `DELETE FROM ${schema}.checkpoint_writes w WHERE w.thread_id = $1 AND NOT EXISTS (
       SELECT 1 FROM ${schema}.checkpoints c
       WHERE c.thread_id = w.thread_id AND c.checkpoint_ns = w.checkpoint_ns AND c.checkpoint_id = w.checkpoint_id)`,
    [threadId],
  );
  await db.query(
    `DELETE FROM ${schema}.checkpoint_blobs b WHERE b.thread_id = $1 AND NOT EXISTS (
       SELECT 1 FROM ${schema}.checkpoints c
       WHERE c.thread_id = b.thread_id AND c.checkpoint_ns = b.checkpoint_ns
         AND c.checkpoint -> 'channel_versions' ->> b.channel = b.version)`,
    [threadId],
  );
}

/** Bytes a thread occupies in the checkpointer's tables (for the benchmark and the tests). */
export async function checkpointBytes(
  db: Queryable,
  threadId: string,
  schema = CHECKPOINT_SCHEMA,
): Promise<number> {
  const r = await db.query<{ bytes: string }>(
    `SELECT (SELECT coalesce(sum(pg_column_size(c.*)), 0) FROM ${schema}.checkpoints c WHERE thread_id = $1)
          + (SELECT coalesce(sum(pg_column_size(b.*)), 0) FROM ${schema}.checkpoint_blobs b WHERE thread_id = $1)
          + (SELECT coalesce(sum(pg_column_size(w.*)), 0) FROM ${schema}.checkpoint_writes w WHERE thread_id = $1)
          AS bytes`,
    [threadId],
  );
  return Number(r.rows[0]?.bytes ?? 0);
}
