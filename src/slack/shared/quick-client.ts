/**
 * A Web API client for answers a person waits for (a user's groups, a thread's link): a failing
 * call gives up within seconds (Bolt's client retries for about 30 minutes) and a 429 pauses no
 * other call. Links that Slack does not give in time are left out of a list, not waited for.
 */
import { WebClient } from '@slack/web-api';
import type { Config } from '../../config/config.js';
import type { Logger } from '../../logger.js';
import { boltLogger } from './bolt-logger.js';

/** One quick retry of a lookup that failed; then the person is told to try again. */
const LOOKUP_RETRIES = { retries: 1, factor: 1, minTimeout: 200, maxTimeout: 200 };

/** `fetch`: the limited one (limited-fetch.ts), so that every lookup keeps to Slack's limits. */
export function quickClient(
  slack: NonNullable<Config['slack']>,
  logger: Logger,
  fetch: typeof globalThis.fetch,
): WebClient {
  return new WebClient(slack.botToken, {
    ...(slack.apiUrl ? { slackApiUrl: slack.apiUrl } : {}),
    logger: boltLogger(logger),
    rejectRateLimitedCalls: true,
    retryConfig: LOOKUP_RETRIES,
    timeout: 5000,
    fetch,
  });
}
