/**
 * The Bolt app: HTTP mode (everything POSTs to /slack/events on PORT, plus GET /healthz and /metrics) or
 * Socket Mode. SLACK_API_URL reaches every Web API client the app makes.
 */
import { App } from '@slack/bolt';
import type { Config } from '../config.js';
import { createAudience } from './audience.js';
import { boltLogger } from './bolt-logger.js';
import type { StartDeps } from './deps.js';
import { answerHealth, answerMetrics, type MetricsRoute } from './health.js';
import { registerListeners } from './listeners/index.js';

export interface SlackAppDeps extends StartDeps {
  slack: NonNullable<Config['slack']>;
  /** True once the database, migrations and queue are ready and the database answers. */
  healthy(): Promise<boolean>;
  metrics: MetricsRoute;
}

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
          installerOptions: { clientOptions },
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
  registerListeners(app, { ...deps, audience: createAudience({ client: app.client, logger: deps.logger }) });
  return app;
}
