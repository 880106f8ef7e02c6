/**
 * The HTTP API's routes under /api/v1, served on the app's port beside Slack's requests (Bolt's
 * custom routes, plain node:http): create a review, read it (or wait for it: `?wait=` seconds, up
 * to 30), cancel it, and the OpenAPI document. Every answer is JSON; a refusal says what to fix.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { isSignoffError } from '../errors.js';
import type { Logger } from '../logger.js';
import { createAskSchema } from './ask-shapes.js';
import type { Asks } from './asks.js';
import type { CallbackKey } from './callback-key.js';
import type { ClientAuth } from './clients.js';
import { openApiDocument } from './openapi.js';

export interface Route {
  path: string;
  method: string[];
  handler: (req: IncomingMessage & { params?: unknown }, res: ServerResponse) => void;
}

export const API_PREFIX = '/api/v1';
/** A review's content is at most 90,000 characters (its card's limit), a tool call's about as much. */
const BODY_MAX_BYTES = 256 * 1024;
/** The longest a read waits for a decision: under common proxies' 60 s idle timeouts. */
export const WAIT_MAX_SECONDS = 30;

const STATUS: Record<string, number> = {
  not_allowed: 403,
  too_many_tasks: 429,
  unknown_workflow: 422,
  workflow_disabled: 403,
  empty_task: 400,
  idempotency_mismatch: 409,
  still_starting: 409,
  database_unavailable: 503,
  // Slack did not say who is in a group just now: worth asking again, unlike a refusal.
  directory_unavailable: 503,
};

class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly fields?: Record<string, string>,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  res.end(JSON.stringify(body));
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > BODY_MAX_BYTES)
      // The rest is not read: the connection closes once the answer is out.
      throw new ApiError(
        413,
        'too_large',
        `The body is over ${BODY_MAX_BYTES / 1024} KB; send less content.`,
        undefined,
        { connection: 'close' },
      );
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null');
  } catch {
    throw new ApiError(
      400,
      'invalid_json',
      'The body is not JSON; send a JSON object (content-type: application/json).',
    );
  }
}

/** zod's issues as one sentence and a message per field. */
function invalid(error: z.ZodError): ApiError {
  const fields: Record<string, string> = {};
  for (const issue of error.issues) fields[issue.path.join('.') || '(body)'] ??= issue.message;
  const list = Object.entries(fields).map(([f, m]) => `${f}: ${m}`);
  return new ApiError(400, 'invalid_request', `Fix these fields: ${list.join('; ')}.`, fields);
}

const idSchema = z.uuid();

