/**
 * A signoff on a test database: the real engine, runtime and checkpointer; only the model may be
 * replaced. Events are collected as a surface would receive them.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { BaseMessage } from '@langchain/core/messages';
import { afterAll, beforeAll } from 'vitest';
import { type Config, loadConfig } from '../../src/config/config.js';
import { parseWorkflowConfig } from '../../src/config/workflows.js';
import { advanceQueue, runJob } from '../../src/engine/job-names.js';
import type { Clock, DeliveredEvent, GroupDirectory, Review, Surface, Task } from '../../src/engine/types.js';
import { DeliveryError } from '../../src/errors.js';
import type { ModelFor } from '../../src/llm/models.js';
import { ScriptedChatModel } from '../../src/llm/scripted.js';
import { createLogger } from '../../src/logger.js';
import { openSignoff, type Signoff } from '../../src/main.js';
import { createTestDatabase, type TestDatabase } from './database.js';

export interface HarnessOptions {
  url: string;
  yaml?: string;
  env?: Record<string, string>;
  modelFor?: ModelFor;
  /** Run this surface's workers in this process (default true). */
  work?: boolean;
  /** And the daily retention run, as a server does (default false, as a terminal command). */
  retention?: boolean;
  clock?: Clock;
  /** How often a run may redraw its plan (main.ts `planEveryMs`). */
  planEveryMs?: number;
  /** Where delivered events are collected (share one list between harnesses on one database). */
  delivered?: DeliveredEvent[];
  /** Events the surface refuses for good, as Slack refuses a card it cannot take (invalid_blocks). */
  refuse?: (event: DeliveredEvent) => boolean;
  /**
   * Called at each attempt to show an event: milliseconds to come back in, as a surface's rate
   * limit answers (a `limited` DeliveryError), or undefined to show it.
   */
  limit?: (event: DeliveredEvent) => number | undefined;
  /** Who is in which user group, by surface (test/helpers/directory.ts); none by default. */
  directories?: Partial<Record<Surface, GroupDirectory>>;
}

/** A clock the test moves: starts at the real time, moves only when told. */
export function testClock(start = new Date()) {
  let now = start.getTime();
  return {
    now: () => new Date(now),
    advance: (seconds: number) => {
      now += seconds * 1000;
    },
  };
}

export interface Harness extends Signoff {
  delivered: DeliveredEvent[];
  waitFor(taskId: string, predicate: (t: Task) => boolean, timeoutMs?: number): Promise<Task>;
  /** Starts a terminal task requested by "ann". */
  start(workflow: string, text: string): Promise<Task>;
  /**
   * Waits for the task to ask a new question (a pending review other than `previousId`), shown on
   * its surface: delivery is its own path, and what came before the card has been shown too.
   */
  nextReview(taskId: string, previousId?: string): Promise<Review>;
  /** Waits until everything the task recorded so far has been shown (delivery is its own path). */
  shown(taskId: string): Promise<void>;
  /**
   * Asks for a run of the task `times` times at once (as several processes would after one
   * event), and waits until no run of it is asked for or under way.
   */
  runAndSettle(task: Pick<Task, 'id' | 'surface'>, times?: number): Promise<void>;
}

/**
 * One database and one harness for a test file: made before its tests, closed and dropped after.
 * Read `.h` inside tests (it is set once the file's beforeAll has run).
 */
export function harnessPerFile(label: string, options: () => Omit<HarnessOptions, 'url'> = () => ({})) {
  const file = {} as { h: Harness; db: TestDatabase };
  beforeAll(async () => {
    file.db = await createTestDatabase(label);
    file.h = await openHarness({ url: file.db.url, ...options() });
  });
  afterAll(async () => {
    await file.h?.close();
    await file.db?.drop();
  });
  return file;
}

export function testConfig(url: string, yaml = '', env: Record<string, string> = {}): Config {
  const config = loadConfig({ DATABASE_URL: url, SIGNOFF_WORKERS: '4', ...env });
  return { ...config, workflows: parseWorkflowConfig(yaml, 'test.yml') };
}

