/**
 * How far a Socket Mode process is from Slack, for /healthz. Until its socket is connected,
 * `app.start()` keeps retrying `apps.connections.open` (for hours, with backoff) and says nothing;
 * this watches those attempts through the Web API client's `fetch`, so that the health check can
 * say "starting" while the first attempt is under way, and why Slack cannot be reached after.
 * Once connected, it reads the socket's watcher (socket-watch.ts): a socket down for longer than a
 * routine move takes, or whose reconnects Slack refused for good, is said too (no event reaches
 * the process meanwhile).
 */
import type { SocketWatch } from './socket-watch.js';

export interface SlackConnection {
  /** The `fetch` for Socket Mode's own Web API client: records how each attempt ended. */
  fetch: typeof fetch;
  /** The socket is connected: nothing to report any more, unless it drops. */
  connected(): void;
  /** What /healthz says while not connected, or while the socket is down (503); else undefined. */
  problem(): string | undefined;
}

/**
 * How long the socket may be down, once it has connected, before /healthz says so. Slack moves a
 * connection every few hours, and the client waits 5 s before each attempt to reconnect, so a
 * routine move is back in about 5 s: that must not fail a health check an orchestrator restarts
 * the process on. 30 s lets a few attempts fail first; longer, and events wait unnoticed.
 */
export const SOCKET_DOWN_GRACE_MS = 30_000;

/** The code of a failed connection (ECONNREFUSED, ENOTFOUND…), else the error's own words. */
export function reasonOf(error: unknown): string {
  for (let e = error as { code?: unknown; cause?: unknown; message?: unknown } | undefined; e; ) {
    if (typeof e.code === 'string') return e.code;
    e = e.cause as typeof e;
  }
  return error instanceof Error ? error.message : String(error);
}

/**
 * Watches how reaching Slack at `apiUrl` goes. `socket`: Socket Mode's socket, as its watcher sees
 * it; one that fails to open is said too, and so is one down once it had connected, or whose
 * reconnects were refused for good. `graceMs`: how long a socket that had connected may be down
 * before it is said (tests shorten it).
 */
export function watchSlackConnection(
  apiUrl: string,
  o: { socket?: Pick<SocketWatch, 'state'>; graceMs?: number } = {},
): SlackConnection {
  const { socket, graceMs = SOCKET_DOWN_GRACE_MS } = o;
  let connected = false;
  let failure: string | undefined;
  return {
    fetch: async (input, init) => {
      try {
        const response = await fetch(input, init);
        failure = response.status >= 500 ? `Slack answered ${response.status}` : undefined;
        return response;
      } catch (error) {
        if (!init?.signal?.aborted) failure = `Slack cannot be reached at ${apiUrl} (${reasonOf(error)})`;
        throw error;
      }
    },
    connected: () => {
      connected = true;
    },
    problem: () => {
      const s = socket?.state();
      if (s?.refused)
        return `unhealthy: Slack's socket (Socket Mode) cannot reconnect (${s.refused}); not trying again`;
      if (connected) {
        if (!s || s.downMs <= graceMs) return undefined;
        return `unhealthy: Slack's socket (Socket Mode) has been down for ${Math.round(s.downMs / 1000)} s; reconnecting`;
      }
      const why =
        failure ?? (s?.couldNotOpen ? "Slack's socket (Socket Mode) could not be opened" : undefined);
      return why ? `unhealthy: ${why}; still trying` : 'starting: connecting to Slack';
    },
  };
}
