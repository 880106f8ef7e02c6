/**
 * The Bolt app: HTTP mode (everything POSTs to /slack/events on PORT, plus GET /healthz and /metrics) or
 * Socket Mode. SLACK_API_URL reaches every Web API client the app makes.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { App, type CustomRoute, defaultProcessEventErrorHandler, SocketModeReceiver } from '@slack/bolt';
import { ErrorCode } from '@slack/web-api';
import type { Config } from '../../config/config.js';
import { SignoffError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { createAudience } from '../shared/audience.js';
import { boltLogger } from '../shared/bolt-logger.js';
import type { Directory } from '../shared/directory.js';
import { createLimitedFetch } from '../shared/limited-fetch.js';
import { createPermalinks } from '../shared/permalinks.js';
import { quickClient } from '../shared/quick-client.js';
import type { RateLimits } from '../shared/rate-limits.js';
import { createUserChannels } from '../shared/user-channels.js';
import type { SlackConnection } from './connection.js';
import type { StartDeps } from './deps.js';
import { answerHealth, answerMetrics, type Healthy, type MetricsRoute } from './health.js';
import { registerListeners } from './listeners/index.js';
import { handleReconnects } from './socket-reconnects.js';
import { type SocketWatch, socketChatter } from './socket-watch.js';

export interface SlackAppDeps extends StartDeps {
  slack: NonNullable<Config['slack']>;
  /** True once the database, migrations and queue are ready and the database answers. */
  healthy: Healthy;
  metrics: MetricsRoute;
  /** Watches how reaching Slack goes (for /healthz). */
  connection?: Pick<SlackConnection, 'fetch'>;
  /** Socket Mode's socket's watcher (for /healthz and the log): it listens to the client made here. */
  socket?: SocketWatch;
  /** Slack's limits, kept with delivery (shared through Postgres): every listener call takes its slot. */
  limits: RateLimits;
  /** Who a person is (the engine asks the same directory about user groups). */
  directory: Directory;
  /** More routes on the port (HTTP mode): the other doors (the HTTP API, MCP over HTTP). */
  routes?: CustomRoute[];
}

/**
 * Bolt's client, which every listener calls while a person waits: a call gives up after this
 * long, and is never retried (a person is told in a sentence instead).
 */
const LISTENER_TIMEOUT_MS = 5000;

export function createSlackApp(deps: SlackAppDeps): App {
  const { slack } = deps;
  const clientOptions = slack.apiUrl ? { slackApiUrl: slack.apiUrl } : undefined;
  // Every client below (and each one Bolt makes for a listener) sends through this.
  const limited = createLimitedFetch({
    limits: deps.limits,
    logger: deps.logger,
    fetch: deps.connection?.fetch,
  });
  const common = {
    token: slack.botToken,
    logger: boltLogger(deps.logger),
    // The Web API client's defaults suit no listener: no timeout, about 30 minutes of retries
    // (a timed-out post re-sent: a second root message), and a 429 on any method pausing every
    // call of the client, so that one busy Home tab made a Revise's views.open miss its 3 s
    // trigger. Here a call gives up in seconds, is sent once, and a 429 fails that call alone.
    clientOptions: {
      ...clientOptions,
      timeout: LISTENER_TIMEOUT_MS,
      rejectRateLimitedCalls: true,
      retryConfig: { retries: 0 },
      fetch: limited,
    },
    // Bolt asks Slack who the bot is (auth.test) when the app is made, once, and with the
    // client above a failure would stay for good; initSlackApp asks until Slack answers.
    deferInitialization: true,
  };
  const app =
    slack.mode.kind === 'socket'
      ? new App({ ...common, receiver: socketReceiver(slack.mode.appToken, clientOptions, deps) })
      : new App({
          ...common,
          signingSecret: slack.mode.signingSecret,
          customRoutes: [
            {
              path: '/healthz',
              method: ['GET'],
              handler: (_req, res) => answerHealth(deps.healthy, res),
            },
            {
              path: '/metrics',
              method: ['GET'],
              handler: (req, res) => answerMetrics(deps.metrics, req, res),
            },
            ...(deps.routes ?? []),
          ],
        });
  // A burst of Slack's requests holds back work after acks (after-ack.ts). Only Slack's count:
  // global middleware sees a request once the receiver has verified its signature (or it came
  // over the app's socket), so probes, scrapes and unsigned POSTs on the same port never delay
  // a decision.
  app.use(async ({ next }) => {
    deps.afterAck.arrived();
    await next();
  });
  registerListeners(app, {
    ...deps,
    audience: createAudience({
      client: app.client,
      logger: deps.logger,
      userChannels: createUserChannels({ client: app.client, db: deps.pool }),
    }),
    permalinks: createPermalinks({
      client: quickClient(slack, deps.logger, limited),
      pool: deps.pool,
      logger: deps.logger,
    }),
  });
  return app;
}

/**
 * Socket Mode's receiver, made here (as Bolt would for `socketMode: true`) so that the connection
 * watcher hears its client: a socket that cannot be opened, or down for long, is said on /healthz;
 * so that the log says a drop and a return in signoff's words, with the client's own chatter at
 * debug; and so that a reconnect's end (a stop meanwhile, a refused handshake) is handled, not a crash.
 */
