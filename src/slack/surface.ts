/**
 * The Slack surface of a running engine: Bolt's app taking Slack's requests (inbound/), the
 * engine's workers for Slack tasks (whose events the sink posts, outbound/), /healthz and
 * /metrics, and the sweep that finishes starts a process left half done. What it is and does is
 * set by the process's role: `web` takes requests, `worker` runs tasks, `all` both.
 */
import type { CustomRoute } from '@slack/bolt';
import { WebClient } from '@slack/web-api';
import type pg from 'pg';
import type { Config } from '../config/config.js';
import type { ChannelStarts, Engine, Metrics } from '../engine/index.js';
import type { Logger } from '../logger.js';
import { type AfterAckClock, createAfterAck } from './inbound/after-ack.js';
import { createSlackApp, initSlackApp, startSlackApp } from './inbound/app.js';
import { watchSlackConnection } from './inbound/connection.js';
import { createDoorStarts } from './inbound/door-starts.js';
import { type Healthy, startHealthServer } from './inbound/health.js';
import { watchSocket } from './inbound/socket-watch.js';
import { finishUnfinishedStarts, UNFINISHED_START_MS } from './inbound/start-task.js';
import type { SlackLive } from './outbound/streams.js';
import { boltLogger } from './shared/bolt-logger.js';
import type { Directory } from './shared/directory.js';
import { createLimitedFetch } from './shared/limited-fetch.js';
import { createRateLimits } from './shared/rate-limits.js';

export type { AfterAckClock };

export interface SlackSurfaceOptions {
  config: Config;
  /** The engine it serves, opened with Slack's sink and directory (engine-parts.ts). */
  signoff: { engine: Engine; db: { pool: pg.Pool }; metrics: Metrics };
  logger: Logger;
  /** The directory the engine asks about user groups: the listeners ask the same one. */
  directory: Directory;
  /** The streams of this process's runs (engine-parts.ts): where tasks run, it sweeps those left open. */
  live: Pick<SlackLive, 'closeAbandoned'>;
  /** Where the work after an ack reads the time (tests move it); real time by default. */
  afterAckClock?: AfterAckClock;
  /** Aborted by a stop asked for while it starts: it stops waiting for Slack and gives up. */
  stopping?: AbortSignal;
  /** How long a Socket Mode socket may be down before /healthz says so (tests shorten it; connection.ts). */
  socketDownGraceMs?: number;
  /**
   * The other doors (the HTTP API, MCP over HTTP): their routes on the port, given how to start a
   * task in a channel; served by a process that takes requests, in HTTP mode.
   */
  doors?: (starts: ChannelStarts) => Doors;
}

/** What the other doors add to a process that takes Slack's requests. */
export interface Doors {
  routes: CustomRoute[];
  stop(): Promise<void>;
}

export interface SlackSurface {
  /** The HTTP port, once listening: Slack's requests and /healthz (HTTP mode), or /healthz alone (Socket Mode, worker role). */
  port?: number;
  /** Resolves once every Slack request taken so far has been handled (its work after the ack done). */
  settled(): Promise<void>;
  /** Stops taking requests and lets the accepted ones finish (up to a few seconds); the engine stays open. */
  stop(): Promise<void>;
}

/** How often a process that runs tasks looks for streams long left open (stream-closing.ts). */
const ABANDONED_STREAMS_MS = 60_000;

/** How long a stopping process waits for work it acked: a decision acked is a decision kept. */
const DRAIN_MS = 10_000;

/**
 * Decisions recorded at once by one web process; more clicks wait their turn after their ack,
 * and none start while a burst of requests is still being acked (at most 2 s).
 */
const AFTER_ACK = { size: 8, quietMs: 20, maxWaitMs: 2000 };

