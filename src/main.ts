/**
 * The only place things are wired together: database, checkpointer, queue, workflows, engine.
 * `openSignoff` is used by the terminal, the tests and the benchmark alike.
 */
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import type pg from 'pg';
import type { Config } from './config.js';
import { type Database, openDatabase } from './db/database.js';
import { inTransaction } from './db/queryable.js';
import { createEngine, type Engine } from './engine/engine.js';
import { createOutbox } from './engine/outbox.js';
import { CHECKPOINT_SCHEMA } from './engine/prune.js';
import { createQueue, type JobQueue } from './engine/queue.js';
import { createRunner, type LoadedWorkflow, type Runner } from './engine/runner.js';
import { type Clock, type Sink, type Surface, systemClock } from './engine/types.js';
import { createModelFor, type ModelFor } from './llm/models.js';
import type { Logger } from './logger.js';
import { workflowSettings } from './workflow-config.js';
import { BUILT_IN_WORKFLOWS } from './workflows/index.js';
import type { WorkflowDefinition } from './workflows/shared/types.js';

export interface Signoff {
  config: Config;
  db: Database;
  engine: Engine;
  runner: Runner;
  queue: JobQueue;
  checkpointer: PostgresSaver;
  close(): Promise<void>;
}

export interface OpenOptions {
  logger: Logger;
  sinks?: Partial<Record<Surface, Sink>>;
  clock?: Clock;
  /** Replaces the model factory (tests inject failing or slow models). */
  modelFor?: ModelFor;
  workflows?: readonly WorkflowDefinition[];
  /** An existing database (tests share one server); otherwise config.database decides. */
  database?: Database;
}

/** Creates LangGraph's tables once, even when several processes start together. */
async function setupCheckpointer(pool: pg.Pool): Promise<PostgresSaver> {
  const saver = new PostgresSaver(pool, undefined, { schema: CHECKPOINT_SCHEMA });
  await inTransaction(pool, async (client) => {
    await client.query("SELECT pg_advisory_xact_lock(hashtextextended('signoff:checkpointer-setup', 0))");
    await saver.setup();
  });
  return saver;
}

export async function openSignoff(config: Config, options: OpenOptions): Promise<Signoff> {
  const { logger } = options;
  const db =
    options.database ??
    (await openDatabase({
      url: config.database.url,
      dataDir: config.database.dataDir,
      logger,
      poolSize: config.queue.workers * 2 + 10,
    }));
  try {
    const checkpointer = await setupCheckpointer(db.pool);
    const queue = createQueue({ pool: db.pool, logger, expireSeconds: config.queue.expireSeconds });
    await queue.start();
    const outbox = createOutbox({ pool: db.pool, sinks: options.sinks ?? {}, logger });
    const modelFor = options.modelFor ?? createModelFor(config.model);
    const workflows = new Map<string, LoadedWorkflow>();
    for (const definition of options.workflows ?? BUILT_IN_WORKFLOWS) {
      const settings = workflowSettings(config.workflows, definition.name);
      const graph = definition.build({ modelFor, say: outbox.say, settings, checkpointer });
      workflows.set(definition.name, { definition, graph });
    }
    const clock = options.clock ?? systemClock;
    const runner = createRunner({
      pool: db.pool,
      outbox,
      workflows,
      config: config.workflows,
      clock,
      logger,
    });
    const engine = createEngine({
      pool: db.pool,
      queue,
      outbox,
      runner,
      workflows,
      config: config.workflows,
      clock,
      logger,
    });
    return {
      config,
      db,
      engine,
      runner,
      queue,
      checkpointer,
      close: async () => {
        await queue.stop();
        if (!options.database) await db.close();
      },
    };
  } catch (error) {
    if (!options.database) await db.close();
    throw error;
  }
}
