/**
 * How far a Socket Mode process is from Slack, for /healthz. Until its socket is connected,
 * `app.start()` keeps retrying `apps.connections.open` (for hours, with backoff) and says nothing;
 * this watches those attempts through the Web API client's `fetch`, so that the health check can
 * say "starting" while the first attempt is under way, and why Slack cannot be reached after.
 */

export interface SlackConnection {
  /** The `fetch` for Socket Mode's own Web API client: records how each attempt ended. */
  fetch: typeof fetch;
  /**
   * Socket Mode's client: its socket failing to open (Slack handed out its URL, and the socket
   * host refused or hung up) is said too. The client's error carries no reason to give.
   */
  watchSocket(client: { on(event: 'error', listener: () => void): unknown }): void;
  /** The socket is connected: nothing to report any more. */
  connected(): void;
  /** What /healthz says while not connected (503); undefined once connected. */
  problem(): string | undefined;
}

/** The code of a failed connection (ECONNREFUSED, ENOTFOUND…), else the error's own words. */
function reasonOf(error: unknown): string {
  for (let e = error as { code?: unknown; cause?: unknown; message?: unknown } | undefined; e; ) {
    if (typeof e.code === 'string') return e.code;
    e = e.cause as typeof e;
  }
  return error instanceof Error ? error.message : String(error);
}

export function watchSlackConnection(apiUrl: string): SlackConnection {
  let connected = false;
  let failure: string | undefined;
  let socketFailure: string | undefined;
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
    },
    connected: () => {
      connected = true;
    },
    problem: () => {
      if (connected) return undefined;
      const why = failure ?? socketFailure;
      return why ? `unhealthy: ${why}; still trying` : 'starting: connecting to Slack';
    },
  };
}
