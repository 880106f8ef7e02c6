/** SQL for the events outbox: recorded once per (task, key), read in order, marked delivered. */
import type { Queryable } from '../db/queryable.js';
import { EVENT_TYPES, engineEventSchema } from './shapes.js';
import type { DeliveredEvent, EngineEvent, Task } from './types.js';

/**
 * Records an event once per (task, key) (keys: event-keys.ts); returns it if this call recorded
 * it. The one way an event is written: built in TS, from the rows its change returned, and
 * recorded in the same transaction as that change.
 */
export const record = async (db: Queryable, taskId: string, key: string, event: EngineEvent) =>
  (await recordAll(db, taskId, [{ key, event }])).at(0);

/**
 * Records several events of a task, in order, each once per key (one statement); returns those it
 * recorded. `whileRunning`: only while the task is not cancelled and still runs that generation
 * (what a run's agents said). A cancel or redirect this process has not heard yet (or never hears,
 * behind a transaction-mode pooler) leaves the run going a moment; what it says meanwhile is not
 * the task's any more and must not be posted after "cancelled". The task's row is read FOR SHARE,
 * so a cancel committing meanwhile is waited for and seen. A task failed meanwhile (its thread
 * unreachable) keeps its words, as every event it has: they fail with the thread.
 */
export async function recordAll(
  db: Queryable,
  taskId: string,
  events: readonly { key: string; event: EngineEvent }[],
  whileRunning?: Pick<Task, 'generation'>,
): Promise<DeliveredEvent[]> {
  if (events.length === 0) return [];
  const r = await db.query<{ id: string; key: string }>(
    `INSERT INTO signoff.events (task_id, key, type, payload)
     SELECT $1, e->>'key', e->'event'->>'type', e->'event' FROM jsonb_array_elements($2::jsonb) WITH ORDINALITY AS x(e, n)
     WHERE $3::int IS NULL OR EXISTS (SELECT 1 FROM signoff.tasks t
       WHERE t.id = $1 AND t.generation = $3 AND t.status <> 'cancelled' FOR SHARE)
     ORDER BY n
     ON CONFLICT (task_id, key) DO NOTHING RETURNING id, key`,
    [taskId, JSON.stringify(events), whileRunning?.generation ?? null],
  );
  // A key given twice is recorded as it was given first.
  const byKey = new Map(events.toReversed().map((e) => [e.key, e.event]));
  return r.rows
    .map((row) => ({
      id: Number(row.id),
      taskId,
      key: row.key,
      event: byKey.get(row.key) as EngineEvent,
      attempts: 0,
    }))
    .sort((a, b) => a.id - b.id);
}

/**
 * The task's agents' messages waiting to be shown (not yet delivered, nor failed), in order: each
 * the stream that showed it as written, or null.
 */
export async function saidNotShown(db: Queryable, taskId: string): Promise<(string | null)[]> {
  const r = await db.query<{ streamed: string | null }>(
    `SELECT payload->>'streamed' AS streamed FROM signoff.events WHERE task_id = $1 AND type = 'agent_said'
     AND delivered_at IS NULL AND failed_at IS NULL ORDER BY id`,
    [taskId],
  );
  return r.rows.map((row) => row.streamed);
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
  payload: unknown;
  attempts: number;
  last_error?: string | null;
  delivered_at?: Date | string | null;
  failed_at?: Date | string | null;
}

/** An event as read; `unreadable` says why its stored payload does not read as the event it names. */
export type StoredEvent = DeliveredEvent & { unreadable?: string };

/**
 * An event row, its payload parsed. One that does not read as an event (written by another
 * version, say) is read as its own fallback: `delivery_failed`, naming its key and its type where
 * that is one, so a surface says something could not be shown and nobody is shown a guess.
 */
export function toEvent(row: EventRow): StoredEvent {
  const read = { id: Number(row.id), taskId: row.task_id, key: row.key, attempts: row.attempts };
  const parsed = engineEventSchema.safeParse(row.payload);
  if (parsed.success) return { ...read, event: parsed.data };
  const named = (row.payload as { type?: unknown } | null)?.type;
  const failedType = EVENT_TYPES.find((t) => t === named) ?? 'task_status';
  return {
    ...read,
    event: { type: 'delivery_failed', failedKey: row.key, failedType, code: 'unreadable_event' },
    unreadable: parsed.error.issues.map((i) => `${i.path.join('.') || '(payload)'}: ${i.message}`).join('; '),
  };
}

const eventRows = async (db: Queryable, taskId: string) =>
  (await db.query<EventRow>('SELECT * FROM signoff.events WHERE task_id = $1 ORDER BY id', [taskId])).rows;

/** A task's events, oldest first. */
export const eventsOf = async (db: Queryable, taskId: string) => (await eventRows(db, taskId)).map(toEvent);

/** Every event of a task with its delivery state, oldest first. */
export const eventRecords = async (db: Queryable, taskId: string): Promise<EventRecord[]> =>
  (await eventRows(db, taskId)).map((row) => ({
    ...toEvent(row),
    state: row.delivered_at ? 'delivered' : row.failed_at ? 'failed' : 'pending',
    lastError: row.last_error ?? null,
  }));

/** Whether the event `key` of a task went out to its surface (delivered, not failed nor waiting). */
export async function wasDelivered(db: Queryable, taskId: string, key: string): Promise<boolean> {
  const r = await db.query(
    'SELECT 1 FROM signoff.events WHERE task_id = $1 AND key = $2 AND delivered_at IS NOT NULL AND failed_at IS NULL',
    [taskId, key],
  );
  return (r.rowCount ?? 0) > 0;
}
