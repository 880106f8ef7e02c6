/**
 * The only place things are wired together: the configuration, the engine (`openSignoff`:
 * database, checkpointer, runtime, workflows) and a surface on it (`startSlack`, `startTerminal`):
 * each surface gives the engine its parts (its sink, its directory) and then runs on it.
 * `openSignoff` alone serves the tests and the benchmarks.
 */
import type { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import { createAsks } from './api/asks.js';
import { createClientAuth } from './api/clients.js';
import { createDoors } from './api/doors.js';
import { createUnavailable } from './api/unavailable.js';
import { type ScenarioTest, startTerminalSurface, type TerminalIo, terminalParts } from './cli/surface.js';
import type { ApiClient } from './config/api-clients.js';
import type { Config } from './config/config.js';
import { workflowSettings } from './config/workflows.js';
import { type Database, openDatabase } from './db/database.js';
import { condenseOutages } from './db/outages.js';
import { createDocuments, type Documents } from './docs/documents.js';
import type { Engine } from './engine/index.js';
import {
  AGENT_METADATA_KEY,
  type Clock,
  createDelivery,
  createEngine,
  createMetrics,
  createRunner,
  createRuntime,
  createUsageCounter,
  type GroupDirectory,
  type LiveView,
  type LoadedWorkflow,
  type Metrics,
  type Runner,
  type Runtime,
  type Sink,
  type Surface,
  setupCheckpointer,
  systemClock,
  type Task,
} from './engine/index.js';
import { createModelFor, type ModelFor } from './llm/models.js';
import { scenarioModels } from './llm/scenario-models.js';
import type { Logger } from './logger.js';
import { type McpClosed, serveStdio } from './mcp/stdio.js';
import { createMcpServer } from './mcp/tools.js';
import { slackEngineParts, type ThinkingClock } from './slack/engine-parts.js';
import { purgeSlackBookkeeping } from './slack/retention.js';
import {
  type AfterAckClock,
  type SlackSurface,
  startSlackDoorStarts,
  startSlackSurface,
} from './slack/surface.js';
import { ownWorkflowDescription } from './workflows/catalog.js';
import { loadCustomWorkflow } from './workflows/custom.js';
import { declaredWorkflow } from './workflows/declared/declared-graph.js';
import { BUILT_IN_WORKFLOWS } from './workflows/index.js';
import { remoteWorkflow } from './workflows/remote/remote-workflow.js';
import type { WorkflowDefinition, WorkflowParts } from './workflows/shared/types.js';

export interface Signoff {
  config: Config;
  db: Database;
  /** The logger given, its database outages condensed: what the surfaces on this engine log with. */
  logger: Logger;
  documents: Documents;
  engine: Engine;
  runner: Runner;
  runtime: Runtime;
  checkpointer: PostgresSaver;
  /** Prometheus metrics (GET /metrics where the process serves HTTP). */
  metrics: Metrics;
  /** What each workflow is made of, by name: scenario files are checked against it. */
  parts: ReadonlyMap<string, WorkflowParts>;
  close(): Promise<void>;
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
  /** What each surface shows of a run while it goes (words as written); a function when it needs the database. */
  lives?: Partial<Record<Surface, LiveView>> | ((db: Database) => Partial<Record<Surface, LiveView>>);
  /** How often a run may redraw its plan (a second; tests that need a run to count as quick set more). */
  planEveryMs?: number;
}

export async function openSignoff(config: Config, options: OpenOptions): Promise<Signoff> {
  const db =
    options.database ??
    (await openDatabase({
      url: config.database.url,
      dataDir: config.database.dataDir,
      logger: options.logger,
      poolSize: config.queue.workers * 2 + 10,
    }));
  // While the database is down, one line for the outage rather than one per poll (db/outages.ts).
  const logger = condenseOutages(options.logger, db.pool);
  try {
    const checkpointer = await setupCheckpointer(db.pool);
    const runtime = createRuntime({
      pool: db.pool,
      heartbeats: db.heartbeats,
      ttlSeconds: config.queue.leaseSeconds,
      logger,
    });
    const sinks = typeof options.sinks === 'function' ? options.sinks(db) : (options.sinks ?? {});
    const delivery = createDelivery({ pool: db.pool, runtime, sinks, logger });
    const modelFor = options.modelFor ?? createModelFor(config.model);
    const usage = createUsageCounter({ pool: db.pool, config: config.workflows, logger });
    const documents = createDocuments(db.pool);
    const workflows = new Map<string, LoadedWorkflow>();
    const custom = await Promise.all(
      Object.entries(config.workflows.workflows)
        .filter(([, w]) => w.module)
        .map(([name, w]) => loadCustomWorkflow(name, w, config.configPath)),
    );
    // On a LangGraph server: run through its SDK (workflows/remote/).
    const remote = Object.entries(config.workflows.workflows)
      .filter(([, w]) => w.remote)
      .map(([name, w]) => remoteWorkflow(name, w));
    // Declared in the config file (stages): built by the declared-workflow builder.
    const declared = Object.entries(config.workflows.workflows)
      .filter(([, w]) => w.stages && !w.module && !w.remote)
      .map(([name, w]) => declaredWorkflow(name, ownWorkflowDescription(name, w)));
    const parts = new Map<string, WorkflowParts>();
    for (const definition of [
      ...(options.workflows ?? BUILT_IN_WORKFLOWS),
      ...custom,
      ...remote,
      ...declared,
    ]) {
      const settings = workflowSettings(config.workflows, definition.name);
      const agents = new Set<string>();
      const graph = definition.build({
        // Every agent's model is made when its graph is built: that names the agents.
        modelFor: (agent) => {
          agents.add(agent.name);
          // Its calls say whose words they stream (live.ts), whichever model it is.
          const model = modelFor(agent);
          model.metadata = { ...model.metadata, [AGENT_METADATA_KEY]: agent.name };
          // What it uses counts on the task that called it (model-usage.ts).
          usage.count(model);
          return model;
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
      runtime,
      delivery,
      workflows,
      config: config.workflows,
      clock,
      logger,
      onRun: options.onRun,
      planEveryMs: options.planEveryMs,
      lives: typeof options.lives === 'function' ? options.lives(db) : options.lives,
      usage,
    });
    const metrics = createMetrics(db.pool, runtime);
    const directories =
      typeof options.directories === 'function' ? options.directories(db) : (options.directories ?? {});
    const engine = createEngine({
      metrics,
      directories,
      // Slack's bookkeeping tables exist whatever the surface (one schema), so they are always purged.
      retention: { ...config.retention, purgers: [purgeSlackBookkeeping] },
      pool: db.pool,
      runtime,
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
      logger,
      documents,
      engine,
      runner,
      runtime,
      checkpointer,
      metrics,
      parts,
      close: async () => {
        // Runs under way stop at once, applying nothing, and ask to run again: the next process
        // takes them from their last checkpoint, now rather than once their leases run out. No
        // job is claimed any more, the jobs under way finish, then the rest stops.
        runner.stop();
        await runtime.stop();
        await engine.stop();
        if (!options.database) await db.close();
      },
    };
  } catch (error) {
    if (!options.database) await db.close();
    throw error;
  }
}

export interface SlackService extends SlackSurface {
  signoff: Signoff;
  /** Stops the surface (the requests it accepted finish, up to a few seconds), then closes the engine. */
  stop(): Promise<void>;
}

export interface SlackOptions extends OpenOptions {
  /** Where the work after an ack reads the time (tests move it); real time by default. */
  afterAckClock?: AfterAckClock;
  /** When a run sets its DM thread's thinking status again (tests move it); real time by default. */
  thinkingClock?: ThinkingClock;
  /** Aborted by a stop asked for while it starts: the start gives up and closes what it opened. */
  stopping?: AbortSignal;
  /** How often an MCP call waiting for a decision says so (tests shorten it). */
  mcpProgressEveryMs?: number;
  /** How long an MCP call that hears no progress waits before answering pending (tests shorten it). */
  mcpUnheardWaitMs?: number;
  /** How long a Socket Mode socket may be down before /healthz says so (tests shorten it). */
  socketDownGraceMs?: number;
}

/** The engine opened with Slack's parts (its sink, live view and directory). */
async function openSlackSignoff(config: Config, options: SlackOptions, who: string) {
  if (!config.slack) throw new Error(`${who} needs Slack settings`);
  const slack = slackEngineParts(config.slack, options);
  const signoff = await openSignoff(config, {
    ...options,
    sinks: slack.sinks,
    lives: slack.lives,
    directories: slack.directories,
  });
  return { slack, signoff };
}

/** Runs signoff on Slack: the engine, given Slack's sink and directory, and the Slack surface. */
export async function startSlack(config: Config, options: SlackOptions): Promise<SlackService> {
  const { slack, signoff } = await openSlackSignoff(config, options, 'startSlack');
  const { logger } = signoff;
  try {
    // A stop asked for while the database started: nothing of the surface (its workers) begins.
    options.stopping?.throwIfAborted();
    const surface = await startSlackSurface({
      config,
      signoff,
      logger,
      directory: slack.directory(signoff.db),
      live: slack.live(signoff.db),
      afterAckClock: options.afterAckClock,
      stopping: options.stopping,
      socketDownGraceMs: options.socketDownGraceMs,
      doors: createDoors({
        pool: signoff.db.pool,
        engine: signoff.engine,
        workflows: config.workflows,
        logger,
        mcpProgressEveryMs: options.mcpProgressEveryMs,
        mcpUnheardWaitMs: options.mcpUnheardWaitMs,
      }),
    });
    return {
      ...surface,
      signoff,
      stop: async () => {
        await surface.stop();
        await signoff.close();
      },
    };
  } catch (error) {
    await signoff.close();
    throw error;
  }
}

export interface McpOptions extends SlackOptions {
  /** The API client the local MCP client asks as (the operator vouches for the process). */
  client: ApiClient;
  io: { stdin: NodeJS.ReadableStream; stdout: NodeJS.WritableStream };
}

/**
 * `signoff mcp`: the MCP server over stdio, for one client. Its asks are posted in Slack through
 * the Web API; the engine works Slack's queue here too (as `npm start` does), so a review goes on
 * whether or not a server runs; clicks reach the process that takes Slack's requests.
 */
export async function startMcp(
  config: Config,
  options: McpOptions,
): Promise<{ closed: Promise<McpClosed>; stop(): Promise<void> }> {
  const { signoff } = await openSlackSignoff(config, options, 'startMcp');
  const { logger } = signoff;
  try {
    const doors = await startSlackDoorStarts({ config, signoff, logger });
    const asks = createAsks({
      pool: signoff.db.pool,
      engine: signoff.engine,
      starts: doors.starts,
      workflows: config.workflows,
      logger,
    });
    const auth = createClientAuth(signoff.db.pool, config.workflows.api);
    const server = createMcpServer(
      {
        asks,
        take: auth.take,
        logger,
        unavailable: createUnavailable(signoff.db.pool),
        progressEveryMs: options.mcpProgressEveryMs,
        unheardWaitMs: options.mcpUnheardWaitMs,
      },
      options.client,
    );
    const stdio = await serveStdio(server, options.io);
    let stopped: Promise<void> | undefined;
    return {
      closed: stdio.closed,
      // Once, whether stdin ended or a signal came first (or both).
      stop: () => {
        stopped ??= (async () => {
          await stdio.close();
          await doors.stop();
          await signoff.close();
        })();
        return stopped;
      },
    };
  } catch (error) {
    await signoff.close();
    throw error;
  }
}

export interface TerminalService {
  signoff: Signoff;
  /** The command (or the scenario) under way: its exit code. */
  command: Promise<number>;
  /** The command's name as the screen suggests it (with the config file, when there is one). */
  cli: string;
}

export interface TerminalOptions extends Pick<OpenOptions, 'logger' | 'database'> {
  argv: readonly string[];
  io: TerminalIo;
  /** A scenario file's test (`signoff test`) instead of a command. */
  test?: ScenarioTest;
}

/** Runs a command in the terminal: the engine, given the terminal's sink and models, and the terminal surface. */
export async function startTerminal(config: Config, options: TerminalOptions): Promise<TerminalService> {
  const { argv, io, test } = options;
  const parts = terminalParts(config, argv, io, test);
  const signoff = await openSignoff(config, {
    logger: options.logger,
    database: options.database,
    sinks: parts.sinks,
    lives: parts.lives,
    // A scenario runs on the offline model, its agents answering what the file says.
    modelFor: test
      ? scenarioModels(test.scenario)
      : createModelFor(config.model, { callbacks: parts.modelCallbacks }),
    onRun: parts.onRun,
  });
  return {
    signoff,
    command: startTerminalSurface({ config, signoff, parts, argv, io, test }),
    cli: parts.cli,
  };
}
