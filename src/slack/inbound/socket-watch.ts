/**
 * The one watcher of Socket Mode's socket: down since when and why, refused for good or not. The
 * log's lines are said from its state as it changes, and /healthz (connection.ts) reads the same
 * state, so the two cannot disagree. Socket Mode's own client speaks of every frame, close
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

export interface SocketState {
  /** A socket failed to open before the first connected (the client's error carries no reason). */
  couldNotOpen: boolean;
  /** How long it has been down since it dropped, once it had connected; 0 while up, and after a stop. */
  downMs: number;
  /** Its reconnects were refused for good (socket-reconnects.ts), for this reason: nothing tries any more. */
  refused?: string;
  /** A stop began: the client disconnects, and is not started again. */
  stopping: boolean;
}

export interface SocketWatch {
  /** Listens to Socket Mode's client, once it is made. */
  listen(client: SocketEvents): void;
  state(): SocketState;
  /** The reconnects were refused for good: said on /healthz, and no more "still down". */
  gaveUp(reason: string): void;
  /**
   * Resolves with `gaveUp`'s reason: a start still waiting for its first connection fails on it
   * (Bolt's `start()` would wait for ever, since nothing tries any more).
   */
  givenUp: Promise<string>;
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
 * Watches the socket, and says its drops and returns, and once a minute that it is still down
 * (until a return, a stop, or a give-up). A drop Slack asked for to move the connection (every few
 * hours: `refresh_requested`, or `warning` just before) is routine and said at info; any other at
 * warn, since Slack's events wait until the socket is back. The first connection is the start's
 * own line (a socket that cannot be opened then is said once, as /healthz says it), and the close
 * of a stop is no drop. `now`: the time it counts by.
 */
export function watchSocket(o: { logger: Logger; now?: () => number }): SocketWatch {
  const { now = Date.now } = o;
  const log = o.logger.child({ component: 'socket-mode' });
  let phase: 'starting' | 'up' | 'down' | 'stopping' = 'starting';
  let couldNotOpen = false;
  let downSince = 0;
  let asked: string | undefined;
  let refused: string | undefined;
  let stillDown: NodeJS.Timeout | undefined;
  const quiet = () => clearInterval(stillDown);
  const downMs = () => (phase === 'down' ? now() - downSince : 0);
  let giveUp: (reason: string) => void = () => undefined;
  const givenUp = new Promise<string>((resolve) => {
    giveUp = resolve;
  });
  return {
    listen: (client) => {
      client.on('ws_message', (data) => {
        asked = askedBecause(data) ?? asked;
      });
      // Each attempt's error is the same: said once. Only before the first connection (phase
      // 'starting'); once connected, /healthz reads the connection, not this flag.
      client.on('error', () => {
        if (phase !== 'starting' || couldNotOpen) return;
        couldNotOpen = true;
        log.warn("Slack's socket (Socket Mode) could not be opened; still trying");
      });
      // For good: a socket that opens after the stop (its handshake was in flight) is no return.
      client.on('disconnecting', () => {
        phase = 'stopping';
        quiet();
      });
      // 'close' is the client's own signal that its socket is gone (it reconnects on it); a
      // lifecycle state ('reconnecting') comes only after its first wait, seconds later. Its
      // failed reconnects close too: they do not restart the count.
      client.on('close', () => {
        if (phase !== 'up') return;
        phase = 'down';
        downSince = now();
        if (asked && ROUTINE.has(asked))
          log.info({ reason: asked }, `Slack moved its socket (Socket Mode, ${asked}); reconnecting`);
        // link_disabled: Socket Mode was turned off in the app's settings; reconnecting will not do.
        else if (asked)
          log.warn({ reason: asked }, `Slack closed its socket (Socket Mode, ${asked}); reconnecting`);
        else
          log.warn(
            "Slack's socket (Socket Mode) dropped; reconnecting (Slack's events wait until it is back)",
          );
        asked = undefined;
        stillDown = setInterval(() => {
          const minutes = Math.round(downMs() / 60_000);
          log.warn({ downMs: downMs() }, `Slack's socket (Socket Mode) still down after ${minutes} min`);
        }, SOCKET_DOWN_SAY_EVERY_MS);
        // A line to say is no reason to keep a process up.
        stillDown.unref();
      });
      client.on('connected', () => {
        if (phase === 'stopping') return;
        quiet();
        const seconds = (downMs() / 1000).toFixed(1);
        if (phase === 'down')
          log.info({ downMs: downMs() }, `Slack's socket (Socket Mode) is back after ${seconds} s`);
        phase = 'up';
      });
    },
    state: () => ({ couldNotOpen, downMs: downMs(), refused, stopping: phase === 'stopping' }),
    // "Still down" once a minute for ever would say nothing new, and bury the give-up's own line.
    gaveUp: (reason) => {
      refused = reason;
      quiet();
      giveUp(reason);
    },
    givenUp,
  };
}
