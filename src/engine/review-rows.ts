/**
 * SQL for review rows: a review opened for a pending interrupt, read (with its task), closed
 * unanswered, and a decision marked as consumed by the graph. Rows are read through
 * `reviewFromRow` (rows.ts); each change and its event commit together (`atomically`).
 */
import { atomically, type Queryable } from '../db/queryable.js';
import { eventKey } from './event-keys.js';
import { record, recordAll } from './event-store.js';
import { reviewFromRow, taskFromRow } from './rows.js';
import { FINAL_STATUSES, type Review, type ReviewRequest, type ReviewSettings, type Task } from './types.js';

/**
 * Opens a review for a pending interrupt, with its `review_requested` event; nothing when it
 * exists already or the task has ended (cancelled while the run went on).
 */
export function insertReview(
  db: Queryable,
  r: { id: string; taskId: string; request: ReviewRequest; settings: ReviewSettings; dueAt: Date | null },
): Promise<Review | undefined> {
  return atomically(db, async (db) => {
    const inserted = await db.query(
      `INSERT INTO signoff.reviews (id, task_id, checkpoint, request, settings, due_at)
       SELECT $1, $2, $3, $4, $5, $6 FROM signoff.tasks
       WHERE id = $2 AND status <> ALL($7::text[])
       ON CONFLICT (id) DO NOTHING RETURNING *`,
      [r.id, r.taskId, r.request.kind, r.request, r.settings, r.dueAt, FINAL_STATUSES],
    );
    if (!inserted.rows[0]) return undefined;
    const review = reviewFromRow(inserted.rows[0]);
    await record(db, review.taskId, eventKey.reviewRequested(review.id), {
      type: 'review_requested',
      review,
    });
    return review;
  });
}

/**
 * A review with its task, in one round trip; `forUpdate`: the task row locked (the first lock any
 * change of a task and its reviews takes). The review is as of the statement's start: a change made
 * while it waited for the lock is caught by the conditional update that follows (decideReview).
 */
export async function getReviewWithTask(
  db: Queryable,
  id: string,
  forUpdate = false,
): Promise<{ review: Review; task: Task } | undefined> {
  const r = await db.query<ReviewTaskRow>(
    `WITH t AS (SELECT * FROM signoff.tasks WHERE id = (SELECT task_id FROM signoff.reviews WHERE id = $1)${forUpdate ? ' FOR UPDATE' : ''})
     SELECT to_jsonb(r) AS r, to_jsonb(t) AS t FROM signoff.reviews r JOIN t ON t.id = r.task_id WHERE r.id = $1`,
    [id],
  );
  return r.rows[0] && reviewWithTask(r.rows[0]);
}

/** A review and its task, each as `to_jsonb` of its row. */
export type ReviewTaskRow = { r: unknown; t: unknown };

export const reviewWithTask = (row: ReviewTaskRow): { review: Review; task: Task } => ({
  review: reviewFromRow(row.r),
  task: taskFromRow(row.t),
});

export async function reviewsOf(db: Queryable, taskId: string, status?: Review['status']): Promise<Review[]> {
  const r = await db.query(
    `SELECT * FROM signoff.reviews WHERE task_id = $1 AND ($2::text IS NULL OR status = $2) ORDER BY created_at, id`,
    [taskId, status ?? null],
  );
  return r.rows.map(reviewFromRow);
}

/**
 * A task's decisions not yet consumed by the graph, as a JSON array of rows (for a statement that
 * reads more; `taskId` is the placeholder of the task's id there).
 */
export const unappliedDecisionsJson = (taskId: string) =>
  `coalesce((SELECT jsonb_agg(to_jsonb(r) ORDER BY r.decided_at) FROM signoff.reviews r
   WHERE r.task_id = ${taskId} AND r.status = 'decided' AND r.applied_at IS NULL), '[]')`;

export async function markApplied(db: Queryable, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.query('UPDATE signoff.reviews SET applied_at = now() WHERE id = ANY($1) AND applied_at IS NULL', [
    ids,
  ]);
}

/** Closes the task's pending reviews without a decision, announcing each (its card says why). */
export function cancelPendingReviews(
  db: Queryable,
  taskId: string,
  closed: { by: string; reason: string },
): Promise<number> {
  return atomically(db, async (db) => {
    const r = await db.query(
      `WITH closed AS (
         UPDATE signoff.reviews SET status = 'cancelled' WHERE task_id = $1 AND status = 'pending' RETURNING *)
       SELECT * FROM closed ORDER BY created_at, id`,
      [taskId],
    );
    const reviews = r.rows.map(reviewFromRow);
    await recordAll(
      db,
      taskId,
      reviews.map((review) => ({
        key: eventKey.closed(review.id),
        event: { type: 'review_closed', review, by: closed.by, reason: closed.reason },
      })),
    );
    return reviews.length;
  });
}
