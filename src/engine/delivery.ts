/**
 * Delivery: what the outbox recorded goes to the task's surface, in id order per task, across
 * processes, on a path of its own. It never runs under a graph run's lease and no run waits for
 * it: a decided card is updated while another branch's run holds the task, and a surface that
 * fails never fails a run.
 *
 * A task's events go out in two lanes, each in id order: its status while it runs (of which only
 * the latest is shown: a status event a later one replaces is skipped) and everything else (the
 * thread, which also carries the task's end, so "Done" comes after the last words). A status
 * update waiting for Slack's limit on updates never holds back a card or an agent's words.
 *
 * One deliverer per task at a time (the runtime's `deliver:<task>` job). Each event counts its
 * attempts; what a failed one means (wait for the rate limit, retry with backoff holding its lane,
 * a fallback once refused for good, the task failed when its thread is gone) is
 * delivery-failures.ts's. A kick asks for the job once the events' transaction committed; a
 * periodic sweep picks up what a crash between the two left behind.
 */
import type pg from 'pg';
import { DeliveryError, isSignoffError } from '../errors.js';
import type { Logger } from '../logger.js';
import { createFailedAttempts } from './delivery-failures.js';
import { underLease } from './delivery-guard.js';
import { type EventRow, toEvent } from './event-store.js';
import { deliveryJob, deliveryQueue, type TaskJob, taskJobSchema } from './job-names.js';
import { taskFromRow } from './rows.js';
import type { After, Claim, Runtime } from './runtime/index.js';
import type { Sink, Surface, Task } from './types.js';

type TaskRef = Pick<Task, 'id'> & Partial<Pick<Task, 'surface'>>;

export interface Delivery {
  /**
   * Asks for a task's events to go out, after the transaction that recorded them committed.
   * Never throws. `soon`: what a run records as it goes (its words, "working") may wait a moment
   * for what it says next, so that a run of quick steps is delivered in one round rather than
   * one per step; a kick without it (the run's end, a decision) asks at once.
   */
  kick(task: TaskRef, options?: { soon?: boolean }): Promise<void>;
  /** Delivers this surface's events in this process from now on (its jobs and a sweep). */
  work(surface: Surface, concurrency: number): Promise<void>;
  /** Stops the sweep; what waits for a moment is asked for now. */
  stop(): Promise<void>;
}

/** Events read per round; a round ends with them marked, then the next round reads on. */
const BATCH = 50;

/** How long a `soon` kick may wait for the next one: unnoticed in a thread, many rounds saved. */
const SOON_MS = 100;

