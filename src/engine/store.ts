/**
 * SQL for the engine's own tables. Every function takes a `Queryable`, so callers choose
 * whether it runs on the pool or inside their transaction.
 */
import type { Queryable } from '../db/queryable.js';
import {
  type AbandonedGoal,
  type Decision,
  type EngineEvent,
  type Review,
  type ReviewRequest,
  type ReviewSettings,
  type Surface,
  statusesBefore,
  type Task,
  type TaskStatus,
} from './types.js';

export interface TaskRow {
  id: string;
  workflow: string;
  surface: Surface;
  text: string;
  requester: string;
  origin: Record<string, unknown>;
  status: TaskStatus;
  status_reason: string | null;
  generation: number;
  abandoned_goals: AbandonedGoal[];
  created_at: Date;
  updated_at: Date;
}

/** Rows read through to_jsonb carry timestamps as strings; the mappers expect Dates. */
const withDates = <T extends object>(o: T, keys: string[]) =>
  Object.fromEntries(
    Object.entries(o).map(([k, v]) => [k, keys.includes(k) && v !== null ? new Date(v as string) : v]),
  ) as T;

const toTask = (r: TaskRow): Task => ({
  id: r.id,
  workflow: r.workflow,
  surface: r.surface,
  text: r.text,
  requester: r.requester,
  origin: r.origin,
  status: r.status,
  statusReason: r.status_reason,
  generation: r.generation,
  abandonedGoals: r.abandoned_goals,
  createdAt: r.created_at.toISOString(),
  updatedAt: r.updated_at.toISOString(),
});

/** A task read through `to_jsonb` (timestamps as strings). */
export const taskFromJson = (row: TaskRow): Task => toTask(withDates(row, ['created_at', 'updated_at']));

export interface NewTask {
  id: string;
  workflow: string;
  surface: Surface;
  text: string;
  requester: string;
  origin: Record<string, unknown>;
}

/** Inserts the task unless one with that id exists; returns it and whether it is new. */
export async function insertTask(db: Queryable, t: NewTask): Promise<{ task: Task; created: boolean }> {
  const inserted = await db.query<TaskRow>(
    `INSERT INTO signoff.tasks (id, workflow, surface, text, requester, origin)
     VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (id) DO NOTHING RETURNING *`,
    [t.id, t.workflow, t.surface, t.text, t.requester, t.origin],
  );
  if (inserted.rows[0]) return { task: toTask(inserted.rows[0]), created: true };
  const existing = await getTask(db, t.id);
  return { task: existing as Task, created: false };
}

export async function getTask(db: Queryable, id: string, forUpdate = false): Promise<Task | undefined> {
  const r = await db.query<TaskRow>(
    `SELECT * FROM signoff.tasks WHERE id = $1${forUpdate ? ' FOR UPDATE' : ''}`,
    [id],
  );
  return r.rows[0] && toTask(r.rows[0]);
}

/**
 * The task a surface placed in this thread of this place (`origin.channel`, `origin.ts`), whatever
 * its id says; the first one, should there ever be two.
 */
export async function taskAt(
  db: Queryable,
  surface: Surface,
  place: { channel: string; thread: string },
): Promise<Task | undefined> {
  const r = await db.query<TaskRow>(
    `SELECT * FROM signoff.tasks
     WHERE surface = $1 AND origin->>'channel' = $2 AND origin->>'ts' = $3
     ORDER BY created_at LIMIT 1`,
    [surface, place.channel, place.thread],
  );
  return r.rows[0] && toTask(r.rows[0]);
}

export interface TaskFilter {
  surface?: Surface;
  requester?: string;
  statuses?: readonly TaskStatus[];
  /** The surface's own place, matched against `origin.channel` (a Slack channel). */
  channel?: string;
  limit?: number;
}

