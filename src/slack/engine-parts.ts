/**
 * What Slack gives the engine: the sink that shows its events in Slack (outbound/sink.ts) and the
 * directory it asks who is in which user group (shared/groups.ts). Both need the engine's database,
 * so openSignoff makes them with it (`sinks`, `directories`); the directory made there is the one
 * the listeners ask too (`directory`): one cache of Slack's answers, one budget of calls.
 */
import { WebClient } from '@slack/web-api';
import type { Config } from '../config/config.js';
import type { Database } from '../db/database.js';
import { condenseOutages } from '../db/outages.js';
import { type Clock, type GroupDirectory, type LiveView, type Sink, systemClock } from '../engine/index.js';
import type { Logger } from '../logger.js';
import { createDeliveryClient } from './outbound/delivery-client.js';
import { createSlackSink } from './outbound/sink.js';
import { createSlackLive, type SlackLive } from './outbound/streams.js';
import { keepThinking, type ThinkingClock } from './outbound/thinking-keeper.js';
import { boltLogger } from './shared/bolt-logger.js';
import { createDirectory, type Directory } from './shared/directory.js';
import { slackGroups } from './shared/groups.js';
import { createLimitedFetch } from './shared/limited-fetch.js';
import { quickClient } from './shared/quick-client.js';
import { createRateLimits } from './shared/rate-limits.js';
import { createStandingStore } from './shared/standing-store.js';

export type { ThinkingClock };

/**
 * Two quick retries of a repeatable Web API call Slack did not answer (never of a post; see
 * delivery-client.ts); beyond that the event's own backoff takes over.
 */
const DELIVERY_RETRIES = { retries: 2, factor: 2, minTimeout: 200, maxTimeout: 1000 };
/** How long delivery waits for Slack's answer to one call. */
const DELIVERY_TIMEOUT_MS = 10_000;

export interface SlackEngineParts {
  sinks(db: Database): { slack: Sink };
  /** Agents' words streamed into the thread as they are written (outbound/streams.ts). */
  lives(db: Database): { slack: LiveView };
  /** The same, for the surface's sweep of streams long left open (one per process). */
  live(db: Database): SlackLive;
  directories(db: Database): { slack: GroupDirectory };
  /** Slack's directory, made once per process (the first call's database). */
  directory(db: Database): Directory;
}

/**
 * `clock`: the engine's; how long Slack's answers about people are kept goes by it too.
 * `thinkingClock`: when a run sets its DM thread's thinking status again (tests move it).
 */
export function slackEngineParts(
  slack: NonNullable<Config['slack']>,
  deps: { logger: Logger; clock?: Clock; thinkingClock?: ThinkingClock },
): SlackEngineParts {
  // Logging as the engine does: while the database is down, one line for the outage (db/outages.ts).
  const loggerOf = (db: Database) => condenseOutages(deps.logger, db.pool);
  let directory: Directory | undefined;
  let live: SlackLive | undefined;
  // One per process: the sink hands a stream's message over from the runs this process streams.
  const liveOf = (db: Database): SlackLive => {
    if (live) return live;
    const logger = loggerOf(db);
    // Its own calls keep to Slack's limits by taking their slots first (streams.ts), so its
    // client neither waits for a 429 nor retries: a stream's words are never sent twice.
    const client = new WebClient(slack.botToken, {
      ...(slack.apiUrl ? { slackApiUrl: slack.apiUrl } : {}),
      logger: boltLogger(logger),
      rejectRateLimitedCalls: true,
      retryConfig: { retries: 0 },
      timeout: DELIVERY_TIMEOUT_MS,
    });
    const limits = createRateLimits(db.pool);
    // A run of a DM task also keeps its thread's thinking status up (Slack drops it after 2 min).
    live = keepThinking(createSlackLive({ client, pool: db.pool, limits, logger }), {
      client,
      limits,
      logger,
      clock: deps.thinkingClock,
    });
    return live;
  };
  const directoryOf = (db: Database): Directory => {
    const logger = loggerOf(db);
    // A group lookup keeps to Slack's limits like every call (shared through Postgres).
    directory ??= createDirectory({
      client: quickClient(slack, logger, createLimitedFetch({ limits: createRateLimits(db.pool), logger })),
      kept: createStandingStore(db.pool),
      logger,
      now: () => (deps.clock ?? systemClock).now().getTime(),
    });
    return directory;
  };
  return {
    // Delivery's own client. It keeps to Slack's limits per method (and per channel for posts),
    // shared with the other processes through Postgres; a 429 comes back to the engine, which
    // reschedules that one event, instead of pausing every call this client makes; a failing call
    // gives up within seconds (the default policy retries for about 30 minutes) and the event is
    // retried with backoff; a post is never sent twice by the client (see delivery-client.ts).
    sinks: (db) => {
      const logger = loggerOf(db);
      const client = createDeliveryClient(
        slack.botToken,
        {
          slackApiUrl: slack.apiUrl,
          logger: boltLogger(logger),
          retries: DELIVERY_RETRIES,
          timeoutMs: DELIVERY_TIMEOUT_MS,
        },
        createRateLimits(db.pool),
      );
      return { slack: createSlackSink({ client, pool: db.pool, logger, live: liveOf(db) }) };
    },
    lives: (db) => ({ slack: liveOf(db) }),
    live: liveOf,
    directories: (db) => ({ slack: slackGroups(directoryOf(db)) }),
    directory: directoryOf,
  };
}
