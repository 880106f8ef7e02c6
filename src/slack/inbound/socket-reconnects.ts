/**
 * Socket Mode's client reconnects after a drop by calling its own `start()` again
 * (`delayReconnectAttempt(this.start)`, which runs `cb.apply(this).then(res)` and catches nothing).
 * That start rejects when a stop comes while it waits for its socket (`State.Disconnected`, with
 * no reason at all), and when Slack refuses its handshake for good (apps.connections.open: an
 * app-level token revoked, `invalid_auth`; Slack out of reach after the Web API client's own
 * retries). Nobody handles that promise: Node ends the process on it, with `UnhandledPromiseRejection
 * … reason "undefined"` and exit 1 in place of a stop's own lines and 143.
 *
 * So the client's `start` is wrapped on the instance, where the library reads it each time it
 * reconnects. The first start is Bolt's (`app.start()` returns it, and must see it fail: a token
 * refused at start stops the start); every later one is a reconnect, whose end is said here.
 */
import type { Logger } from '../../logger.js';
import { reasonOf } from './connection.js';
import type { SocketWatch } from './socket-watch.js';

/** The part of Socket Mode's client this wraps. */
export interface Reconnecting {
  start(): Promise<unknown>;
  disconnect(): Promise<void>;
}

/** Why Slack refused a handshake, in a word: Slack's error, its HTTP status, or the network's code. */
export function refusalOf(error: unknown): string {
  const e = error as { data?: { error?: unknown }; statusCode?: unknown; original?: unknown } | undefined;
  if (typeof e?.data?.error === 'string') return e.data.error;
  if (typeof e?.statusCode === 'number') return `Slack answered ${e.statusCode}`;
  if (e?.original) return reasonOf(e.original);
  return error === undefined ? 'no reason given' : reasonOf(error);
}

/**
 * Handles each reconnect's end: given up for a stop (said at debug; a socket it opened after the
 * stop is closed again), or refused for good (said at error, and the socket's watcher told: the
 * library tries no more, so /healthz must say so for an orchestrator to restart the process).
 * Whether a stop began is the watcher's to say too.
 */
export function handleReconnects(
  client: Reconnecting,
  o: { logger: Logger; socket: Pick<SocketWatch, 'state' | 'gaveUp'> },
): void {
  const log = o.logger.child({ component: 'socket-mode' });
  const start = client.start.bind(client);
  let first = true;
  const stopping = () => o.socket.state().stopping;
  client.start = () => {
    if (first) {
      first = false;
      return start();
    }
    // Never rejects: the library drops what this returns.
    return start().then(
      () => {
        // Slack handed out a socket while a stop was under way (the handshake was in flight): the
        // socket opened after the client was told to disconnect, and would take events for a
        // process that has stopped.
        if (stopping()) void client.disconnect().catch(() => undefined);
      },
      (error: unknown) => {
        if (stopping()) {
          log.debug("Slack's socket (Socket Mode): the reconnect under way was given up for the stop");
          return;
        }
        const reason = refusalOf(error);
        log.error(
          { err: error, reason },
          `Slack's socket (Socket Mode) cannot reconnect (${reason}); not trying again: /healthz says so, and a restart tries afresh`,
        );
        o.socket.gaveUp(reason);
      },
    );
  };
}