export async function listTasks(db: Queryable, opts: TaskFilter = {}): Promise<Task[]> {
  const r = await db.query<TaskRow>(
    `SELECT * FROM signoff.tasks
     WHERE ($1::text IS NULL OR surface = $1) AND ($2::text IS NULL OR requester = $2)
       AND ($3::text[] IS NULL OR status = ANY($3)) AND ($4::text IS NULL OR origin->>'channel' = $4)
     ORDER BY updated_at DESC LIMIT $5`,
    [
      opts.surface ?? null,
      opts.requester ?? null,
      opts.statuses ?? null,
      opts.channel ?? null,
      opts.limit ?? 50,
    ],
  );
  return r.rows.map(toTask);
}

/**
 * Moves the task to `status` and records a status event, when `STATUS_CHANGES` allows it (a
 * final status never changes) and something changes (the status or its reason). The one place a
 * task's status is set, besides the decision that reopens a waiting task. Returns whether it moved.
 */
export async function setStatus(
  db: Queryable,
  taskId: string,
  status: TaskStatus,
  reason: string | null,
): Promise<boolean> {
  const event: EngineEvent = { type: 'task_status', status, reason };
  // The change and its event in one statement (one round trip; they cannot part).
  const r = await db.query(
    `WITH changed AS (
       UPDATE signoff.tasks SET status = $2, status_reason = $3, version = version + 1, updated_at = now()
       WHERE id = $1 AND (status <> $2 OR status_reason IS DISTINCT FROM $3) AND status = ANY($4)
       RETURNING version)
     INSERT INTO signoff.events (task_id, key, type, payload)
     SELECT $1, 'status:' || version, 'task_status', $5 FROM changed
     ON CONFLICT (task_id, key) DO NOTHING`,
    [taskId, status, reason, statusesBefore(status), event],
  );
  return (r.rowCount ?? 0) > 0;
}

/**
 * Opens a review for a pending interrupt, with its `review_requested` event, in one statement;
 * nothing when it exists already or the task has ended (cancelled while the run went on).
 */
export async function insertReview(
  db: Queryable,
  r: { id: string; taskId: string; request: ReviewRequest; settings: ReviewSettings; dueAt: Date | null },
): Promise<Review | undefined> {
  const inserted = await db.query<{ review: Review }>(
    `WITH opened AS (
       INSERT INTO signoff.reviews (id, task_id, checkpoint, request, settings, due_at)
       SELECT $1, $2, $3, $4, $5, $6 FROM signoff.tasks
       WHERE id = $2 AND status NOT IN ('done', 'rejected', 'stopped', 'cancelled')
       ON CONFLICT (id) DO NOTHING RETURNING *),
     announced AS (
       INSERT INTO signoff.events (task_id, key, type, payload)
       SELECT task_id, 'review:' || id, 'review_requested',
              jsonb_build_object('type', 'review_requested', 'review', signoff.review_json(opened::signoff.reviews))
       FROM opened ON CONFLICT (task_id, key) DO NOTHING)
     SELECT signoff.review_json(opened::signoff.reviews) AS review FROM opened`,
    [r.id, r.taskId, r.request.kind, r.request, r.settings, r.dueAt],
  );
  return inserted.rows[0]?.review;
}

/**
 * A review with its task, the task row locked (the first lock any change of a task and its
 * reviews takes), in one statement. The review is as of the statement's start: a change made
 * while it waited for the lock is caught by the conditional update that follows (decideReview).
 */
export async function lockReviewWithTask(
  db: Queryable,
  reviewId: string,
): Promise<{ review: Review; task: Task } | undefined> {
  const r = await db.query<ReviewTaskRow>(
    `WITH t AS (SELECT * FROM signoff.tasks WHERE id = (SELECT task_id FROM signoff.reviews WHERE id = $1) FOR UPDATE)
     SELECT signoff.review_json(r) AS r, to_jsonb(t) AS t FROM signoff.reviews r JOIN t ON t.id = r.task_id WHERE r.id = $1`,
    [reviewId],
  );
  return r.rows[0] && toReviewWithTask(r.rows[0]);
}

