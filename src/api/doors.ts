/**
 * The other doors to the engine, as a process that takes Slack's requests serves them: the HTTP
 * API's routes (and MCP over HTTP) on its port, and the callbacks its asks are owed.
 */
import type pg from 'pg';
import type { WorkflowsConfig } from '../config/workflows.js';
import type { ChannelStarts, Engine } from '../engine/index.js';
import type { Logger } from '../logger.js';
import { mcpRoutes } from '../mcp/http.js';
import { createMcpServer } from '../mcp/tools.js';
import { createAsks } from './asks.js';
import { createCallbackKey } from './callback-key.js';
import { startCallbacks } from './callbacks.js';
import { createClientAuth } from './clients.js';
import { apiRoutes, type Route } from './http.js';
import { createUnavailable } from './unavailable.js';

export interface DoorsDeps {
  pool: pg.Pool;
  engine: Engine;
  workflows: WorkflowsConfig;
  logger: Logger;
  /** How often an MCP call waiting for a decision says so (tests shorten it). */
  mcpProgressEveryMs?: number;
  /** How long an MCP call that hears no progress waits before answering pending (tests shorten it). */
  mcpUnheardWaitMs?: number;
}

export function createDoors(deps: DoorsDeps) {
  return (starts: ChannelStarts): { routes: Route[]; stop(): Promise<void> } => {
    const asks = createAsks({ ...deps, starts });
    const auth = createClientAuth(deps.pool, deps.workflows.api);
    const stopping = new AbortController();
    const key = createCallbackKey(deps.pool);
    const unavailable = createUnavailable(deps.pool);
    const callbacks = startCallbacks({
      pool: deps.pool,
      asks,
      api: deps.workflows.api,
      key,
      logger: deps.logger,
    });
    const mcp = mcpRoutes({
      authenticate: auth.authenticate,
      take: auth.take,
      serverFor: (client) =>
        createMcpServer(
          {
            asks,
            take: auth.take,
            logger: deps.logger,
            unavailable,
            progressEveryMs: deps.mcpProgressEveryMs,
            unheardWaitMs: deps.mcpUnheardWaitMs,
          },
          client,
        ),
      logger: deps.logger,
    });
    return {
      routes: [
        ...apiRoutes({ asks, auth, key, logger: deps.logger, stopping: stopping.signal, unavailable }),
        ...mcp.routes,
      ],
      stop: async () => {
        stopping.abort();
        await mcp.stop();
        await callbacks.stop();
      },
    };
  };
}
