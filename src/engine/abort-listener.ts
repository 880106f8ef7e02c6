/**
 * Cancel and redirect stop a run wherever it runs: they NOTIFY `signoff_abort` with the task id,
 * and each worker process LISTENs on a connection of its own. Not a pooled client: LISTEN is
 * session state, and a pooled client that dies is simply dropped. This one is re-established,
 * with backoff, whenever it fails. An abort sent while it was down is missed: once it is back,
 * `checkRuns` asks the database what changed meanwhile (else a cancelled run would go on, its
 * agents' words streaming, until its end, which applies nothing to a task cancelled or redirected).
 *
 * At start it checks that a notification arrives at all: behind a transaction-mode pooler
 * (PgBouncer) LISTEN never hears anything. The operator is told in one line, and the runs under
 * way are then checked against the database every few seconds instead (`checkRuns`): else a
 * cancelled run would go on thinking, at the model's cost, until its end.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { Logger } from '../logger.js';

/** Postgres NOTIFY channel on which cancel and redirect ask whichever process runs a task to stop. */
export const ABORT_CHANNEL = 'signoff_abort';

const PROBE_PREFIX = 'probe:';
const MAX_BACKOFF_MS = 30_000;
/** How long the start-up check waits for its own notification. */
const PROBE_MS = 3000;
/** How often the runs under way are checked when no notification can arrive. */
export const DEAF_CHECK_MS = 2000;

export interface AbortListener {
  start(): Promise<void>;
  stop(): Promise<void>;
}

export function createAbortListener(deps: {
  pool: pg.Pool;
  onAbort: (taskId: string) => void;
  /**
   * Asks the database what aborts this process did not hear would have said, for the runs under
   * way: after its connection was lost, and every few seconds when notifications never arrive.
   */
  checkRuns: () => Promise<void>;
  logger: Logger;
}): AbortListener {
  const { pool, logger } = deps;
  let client: pg.Client | undefined;
  let stopped = false;
  let failures = 0;
  let retry: NodeJS.Timeout | undefined;
  let deafChecks: NodeJS.Timeout | undefined;
  const probes = new Map<string, () => void>();

  async function connect(): Promise<void> {
    // keepAlive: a connection that died without a word (a dropped route) is noticed, not kept deaf.
    const c = new pg.Client({ ...pool.options, keepAlive: true });
    c.on('notification', (n) => {
      if (n.channel !== ABORT_CHANNEL || !n.payload) return;
      if (n.payload.startsWith(PROBE_PREFIX)) probes.get(n.payload)?.();
      else deps.onAbort(n.payload);
    });
    // 'error' and 'end' both mean the session (and its LISTEN) is gone.
    const lost = (err?: Error) => {
      if (client !== c) return;
      client = undefined;
      if (!stopped) {
        logger.warn({ err }, 'abort listener lost its connection; reconnecting');
        schedule();
      }
    };
    c.on('error', lost);
    c.on('end', () => lost());
    client = c;
    try {
      await c.connect();
      await c.query(`LISTEN ${ABORT_CHANNEL}`);
      failures = 0;
      // Stopped while this was connecting: nothing may keep the process alive.
      if (stopped) {
        client = undefined;
        await c.end();
      }
    } catch (error) {
      client = undefined;
      await c.end().catch(() => undefined);
      throw error;
    }
  }

  /**
   * Asks what the aborts missed meanwhile said, again with backoff until the database answers
   * (one such loop at a time: a later reconnect's check replaces it).
   */
  let rechecking: NodeJS.Timeout | undefined;
  function recheck(attempt: number): void {
    clearTimeout(rechecking);
    if (stopped) return;
    deps.checkRuns().catch((err: Error) => {
      logger.warn({ err }, 'could not check the runs for aborts missed; trying again');
      if (stopped) return;
      rechecking = setTimeout(() => recheck(attempt + 1), Math.min(1000 * 2 ** attempt, MAX_BACKOFF_MS));
      rechecking.unref();
    });
  }

  function schedule(): void {
    if (stopped || retry) return;
    const wait = Math.min(250 * 2 ** failures++, MAX_BACKOFF_MS);
    retry = setTimeout(() => {
      retry = undefined;
      connect().then(
        () => recheck(0),
        (err: Error) => {
          logger.warn({ err }, 'abort listener could not reconnect');
          schedule();
        },
      );
    }, wait);
    retry.unref();
  }

  /** Whether a notification sent through the pool reaches the listening session. */
  async function heard(): Promise<boolean> {
    const payload = `${PROBE_PREFIX}${randomUUID()}`;
    const arrived = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), PROBE_MS);
      probes.set(payload, () => {
        clearTimeout(timer);
        resolve(true);
      });
    });
    await pool.query('SELECT pg_notify($1, $2)', [ABORT_CHANNEL, payload]);
    const ok = await arrived;
    probes.delete(payload);
    return ok;
  }

  return {
    start: async () => {
      stopped = false;
      await connect();
      if (!(await heard())) {
        logger.warn(
          `LISTEN/NOTIFY does not reach this worker (a transaction-mode pooler?): cancel and redirect stop a run within ${DEAF_CHECK_MS / 1000} s, when the database is next asked, instead of at once. Connect workers directly or through a session-mode pool for immediate stops.`,
        );
        // One check at a time: a slow database never piles them up.
        const check = () => {
          deafChecks = setTimeout(() => {
            deps
              .checkRuns()
              .catch((err: Error) => {
                // A check cut short by the process stopping (its pool closed) is no problem.
                if (!stopped) logger.warn({ err }, 'could not check the runs for cancels and redirects');
              })
              .finally(() => {
                if (!stopped) check();
              });
          }, DEAF_CHECK_MS);
          deafChecks.unref();
        };
        if (!stopped) check();
      }
    },
    stop: async () => {
      stopped = true;
      clearTimeout(deafChecks);
      clearTimeout(retry);
      clearTimeout(rechecking);
      const c = client;
      client = undefined;
      await c?.end().catch(() => undefined);
    },
  };
}
