/**
 * The only place things are wired together: database, checkpointer, queue, workflows, engine.
 * `openSignoff` is used by the terminal, the tests and the benchmark alike.
 */
import type { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import type { Config } from './config/config.js';
import { workflowSettings } from './config/workflows.js';
import { type Database, openDatabase } from './db/database.js';
import { createDocuments, type Documents } from './docs/documents.js';
import type { Engine } from './engine/index.js';
import {
  type Clock,
  createDelivery,
  createEngine,
  createLeases,
  createMetrics,
  createQueue,
  createRunner,
  type GroupDirectory,
  type JobQueue,
  type LoadedWorkflow,
  type Metrics,
  type Runner,
  type Sink,
  type Surface,
  setupCheckpointer,
  systemClock,
  type Task,
} from './engine/index.js';
import { createModelFor, type ModelFor } from './llm/models.js';
import type { Logger } from './logger.js';
import { type AfterAckClock, createAfterAck } from './slack/inbound/after-ack.js';
import { createSlackApp, createSlackDirectory, initSlackApp } from './slack/inbound/app.js';
import { watchSlackConnection } from './slack/inbound/connection.js';
import { type Healthy, startHealthServer } from './slack/inbound/health.js';
import { finishUnfinishedStarts, UNFINISHED_START_MS } from './slack/inbound/start-task.js';
import { createDeliveryClient } from './slack/outbound/delivery-client.js';
import { createSlackSink } from './slack/outbound/sink.js';
import { purgeSlackBookkeeping } from './slack/retention.js';
import { boltLogger } from './slack/shared/bolt-logger.js';
import type { Directory } from './slack/shared/directory.js';
import { slackGroups } from './slack/shared/groups.js';
import { createRateLimits } from './slack/shared/rate-limits.js';
import { ownWorkflowDescription } from './workflows/catalog.js';
import { loadCustomWorkflow } from './workflows/custom.js';
import { declaredWorkflow } from './workflows/declared/declared-graph.js';
import { BUILT_IN_WORKFLOWS } from './workflows/index.js';
import type { WorkflowDefinition } from './workflows/shared/types.js';

export interface Signoff {
  config: Config;
  db: Database;
  documents: Documents;
  engine: Engine;
  runner: Runner;
  queue: JobQueue;
  checkpointer: PostgresSaver;
  /** Prometheus metrics (GET /metrics where the process serves HTTP). */
  metrics: Metrics;
  /** What each workflow is made of, by name: scenario files are checked against it. */
  parts: ReadonlyMap<string, WorkflowParts>;
  close(): Promise<void>;
}

export interface WorkflowParts {
  /** The agents its graph asked a model for, by display name. */
  agents: string[];
  /** Its checkpoints; undefined for your own graph (its agents, too, may be more than these). */
  checkpoints?: string[];
}

export interface OpenOptions {
  logger: Logger;
  /** How each surface shows events; a function when the sink needs the database. */
  sinks?: Partial<Record<Surface, Sink>> | ((db: Database) => Partial<Record<Surface, Sink>>);
  /**
   * Who is in which user group, by surface (the engine asks before any transaction); a function
   * when the directory needs the database. A surface without one has no groups.
   */
  directories?:
    | Partial<Record<Surface, GroupDirectory>>
    | ((db: Database) => Partial<Record<Surface, GroupDirectory>>);
  clock?: Clock;
  /** Replaces the model factory (tests inject failing or slow models). */
  modelFor?: ModelFor;
  workflows?: readonly WorkflowDefinition[];
  /** An existing database (tests share one server); otherwise config.database decides. */
  database?: Database;
  /** Told when a run of a task starts in this process (runner.ts). */
  onRun?: (task: Task) => void;
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
    const sinks = typeof options.sinks === 'function' ? options.sinks(db) : (options.sinks ?? {});
    const leases = createLeases({
      pool: db.pool,
      heartbeats: db.heartbeats,
      ttlSeconds: config.queue.leaseSeconds,
      logger,
    });
    const delivery = createDelivery({ pool: db.pool, queue, leases, sinks, logger });
    const modelFor = options.modelFor ?? createModelFor(config.model);
    const documents = createDocuments(db.pool);
    const workflows = new Map<string, LoadedWorkflow>();
    const custom = await Promise.all(
      Object.entries(config.workflows.workflows)
        .filter(([, w]) => w.module)
        .map(([name, w]) => loadCustomWorkflow(name, w, config.configPath)),
    );
    // Declared in the config file (stages): built by the declared-workflow builder.
    const declared = Object.entries(config.workflows.workflows)
      .filter(([, w]) => w.stages && !w.module)
      .map(([name, w]) => declaredWorkflow(name, ownWorkflowDescription(name, w)));
    const parts = new Map<string, WorkflowParts>();
    for (const definition of [...(options.workflows ?? BUILT_IN_WORKFLOWS), ...custom, ...declared]) {
      const settings = workflowSettings(config.workflows, definition.name);
      const agents = new Set<string>();
      const graph = definition.build({
        // Every agent's model is made when its graph is built: that names the agents.
        modelFor: (agent) => {
          agents.add(agent.name);
          return modelFor(agent);
        },
        settings,
        checkpointer,
        documents,
        logger,
      });
      workflows.set(definition.name, { definition, graph });
      parts.set(definition.name, { agents: [...agents], checkpoints: definition.checkpoints?.(settings) });
    }
    const clock = options.clock ?? systemClock;
    const runner = createRunner({
      pool: db.pool,
      queue,
      delivery,
      leases,
      workflows,
      config: config.workflows,
      clock,
      logger,
      onRun: options.onRun,
    });
    const metrics = createMetrics(db.pool);
    const directories =
      typeof options.directories === 'function' ? options.directories(db) : (options.directories ?? {});
    const engine = createEngine({
      metrics,
      directories,
      // Slack's bookkeeping tables exist whatever the surface (one schema), so they are always purged.
      retention: { ...config.retention, purgers: [purgeSlackBookkeeping] },
      leaseTtlMs: leases.ttlMs,
      pool: db.pool,
      queue,
      delivery,
      runner,
      workflows,
      config: config.workflows,
      clock,
      logger,
    });
    return {
      config,
      db,
      documents,
      engine,
      runner,
      queue,
      checkpointer,
      metrics,
      parts,
      close: async () => {
        await engine.stop();
        await queue.stop();
        if (!options.database) await db.close();
      },
    };
  } catch (error) {
    if (!options.database) await db.close();
    throw error;
  }
}

