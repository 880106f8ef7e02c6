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
  return row && { id: Number(row.id), taskId, key, event };
}

/** A task's events in order: all of them, or those not yet delivered. */
export async function eventsOf(
  db: Queryable,
  taskId: string,
  which: 'all' | 'undelivered' = 'all',
): Promise<DeliveredEvent[]> {
  const r = await db.query<{ id: string; task_id: string; key: string; payload: EngineEvent }>(
    `SELECT id, task_id, key, payload FROM signoff.events
     WHERE task_id = $1 AND ($2 OR delivered_at IS NULL) ORDER BY id`,
    [taskId, which === 'all'],
  );
  return r.rows.map((row) => ({ id: Number(row.id), taskId: row.task_id, key: row.key, event: row.payload }));
}

export async function markDelivered(db: Queryable, eventIds: number[]): Promise<void> {
  if (eventIds.length === 0) return;
  await db.query('UPDATE signoff.events SET delivered_at = now() WHERE id = ANY($1)', [eventIds]);
}
