/**
 * signoff benchmark: prints figures, asserts nothing. On a shared 2-core machine absolute numbers
 * wander, so each engine figure is set against a floor measured in the same run:
 *
 * 1. floor: the pair graph resumed directly with LangGraph + PostgresSaver (resume → next interrupt);
 * 2. engine: decide → the next review delivered to the surface, same graph, same database;
 * 3. throughput: review rounds per second with 200 tasks deciding at once;
 * 4. storage: bytes a task occupies at 50 and at 500 messages of ~500 characters.
 *
 * Run: npm run bench  (embedded PostgreSQL in a temp dir, or DATABASE_URL)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command, isInterrupted, INTERRUPT, MemorySaver } from '@langchain/langgraph';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { startEmbeddedPostgres } from '../src/db/embedded.js';
import { openDatabase } from '../src/db/database.js';
import { checkpointBytes } from '../src/engine/prune.js';
import type { DeliveredEvent } from '../src/engine/types.js';
import { ScriptedChatModel } from '../src/llm/scripted.js';
import type { ModelFor } from '../src/llm/models.js';
import { createLogger } from '../src/logger.js';
import { openSignoff } from '../src/main.js';
import { parseWorkflowConfig } from '../src/workflow-config.js';
import { buildPairGraph } from '../src/workflows/pair/pair-graph.js';

const ROUNDS = 200;
const CONCURRENT_TASKS = 200;
const ROUNDS_PER_TASK = 3;
const logger = createLogger('silent');

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] as number;
};
const ms = (n: number) => `${n.toFixed(2)} ms`;
const decision = (feedback: string) => ({ action: 'revise', feedback, values: {}, by: 'bench', at: new Date().toISOString() });

/** A model whose replies are ~500 characters, like FACTS.md's storage measurement. */
const longReplies: ModelFor = ({ name }) => {
  const model = new ScriptedChatModel({ agent: name });
  const invoke = model.invoke.bind(model);
  model.invoke = (async (...args: Parameters<typeof invoke>) => {
    const reply = await invoke(...args);
    reply.content = `${String(reply.content)} ${'lorem ipsum dolor sit amet '.repeat(16)}`.slice(0, 500);
    return reply;
  }) as typeof model.invoke;
  return model;
};

async function floor(url: string): Promise<number[]> {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  const saver = new PostgresSaver(pool, undefined, { schema: 'floor' });
  await saver.setup();
  const settings = parseWorkflowConfig('', 'bench').workflows.pair ?? { agents: {}, checkpoints: {}, enabled: true, review: true };
  const graph = buildPairGraph({
    modelFor: ({ name }) => new ScriptedChatModel({ agent: name }),
    say: async () => undefined,
    settings: { ...settings, agents: {}, checkpoints: {}, enabled: true, review: true },
    checkpointer: saver,
  });
  const config = { configurable: { thread_id: 'floor-1' } };
  let result = await graph.invoke({ messages: [{ role: 'user', author: 'bench', content: 'benchmark task' }] }, config);
  const times: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    if (!isInterrupted(result)) throw new Error('floor graph did not interrupt');
    const id = result[INTERRUPT][0]?.id as string;
    const t0 = performance.now();
    result = await graph.invoke(new Command({ resume: { [id]: decision(`round ${i}`) } }), config);
    times.push(performance.now() - t0);
    // Same storage discipline as the engine, so the floor is not slowed by a growing history.
    if (i % 20 === 0) await saver.deleteThread('floor-1').then(() => undefined, () => undefined).finally(() => undefined);
    if (i % 20 === 0) result = await graph.invoke({ messages: [{ role: 'user', author: 'bench', content: 'benchmark task' }] }, config);
  }
  await pool.end();
  return times;
}