export interface SlackService {
  signoff: Signoff;
  /** The HTTP port, once listening: Slack's requests and /healthz (HTTP mode), or /healthz alone (Socket Mode, worker role). */
  port?: number;
  /** Resolves once every Slack request taken so far has been handled (its work after the ack done). */
  settled(): Promise<void>;
  /** Stops taking requests, lets the accepted ones finish (up to a few seconds), then closes. */
  stop(): Promise<void>;
}

/** How long a stopping process waits for work it acked: a decision acked is a decision kept. */
const DRAIN_MS = 10_000;

/**
 * Decisions recorded at once by one web process; more clicks wait their turn after their ack,
 * and none start while a burst of requests is still being acked (at most 2 s).
 */
const AFTER_ACK = { size: 8, quietMs: 20, maxWaitMs: 2000 };

/**
 * Two quick retries of a repeatable Web API call Slack did not answer (never of a post; see
 * delivery-client.ts); beyond that the event's own backoff takes over.
 */
const DELIVERY_RETRIES = { retries: 2, factor: 2, minTimeout: 200, maxTimeout: 1000 };
/** How long delivery waits for Slack's answer to one call. */
const DELIVERY_TIMEOUT_MS = 10_000;

export interface SlackOptions extends OpenOptions {
  /** Where the work after an ack reads the time (tests move it); real time by default. */
  afterAckClock?: AfterAckClock;
}