function socketReceiver(
  appToken: string,
  clientOptions: { slackApiUrl: string } | undefined,
  deps: Pick<SlackAppDeps, 'connection' | 'logger' | 'socket'>,
): SocketModeReceiver {
  const receiver = new SocketModeReceiver({
    appToken,
    // The receiver hands its logger to Socket Mode's client (its socket, its Web API client)...
    logger: socketChatter(deps.logger),
    // ...and logs with it a listener's error that nothing else caught: that one stays at error.
    processEventErrorHandler: (args) =>
      defaultProcessEventErrorHandler({ ...args, logger: boltLogger(deps.logger) }),
    // Socket Mode's own client (apps.connections.open, which retries for hours as it should)
    // reads these, with the watched fetch.
    installerOptions: { clientOptions: { ...clientOptions, fetch: deps.connection?.fetch } },
  });
  // A process that never starts its socket (a worker) watches none.
  if (deps.socket) {
    deps.socket.listen(receiver.client);
    handleReconnects(receiver.client, { logger: deps.logger, socket: deps.socket });
  }
  return receiver;
}

/** How long the app waits between asking Slack who the bot is, at most. */
const INIT_MAX_WAIT_MS = 30_000;

/**
 * Makes the app ready to take requests: Bolt's auth.test, asked again (1 s, 2 s, … up to 30 s
 * apart) until Slack answers, since Slack may be out of reach when the process starts. `waiting`
 * runs once the first try has failed (something to answer /healthz meanwhile); what it returns
 * is undone once the app is ready.
 */
export async function initSlackApp(
  app: App,
  o: { logger: Logger; waiting?: () => Promise<() => Promise<void>>; stopping?: AbortSignal },
): Promise<void> {
  let undo: (() => Promise<void>) | undefined;
  try {
    for (let attempt = 0; ; attempt++) {
      // A stop asked for meanwhile (Ctrl-C, a deploy's SIGTERM) ends the wait for Slack.
      o.stopping?.throwIfAborted();
      try {
        await app.init();
        return;
      } catch (err) {
        // Slack answered, and refused the token: asking again will not change that.
        const refused =
          (err as { code?: string; data?: { error?: string } }).code === ErrorCode.PlatformError;
        if (refused) {
          const code = (err as { data?: { error?: string } }).data?.error;
          throw new SignoffError(
            'config_invalid',
            `Slack refused SLACK_BOT_TOKEN (${code}): check the bot token (xoxb-…) of this app's installation`,
            { cause: err },
          );
        }
        // One line, no stack: a Slack that cannot be reached is said, not a trace each time.
        const wait = Math.min(1000 * 2 ** attempt, INIT_MAX_WAIT_MS);
        // The Web API's request error wraps fetch's, which wraps the socket's ("getaddrinfo ENOTFOUND slack.com").
        const original = (err as { original?: { message?: string; cause?: { message?: string } } }).original;
        // Node's AggregateError (every address of a name refused) has an empty message: its code then.
        const cause = original?.cause as { message?: string; code?: string } | undefined;
        const reason = cause?.message || cause?.code || original?.message || (err as Error).message;
        if (o.stopping?.aborted) throw o.stopping.reason;
        o.logger.warn(
          { reason },
          `Slack did not say who the bot is (auth.test: ${reason}); asking again in ${wait / 1000} s`,
        );
        undo ??= await o.waiting?.();
        await sleep(wait, undefined, { signal: o.stopping });
      }
    }
  } finally {
    await undo?.();
  }
}

/**
 * Bolt's `app.start()`, given up for a stop, or for a socket Slack will not hand out again. In
 * Socket Mode it resolves once the socket is connected, and while Slack's socket cannot be reached
 * it reconnects for hours, hearing no stop: a deploy's SIGTERM would wait for it. A stop meanwhile
 * tells the socket client to disconnect (not waited for: a socket never opened may never say it
 * closed) and throws the stop's reason. Its first socket failing to open, the client reconnects
 * through its own `start()`, not Bolt's: a reconnect refused for good then (`givenUp`,
 * socket-reconnects.ts) leaves Bolt's start waiting for ever, so the start fails on it, as it does
 * on a token refused at once.
 */
export async function startSlackApp(
  app: App,
  mode: NonNullable<Config['slack']>['mode'],
  o: { stopping?: AbortSignal; givenUp?: Promise<string> } = {},
): Promise<unknown> {
  const { stopping, givenUp } = o;
  const starting = mode.kind === 'http' ? app.start(mode.port) : app.start();
  if (!stopping && !givenUp) return await starting;
  let giveUp: () => void = () => undefined;
  const stopped = new Promise<never>((_, reject) => {
    giveUp = () => reject(stopping?.reason);
  });
  let refusedForGood = false;
  // Heard by the race even once it is over (a give-up after the socket connected is /healthz's).
  const refused = (givenUp ?? new Promise<never>(() => undefined)).then((reason): never => {
    refusedForGood = true;
    throw new Error(
      `Slack's socket (Socket Mode) never connected: its first socket could not be opened, and its reconnect was refused for good (${reason}); not trying again`,
    );
  });
  stopping?.addEventListener('abort', giveUp, { once: true });
  if (stopping?.aborted) giveUp();
  try {
    return await Promise.race([starting, stopped, refused]);
  } catch (error) {
    if (stopping?.aborted || refusedForGood) {
      // Bolt's start, left behind: settled by the stop's disconnect, or never.
      starting.catch(() => undefined);
      void app.stop().catch(() => undefined);
    }
    throw error;
  } finally {
    stopping?.removeEventListener('abort', giveUp);
  }
}
