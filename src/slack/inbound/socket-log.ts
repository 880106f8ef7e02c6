/**
 * What the log says about Socket Mode's connection once it is up: one line of signoff's when the
 * socket drops, one when it is back. Socket Mode's own client speaks of every frame, close
 * handshake and retry, at error for a routine drop (`WebSocket error occurred: ` with no reason,
 * then `WebSocket error! SMWebsocketError`) and at warn for each retry of apps.connections.open
 * (`http request failed fetch failed`); those lines go to debug (`socketChatter`), these say it.
 */
import type { Logger as BoltLogger } from '@slack/bolt';
import type { Logger } from '../../logger.js';
import { boltLogger } from '../shared/bolt-logger.js';

/** The Socket Mode client's events this listens to (its lifecycle, and each frame's text). */
export interface SocketEvents {
  on(event: 'connected' | 'disconnecting' | 'close' | 'error', listener: () => void): unknown;
  on(event: 'ws_message', listener: (data: unknown) => void): unknown;
}

/** Socket Mode's own lines (its client, its socket, its Web API client), all at debug. */
export function socketChatter(logger: Logger): BoltLogger {
  return boltLogger(logger, { component: 'socket-mode', level: 'debug' });
}

/**
 * How often a socket that stays down is said again: one line a minute, as a database outage is
 * (db/outages.ts), so that a log read later shows it went on, without a line per attempt.
 */
export const SOCKET_DOWN_SAY_EVERY_MS = 60_000;

/** Slack's reasons for moving a connection that say nothing is wrong. */
const ROUTINE = new Set(['refresh_requested', 'warning']);

/** Why Slack asked the client to reconnect (a `disconnect` frame), if this frame is one. */
function askedBecause(data: unknown): string | undefined {
  if (typeof data !== 'string' || !data.includes('"disconnect"')) return undefined;
  try {
    const frame = JSON.parse(data) as { type?: unknown; reason?: unknown };
    return frame.type === 'disconnect' ? String(frame.reason ?? 'no reason given') : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Says the socket's drops and returns, and once a minute that it is still down (until its
 * reconnects are given up: `gaveUp`). A drop Slack asked for to move the connection (every few
 * hours: `refresh_requested`, or `warning` just before) is routine and said at info; any other at
 * warn, since Slack's events wait until the socket is back. The first connection is the start's own line (a socket
 * that cannot be opened then is said once, as /healthz says it), and the close of a stop is no drop.
 */
export function logSocketLifecycle(
  client: SocketEvents,
  logger: Logger,
  now: () => number = Date.now,
  sayEveryMs = SOCKET_DOWN_SAY_EVERY_MS,
): { gaveUp(): void } {
  const log = logger.child({ component: 'socket-mode' });
  let state: 'starting' | 'up' | 'down' | 'stopping' = 'starting';
  let downSince = 0;
  let stillDown: NodeJS.Timeout | undefined;
  const back = () => {
    clearInterval(stillDown);
    stillDown = undefined;
  };
  let asked: string | undefined;
  let refusedAtStart = false;
  client.on('ws_message', (data) => {
    asked = askedBecause(data) ?? asked;
  });
  // The client's error carries no reason (connection.ts): each attempt's would be the same line.
  client.on('error', () => {
    if (state !== 'starting' || refusedAtStart) return;
    refusedAtStart = true;
    log.warn("Slack's socket (Socket Mode) could not be opened; still trying");
  });
  client.on('disconnecting', () => {
    state = 'stopping';
    back();
  });
  // 'close' is the client's own signal that its socket is gone (it reconnects on it); a
  // lifecycle state ('reconnecting') comes only after its first wait, seconds later.
  client.on('close', () => {
    if (state !== 'up') return;
    state = 'down';
    downSince = now();
    if (asked && ROUTINE.has(asked))
      log.info({ reason: asked }, `Slack moved its socket (Socket Mode, ${asked}); reconnecting`);
    else if (asked)
      // link_disabled: Socket Mode was turned off in the app's settings; reconnecting will not do.
      log.warn({ reason: asked }, `Slack closed its socket (Socket Mode, ${asked}); reconnecting`);
    else
      log.warn("Slack's socket (Socket Mode) dropped; reconnecting (Slack's events wait until it is back)");
    asked = undefined;
    stillDown = setInterval(() => {
      const minutes = Math.round((now() - downSince) / 60_000);
      log.warn({ downMs: now() - downSince }, `Slack's socket (Socket Mode) still down after ${minutes} min`);
    }, sayEveryMs);
    // A line to say is no reason to keep a process up.
    stillDown.unref();
  });
  client.on('connected', () => {
    back();
    if (state === 'down') {
      const seconds = ((now() - downSince) / 1000).toFixed(1);
      log.info({ downMs: now() - downSince }, `Slack's socket (Socket Mode) is back after ${seconds} s`);
    }
    state = 'up';
  });
  return {
    // The reconnects were refused for good (socket-reconnects.ts, whose error line says nothing
    // tries any more): "still down" once a minute for ever would say nothing new, and bury that.
    gaveUp: back,
  };
}