/** A review with its task, read in one round trip. */
export async function getReviewWithTask(
  db: Queryable,
  id: string,
): Promise<{ review: Review; task: Task } | undefined> {
  const r = await db.query<ReviewTaskRow>(
    `SELECT signoff.review_json(r) AS r, to_jsonb(t) AS t FROM signoff.reviews r JOIN signoff.tasks t ON t.id = r.task_id
     WHERE r.id = $1`,
    [id],
  );
  return r.rows[0] && toReviewWithTask(r.rows[0]);
}

type ReviewTaskRow = { r: Review; t: TaskRow };

function toReviewWithTask(row: ReviewTaskRow): { review: Review; task: Task } {
  return { review: row.r, task: taskFromJson(row.t) };
}

export async function reviewsOf(db: Queryable, taskId: string, status?: Review['status']): Promise<Review[]> {
  const r = await db.query<{ review: Review }>(
    `SELECT signoff.review_json(r) AS review FROM signoff.reviews r
     WHERE task_id = $1 AND ($2::text IS NULL OR status = $2) ORDER BY created_at, id`,
    [taskId, status ?? null],
  );
  return r.rows.map((row) => row.review);
}

/**
 * The exactly-once step: only a pending review becomes decided; a second caller gets nothing.
 * The decision's event and audit entry are written by the same statement.
 */
export async function decideReview(
  db: Queryable,
  id: string,
  decision: Decision,
): Promise<Review | undefined> {
  const r = await db.query<{ review: Review }>(
    `WITH decided AS (
       UPDATE signoff.reviews SET status = 'decided', decision = $2, decided_by = $3, decided_at = now()
       WHERE id = $1 AND status = 'pending' RETURNING *),
     announced AS (
       INSERT INTO signoff.events (task_id, key, type, payload)
       SELECT task_id, 'decided:' || id, 'review_decided',
              jsonb_build_object('type', 'review_decided', 'review', signoff.review_json(decided::signoff.reviews))
       FROM decided ON CONFLICT (task_id, key) DO NOTHING),
     audited AS (
       INSERT INTO signoff.audit (task_id, review_id, actor, action, detail)
       SELECT task_id, id, $3, $4, $5 FROM decided),
     -- The last open question answered: the task is working again from this moment, as its
     -- status shows, and its run has one write fewer to make.
     working AS (
       UPDATE signoff.tasks t SET status = 'working', status_reason = NULL, version = version + 1, updated_at = now()
       FROM decided d
       WHERE t.id = d.task_id AND t.status = 'waiting'
         AND NOT EXISTS (SELECT 1 FROM signoff.reviews o
                         WHERE o.task_id = d.task_id AND o.status = 'pending' AND o.id <> d.id)
       RETURNING t.id, t.version),
     status_announced AS (
       INSERT INTO signoff.events (task_id, key, type, payload)
       SELECT id, 'status:' || version, 'task_status', '{"type": "task_status", "status": "working", "reason": null}'::jsonb
       FROM working ON CONFLICT (task_id, key) DO NOTHING)
     SELECT signoff.review_json(decided::signoff.reviews) AS review FROM decided`,
    [
      id,
      decision,
      decision.by,
      decision.action,
      {
        feedback: decision.feedback,
        automatic: decision.automatic,
        contentHash: decision.contentHash,
        approvals: decision.approvals,
        // What an edit ran instead of what was asked.
        values: decision.action === 'edit' ? decision.values : undefined,
      },
    ],
  );
  return r.rows[0]?.review;
}

/** A task's decisions not yet consumed by the graph, as a JSON array (for a statement that reads more). */
export const UNAPPLIED_DECISIONS_JSON = `coalesce((SELECT jsonb_agg(signoff.review_json(r) ORDER BY r.decided_at) FROM signoff.reviews r
   WHERE r.task_id = $4 AND r.status = 'decided' AND r.applied_at IS NULL), '[]')`;

