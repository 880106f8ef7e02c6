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
import { createAfterAck } from '../../src/slack/after-ack.js';
import { createLimitedFetch } from '../../src/slack/limited-fetch.js';
import { createRateLimits } from '../../src/slack/rate-limits.js';
import { finishUnfinishedStarts } from '../../src/slack/start-task.js';
import { createTestDatabase, type TestDatabase } from './database.js';
import { FakeOpenAI } from './fake-openai.js';
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
export const overloaded = () => Object.assign(new Error('503 upstream model overloaded'), { status: 503 });

/**
 * One test file's signoff on its own database, answering the fake Slack and calling the fake
 * OpenAI server through the real ChatOpenAI client. Read `.service` and `.events` inside tests.
 */
export function slackWithModelPerFile(
  label: string,
  o: { yaml?: string; env?: Record<string, string>; model?: FakeOpenAI } = {},
) {
  const file = {
    slack: new FakeSlack(),
    model: o.model ?? new FakeOpenAI(),
  } as { slack: FakeSlack; model: FakeOpenAI; db: TestDatabase; service: SlackService; events: string };
  beforeAll(async () => {
    file.db = await createTestDatabase(label);
    await file.slack.start();
    await file.model.start();
    ({ service: file.service, events: file.events } = await startTestSlack({
      url: file.db.url,
      slack: file.slack,
      yaml: o.yaml,
      env: { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: file.model.url, ...o.env },
    }));
  });
  afterAll(async () => {
    await file.service?.stop();
    await file.model.stop();
    await file.slack.stop();
    await file.db?.drop();
  });
  return file;
}
