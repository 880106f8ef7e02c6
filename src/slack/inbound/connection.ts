/**
 * How far a Socket Mode process is from Slack, for /healthz. Until its socket is connected,
 * `app.start()` keeps retrying `apps.connections.open` (for hours, with backoff) and says nothing;
 * this watches those attempts through the Web API client's `fetch`, so that the health check can
 * say "starting" while the first attempt is under way, and why Slack cannot be reached after.
 * Once connected, it watches the socket: one down for longer than a routine move takes, or one
 * whose reconnects Slack refused for good, is said too (no event reaches the process meanwhile).
 */

export interface SlackConnection {
  /** The `fetch` for Socket Mode's own Web API client: records how each attempt ended. */
  fetch: typeof fetch;
  /**
   * Socket Mode's client: its socket failing to open (Slack handed out its URL, and the socket
   * host refused or hung up) is said too, and so is its socket down once it had connected. The
   * client's error carries no reason to give.
   */
  watchSocket(client: SocketLifecycle): void;
  /** The socket is connected: nothing to report any more, unless it drops. */
  connected(): void;
  /** The socket's reconnects were refused for good (socket-reconnects.ts): said at once, in these words. */
  gaveUp(reason: string): void;
  /**
   * Resolves with `gaveUp`'s reason: a start still waiting for its first connection fails on it
   * (Bolt's `start()` would wait for ever, since nothing tries any more).
   */
  givenUp: Promise<string>;
  /** What /healthz says while not connected, or while the socket is down (503); else undefined. */
  problem(): string | undefined;
}

/** The Socket Mode client's events this listens to. */
export interface SocketLifecycle {
  on(event: 'error' | 'close' | 'connected' | 'disconnecting', listener: () => void): unknown;
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
 * Watches how reaching Slack at `apiUrl` goes. `graceMs`: how long a socket that had connected
 * may be down before it is said (tests shorten it); `now`: the time it counts by.
 */
export function watchSlackConnection(
  apiUrl: string,
  o: { graceMs?: number; now?: () => number } = {},
): SlackConnection {
  const { graceMs = SOCKET_DOWN_GRACE_MS, now = Date.now } = o;
  let connected = false;
  let failure: string | undefined;
  let socketFailure: string | undefined;
  let up = false;
  let downSince: number | undefined;
  let refused: string | undefined;
  let giveUp: (reason: string) => void = () => undefined;
  const givenUp = new Promise<string>((resolve) => {
    giveUp = resolve;
  });
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
    watchSocket: (client) => {
      // Kept until the socket connects: each reconnect's apps.connections.open answers, and
      // clearing it then would flip /healthz back to "starting" between two refusals.
      client.on('error', () => {
        socketFailure = "Slack's socket (Socket Mode) could not be opened";
      });
      // 'close' is the client's own signal that its socket is gone: it reconnects on it.
      client.on('close', () => {
        if (!up) return;
        up = false;
        downSince = now();
      });
      client.on('connected', () => {
        up = true;
        downSince = undefined;
      });
      // A stop closes the socket: no drop.
      client.on('disconnecting', () => {
        up = false;
        downSince = undefined;
      });
    },
    connected: () => {
      connected = true;
    },
    gaveUp: (reason) => {
      refused = reason;
      giveUp(reason);
    },
    givenUp,
    problem: () => {
      if (refused)
        return `unhealthy: Slack's socket (Socket Mode) cannot reconnect (${refused}); not trying again`;
      if (connected) {
        const down = downSince === undefined ? 0 : now() - downSince;
        if (down <= graceMs) return undefined;
        return `unhealthy: Slack's socket (Socket Mode) has been down for ${Math.round(down / 1000)} s; reconnecting`;
      }
      const why = failure ?? socketFailure;
      return why ? `unhealthy: ${why}; still trying` : 'starting: connecting to Slack';
    },
  };
}
