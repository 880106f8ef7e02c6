/**
 * Slack's rate limits, kept by delivery before Slack has to enforce them. Slack limits each Web
 * API method per workspace by tier, and posts to about one a second per channel; the Web API
 * client, left to itself, pauses its whole queue on any 429, so one busy limit (root-status
 * updates) would hold back every other call (review cards).
 *
 * Here each limit is its own: a call takes a slot of its method (of its method in its channel,
 * for posts) from a limit shared through Postgres by every process that delivers. A slot free
 * within a second is waited for; a later one is not taken, and the event is tried again when the
 * limit allows (a `limited` DeliveryError: not a failed attempt, and only that event's lane
 * waits). A 429 Slack still sends holds its limit, for every process, as long as Slack said
 * (delivery-client.ts makes every call of delivery's client go through these).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import { DeliveryError } from '../../errors.js';
import { waitAside } from './limiter.js';

export interface Limit {
  /** Calls a minute, as Slack publishes them. */
  perMinute: number;
  /** Calls allowed at once after a quiet spell. */
  burst: number;
  /** Counted per channel (posts), not per workspace. */
  perChannel?: boolean;
  /**
   * Counted by the minute, as Tier 2's "at least 20 requests per minute": `perMinute` calls in
   * any minute (a second more, for clocks a little off Slack's), however close together.
   */
  window?: boolean;
}

/** What a window-counted limit's minute is stretched by: Slack counts from when a call reached it. */
const WINDOW_MS = 61_000;

/**
 * Slack's published limits for every method signoff calls, delivery and listeners alike
 * (docs.slack.dev, "Rate limits", and each method's page): both keep to the same budget, so a busy
 * Home tab cannot spend what the cards need, nor the cards what a click needs.
 */
export const SLACK_LIMITS: Record<string, Limit> = {
  // "One message per second per channel", short bursts allowed.
  'chat.postMessage': { perMinute: 60, burst: 3, perChannel: true },
  // Tier 3: 50+ a minute.
  'chat.update': { perMinute: 50, burst: 3 },
  'chat.delete': { perMinute: 50, burst: 3 },
  'conversations.replies': { perMinute: 50, burst: 3 },
  'conversations.history': { perMinute: 50, burst: 3 },
  'conversations.info': { perMinute: 50, burst: 3 },
  'conversations.open': { perMinute: 50, burst: 3 },
  'users.conversations': { perMinute: 50, burst: 3 },
  // Tier 4: 100+ a minute.
  'chat.getPermalink': { perMinute: 100, burst: 5 },
  'chat.postEphemeral': { perMinute: 100, burst: 5 },
  'conversations.members': { perMinute: 100, burst: 5 },
  'users.info': { perMinute: 100, burst: 5 },
  'views.open': { perMinute: 100, burst: 5 },
  'views.push': { perMinute: 100, burst: 5 },
  'views.update': { perMinute: 100, burst: 5 },
  'views.publish': { perMinute: 100, burst: 5 },
  // Streams (outbound/streams.ts): appends Tier 4; starts and stops Tier 2, each stream one of
  // each. A little under Slack's own figures: a start is taken only when its slot is free at
  // once, and a clock a hair off Slack's would otherwise meet a 429 at the edge of the burst.
  'chat.appendStream': { perMinute: 95, burst: 5 },
  'assistant.threads.setSuggestedPrompts': { perMinute: 100, burst: 5 },
  // "Special rate limits apply" (not published): kept as Tier 4.
  'assistant.threads.setStatus': { perMinute: 100, burst: 5 },
  // Tier 2: 20+ a minute. A stream's start and stop: twenty streams at once, then none until the
  // minute has passed (a start finds no slot: the words are posted when saved).
  'chat.startStream': { perMinute: 20, burst: 20, window: true },
  'chat.stopStream': { perMinute: 20, burst: 20, window: true },
  'usergroups.users.list': { perMinute: 20, burst: 2 },
};

/** What a call waits beyond its slot's time (see `take`). */
const SLOT_MARGIN_MS = 5;
/** A slot free within this long is waited for in place; a later one sends the event round again. */
const WAIT_IN_PLACE_MS = 1000;

export interface RateLimits {
  /**
   * Resolves when a call of `method` may go; throws a `limited` DeliveryError (with when to come
   * back) when its slot is further off than `waitInPlaceMs` (a second by default).
   */
  take(method: string, channel?: string, waitInPlaceMs?: number): Promise<void>;
  /** Slack answered 429: no call of `method` (in `channel`) before `waitMs` from now. */
  hold(method: string, channel: string | undefined, waitMs: number): Promise<void>;
}

export function createRateLimits(pool: pg.Pool, limits: Record<string, Limit> = SLACK_LIMITS): RateLimits {
  const keyOf = (method: string, limit: Limit, channel?: string) =>
    limit.perChannel && channel ? `slack:${method}:${channel}` : `slack:${method}`;
  return {
    async take(method, channel, waitInPlaceMs = WAIT_IN_PLACE_MS) {
      const limit = limits[method];
      if (!limit) return;
      const key = keyOf(method, limit, channel);
      const r = limit.window
        ? await pool.query<{ wait: number }>('SELECT signoff.take_window($1, $2, $3, $4) AS wait', [
            key,
            limit.perMinute,
            WINDOW_MS,
            waitInPlaceMs,
          ])
        : await pool.query<{ wait: number }>('SELECT signoff.take_slot($1, $2, $3, $4) AS wait', [
            key,
            60_000 / limit.perMinute,
            limit.burst,
            waitInPlaceMs,
          ]);
      const wait = Number(r.rows[0]?.wait ?? 0);
      if (wait > waitInPlaceMs) {
        throw new DeliveryError('limited', 'ratelimited', { retryAfterMs: Math.ceil(wait) });
      }
      // Only waiting: work after an ack lets another piece use its slot meanwhile. A timer may fire
      // a hair early and clocks differ by a little: a call timed to its slot's very millisecond
      // could reach Slack just before it, so it waits a few more.
      if (wait > 0) await waitAside(() => sleep(Math.ceil(wait) + SLOT_MARGIN_MS));
    },
    async hold(method, channel, waitMs) {
      const limit = limits[method] ?? { perMinute: 60, burst: 1 };
      // A window's hold is the wait alone (take_window reads `tat` as held until).
      await pool.query('SELECT signoff.hold_slot($1, $2, $3, $4)', [
        keyOf(method, limit, channel),
        waitMs,
        60_000 / limit.perMinute,
        limit.window ? 1 : limit.burst,
      ]);
    },
  };
}