export function createDelivery(deps: {
  pool: pg.Pool;
  runtime: Runtime;
  sinks: Partial<Record<Surface, Sink>>;
  logger: Logger;
}): Delivery {
  const { pool, runtime, sinks, logger } = deps;
  const failed = createFailedAttempts({ pool, logger });
  const sweeps: NodeJS.Timeout[] = [];
  // Tasks with a `soon` kick waiting: the timer makes it a kick that asks at once.
  const soon = new Map<string, { timer: NodeJS.Timeout; task: TaskRef }>();
  // Kicks under way (a control's is not awaited): stop waits for them, or one that asks for its
  // delivery would query the pool after it closed.
  const kicks = new Set<Promise<void>>();

  /** One round under the task's delivery lease: what is due goes out, in lane order. */
  async function round({ data: { taskId }, lease }: Claim<TaskJob>, sink: Sink): Promise<After> {
    // The task read and its due events claimed (each attempt counted before it is made), in one
    // statement. A status event a later one replaces is not shown (it counts as delivered), and
    // the later one takes its place in the wait for the surface's limit (not a failure's backoff,
    // which is the replaced event's own: those carry their error): a task whose plan moves
    // as it waits is not sent to the back of the queue at each move. In each lane an event
    // waiting for its retry holds back the events after it.
    const r = await pool.query<{ task: unknown; events: EventRow[] }>(
      `WITH latest AS (SELECT max(id) AS id FROM signoff.events WHERE task_id = $1 AND type = 'task_status'),
       open AS (
         SELECT id, lane, next_attempt_at FROM signoff.events
         WHERE task_id = $1 AND delivered_at IS NULL AND failed_at IS NULL),
       superseded AS (
         UPDATE signoff.events SET delivered_at = now()
         WHERE id IN (SELECT id FROM open WHERE lane = 'status' AND id < (SELECT id FROM latest))),
       waited AS (
         SELECT max(next_attempt_at) AS at FROM signoff.events
         WHERE id IN (SELECT id FROM open WHERE lane = 'status' AND id < (SELECT id FROM latest))
           AND next_attempt_at > now() AND last_error IS NULL),
       inherited AS (
         UPDATE signoff.events SET next_attempt_at = (SELECT at FROM waited)
         WHERE id IN (SELECT id FROM open WHERE lane = 'status' AND next_attempt_at IS NULL)
           AND (SELECT at FROM waited) IS NOT NULL),
       current AS (
         SELECT id, lane,
                CASE WHEN lane = 'status' AND next_attempt_at IS NULL THEN (SELECT at FROM waited)
                     ELSE next_attempt_at END AS next_attempt_at
         FROM open WHERE NOT (lane = 'status' AND id < (SELECT id FROM latest))),
       blocked AS (SELECT lane, min(id) AS id FROM current WHERE next_attempt_at > now() GROUP BY lane),
       due AS (
         UPDATE signoff.events SET attempts = attempts + 1
         WHERE id IN (SELECT c.id FROM current c LEFT JOIN blocked b ON b.lane = c.lane
                      WHERE b.id IS NULL OR c.id < b.id ORDER BY c.id LIMIT $2)
         RETURNING id, task_id, key, lane, payload, attempts)
       SELECT (SELECT to_jsonb(t) FROM signoff.tasks t WHERE t.id = $1) AS task,
              coalesce((SELECT jsonb_agg(due ORDER BY id) FROM due), '[]') AS events`,
      [taskId, BATCH],
    );
    const row = r.rows[0];
    const task = row?.task ? taskFromRow(row.task) : undefined;
    if (!task) return undefined;
    const events = (row?.events ?? []).map((e) => ({ ...toEvent(e), lane: e.lane }));
    const done: number[] = [];
    // Events whose attempt was made and failed (their count stands).
    const attempted: number[] = [];
    // Lanes whose next event has to wait: their later events are not tried this round.
    const held = new Set<string>();
    let heads: { due: boolean; at: Date | null }[] = [];
    try {
      for (const event of events) {
        if (!lease.held()) break;
        if (held.has(event.lane)) continue;
        if (event.unreadable)
          logger.error(
            { task: taskId, event: event.key, why: event.unreadable },
            'an event as stored does not read as one: a note that it could not be shown goes in its place',
          );
        try {
          await underLease(lease, () => sink(event, task));
          done.push(event.id);
        } catch (error) {
          // The lease went while the event was being shown (this process froze past it): the
          // next holder shows it, looking first for what this attempt may have posted.
          if (isSignoffError(error, 'lease_lost')) {
            attempted.push(event.id);
            break;
          }
          // The attempt was made (unless the surface's own limit said not yet), and counts even
          // if recording how it failed fails too: the next attempt then knows an earlier one may
          // have shown it.
          if (!(error instanceof DeliveryError && error.kind === 'limited')) attempted.push(event.id);
          const outcome = await failed(task, event, error);
          if (outcome === 'unreachable') break;
          if (outcome !== 'skip') held.add(event.lane);
        }
      }
    } finally {
      // Marks what went out, uncounts the attempts this round did not make, and looks at what is
      // next in each lane, in one statement. (An event recorded meanwhile asked for the job
      // again: it runs once more after this round.)
      const tried = new Set([...done, ...attempted]);
      const untried = events.filter((e) => !tried.has(e.id)).map((e) => e.id);
      const next = await pool.query<{ due: boolean; at: Date | null }>(
        `WITH marked AS (UPDATE signoff.events SET delivered_at = now(), last_error = NULL WHERE id = ANY($2::bigint[])),
         untried AS (UPDATE signoff.events SET attempts = attempts - 1 WHERE id = ANY($3::bigint[]))
         SELECT DISTINCT ON (lane) next_attempt_at IS NULL OR next_attempt_at <= now() AS due, next_attempt_at AS at
         FROM signoff.events
         WHERE task_id = $1 AND delivered_at IS NULL AND failed_at IS NULL AND id <> ALL($2::bigint[])
         ORDER BY lane, id`,
        [taskId, done, untried],
      );
      heads = next.rows;
    }
    if (heads.some((h) => h.due)) return { againInMs: 0 };
    const at = Math.min(...heads.map((h) => h.at?.getTime() ?? Number.POSITIVE_INFINITY));
    return Number.isFinite(at) ? { againAt: new Date(at) } : undefined;
  }

  /** Asks for delivery of every task of the surface with events due (what a crash left behind). */
  async function sweep(surface: Surface): Promise<void> {
    const r = await pool.query<{ task_id: string }>(
      `SELECT DISTINCT e.task_id FROM signoff.events e JOIN signoff.tasks t ON t.id = e.task_id
       WHERE t.surface = $1 AND e.delivered_at IS NULL AND e.failed_at IS NULL
         AND (e.next_attempt_at IS NULL OR e.next_attempt_at <= now()) LIMIT 500`,
      [surface],
    );
    for (const { task_id } of r.rows) await runtime.schedule(pool, deliveryJob({ id: task_id, surface }));
    if (r.rows.length) runtime.wake(deliveryQueue(surface));
  }

  async function ask(task: TaskRef): Promise<void> {
    const surface =
      task.surface ??
      (await pool.query<{ surface: Surface }>('SELECT surface FROM signoff.tasks WHERE id = $1', [task.id]))
        .rows[0]?.surface;
    if (!surface) return;
    await runtime.schedule(pool, deliveryJob({ id: task.id, surface }));
    runtime.wake(deliveryQueue(surface));
  }

  async function kick(task: TaskRef, options?: { soon?: boolean }): Promise<void> {
    const waiting = soon.get(task.id);
    if (options?.soon) {
      if (!waiting) soon.set(task.id, { timer: setTimeout(() => void kick(task), SOON_MS).unref(), task });
      return;
    }
    // This kick asks for what the waiting one would have.
    if (waiting) {
      clearTimeout(waiting.timer);
      soon.delete(task.id);
    }
    const kicked = ask(task).catch((err: Error) =>
      logger.warn({ task: task.id, err }, 'could not ask for delivery; the sweep asks again'),
    );
    kicks.add(kicked);
    await kicked;
    kicks.delete(kicked);
  }

  return {
    kick,
    work: async (surface, concurrency) => {
      const sink = sinks[surface];
      if (!sink) throw new Error(`this process has no way to deliver to the surface ${surface}`);
      runtime.work(deliveryQueue(surface), { concurrency, data: taskJobSchema }, (claim) =>
        round(claim, sink),
      );
      await sweep(surface);
      // As often as a lease lives: what a crash left undelivered goes out soon after.
      const again = () => void sweep(surface).catch((err) => logger.warn({ err }, 'delivery sweep failed'));
      sweeps.push(setInterval(again, runtime.ttlMs).unref());
    },
    stop: async () => {
      for (const timer of sweeps.splice(0)) clearInterval(timer);
      // What waits for a moment is asked for now.
      for (const { task } of [...soon.values()]) void kick(task);
      await Promise.allSettled([...kicks]);
    },
  };
}
