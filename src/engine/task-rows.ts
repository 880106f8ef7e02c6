/**
 * SQL for task rows: a task inserted, read, listed, moved to a status, redirected, and the audit
 * log beside it. Every function takes a `Queryable`, so callers choose whether it runs on the pool
 * or inside their transaction; a change and its event commit together (`atomically`).
 */
import { atomically, type Queryable } from '../db/queryable.js';
import { eventKey } from './event-keys.js';
import { record } from './event-store.js';
import { taskFromRow } from './rows.js';
import { type Progress, type Surface, statusesBefore, type Task, type TaskStatus } from './types.js';

/** Inserts the task unless one with that id exists; returns it and whether it is new. */
export async function insertTask(
  db: Queryable,
  t: Pick<Task, 'id' | 'workflow' | 'surface' | 'text' | 'requester' | 'origin'> &
    Partial<Pick<Task, 'door' | 'input' | 'budgetUsd'>>,
): Promise<{ task: Task; created: boolean }> {
  const inserted = await db.query(
    `INSERT INTO signoff.tasks (id, workflow, surface, text, requester, origin, door, input, budget_usd)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (id) DO NOTHING RETURNING *`,
    [
      t.id,
      t.workflow,
      t.surface,
      t.text,
      t.requester,
      t.origin,
      t.door ?? null,
      t.input ?? null,
      t.budgetUsd ?? null,
    ],
  );
  if (inserted.rows[0]) return { task: taskFromRow(inserted.rows[0]), created: true };
  return { task: (await getTask(db, t.id)) as Task, created: false };
}

export async function getTask(db: Queryable, id: string, forUpdate = false): Promise<Task | undefined> {
  const r = await db.query(`SELECT * FROM signoff.tasks WHERE id = $1${forUpdate ? ' FOR UPDATE' : ''}`, [
    id,
  ]);
  return r.rows[0] && taskFromRow(r.rows[0]);
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
  const r = await db.query(
    `SELECT * FROM signoff.tasks
     WHERE surface = $1 AND origin->>'channel' = $2 AND origin->>'ts' = $3
     ORDER BY created_at LIMIT 1`,
    [surface, place.channel, place.thread],
  );
  return r.rows[0] && taskFromRow(r.rows[0]);
}

export interface TaskFilter {
  surface?: Surface;
  requester?: string;
  statuses?: readonly TaskStatus[];
  /** The surface's own place, matched against `origin.channel` (a Slack channel). */
  channel?: string;
  limit?: number;
}

export async function listTasks(db: Queryable, filter: TaskFilter = {}): Promise<Task[]> {
  const { surface, requester, statuses, channel } = filter;
  const limit = filter.limit ?? 50;
  const r = await db.query(
    `SELECT * FROM signoff.tasks
     WHERE ($1::text IS NULL OR surface = $1) AND ($2::text IS NULL OR requester = $2)
       AND ($3::text[] IS NULL OR status = ANY($3)) AND ($4::text IS NULL OR origin->>'channel' = $4)
     ORDER BY updated_at DESC LIMIT $5`,
    [surface ?? null, requester ?? null, statuses ?? null, channel ?? null, limit],
  );
  return r.rows.map(taskFromRow);
}

/**
 * Moves the task to `status` and records a status event, when `STATUS_CHANGES` allows it and
 * something changes (the status or its reason). Returns whether it moved. `progress`: the plan
 * its event shows (a run's as it settles), written in the same statement, or alone (as
 * `replaceProgress`) when the status stays.
 */
export function setStatus(
  db: Queryable,
  taskId: string,
  status: TaskStatus,
  reason: string | null,
  progress?: Progress,
): Promise<boolean> {
  return atomically(db, async (db) => {
    const r = await db.query<{ version: number }>(
      `UPDATE signoff.tasks SET status = $2, status_reason = $3, progress = coalesce($5::jsonb, progress),
         version = version + 1, updated_at = now()
       WHERE id = $1 AND (status <> $2 OR status_reason IS DISTINCT FROM $3) AND status = ANY($4)
       RETURNING version`,
      [taskId, status, reason, statusesBefore(status), progress ? JSON.stringify(progress) : null],
    );
    const moved = r.rows[0];
    if (!moved && progress) await replaceProgress(db, taskId, progress);
    if (!moved) return false;
    await record(db, taskId, eventKey.status(moved.version), { type: 'task_status', status, reason });
    return true;
  });
}

/**
 * A run's plan for its task, while the task works on that generation: stored, and shown through a
 * status event (its own version; only the latest is delivered). `step`: the steps that just
 * started, in words, for surfaces that say so. Returns whether it was written.
 */
export async function writeProgress(
  db: Queryable,
  taskId: string,
  progress: Progress,
  step?: string,
): Promise<boolean> {
  const r = await db.query<{ version: number; status_reason: string | null }>(
    `UPDATE signoff.tasks SET progress = $2, version = version + 1
     WHERE id = $1 AND status = 'working' AND generation = $3
     RETURNING version, status_reason`,
    [taskId, JSON.stringify(progress), progress.generation],
  );
  const moved = r.rows[0];
  if (!moved) return false;
  await record(db, taskId, eventKey.status(moved.version), {
    type: 'task_status',
    status: 'working',
    reason: moved.status_reason,
    ...(step ? { step } : {}),
  });
  return true;
}

/**
 * The plan as a cancel leaves it, or as a run settles it: inside that transaction, so the status
 * event that follows shows it (no event of its own). Its caller holds the task's row (settling has
 * also checked the run's generation).
 */
export async function replaceProgress(db: Queryable, taskId: string, progress: Progress): Promise<void> {
  await db.query('UPDATE signoff.tasks SET progress = $2 WHERE id = $1', [taskId, JSON.stringify(progress)]);
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
 * Redirects a working task (seed 003, `Controls.redirect`): the message becomes its goal, the old
 * goal joins the abandoned ones, and its generation goes up. Announced and audited in the same
 * transaction.
 */
export function redirectTask(
  db: Queryable,
  taskId: string,
  r: { text: string; by: string; at: string },
): Promise<Task | undefined> {
  return atomically(db, async (db) => {
    const res = await db.query<{ abandoned: string }>(
      `WITH old AS (SELECT id, text FROM signoff.tasks WHERE id = $1 AND status = 'working' FOR UPDATE),
       moved AS (
         UPDATE signoff.tasks t SET text = $2, generation = t.generation + 1, version = version + 1, updated_at = now(),
           abandoned_goals = t.abandoned_goals || jsonb_build_array(jsonb_build_object('text', old.text, 'by', $3::text, 'at', $4::text))
         FROM old WHERE t.id = old.id RETURNING t.*),
       audited AS (
         INSERT INTO signoff.audit (task_id, actor, action, detail)
         SELECT m.id, $3, 'redirect', jsonb_build_object('text', $2::text, 'abandoned', old.text)
         FROM moved m JOIN old ON old.id = m.id)
       SELECT m.*, old.text AS abandoned FROM moved m JOIN old ON old.id = m.id`,
      [taskId, r.text, r.by, r.at],
    );
    const row = res.rows[0];
    if (!row) return undefined;
    const task = taskFromRow(row);
    await record(db, taskId, eventKey.redirected(task.generation), {
      type: 'task_redirected',
      text: r.text,
      by: r.by,
      abandoned: row.abandoned,
    });
    return task;
  });
}
