/** SQL for the events outbox: recorded once per (task, key), read in order, marked delivered. */
import type { Queryable } from '../db/queryable.js';
import type { DeliveredEvent, EngineEvent } from './types.js';

/** Records an event once per (task, key); returns it if this call recorded it. */
export async function insertEvent(
  db: Queryable,
  taskId: string,
  key: string,
  event: EngineEvent,
): Promise<DeliveredEvent | undefined> {
  const r = await db.query<{ id: string }>(
    `INSERT INTO signoff.events (task_id, key, type, payload) VALUES ($1, $2, $3, $4)
     ON CONFLICT (task_id, key) DO NOTHING RETURNING id`,
    [taskId, key, event.type, event],
  );
  const row = r.rows[0];
  return row && { id: Number(row.id), taskId, key, event, attempts: 0 };
}

/** Records several events of a task at once, each once per key (one statement). */
export async function insertEvents(
  db: Queryable,
  taskId: string,
  events: { key: string; event: EngineEvent }[],
): Promise<void> {
  if (events.length === 0) return;
  await db.query(
    `INSERT INTO signoff.events (task_id, key, type, payload)
     SELECT $1, e->>'key', e->'event'->>'type', e->'event' FROM jsonb_array_elements($2::jsonb) WITH ORDINALITY AS x(e, n)
     ORDER BY n
     ON CONFLICT (task_id, key) DO NOTHING`,
    [taskId, JSON.stringify(events)],
  );
}

/** A task's events in order: all of them, or those not yet delivered. */
export async function eventsOf(
  db: Queryable,
  taskId: string,
  which: 'all' | 'undelivered' = 'all',
): Promise<DeliveredEvent[]> {
  const r = await db.query<EventRow>(
    `SELECT * FROM signoff.events
     WHERE task_id = $1 AND ($2 OR (delivered_at IS NULL AND failed_at IS NULL)) ORDER BY id`,
    [taskId, which === 'all'],
  );
  return r.rows.map(toEvent);
}

/** An event with how its delivery went, for `signoff events` and tests. */
export interface EventRecord extends DeliveredEvent {
  state: 'delivered' | 'failed' | 'pending';
  lastError: string | null;
}

export interface EventRow {
  id: string;
  task_id: string;
  key: string;
  /** 'status' for a running task's status events, else 'thread': each lane goes out in id order. */
  lane: string;
  payload: EngineEvent;
  attempts: number;
  last_error?: string | null;
  delivered_at?: Date | string | null;
  failed_at?: Date | string | null;
}

export const toEvent = (row: EventRow): DeliveredEvent => ({
  id: Number(row.id),
  taskId: row.task_id,
  key: row.key,
  event: row.payload,
  attempts: row.attempts,
});

/** Every event of a task with its delivery state, oldest first. */
export async function eventRecords(db: Queryable, taskId: string): Promise<EventRecord[]> {
  const r = await db.query<EventRow>('SELECT * FROM signoff.events WHERE task_id = $1 ORDER BY id', [taskId]);
  return r.rows.map((row) => ({
    ...toEvent(row),
    state: row.delivered_at ? 'delivered' : row.failed_at ? 'failed' : 'pending',
    lastError: row.last_error ?? null,
  }));
}

/** The key of a review's `review_requested` event (store.ts's openReview writes it in SQL). */
export const reviewRequestedKey = (reviewId: string) => `review:${reviewId}`;

/** Whether the event `key` of a task went out to its surface (delivered, not failed nor waiting). */
export async function wasDelivered(db: Queryable, taskId: string, key: string): Promise<boolean> {
  const r = await db.query(
    'SELECT 1 FROM signoff.events WHERE task_id = $1 AND key = $2 AND delivered_at IS NOT NULL AND failed_at IS NULL',
    [taskId, key],
  );
  return (r.rowCount ?? 0) > 0;
}
