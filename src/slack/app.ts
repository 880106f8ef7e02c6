/**
 * The Bolt app: HTTP mode (everything POSTs to /slack/events on PORT, plus GET /healthz and /metrics) or
 * Socket Mode. SLACK_API_URL reaches every Web API client the app makes.
 */
import { App } from '@slack/bolt';
import { WebClient } from '@slack/web-api';
import type { Config } from '../config.js';
import { type Clock, systemClock } from '../engine/types.js';
import { createAudience } from './audience.js';
import { boltLogger } from './bolt-logger.js';
import type { SlackConnection } from './connection.js';
import type { StartDeps } from './deps.js';
import { createDirectory } from './directory.js';
import { answerHealth, answerMetrics, type Healthy, type MetricsRoute } from './health.js';
import { registerListeners } from './listeners/index.js';
import { createPermalinks } from './permalinks.js';

export interface SlackAppDeps extends StartDeps {
  slack: NonNullable<Config['slack']>;
  /** True once the database, migrations and queue are ready and the database answers. */
  healthy: Healthy;
  metrics: MetricsRoute;
  /** Socket Mode: watches the socket's connection attempts (for /healthz). */
  connection?: Pick<SlackConnection, 'fetch'>;
  /** The engine's clock: how long the directory keeps Slack's answers goes by it too. */
  clock?: Clock;
}

/** One quick retry of a directory lookup that failed; then the person is told to try again. */
const DIRECTORY_RETRIES = { retries: 1, factor: 1, minTimeout: 200, maxTimeout: 200 };

export function createSlackApp(deps: SlackAppDeps): App {
  const { slack } = deps;
  const clientOptions = slack.apiUrl ? { slackApiUrl: slack.apiUrl } : undefined;
  const common = { token: slack.botToken, logger: boltLogger(deps.logger), clientOptions };
  const app =
    slack.mode.kind === 'socket'
      ? new App({
          ...common,
          appToken: slack.mode.appToken,
          socketMode: true,
          // Socket Mode's own client (apps.connections.open) reads these, with the watched fetch.
          installerOptions: { clientOptions: { ...clientOptions, fetch: deps.connection?.fetch } },
        })
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
  // Its own client: a person waits for these answers, so a failing call gives up within seconds
  // (Bolt's client retries for about 30 minutes) and a 429 pauses no other call. Links that
  // Slack does not give in time are left out of a list, not waited for.
  const quick = new WebClient(slack.botToken, {
    ...clientOptions,
    logger: common.logger,
    rejectRateLimitedCalls: true,
    retryConfig: DIRECTORY_RETRIES,
    timeout: 5000,
  });
  const directory = createDirectory({
    client: quick,
    logger: deps.logger,
    now: () => (deps.clock ?? systemClock).now().getTime(),
  });
  registerListeners(app, {
    ...deps,
    audience: createAudience({ client: app.client, logger: deps.logger }),
    directory,
    permalinks: createPermalinks({ client: quick, pool: deps.pool, logger: deps.logger }),
  });
  return app;
}