async function main() {
  const given = process.env.DATABASE_URL;
  const dir = given ? undefined : mkdtempSync(join(tmpdir(), 'signoff-bench-'));
  const server = dir ? await startEmbeddedPostgres(dir, logger) : undefined;
  const url = given ?? (server?.url as string);
  try {
    console.log(`signoff bench — node ${process.version}, ${ROUNDS} rounds, pair workflow (3 agent turns per round), offline model\n`);

    const floorTimes = await floor(url);
    const floorMedian = quantile(floorTimes, 0.5);
    console.log(`floor   LangGraph + PostgresSaver, resume → next interrupt: median ${ms(floorMedian)}, p99 ${ms(quantile(floorTimes, 0.99))}`);

    // Engine: decide → the next review reaches the surface.
    const waiters = new Map<string, (e: DeliveredEvent) => void>();
    const db = await openDatabase({ url, dataDir: '', logger, poolSize: 40 });
    const config = { ...loadConfig({ DATABASE_URL: url }), workflows: parseWorkflowConfig('', 'bench') };
    const app = await openSignoff(config, {
      logger,
      database: db,
      sinks: {
        cli: async (e) => {
          if (e.event.type === 'review_requested') waiters.get(e.taskId)?.(e);
        },
      },
    });
    await app.engine.work('cli', 8);
    const nextReview = (taskId: string) =>
      new Promise<string>((resolve) => waiters.set(taskId, (e) => resolve((e.event as { review: { id: string } }).review.id)));

    const startTask = async (text: string) => {
      const { task } = await app.engine.start({ workflow: 'pair', text, requester: 'bench', surface: 'cli' });
      return task.id;
    };
    const latency: number[] = [];
    {
      let taskId = '';
      let reviewId = '';
      for (let i = 0; i < ROUNDS; i++) {
        if (i % 20 === 0) {
          taskId = `cli-bench-latency-${i}`;
          const first = nextReview(taskId);
          await app.engine.start({ id: taskId, workflow: 'pair', text: 'benchmark task', requester: 'bench', surface: 'cli' });
          reviewId = await first;
        }
        const next = nextReview(taskId);
        const t0 = performance.now();
        const r = await app.engine.decide({ reviewId, actor: { id: 'bench' }, action: 'revise', feedback: `round ${i}` });
        if (!r.ok) throw new Error(r.message);
        reviewId = await next;
        latency.push(performance.now() - t0);
      }
    }
    const engineMedian = quantile(latency, 0.5);
    console.log(`engine  decide → next review delivered:                  median ${ms(engineMedian)}, p99 ${ms(quantile(latency, 0.99))}`);
    console.log(`ratio   engine / floor (median): ${(engineMedian / floorMedian).toFixed(2)}   (target ≤ 3)\n`);

    // Throughput: 200 tasks, each deciding as soon as its review arrives.
    const ids = await Promise.all(
      Array.from({ length: CONCURRENT_TASKS }, async (_, i) => {
        const id = `cli-bench-load-${i}`;
        const first = nextReview(id);
        await app.engine.start({ id, workflow: 'pair', text: `load task ${i}`, requester: 'bench', surface: 'cli' });
        return { id, review: await first };
      }),
    );
    const t0 = performance.now();
    await Promise.all(
      ids.map(async ({ id, review }) => {
        let current = review;
        for (let round = 0; round < ROUNDS_PER_TASK; round++) {
          const next = nextReview(id);
          const r = await app.engine.decide({ reviewId: current, actor: { id: 'bench' }, action: 'revise', feedback: `round ${round}` });
          if (!r.ok) throw new Error(r.message);
          current = await next;
        }
      }),
    );
    const seconds = (performance.now() - t0) / 1000;
    const rounds = CONCURRENT_TASKS * ROUNDS_PER_TASK;
    console.log(`load    ${CONCURRENT_TASKS} tasks × ${ROUNDS_PER_TASK} rounds at once: ${(rounds / seconds).toFixed(0)} review rounds/s   (target ≥ 100)\n`);

    // Storage per task at 50 and 500 messages (pair with one long cycle of ~500-char turns).
    await app.close();
    const sizes: Record<number, number> = {};
    for (const messages of [50, 500]) {
      const sized = await openSignoff(
        { ...config, workflows: parseWorkflowConfig(`workflows:\n  pair:\n    maxIterations: ${messages - 1}\n`, 'bench') },
        { logger, database: db, modelFor: longReplies, sinks: { cli: async () => undefined } },
      );
      await sized.engine.work('cli', 1);
      const id = await startTask(`storage task ${messages}`).catch(async () => {
        const { task } = await sized.engine.start({ workflow: 'pair', text: `storage task ${messages}`, requester: 'bench', surface: 'cli' });
        return task.id;
      });
      void id;
      const { task } = await sized.engine.start({ workflow: 'pair', text: `storage ${messages}`, requester: 'bench', surface: 'cli' });
      for (;;) {
        const t = await sized.engine.getTask(task.id);
        if (t?.status !== 'working') break;
        await new Promise((r) => setTimeout(r, 50));
      }
      const own = await db.pool.query<{ bytes: string }>(
        `SELECT (SELECT coalesce(sum(pg_column_size(e.*)), 0) FROM signoff.events e WHERE task_id = $1)
              + (SELECT coalesce(sum(pg_column_size(r.*)), 0) FROM signoff.reviews r WHERE task_id = $1) AS bytes`,
        [task.id],
      );
      sizes[messages] = (await checkpointBytes(db.pool, task.id)) + Number(own.rows[0]?.bytes ?? 0);
      await sized.close();
    }
    const kb = (n: number) => `${(n / 1024).toFixed(0)} KB`;
    console.log(`storage bytes per task: ${kb(sizes[50] as number)} at 50 messages, ${kb(sizes[500] as number)} at 500`);
    console.log(`        ratio bytes(500)/bytes(50): ${((sizes[500] as number) / (sizes[50] as number)).toFixed(1)}   (target ≤ 12; linear ≈ 10)`);
    void MemorySaver;
    await db.close();
  } finally {
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
}

await main();