export function apiRoutes(deps: {
  asks: Asks;
  auth: ClientAuth;
  logger: Logger;
  /** Aborted when the process stops: long-polls answer at once. */
  stopping?: AbortSignal;
  /** The key callbacks are signed with: its public half is served for clients to check them. */
  key: CallbackKey;
  /** The sentence for a call that failed on signoff's side, naming what did not answer (unavailable.ts). */
  unavailable(error: unknown): string;
}): Route[] {
  const { asks, auth } = deps;

  /** Runs a handler for an authenticated client within its rate; every failure is a JSON answer. */
  const guarded =
    (
      fn: (
        client: NonNullable<ReturnType<ClientAuth['authenticate']>>,
        req: Parameters<Route['handler']>[0],
        res: ServerResponse,
      ) => Promise<void>,
    ) =>
    (req: Parameters<Route['handler']>[0], res: ServerResponse) => {
      void (async () => {
        try {
          const client = auth.authenticate(req.headers.authorization);
          if (!client) {
            throw new ApiError(
              401,
              'unauthorized',
              'Send a valid token: Authorization: Bearer <token> (see api.clients in the config file).',
              undefined,
              {
                'www-authenticate': 'Bearer',
              },
            );
          }
          const waitMs = await auth.take(client);
          if (waitMs > 0) {
            const seconds = Math.ceil(waitMs / 1000);
            throw new ApiError(
              429,
              'rate_limited',
              `Too many calls for client ${client.name}; try again in ${seconds} s.`,
              undefined,
              {
                'retry-after': String(seconds),
              },
            );
          }
          await fn(client, req, res);
        } catch (error) {
          if (res.headersSent) return void res.end();
          if (error instanceof ApiError) {
            return send(
              res,
              error.status,
              {
                error: {
                  code: error.code,
                  message: error.message,
                  ...(error.fields ? { fields: error.fields } : {}),
                },
              },
              error.headers,
            );
          }
          if (isSignoffError(error)) {
            return send(res, STATUS[error.code] ?? 422, {
              error: { code: error.code, message: error.message },
            });
          }
          deps.logger.error({ err: error, path: req.url }, 'an API call failed');
          send(res, 503, {
            error: { code: 'unavailable', message: deps.unavailable(error) },
          });
        }
      })();
    };

  const askId = (req: Parameters<Route['handler']>[0]) => {
    const id = String((req.params as { id?: unknown } | undefined)?.id ?? '');
    if (!idSchema.safeParse(id).success) throw new ApiError(404, 'not_found', `There is no review ${id}.`);
    return id;
  };
  const notFound = (id: string) => new ApiError(404, 'not_found', `There is no review ${id} of this client.`);

  return [
    {
      path: `${API_PREFIX}/openapi.json`,
      method: ['GET'],
      handler: (_req, res) => send(res, 200, openApiDocument()),
    },
    {
      path: `${API_PREFIX}/callback-key`,
      method: ['GET'],
      handler: (_req, res) =>
        void deps.key.publicPem().then(
          (publicKey) => send(res, 200, { algorithm: 'ed25519', publicKey }),
          (error) => {
            deps.logger.error({ err: error }, 'the callback key could not be read');
            send(res, 503, {
              error: { code: 'unavailable', message: 'signoff could not read its key just now; try again.' },
            });
          },
        ),
    },
    {
      path: `${API_PREFIX}/reviews`,
      method: ['POST'],
      handler: guarded(async (client, req, res) => {
        const parsed = createAskSchema.safeParse(await readJson(req));
        if (!parsed.success) throw invalid(parsed.error);
        const key = req.headers['idempotency-key'];
        if (Array.isArray(key) || (key !== undefined && (key.length < 1 || key.length > 200))) {
          throw new ApiError(
            400,
            'invalid_request',
            'Idempotency-Key must be one header of 1 to 200 characters.',
          );
        }
        const { view, created } = await asks.create('api', client, parsed.data, key);
        send(res, created ? 201 : 200, view, { location: `${API_PREFIX}/reviews/${view.id}` });
      }),
    },
    {
      path: `${API_PREFIX}/reviews/:id`,
      method: ['GET'],
      handler: guarded(async (client, req, res) => {
        const id = askId(req);
        const url = new URL(req.url ?? '', 'http://localhost');
        const wait = url.searchParams.get('wait');
        const seconds = wait === null ? 0 : Number(wait);
        if (!Number.isFinite(seconds) || seconds < 0 || seconds > WAIT_MAX_SECONDS) {
          throw new ApiError(
            400,
            'invalid_request',
            `wait is a number of seconds from 0 to ${WAIT_MAX_SECONDS}.`,
            {
              wait: `expected 0 to ${WAIT_MAX_SECONDS}`,
            },
          );
        }
        // A client that hangs up stops the wait.
        const gone = new AbortController();
        res.on('close', () => gone.abort());
        const signal = deps.stopping ? AbortSignal.any([gone.signal, deps.stopping]) : gone.signal;
        const view =
          seconds > 0 ? await asks.wait(client, id, seconds * 1000, { signal }) : await asks.view(client, id);
        if (!view) throw notFound(id);
        send(res, 200, view);
      }),
    },
    {
      path: `${API_PREFIX}/reviews/:id/cancel`,
      method: ['POST'],
      handler: guarded(async (client, req, res) => {
        const id = askId(req);
        const view = await asks.cancel(client, id);
        if (!view) throw notFound(id);
        send(res, 200, view);
      }),
    },
  ];
}