/** Runs the Slack surface: the engine's workers for Slack tasks and the Bolt app. */
export async function startSlack(config: Config, options: SlackOptions): Promise<SlackService> {
  const slack = config.slack;
  if (!slack) throw new Error('startSlack needs Slack settings');
  const { logger } = options;
  // A team that forgot the key must not get canned answers in its channels without a word.
  if (!config.model.apiKey) {
    logger.warn(
      'no OPENAI_API_KEY or OPENAI_BASE_URL: agents answer with the offline scripted model (marked [offline model]); set OPENAI_API_KEY, or OPENAI_BASE_URL for a local server, for a real model',
    );
  }
  // Delivery's own client. It keeps to Slack's limits per method (and per channel for posts),
  // shared with the other processes through Postgres; a 429 comes back to the engine, which
  // reschedules that one event, instead of pausing every call this client makes; a failing call
  // gives up within seconds (the default policy retries for about 30 minutes) and the event is
  // retried with backoff; a post is never sent twice by the client (see delivery-client.ts).
  // Slack's directory, made with the database: the engine asks it who is in which user group
  // (before any transaction), the listeners where a person stands.
  let directory!: Directory;
  const signoff = await openSignoff(config, {
    ...options,
    directories: (db) => {
      directory = createSlackDirectory({
        slack,
        pool: db.pool,
        logger,
        clock: options.clock,
        limits: createRateLimits(db.pool),
      });
      return { slack: slackGroups(directory) };
    },
    sinks: (db) => {
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
      return { slack: createSlackSink({ client, pool: db.pool, logger }) };
    },
  });
  let ready = false;
  const listen = config.role !== 'worker';
  // Until it has reached Slack (auth.test; a Socket Mode process: its socket too) a process that
  // listens says on /healthz how reaching Slack goes.
  const connection = listen ? watchSlackConnection(slack.apiUrl ?? 'https://slack.com/api/') : undefined;
  const healthy: Healthy = async () => {
    if (!ready) return connection?.problem() ?? 'starting';
    const answers = await signoff.db.pool.query('SELECT 1').then(
      () => true,
      () => false,
    );
    return answers || 'unhealthy: the database does not answer';
  };
  const afterAck = createAfterAck(AFTER_ACK, options.afterAckClock);
  // Aborted by stop(): listeners drop what waits on a timer (a Home tab redrawn after a 429).
  const stopping = new AbortController();
  const app = createSlackApp({
    slack,
    directory,
    engine: signoff.engine,
    pool: signoff.db.pool,
    logger,
    healthy,
    metrics: { metrics: signoff.metrics, token: config.metricsToken },
    afterAck,
    stopping: stopping.signal,
    connection,
    // The listeners keep to the budget delivery keeps: one limit per method, for every process.
    limits: createRateLimits(signoff.db.pool),
  });
  // Bolt answers /healthz only in HTTP mode; a socket or worker process answers on its own, from
  // before Slack is reached (which may take long), so that a health check never meets silence.
  const health =
    listen && slack.mode.kind === 'http'
      ? undefined
      : await startHealthServer(config.port, healthy, {
          metrics: signoff.metrics,
          token: config.metricsToken,
        });
  const mode = slack.mode;
  let server: unknown;
  try {
    // A web replica only answers Slack, so a burst of graph runs never delays an ack; a worker only
    // runs graphs and posts their results, so it must not take Slack's requests or socket events.
    // Retention runs here, in the server's workers with the server's settings; never in a terminal.
    if (config.role !== 'web') await signoff.engine.work('slack', config.queue.workers, { retention: true });
    // Bolt takes requests once Slack has said who the bot is. If Slack cannot be reached, an HTTP
    // process answers /healthz on its port meanwhile (a server of its own, until Bolt's takes over).
    if (listen)
      await initSlackApp(app, {
        logger,
        waiting: async () =>
          mode.kind === 'http'
            ? (
                await startHealthServer(mode.port, healthy, {
                  metrics: signoff.metrics,
                  token: config.metricsToken,
                })
              ).stop
            : async () => undefined,
      });
    server = listen
      ? ((await (slack.mode.kind === 'http' ? app.start(slack.mode.port) : app.start())) as unknown)
      : undefined;
  } catch (error) {
    await health?.stop();
    await signoff.close();
    throw error;
  }
  connection?.connected();
  ready = true;
  // Starts a web process left half done (it died between a command's root message and its task)
  // are finished by the web processes still up, or by this one once it is back.
  const sweep = listen
    ? setInterval(
        () =>
          void finishUnfinishedStarts(
            { engine: signoff.engine, pool: signoff.db.pool, logger, afterAck },
            app.client,
          ).catch((err) => logger.warn({ err }, 'the sweep of unfinished starts failed')),
        UNFINISHED_START_MS / 4,
      )
    : undefined;
  sweep?.unref();
  const address = (server as { address?: () => unknown } | undefined)?.address?.();
  const port = typeof address === 'object' && address ? (address as { port: number }).port : health?.port;
  logger.info(
    { role: config.role, mode: listen ? slack.mode.kind : undefined, port },
    listen ? 'signoff is listening to Slack' : 'signoff is running Slack tasks (worker role)',
  );
  return {
    signoff,
    port,
    settled: () => afterAck.idle(),
    stop: async () => {
      ready = false;
      clearInterval(sweep);
      stopping.abort();
      if (listen) await app.stop();
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([afterAck.idle(), new Promise((r) => (timer = setTimeout(r, DRAIN_MS)))]);
      clearTimeout(timer);
      await health?.stop();
      await signoff.close();
    },
  };
}
