/** A signoff Slack service on a test database, talking to a FakeSlack; and model wrappers. */
import type { BaseMessage } from '@langchain/core/messages';
import { WebClient } from '@slack/web-api';
import { afterAll, beforeAll } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { parseWorkflowConfig } from '../../src/config/workflows.js';
import type { ModelFor } from '../../src/llm/models.js';
import { ScriptedChatModel } from '../../src/llm/scripted.js';
import { createLogger } from '../../src/logger.js';
import { type SlackOptions, type SlackService, startSlack } from '../../src/main.js';
import { createAfterAck } from '../../src/slack/inbound/after-ack.js';
import { finishUnfinishedStarts } from '../../src/slack/inbound/start-task.js';
import { createLimitedFetch } from '../../src/slack/shared/limited-fetch.js';
import { createRateLimits } from '../../src/slack/shared/rate-limits.js';
import { createTestDatabase, type TestDatabase } from './database.js';
import type { FakeOpenAI } from './fake-openai.js';
import { FakeSlack } from './fake-slack.js';
import { SIGNING_SECRET } from './slack-requests.js';

export async function startTestSlack(o: {
  url: string;
  slack: FakeSlack;
  yaml?: string;
  env?: Record<string, string>;
  options?: Partial<SlackOptions>;
}): Promise<{ service: SlackService; events: string }> {
  const config = loadConfig({
    DATABASE_URL: o.url,
    SLACK_BOT_TOKEN: 'xoxb-test',
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: o.slack.url,
    PORT: '0',
    ...o.env,
  });
  const service = await startSlack(
    { ...config, workflows: parseWorkflowConfig(o.yaml ?? '', 'test.yml') },
    { logger: createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'), ...o.options },
  );
  return { service, events: `http://127.0.0.1:${service.port}/slack/events` };
}

/**
 * What a web process's sweep does a minute after a start was left unfinished, now: every
 * unfinished start is made old enough, then finished.
 */
export async function sweepStarts(service: SlackService, slack: FakeSlack): Promise<number> {
  await service.signoff.db.pool.query(
    `UPDATE signoff.slack_requests SET created_at = now() - interval '5 minutes'
     WHERE task_id IS NULL AND start IS NOT NULL`,
  );
  return finishUnfinishedStarts(
    {
      engine: service.signoff.engine,
      pool: service.signoff.db.pool,
      logger: createLogger('silent'),
      afterAck: createAfterAck({ size: 1, quietMs: 0, maxWaitMs: 0 }),
    },
    // As the web process's own client: keeping to Slack's limits on the shared budget.
    new WebClient('xoxb-test', {
      slackApiUrl: slack.url,
      fetch: createLimitedFetch({
        limits: createRateLimits(service.signoff.db.pool),
        logger: createLogger('silent'),
      }),
    }),
  );
}

/** The offline model, with `before` run ahead of every call (to fail it, or to make it think). */
export function scriptedWith(
  before: (agent: string, input: BaseMessage[], options?: { signal?: AbortSignal }) => Promise<void>,
): ModelFor {
  return ({ name }) => {
    const model = new ScriptedChatModel({ agent: name });
    const invoke = model.invoke.bind(model);
    model.invoke = (async (input: BaseMessage[], options?: { signal?: AbortSignal }) => {
      await before(name, input, options);
      return invoke(input, options as never);
    }) as typeof model.invoke;
    return model;
  };
}

/** Thinks for `ms` unless the call is aborted first (then it throws, as a cancelled request does). */
export function thinkUnlessAborted(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(signal.reason);
    });
  });
}

/** A model call that fails like an overloaded server. */
const overloaded = () => Object.assign(new Error('503 upstream model overloaded'), { status: 503 });

/** The offline model, whose next calls fail like an overloaded server when told (`failNext`). */
export function overloadableModel() {
  let left = 0;
  return {
    modelFor: scriptedWith(async () => {
      if (left > 0) {
        left -= 1;
        throw overloaded();
      }
    }),
    failNext: (calls: number) => {
      left = calls;
    },
  };
}

/** What one service of a test file is started with. */
export interface ServiceSettings {
  yaml?: string;
  env?: Record<string, string>;
  options?: Partial<SlackOptions>;
}

export interface SlackFileOptions extends ServiceSettings {
  /** The fake Slack the service answers (default: a new one). */
  slack?: FakeSlack;
  /**
   * A fake OpenAI server the service calls through the real ChatOpenAI client (started and stopped
   * with the file); without one, the offline scripted model (or `options.modelFor`) answers.
   */
  model?: FakeOpenAI;
  /** The workspace as Slack has it before the service starts: its people, groups, channels. */
  workspace?: (slack: FakeSlack) => void;
  /** Start no service for the file: its tests start their own with `startService` (default true). */
  service?: boolean;
}

export interface SlackFile {
  readonly slack: FakeSlack;
  readonly db: TestDatabase;
  /** The file's service (set once the file's beforeAll has run). */
  readonly service: SlackService;
  /** Where the file's service takes signed requests through Bolt's HTTP receiver. */
  readonly events: string;
  /**
   * A deploy: the service stops, `whileDown` runs (time passing while nothing runs), and another
   * starts on the same database, knowing nothing: with `settings` if given, else the file's.
   */
  restart(o?: { settings?: ServiceSettings; whileDown?: () => void }): Promise<void>;
  /** Another process on the file's database and fake Slack, with its own settings; stopped with the file. */
  startService(settings?: ServiceSettings): Promise<SlackService>;
}

/**
 * One test file's signoff Slack service on its own database, answering a fake Slack (and calling a
 * fake OpenAI server when given one): made before the file's tests, stopped and dropped after.
 * Read `.service`, `.events` and `.db` inside tests.
 */
export function slackPerFile(label: string, o: SlackFileOptions = {}): SlackFile {
  const slack = o.slack ?? new FakeSlack();
  const others: SlackService[] = [];
  let db: TestDatabase | undefined;
  let current: { service: SlackService; events: string } | undefined;
  const ready = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`${label}: ${what} is read before the file's beforeAll ran`);
    return value;
  };
  const launch = (s: ServiceSettings) =>
    startTestSlack({
      url: ready(db, 'the database').url,
      slack,
      yaml: s.yaml,
      options: s.options,
      env: { ...(o.model && { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: o.model.url }), ...s.env },
    });
  const file: SlackFile = {
    slack,
    get db() {
      return ready(db, 'the database');
    },
    get service() {
      return ready(current, 'the service').service;
    },
    get events() {
      return ready(current, 'the service').events;
    },
    restart: async ({ settings = o, whileDown } = {}) => {
      await ready(current, 'the service').service.stop();
      current = undefined;
      whileDown?.();
      current = await launch(settings);
    },
    startService: async (s = {}) => {
      const { service } = await launch(s);
      others.push(service);
      return service;
    },
  };
  beforeAll(async () => {
    db = await createTestDatabase(label);
    await slack.start();
    await o.model?.start();
    o.workspace?.(slack);
    if (o.service !== false) current = await launch(o);
  });
  afterAll(async () => {
    for (const service of others) await service.stop();
    await current?.service.stop();
    await o.model?.stop();
    await slack.stop();
    await db?.drop();
  });
  return file;
}