/** Decisions recorded but not yet consumed by the graph. */
export async function unappliedDecisions(db: Queryable, taskId: string): Promise<Review[]> {
  const r = await db.query<{ review: Review }>(
    `SELECT signoff.review_json(r) AS review FROM signoff.reviews r
     WHERE task_id = $1 AND status = 'decided' AND applied_at IS NULL ORDER BY decided_at`,
    [taskId],
  );
  return r.rows.map((row) => row.review);
}

export async function markApplied(db: Queryable, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.query('UPDATE signoff.reviews SET applied_at = now() WHERE id = ANY($1) AND applied_at IS NULL', [
    ids,
  ]);
}

/** Closes the task's pending reviews without a decision, announcing each (its card says why). */
export async function cancelPendingReviews(
  db: Queryable,
  taskId: string,
  closed: { by: string; reason: string },
): Promise<number> {
  const r = await db.query(
    `WITH closed AS (
       UPDATE signoff.reviews SET status = 'cancelled'
       WHERE task_id = $1 AND status = 'pending' RETURNING *),
     announced AS (
       INSERT INTO signoff.events (task_id, key, type, payload)
       SELECT task_id, 'closed:' || id, 'review_closed',
              jsonb_build_object('type', 'review_closed', 'by', $2::text, 'reason', $3::text,
                                 'review', signoff.review_json(closed::signoff.reviews))
       FROM closed ON CONFLICT (task_id, key) DO NOTHING)
     SELECT count(*)::int AS n FROM closed`,
    [taskId, closed.by, closed.reason],
  );
  return (r.rows[0] as { n: number }).n;
}

export async function audit(
  db: Queryable,
  entry: {
    taskId?: string;
    reviewId?: string;
    actor: string;
    action: string;
    detail?: Record<string, unknown>;
  },
): Promise<void> {
  await db.query(
    'INSERT INTO signoff.audit (task_id, review_id, actor, action, detail) VALUES ($1, $2, $3, $4, $5)',
    [entry.taskId ?? null, entry.reviewId ?? null, entry.actor, entry.action, entry.detail ?? {}],
  );
}

/**
 * Redirects a working task (seed 003): the message becomes its goal, the old goal joins the
 * abandoned ones, the next generation of its graph thread starts from the workflow's beginning,
 * and the old thread's checkpoints go. Announced and audited in the same statement.
 */
export async function redirectTask(
  db: Queryable,
  taskId: string,
  r: { text: string; by: string; at: string },
): Promise<Task | undefined> {
  const res = await db.query<TaskRow>(
    `WITH old AS (SELECT id, text, generation FROM signoff.tasks WHERE id = $1 AND status = 'working' FOR UPDATE),
     moved AS (
       UPDATE signoff.tasks t SET text = $2, generation = t.generation + 1, version = version + 1, updated_at = now(),
         abandoned_goals = t.abandoned_goals || jsonb_build_array(jsonb_build_object('text', old.text, 'by', $3::text, 'at', $4::text))
       FROM old WHERE t.id = old.id RETURNING t.*),
     announced AS (
       INSERT INTO signoff.events (task_id, key, type, payload)
       SELECT m.id, 'redirected:' || m.generation, 'task_redirected',
              jsonb_build_object('type', 'task_redirected', 'text', $2::text, 'by', $3::text, 'abandoned', old.text)
       FROM moved m JOIN old ON old.id = m.id ON CONFLICT (task_id, key) DO NOTHING),
     audited AS (
       INSERT INTO signoff.audit (task_id, actor, action, detail)
       SELECT m.id, $3, 'redirect', jsonb_build_object('text', $2::text, 'abandoned', old.text)
       FROM moved m JOIN old ON old.id = m.id)
     SELECT * FROM moved`,
    [taskId, r.text, r.by, r.at],
  );
  return res.rows[0] && toTask(res.rows[0]);
}
