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
 * One deliverer per task at a time (the `deliver:<task>` lease). Each event counts its attempts:
 * - the surface's rate limit saying "not yet" is not an attempt: the event goes out when the
 *   limit allows, and the later events of its lane wait behind it;
 * - temporary failures (outages, timeouts, and signoff's own errors on the way, which people only
 *   ever see as a sentence) are retried with backoff, the next attempt scheduled as a delayed
 *   job, and the later events of its lane wait behind it (order);
 * - an event the surface refuses for good is retried a few times, then marked failed, logged with
 *   the surface's error, and replaced by a short `delivery_failed` fallback; later events go on;
 * - a task whose thread cannot be reached any more (the bot removed from the channel) fails with
 *   the surface's sentence, and its events wait; a retry of the task delivers them again.
 *
 * Events are delivered where they were recorded when that process delivers for the surface (no
 * queue round trip on the common path), else by a job; a periodic sweep picks up anything a
 * crash left behind.
 */
import type pg from 'pg';
import { DeliveryError, isSignoffError } from '../errors.js';
import type { Logger } from '../logger.js';
import { createFailedAttempts } from './delivery-failures.js';
import { underLease } from './delivery-guard.js';
import { type EventRow, toEvent } from './event-store.js';
import type { Leases } from './leases.js';
import type { JobQueue } from './queue.js';
import { taskFromRow } from './rows.js';
import type { Sink, Surface, Task } from './types.js';

export interface Delivery {
  /**
   * Asks for a task's events to go out, after the transaction that recorded them committed: at
   * once in this process when it delivers them, else by a job. Never throws. `soon`: what a run
   * records as it goes (its words, "working") may wait a moment for what it says next, so that a
   * run of quick steps is delivered in one round rather than one per step; a kick without it
   * (the run's end, a decision) delivers everything at once.
   */
  kick(task: Pick<Task, 'id'> & Partial<Pick<Task, 'surface'>>, options?: { soon?: boolean }): Promise<void>;
  /** Delivers a task's due events now; resolves when none is left or the next has to wait. */
  deliver(taskId: string): Promise<void>;
  /** Delivers this surface's events in this process from now on (its jobs, kicks, a sweep). */
  work(surface: Surface, concurrency: number): Promise<void>;
  /** Stops the sweep and new rounds; waits (a little) for rounds under way. */
  stop(): Promise<void>;
}

export const deliveryQueue = (surface: Surface) => `signoff-deliver-${surface}`;

/** Events read per round; a round ends with them marked, then the next round reads on. */
const BATCH = 50;

/** How long a `soon` kick may wait for the next one: unnoticed in a thread, many rounds saved. */
const SOON_MS = 100;

/** How long shutting down waits for delivery rounds under way. */
const STOP_WAIT_MS = 10_000;

