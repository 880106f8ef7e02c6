/**
 * The listeners' Web API calls keep to Slack's limits too (rate-limits.ts, the budget delivery
 * keeps, shared through Postgres by every process), so that signoff does not exceed Slack's
 * published limits in normal running: a burst of starts in one channel, or of clicks needing a
 * Tier 2 group lookup, is paced here instead of meeting Slack's 429s.
 *
 * It is the clients' `fetch` (the Web API client's transport hook), because Bolt makes the client
 * each listener is given from its options: every client the app makes goes through it. A slot free
 * soon is waited for in place; a later one is answered as Slack would answer it, a 429 with
 * Retry-After, before Slack is asked, so every listener's handling of a 429 (wait a short one out,
 * else a sentence to the person) applies unchanged. A 429 Slack still sends holds that limit for
 * every process, delivery included.
 */
import { DeliveryError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import type { RateLimits } from './rate-limits.js';

type Fetch = typeof globalThis.fetch;

/**
 * How long a listener's call waits in place for its slot. A view opened with a trigger must reach
 * Slack within 3 s of the click, ack included: a second at most. Anything else may wait longer,
 * well inside the listener client's 5 s timeout, which runs during the wait.
 */
const TRIGGERED = new Set(['views.open', 'views.push']);
const TRIGGER_WAIT_MS = 1000;
const WAIT_MS = 2500;

/** The method a Web API URL calls (`…/api/chat.postMessage` → `chat.postMessage`). */
const methodOf = (url: string): string => new URL(url).pathname.split('/').pop() ?? '';

/** The channel a call names, from its form body (how the Web API client sends every call). */
function channelOf(body: unknown): string | undefined {
  if (typeof body !== 'string') return undefined;
  return new URLSearchParams(body).get('channel') ?? undefined;
}

/** What Slack answers a call over its limit; Retry-After in whole seconds, as Slack sends it. */
const tooMany = (waitMs: number): Response =>
  new Response(JSON.stringify({ ok: false, error: 'ratelimited' }), {
    status: 429,
    headers: {
      'content-type': 'application/json',
      'retry-after': String(Math.max(1, Math.ceil(waitMs / 1000))),
    },
  });

export function createLimitedFetch(deps: { limits: RateLimits; logger: Logger; fetch?: Fetch }): Fetch {
  const inner = deps.fetch ?? globalThis.fetch;
  return async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const method = methodOf(url);
    const channel = channelOf(init?.body);
    try {
      await deps.limits.take(method, channel, TRIGGERED.has(method) ? TRIGGER_WAIT_MS : WAIT_MS);
    } catch (error) {
      if (error instanceof DeliveryError && error.kind === 'limited') {
        deps.logger.info({ method, channel, waitMs: error.retryAfterMs }, 'Slack limit spent; not sent yet');
        return tooMany(error.retryAfterMs ?? 1000);
      }
      // The database did not answer: Slack's own limit still stands behind this one.
      deps.logger.warn({ err: error, method }, 'could not read Slack’s rate limits; calling anyway');
    }
    const response = await inner(input, init);
    if (response.status === 429) {
      const seconds = Number.parseInt(response.headers.get('retry-after') ?? '1', 10);
      await deps.limits
        .hold(method, channel, (Number.isNaN(seconds) ? 1 : seconds) * 1000)
        .catch((err) => deps.logger.warn({ err, method }, 'could not record Slack’s 429'));
    }
    return response;
  };
}
