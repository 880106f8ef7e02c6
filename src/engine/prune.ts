/**
 * LangGraph's Postgres checkpointer keeps every checkpoint, and each step re-stores every channel
 * that changed (the whole transcript), so a thread's storage grows with the square of its length.
 * signoff needs only the latest checkpoint of each namespace (its own tables keep the history
 * people see), so after each run the superseded checkpoints, their writes and the blobs no
 * remaining checkpoint refers to are deleted: storage stays linear in the content.
 */
import type { Queryable } from '../db/queryable.js';

export const CHECKPOINT_SCHEMA = 'langgraph';
const schema = CHECKPOINT_SCHEMA;

export async function pruneCheckpoints(db: Queryable, threadId: string): Promise<void> {
  // One statement (one round trip). A checkpoint being written concurrently commits together
  // with its blobs and is newer than `latest`, so nothing it needs is visible here to delete.
  await db.query(
    `WITH latest AS (
       SELECT DISTINCT ON (checkpoint_ns) checkpoint_ns, checkpoint_id, checkpoint
       FROM ${schema}.checkpoints WHERE thread_id = $1 ORDER BY checkpoint_ns, checkpoint_id DESC),
     old_checkpoints AS (
       DELETE FROM ${schema}.checkpoints c USING latest l
       WHERE c.thread_id = $1 AND c.checkpoint_ns = l.checkpoint_ns AND c.checkpoint_id < l.checkpoint_id),
     old_writes AS (
       DELETE FROM ${schema}.checkpoint_writes w USING latest l
       WHERE w.thread_id = $1 AND w.checkpoint_ns = l.checkpoint_ns AND w.checkpoint_id < l.checkpoint_id)
     DELETE FROM ${schema}.checkpoint_blobs b
     WHERE b.thread_id = $1 AND EXISTS (SELECT 1 FROM latest l WHERE l.checkpoint_ns = b.checkpoint_ns)
       AND NOT EXISTS (SELECT 1 FROM latest l WHERE l.checkpoint_ns = b.checkpoint_ns
                       AND l.checkpoint -> 'channel_versions' ->> b.channel = b.version)`,
    [threadId],
  );
}

/** Bytes a thread occupies in the checkpointer's tables (for the benchmark and the tests). */
export async function checkpointBytes(db: Queryable, threadId: string): Promise<number> {
  const r = await db.query<{ bytes: string }>(
    `SELECT (SELECT coalesce(sum(pg_column_size(c.*)), 0) FROM ${schema}.checkpoints c WHERE thread_id = $1)
          + (SELECT coalesce(sum(pg_column_size(b.*)), 0) FROM ${schema}.checkpoint_blobs b WHERE thread_id = $1)
          + (SELECT coalesce(sum(pg_column_size(w.*)), 0) FROM ${schema}.checkpoint_writes w WHERE thread_id = $1)
          AS bytes`,
    [threadId],
  );
  return Number(r.rows[0]?.bytes ?? 0);
}