export function createDelivery(deps: {
  pool: pg.Pool;
  queue: JobQueue;
  leases: Leases;
  sinks: Partial<Record<Surface, Sink>>;
  logger: Logger;
}): Delivery {
  const { pool, queue, leases, sinks, logger } = deps;
  const failed = createFailedAttempts({ pool, logger });
  const working = new Set<Surface>();
  // One delivery loop per task in this process; a kick during one asks it to go round again.
  const loops = new Map<string, { again: boolean; done: Promise<void> }>();
  let closing = false;
  const sweeps: NodeJS.Timeout[] = [];
  // Tasks with a `soon` kick waiting, and what delivers them when the wait is over.
  const soon = new Map<string, { timer: NodeJS.Timeout; fire: () => void }>();
  // Kicks under way (a control's is not awaited): stop waits for them, or one that queues its
  // delivery would query the pool after it closed.
  const kicks = new Set<Promise<void>>();

  const later = (task: Pick<Task, 'id' | 'surface'>, at: Date) =>
    queue.send(deliveryQueue(task.surface), { taskId: task.id }, { singletonKey: task.id, startAfter: at });

  /** One round under the task's delivery lease. Returns whether to go round again at once. */
  async function round(taskId: string): Promise<boolean> {
    // The lease taken, the task read and its due events claimed (each attempt counted before it
    // is made), in one statement.
    const { lease, row } = await leases.acquireWith<{ task: unknown; events: EventRow[] }>(
      `deliver:${taskId}`,
      // A status event a later one replaces is not shown (it counts as delivered); in each lane
      // an event waiting for its retry holds back the events after it.
      (param) => {
        const task = param(taskId);
        return `, latest AS (SELECT max(id) AS id FROM signoff.events WHERE task_id = ${task} AND type = 'task_status'),
       open AS (
         SELECT id, lane, next_attempt_at FROM signoff.events
         WHERE task_id = ${task} AND delivered_at IS NULL AND failed_at IS NULL),
       superseded AS (
         UPDATE signoff.events SET delivered_at = now()
         WHERE EXISTS (SELECT 1 FROM lease)
           AND id IN (SELECT id FROM open WHERE lane = 'status' AND id < (SELECT id FROM latest))),
       current AS (
         SELECT * FROM open WHERE NOT (lane = 'status' AND id < (SELECT id FROM latest))),
       blocked AS (SELECT lane, min(id) AS id FROM current WHERE next_attempt_at > now() GROUP BY lane),
       due AS (
         UPDATE signoff.events SET attempts = attempts + 1
         WHERE EXISTS (SELECT 1 FROM lease)
           AND id IN (SELECT c.id FROM current c LEFT JOIN blocked b ON b.lane = c.lane
                      WHERE b.id IS NULL OR c.id < b.id ORDER BY c.id LIMIT ${param(BATCH)})
         RETURNING id, task_id, key, lane, payload, attempts)
       SELECT EXISTS (SELECT 1 FROM lease) AS leased,
              (SELECT to_jsonb(t) FROM signoff.tasks t WHERE t.id = ${task}) AS task,
              coalesce((SELECT jsonb_agg(due ORDER BY id) FROM due), '[]') AS events`;
      },
    );
    const task = row?.task ? taskFromRow(row.task) : undefined;
    if (!task) {
      await lease?.release();
      return false;
    }
    if (!lease) {
      // The holder looks for new events as it lets go, so this is only for a holder that dies:
      // try again once its lease runs out (its process may have had a shorter one than ours).
      const held = await pool.query<{ until: Date }>(
        `SELECT least(expires_at, now() + $2 * interval '1 millisecond') AS until FROM signoff.leases WHERE key = $1`,
        [`deliver:${taskId}`, leases.ttlMs],
      );
      await later(task, held.rows[0]?.until ?? new Date());
      return false;
    }
    const events = (row?.events ?? []).map((e) => ({ ...toEvent(e), lane: e.lane }));
    const sink = sinks[task.surface];
    if (!sink) {
      // Not this process's surface (a job reached the wrong process): let a process that has it deliver.
      await lease.releaseWith(
        (param) =>
          `, untried AS (UPDATE signoff.events SET attempts = attempts - 1 WHERE id = ANY(${param(events.map((e) => e.id))}::bigint[]))
           SELECT 1`,
      );
      return false;
    }
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
      // Marks what went out, uncounts the attempts this round did not make, lets go, and looks at
      // what is next in each lane, in one statement: an event recorded while this round held the
      // lease (whose kick found it taken) is seen here.
      const tried = new Set([...done, ...attempted]);
      heads = await lease.releaseWith((param) => {
        const delivered = param(done);
        const untried = param(events.filter((e) => !tried.has(e.id)).map((e) => e.id));
        return `, marked AS (UPDATE signoff.events SET delivered_at = now(), last_error = NULL WHERE id = ANY(${delivered}::bigint[])),
         untried AS (UPDATE signoff.events SET attempts = attempts - 1 WHERE id = ANY(${untried}::bigint[]))
         SELECT DISTINCT ON (lane) next_attempt_at IS NULL OR next_attempt_at <= now() AS due, next_attempt_at AS at
         FROM signoff.events
         WHERE task_id = ${param(taskId)} AND delivered_at IS NULL AND failed_at IS NULL AND id <> ALL(${delivered}::bigint[])
         ORDER BY lane, id`;
      });
    }
    if (heads.some((h) => h.due) && !lease.signal.aborted) return true;
    const next = heads
      .map((h) => h.at)
      .filter((at): at is Date => at !== null)
      .sort((a, b) => a.getTime() - b.getTime())[0];
    if (next) await later(task, next);
    return false;
  }

  async function deliver(taskId: string): Promise<void> {
    const loop = loops.get(taskId);
    if (loop) {
      loop.again = true;
      return loop.done;
    }
    // Shutting down: what is left goes out from the next process (its sweep).
    if (closing) return;
    const self = { again: true, done: Promise.resolve() };
    loops.set(taskId, self);
    self.done = (async () => {
      try {
        while (self.again && !closing) {
          self.again = false;
          if (await round(taskId)) self.again = true;
        }
      } finally {
        loops.delete(taskId);
      }
    })();
    return self.done;
  }

  /** Queues a delivery for every task of the surface with events due (bounded by the job workers). */
  async function sweep(surface: Surface): Promise<void> {
    const r = await pool.query<{ task_id: string }>(
      `SELECT DISTINCT e.task_id FROM signoff.events e JOIN signoff.tasks t ON t.id = e.task_id
       WHERE t.surface = $1 AND e.delivered_at IS NULL AND e.failed_at IS NULL
         AND (e.next_attempt_at IS NULL OR e.next_attempt_at <= now()) LIMIT 500`,
      [surface],
    );
    for (const { task_id } of r.rows) await later({ id: task_id, surface }, new Date());
  }

  async function kick(
    task: Pick<Task, 'id'> & Partial<Pick<Task, 'surface'>>,
    options?: { soon?: boolean },
  ): Promise<void> {
    const waiting = soon.get(task.id);
    if (options?.soon) {
      if (waiting) return;
      const fire = () => {
        soon.delete(task.id);
        void kick(task);
      };
      const timer = setTimeout(fire, SOON_MS);
      timer.unref();
      soon.set(task.id, { timer, fire });
      return;
    }
    // This kick delivers what the waiting one would have.
    if (waiting) {
      clearTimeout(waiting.timer);
      soon.delete(task.id);
    }
    const here = task.surface ? working.has(task.surface) : working.size > 0;
    const kicked = (async () => {
      try {
        // A process that does not deliver this surface (a web replica): a worker's job does it.
        if (!here && task.surface) await later({ id: task.id, surface: task.surface }, new Date());
        else await deliver(task.id);
      } catch (err) {
        logger.warn({ task: task.id, err }, 'delivery stopped; a job or the sweep takes it up again');
      }
    })();
    kicks.add(kicked);
    await kicked;
    kicks.delete(kicked);
  }

  return {
    kick,
    deliver,
    work: async (surface, concurrency) => {
      await queue.declare(deliveryQueue(surface));
      await queue.work<{ taskId: string }>(deliveryQueue(surface), concurrency, ({ taskId }) =>
        deliver(taskId),
      );
      working.add(surface);
      await sweep(surface);
      const timer = setInterval(
        () => void sweep(surface).catch((err) => logger.warn({ err }, 'delivery sweep failed')),
        // As often as a lease lives: what a dead deliverer held back goes out soon after its lease ends.
        leases.ttlMs,
      );
      timer.unref();
      sweeps.push(timer);
    },
    stop: async () => {
      for (const timer of sweeps.splice(0)) clearInterval(timer);
      // What waits for a moment goes out now, before rounds stop starting.
      for (const { timer, fire } of [...soon.values()]) {
        clearTimeout(timer);
        fire();
      }
      closing = true;
      // Rounds under way finish (and let their leases go) before the pool closes; a round that
      // hangs is left to its lease's expiry.
      const rounds = Promise.allSettled([...loops.values()].map((l) => l.done).concat([...kicks]));
      await Promise.race([rounds, new Promise((r) => setTimeout(r, STOP_WAIT_MS).unref())]);
    },
  };
}
