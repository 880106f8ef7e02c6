/**
 * Callbacks (webhooks): once an ask has its answer (decided, cancelled, refused), its callback URL
 * is POSTed the ask as GET would show it, signed, and tried again with backoff until the client's
 * server answers 2xx or the attempts run out. Any process that serves the doors delivers; a row
 * lock keeps two from sending one callback at once.
 *
 * Signed with the database's Ed25519 key (callback-key.ts): a client checks the signature and that
 * `t` is recent, and tells a repeat by its signoff-review header.
 */
import type pg from 'pg';
import type { ApiConfig } from '../config/api-clients.js';
import { FINAL_STATUSES } from '../engine/index.js';
import type { Logger } from '../logger.js';
import { FINAL_ASK_STATUSES } from './ask-shapes.js';
import type { Asks } from './asks.js';
import type { CallbackKey } from './callback-key.js';

/** Tried this many times (backoff 2 s doubling, at most 10 min: about an hour and a half). */
export const CALLBACK_ATTEMPTS = 12;
const BACKOFF_MAX_MS = 10 * 60_000;
const TIMEOUT_MS = 10_000;
const SWEEP_MS = 1000;
/** A callback being sent is the sender's this long (a client's server may take TIMEOUT_MS). */
const TAKEN_MS = 60_000;

export const callbackBackoffMs = (attempts: number) => Math.min(2000 * 2 ** (attempts - 1), BACKOFF_MAX_MS);

export function startCallbacks(deps: {
  pool: pg.Pool;
  asks: Asks;
  api: ApiConfig;
  key: CallbackKey;
  logger: Logger;
  fetch?: typeof fetch;
}): { stop(): Promise<void>; sweep(): Promise<number> } {
  const { pool, logger } = deps;
  const send = deps.fetch ?? fetch;
  let running: Promise<number> | undefined;

  /**
   * Sends the callbacks due whose ask has its answer; returns how many were tried. Each is taken
   * for a minute first (its clock moved on), so that no transaction stays open while a client's
   * server answers; one whose process died meanwhile is sent again then (at least once: a client
   * tells a repeat by its signoff-review header).
   */
  async function sweep(): Promise<number> {
    const due = await pool.query<{ id: string; client: string; callback_url: string; attempts: number }>(
      `WITH due AS (
         SELECT c.ask_id FROM signoff.ask_callbacks c
         JOIN signoff.asks a ON a.id = c.ask_id
         JOIN signoff.slack_requests r ON r.key = a.request_key
         LEFT JOIN signoff.tasks t ON t.id = r.task_id
         WHERE c.delivered_at IS NULL AND c.attempts < $1 AND c.next_attempt_at <= now()
           -- Answered, or about to read so: refused, ended, or its review decided.
           AND (r.refusal IS NOT NULL OR t.status = ANY($3)
                OR EXISTS (SELECT 1 FROM signoff.reviews v WHERE v.task_id = t.id AND v.status = 'decided'))
         ORDER BY c.next_attempt_at LIMIT 10
         FOR UPDATE OF c SKIP LOCKED)
       UPDATE signoff.ask_callbacks c SET next_attempt_at = now() + $2 * interval '1 millisecond'
       FROM due, signoff.asks a WHERE c.ask_id = due.ask_id AND a.id = due.ask_id
       RETURNING a.id, a.client, a.callback_url, c.attempts`,
      [CALLBACK_ATTEMPTS, TAKEN_MS, FINAL_STATUSES],
    );
    await Promise.all(due.rows.map((row) => deliver(row)));
    return due.rows.length;
  }

  async function deliver(row: { id: string; client: string; callback_url: string; attempts: number }) {
    const known = row.client in deps.api.clients;
    const view = await deps.asks.view({ name: row.client }, row.id);
    // Not answered after all (a review decided while another waits): looked at again soon, no try spent.
    if (view && !FINAL_ASK_STATUSES.includes(view.status)) {
      await pool.query(
        "UPDATE signoff.ask_callbacks SET next_attempt_at = now() + interval '5 seconds' WHERE ask_id = $1",
        [row.id],
      );
      return;
    }
    const error = !known
      ? `client ${row.client} is no longer in the config file`
      : !view
        ? 'the review is gone'
        : await post(row.callback_url, JSON.stringify(view), row.id);
    const attempts = row.attempts + 1;
    if (!error) {
      await pool.query(
        'UPDATE signoff.ask_callbacks SET delivered_at = now(), attempts = $2, last_error = NULL WHERE ask_id = $1',
        [row.id, attempts],
      );
      return;
    }
    logger.warn({ ask: row.id, attempts, error }, 'a callback was not taken; it is tried again');
    await pool.query(
      `UPDATE signoff.ask_callbacks SET attempts = $2, last_error = $3,
         next_attempt_at = now() + $4 * interval '1 millisecond' WHERE ask_id = $1`,
      [row.id, attempts, error, callbackBackoffMs(attempts)],
    );
  }

  /** Sends one callback: undefined when the server took it (2xx), else what went wrong. */
  async function post(url: string, body: string, id: string): Promise<string | undefined> {
    // Signed before the try: a key that cannot be read (the database) is no fault of the client's.
    const signature = await deps.key.signature(body, new Date());
    try {
      const res = await send(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'signoff-signature': signature,
          'signoff-review': id,
        },
        body,
        redirect: 'manual',
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
      await res.body?.cancel();
      return res.ok ? undefined : `the server answered ${res.status}`;
    } catch (error) {
      return `the server could not be reached: ${(error as Error).message}`;
    }
  }

  const timer = setInterval(() => {
    if (running) return;
    running = sweep()
      .catch((err) => {
        logger.warn({ err }, 'the callback sweep failed; it runs again');
        return 0;
      })
      .finally(() => (running = undefined));
  }, SWEEP_MS);
  timer.unref();
  return {
    sweep,
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}
