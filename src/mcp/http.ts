/**
 * MCP over streamable HTTP at /mcp, on the app's port beside the API (Bolt's custom routes, plain
 * node:http), for the API's clients and their bearer tokens. Each client's `initialize` opens a
 * session (the SDK's transport, kept in this process): a client's `notifications/cancelled` comes
 * in a request of its own, and only the session that runs the call can abort it. So a deployment
 * with several web processes routes /mcp by the `Mcp-Session-Id` header (sticky sessions); a
 * session this process does not know is answered 404, and the client starts a new one.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Route } from '../api/http.js';
import type { ApiClient } from '../config/api-clients.js';
import type { Logger } from '../logger.js';

export const MCP_PATH = '/mcp';
/** A JSON-RPC message's body: a tool call's content is at most 90,000 characters. */
const BODY_MAX_BYTES = 256 * 1024;
/** Sessions one process keeps at once: a client that opens them in a loop is refused, not fed. */
const SESSIONS_MAX = 1000;
/** Sessions one client keeps at once in a process: one client cannot take every other's place. */
const CLIENT_SESSIONS_MAX = 50;
/** A session with no request open (no call waiting) for this long is closed. */
const IDLE_MS = 30 * 60_000;

interface Session {
  transport: StreamableHTTPServerTransport;
  server: McpServer;
  client: string;
  /** Requests under way (a call waiting for a decision holds its response open). */
  open: number;
  lastSeen: number;
}

/** A JSON-RPC error, as the SDK's transport answers one. */
function rpcError(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > BODY_MAX_BYTES) throw new RangeError('too large');
    chunks.push(chunk as Buffer);
  }
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

export function mcpRoutes(deps: {
  authenticate(header: string | undefined): ApiClient | undefined;
  /** A new MCP server for one client's session. */
  serverFor(client: ApiClient): McpServer;
  /** Takes one of the client's calls (its rate): 0 when it may go, else the milliseconds to wait. */
  take(client: ApiClient): Promise<number>;
  logger: Logger;
}): { routes: Route[]; stop(): Promise<void> } {
  const sessions = new Map<string, Session>();
  const sweep = setInterval(() => {
    const now = Date.now();
    for (const [id, s] of sessions)
      if (s.open === 0 && now - s.lastSeen > IDLE_MS)
        void s.transport.close().finally(() => sessions.delete(id));
  }, IDLE_MS / 10);
  sweep.unref();

  /** Serves one request on a session, counting it open until its response ends. */
  async function serve(s: Session, req: IncomingMessage, res: ServerResponse, body?: unknown) {
    s.open += 1;
    s.lastSeen = Date.now();
    res.once('close', () => {
      s.open -= 1;
      s.lastSeen = Date.now();
    });
    await s.transport.handleRequest(req, res, body);
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const client = deps.authenticate(req.headers.authorization);
    if (!client)
      return rpcError(
        res,
        401,
        'Send a valid token: Authorization: Bearer <token> (see api.clients in the config file).',
        { 'www-authenticate': 'Bearer' },
      );
    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      const s = sessions.get(sessionId);
      // Another client's session is as unknown as one that never was.
      if (!s || s.client !== client.name)
        return rpcError(res, 404, 'Session not found; initialize a new session.');
      const body = req.method === 'POST' ? await readBody(req) : undefined;
      return serve(s, req, res, body);
    }
    if (req.method !== 'POST')
      return rpcError(res, 400, 'No session: POST an initialize request first (Mcp-Session-Id).');
    const body = await readBody(req);
    if (!isInitializeRequest(body))
      return rpcError(res, 400, 'No session: send initialize first, then the Mcp-Session-Id it returns.');
    if (sessions.size >= SESSIONS_MAX)
      return rpcError(res, 503, 'Too many MCP sessions open on this process; try again in a minute.');
    const mine = [...sessions.values()].filter((s) => s.client === client.name).length;
    if (mine >= CLIENT_SESSIONS_MAX)
      return rpcError(
        res,
        429,
        `Client ${client.name} has ${mine} MCP sessions open here; close one (DELETE /mcp) or reuse it.`,
      );
    // Opening a session counts against the client's rate, as a call does.
    const wait = await deps.take(client);
    if (wait > 0) {
      const seconds = Math.ceil(wait / 1000);
      return rpcError(res, 429, `Too many calls for client ${client.name}; try again in ${seconds} s.`, {
        'retry-after': String(seconds),
      });
    }
    const server = deps.serverFor(client);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, session);
      },
    });
    const session: Session = { transport, server, client: client.name, open: 0, lastSeen: Date.now() };
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    await serve(session, req, res, body);
  }

  const handler: Route['handler'] = (req, res) => {
    handle(req, res).catch((error) => {
      if (res.headersSent) return void res.end();
      if (error instanceof SyntaxError)
        return rpcError(res, 400, 'The body is not JSON; send a JSON-RPC message.');
      if (error instanceof RangeError)
        return rpcError(res, 413, `The body is over ${BODY_MAX_BYTES / 1024} KB; send less content.`);
      deps.logger.error({ err: error }, 'an MCP request failed');
      rpcError(res, 503, 'signoff could not answer just now; try again in a few seconds.');
    });
  };

  return {
    routes: [{ path: MCP_PATH, method: ['GET', 'POST', 'DELETE'], handler }],
    stop: async () => {
      clearInterval(sweep);
      // A call under way ends without cancelling its review: the client reads it again later.
      await Promise.all([...sessions.values()].map((s) => s.transport.close()));
      sessions.clear();
    },
  };
}