export async function startSlackSurface(o: SlackSurfaceOptions): Promise<SlackSurface> {
  const { config, signoff, logger } = o;
  const slack = config.slack;
  if (!slack) throw new Error('the Slack surface needs Slack settings');
  // A team that forgot the key must not get canned answers in its channels without a word. A web
  // process runs no model: the key may rightly be kept from it, and a warning there misleads.
  if (!config.model.apiKey && config.role !== 'web') {
    logger.warn(
      'no OPENAI_API_KEY or OPENAI_BASE_URL: agents answer with the offline scripted model (marked [offline model]); set OPENAI_API_KEY, or OPENAI_BASE_URL for a local server, for a real model',
    );
  }
  let ready = false;
  const listen = config.role !== 'worker';
  // Until it has reached Slack (auth.test; a Socket Mode process: its socket too) a process that
  // listens says on /healthz how reaching Slack goes; a Socket Mode process, its socket down after,
  // as the socket's one watcher has it (the log says the same watcher's state).
  const socket = listen && slack.mode.kind === 'socket' ? watchSocket({ logger }) : undefined;
  const connection = listen
    ? watchSlackConnection(slack.apiUrl ?? 'https://slack.com/api/', { socket, graceMs: o.socketDownGraceMs })
    : undefined;
  const healthy: Healthy = async () => {
    const problem = connection?.problem();
    if (!ready || problem) return problem ?? 'starting';
    const answers = await signoff.db.pool.query('SELECT 1').then(
      () => true,
      () => false,
    );
    return answers || 'unhealthy: the database does not answer';
  };
  const metrics = { metrics: signoff.metrics, token: config.metricsToken };
  const afterAck = createAfterAck(AFTER_ACK, o.afterAckClock);
  const starts = createDoorStarts(
    { engine: signoff.engine, pool: signoff.db.pool, logger, afterAck },
    () => app.client,
  );
  // A process that takes requests serves the other doors on its port: Bolt's server in HTTP
  // mode, the health server in Socket Mode.
  const doors = listen ? o.doors?.(starts) : undefined;
  // Aborted by stop(): listeners drop what waits on a timer (a Home tab redrawn after a 429).
  const stopping = new AbortController();
  const app = createSlackApp({
    slack,
    directory: o.directory,
    engine: signoff.engine,
    pool: signoff.db.pool,
    logger,
    healthy,
    metrics,
    afterAck,
    stopping: stopping.signal,
    connection,
    socket,
    // The listeners keep to the budget delivery keeps: one limit per method, for every process.
    limits: createRateLimits(signoff.db.pool),
    routes: doors?.routes,
  });
  // Bolt answers /healthz only in HTTP mode; a socket or worker process answers on its own, from
  // before Slack is reached (which may take long), so that a health check never meets silence.
  const health =
    listen && slack.mode.kind === 'http'
      ? undefined
      : await startHealthServer(config.port, healthy, metrics, doors?.routes);
  const mode = slack.mode;
  let server: unknown;
  try {
    // A web replica only answers Slack, so a burst of graph runs never delays an ack; a worker only
    // runs graphs and posts their results, so it must not take Slack's requests or socket events.
    // Retention runs here, in the server's workers with the server's settings; never in a terminal.
    if (config.role !== 'web') await signoff.engine.work('slack', config.queue.workers, { retention: true });
    // Bolt takes requests once Slack has said who the bot is. If Slack cannot be reached, an HTTP
    // process answers /healthz on its port meanwhile (a server of its own, until Bolt's takes over).
    if (listen)
      await initSlackApp(app, {
        logger,
        stopping: o.stopping,
        waiting: async () =>
          mode.kind === 'http'
            ? (await startHealthServer(mode.port, healthy, metrics, doors?.routes)).stop
            : async () => undefined,
      });
    server = listen
      ? await startSlackApp(app, mode, { stopping: o.stopping, givenUp: socket?.givenUp })
      : undefined;
  } catch (error) {
    await doors?.stop();
    await health?.stop();
    throw error;
  }
  connection?.connected();
  ready = true;
  // Starts a web process left half done (it died between a command's root message and its task)
  // are finished by the web processes still up, or by this one once it is back.
  const sweep = listen
    ? setInterval(
        () =>
          void finishUnfinishedStarts(
            { engine: signoff.engine, pool: signoff.db.pool, logger, afterAck },
            app.client,
          ).catch((err) => logger.warn({ err }, 'the sweep of unfinished starts failed')),
        UNFINISHED_START_MS / 4,
      )
    : undefined;
  sweep?.unref();
  // One sweep at a time: one that waits for Slack's slots may outlast the minute.
  let tidying = false;
  const tidy = () => {
    if (tidying) return;
    tidying = true;
    void o.live
      .closeAbandoned(signoff.engine.getTask, stopping.signal)
      .catch((err) => logger.warn({ err }, 'the sweep of streams left open failed'))
      .finally(() => {
        tidying = false;
      });
  };
  const streams = config.role !== 'web' ? setInterval(tidy, ABANDONED_STREAMS_MS) : undefined;
  streams?.unref();
  if (streams) tidy();
  const address = (server as { address?: () => unknown } | undefined)?.address?.();
  const port = typeof address === 'object' && address ? (address as { port: number }).port : health?.port;
  logger.info(
    { role: config.role, mode: listen ? mode.kind : undefined, port },
    listen ? 'signoff is listening to Slack' : 'signoff is running Slack tasks (worker role)',
  );
  return {
    port,
    settled: () => afterAck.idle(),
    stop: async () => {
      ready = false;
      clearInterval(sweep);
      clearInterval(streams);
      stopping.abort();
      await doors?.stop();
      if (listen) await app.stop();
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([afterAck.idle(), new Promise((r) => (timer = setTimeout(r, DRAIN_MS)))]);
      clearTimeout(timer);
      await health?.stop();
    },
  };
}

/** How long a root message's post may take; never retried (a second root would be a second card). */
const DOOR_POST_TIMEOUT_MS = 5000;

/**
 * Slack for a process that only asks through a door (`signoff mcp` over stdio): it posts its
 * asks' root messages through the Web API, and works the Slack queue as a server does (cards,
 * timers), unless its role is `web`, so that a review goes on with no server running; it takes
 * no Slack requests (the clicks reach whichever process does), and keeps no retention.
 */
export async function startSlackDoorStarts(o: {
  config: Config;
  signoff: { engine: Engine; db: { pool: pg.Pool } };
  logger: Logger;
}): Promise<{ starts: ChannelStarts; stop(): Promise<void> }> {
  const { config, signoff, logger } = o;
  const slack = config.slack;
  if (!slack) throw new Error('the Slack door starts need Slack settings');
  const client = new WebClient(slack.botToken, {
    ...(slack.apiUrl ? { slackApiUrl: slack.apiUrl } : {}),
    logger: boltLogger(logger),
    timeout: DOOR_POST_TIMEOUT_MS,
    rejectRateLimitedCalls: true,
    retryConfig: { retries: 0 },
    fetch: createLimitedFetch({ limits: createRateLimits(signoff.db.pool), logger }),
  });
  const afterAck = createAfterAck(AFTER_ACK);
  const starts = createDoorStarts(
    { engine: signoff.engine, pool: signoff.db.pool, logger, afterAck },
    () => client,
  );
  if (config.role !== 'web') await signoff.engine.work('slack', config.queue.workers);
  return {
    starts,
    stop: async () => {
      await afterAck.idle();
    },
  };
}
