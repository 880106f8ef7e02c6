/**
 * Delivery's Web API client: every call keeps to Slack's limits first (rate-limits.ts: cards,
 * updates, thread look-ups and DMs alike, since all of a method's calls go through `apiCall`),
 * and a 429 Slack still sends holds that limit for everyone and sends the event round again.
 *
 * Retries happen here, one attempt at a time, so that each is checked against the delivery's
 * lease first (a deliverer that froze past it sends nothing more), and only for calls that do the
 * same thing when sent twice: reads, `chat.update`, `conversations.open`. The Web API client's
 * own retries (used before) re-sent a timed-out `chat.postMessage` inside the call; Slack has no
 * idempotency key for posts, and one that Slack carried out but answered after the timeout was
 * posted twice, both cards with live buttons. Now a post is sent once: when no answer comes (a
 * timeout, a dropped connection, a 5xx), it fails as `unanswered`, and the event's next attempt,
 * no sooner than one more timeout, looks for it by its metadata before posting (sink.ts,
 * pings.ts).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { ErrorCode, type WebAPICallError, WebClient, type WebClientOptions } from '@slack/web-api';
import { assertDeliveryHeld } from '../../engine/index.js';
import { DeliveryError } from '../../errors.js';
import type { RateLimits } from '../shared/rate-limits.js';

/** Calls that change nothing more when sent twice: retried in place when Slack does not answer. */
const REPEATABLE = new Set([
  'auth.test',
  'chat.getPermalink',
  'chat.update',
  'conversations.history',
  'conversations.members',
  'conversations.open',
  'conversations.replies',
  'usergroups.users.list',
  'users.info',
]);

export interface DeliveryClientOptions extends Pick<WebClientOptions, 'slackApiUrl' | 'logger' | 'fetch'> {
  /** How long a call may take before it is given up. */
  timeoutMs: number;
  /** Quick retries of a repeatable call Slack did not answer; beyond that the event's backoff takes over. */
  retries: { retries: number; minTimeout: number; factor: number; maxTimeout: number };
}

/** Slack did not answer (timeout, connection lost) or failed on its side: a post may have been made. */
const unanswered = (error: unknown): boolean => {
  const e = error as WebAPICallError & { statusCode?: number };
  return e.code === ErrorCode.RequestError || (e.code === ErrorCode.HTTPError && (e.statusCode ?? 0) >= 500);
};

export function createDeliveryClient(
  token: string,
  options: DeliveryClientOptions,
  limits: RateLimits,
): WebClient {
  const { timeoutMs, retries, ...rest } = options;
  const pause = (attempt: number) =>
    Math.min(retries.minTimeout * retries.factor ** attempt, retries.maxTimeout);
  class Delivering extends WebClient {
    override async apiCall(method: string, args: Record<string, unknown> = {}) {
      const channel = typeof args.channel === 'string' ? args.channel : undefined;
      for (let attempt = 0; ; attempt++) {
        assertDeliveryHeld();
        await limits.take(method, channel);
        // The wait for a slot (or for the retry) may have outlived the delivery's lease.
        assertDeliveryHeld();
        try {
          return await super.apiCall(method, args);
        } catch (error) {
          const e = error as WebAPICallError & { retryAfter?: number };
          if (e.code === ErrorCode.RateLimitedError) {
            const waitMs = (e.retryAfter ?? 1) * 1000;
            await limits.hold(method, channel, waitMs);
            throw new DeliveryError('limited', 'ratelimited', { cause: error, retryAfterMs: waitMs });
          }
          if (!unanswered(error)) throw error;
          if (!REPEATABLE.has(method)) {
            // Slack may still be carrying it out: look for it no sooner than one more timeout.
            throw new DeliveryError('temporary', 'unanswered', { cause: error, retryAfterMs: timeoutMs });
          }
          if (attempt >= retries.retries) throw error;
          await sleep(pause(attempt));
        }
      }
    }
  }
  return new Delivering(token, {
    ...rest,
    timeout: timeoutMs,
    // Each 429 is this caller's to handle (the event waits), never a pause of every call; and
    // retries are the loop's above.
    rejectRateLimitedCalls: true,
    retryConfig: { retries: 0 },
  });
}