export async function openHarness(options: HarnessOptions): Promise<Harness> {
  const delivered: DeliveredEvent[] = options.delivered ?? [];
  const app = await openSignoff(testConfig(options.url, options.yaml, options.env), {
    logger: createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'),
    modelFor: options.modelFor,
    clock: options.clock,
    planEveryMs: options.planEveryMs,
    directories: options.directories,
    sinks: {
      cli: async (event) => {
        if (options.refuse?.(event)) throw new DeliveryError('refused', 'invalid_blocks');
        const later = options.limit?.(event);
        if (later !== undefined) throw new DeliveryError('limited', 'ratelimited', { retryAfterMs: later });
        delivered.push(event);
      },
    },
  });
  if (options.work !== false) await app.engine.work('cli', 4, { retention: options.retention });
  return {
    ...app,
    delivered,
    waitFor: async (taskId, predicate, timeoutMs = 20_000) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const task = await app.engine.getTask(taskId);
        if (task && predicate(task)) return task;
        if (Date.now() > deadline)
          throw new Error(`task ${taskId} stayed ${task?.status} (${task?.statusReason})`);
        await sleep(20);
      }
    },
    start: async (workflow, text) =>
      (await app.engine.start({ workflow, text, requester: 'ann', surface: 'cli' })).task,
    shown: async (taskId) => {
      const deadline = Date.now() + 20_000;
      for (;;) {
        const left = await app.db.pool.query(
          'SELECT count(*)::int AS n FROM signoff.events WHERE task_id = $1 AND delivered_at IS NULL AND failed_at IS NULL',
          [taskId],
        );
        if (left.rows[0].n === 0) return;
        if (Date.now() > deadline) throw new Error(`task ${taskId} has ${left.rows[0].n} events not shown`);
        await sleep(20);
      }
    },
    runAndSettle: async (task, times = 1) => {
      await Promise.all(Array.from({ length: times }, () => app.runtime.schedule(app.db.pool, runJob(task))));
      app.runtime.wake(advanceQueue(task.surface));
      const deadline = Date.now() + 20_000;
      while (
        (await app.db.pool.query('SELECT 1 FROM signoff.jobs WHERE key = $1', [`run:${task.id}`])).rowCount
      ) {
        if (Date.now() > deadline) throw new Error(`the run of task ${task.id} did not settle`);
        await sleep(20);
      }
    },
    nextReview: async (taskId, previousId) => {
      const deadline = Date.now() + 20_000;
      for (;;) {
        const task = await app.engine.getTask(taskId);
        const pending = await app.engine.reviews(taskId, 'pending');
        const review = pending.find((r) => r.id !== previousId);
        const shown = review && delivered.some((e) => e.taskId === taskId && e.key === `review:${review.id}`);
        if (review && shown && task?.status === 'waiting') return review;
        if (Date.now() > deadline) throw new Error(`task ${taskId} asked nothing new (${task?.status})`);
        await sleep(20);
      }
    },
  };
}

export const settled = (t: Task) => t.status !== 'working';

/**
 * A model factory that records every prompt each agent received, whether the model was called
 * directly or through tools it bound (`withStructuredOutput` binds a tool).
 */
export function recordingModels(options: { delayMs?: number } = {}) {
  const calls: { agent: string; messages: BaseMessage[] }[] = [];
  const record = (agent: string, model: ScriptedChatModel): ScriptedChatModel => {
    const generate = model._generate.bind(model);
    model._generate = (messages, callOptions, runManager) => {
      calls.push({ agent, messages });
      return generate(messages, callOptions, runManager);
    };
    const bind = model.bindTools.bind(model);
    model.bindTools = (tools) => record(agent, bind(tools));
    return model;
  };
  const modelFor: ModelFor = ({ name }) => record(name, new ScriptedChatModel({ agent: name, ...options }));
  return { modelFor, calls };
}
