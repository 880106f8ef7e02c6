/**
 * What went wrong with a LangGraph server, told apart where it happened: the step fails with a
 * sentence about the server (failures.ts), never the model service's, and never the server's own
 * words (they stay in the log, in the error's `cause`).
 */
import type { FailureCode } from '../../failures.js';

export type RemoteFailure = Extract<
  FailureCode,
  | 'graph_server_unreachable'
  | 'graph_server_timeout'
  | 'graph_server_auth'
  | 'graph_server_refused'
  | 'graph_server_error'
  | 'graph_failed'
>;

export class RemoteGraphError extends Error {
  override name = 'RemoteGraphError';
  constructor(
    readonly failure: RemoteFailure,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Socket codes and fetch's words for a server that is not there, or went away mid-answer. */
const GONE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'UND_ERR_SOCKET',
]);
const GONE_WORDS =
  /fetch failed|terminated|other side closed|Unable to connect to LangGraph server|socket hang up/i;

/** The error and what it wraps, outermost first. */
function* chain(
  error: unknown,
): Generator<{ name?: unknown; message?: unknown; code?: unknown; status?: unknown }> {
  let current = error;
  for (let depth = 0; depth < 6 && current && typeof current === 'object'; depth++) {
    yield current as Record<string, unknown>;
    current = (current as { cause?: unknown }).cause;
  }
}

/** Any error of a call to the server (the SDK's, fetch's, a timeout's) as a RemoteGraphError. */
export function remoteFailure(error: unknown, doing: string): RemoteGraphError {
  if (error instanceof RemoteGraphError) return error;
  const fail = (failure: RemoteFailure) =>
    new RemoteGraphError(failure, `${doing}: ${String((error as Error)?.message ?? error)}`, {
      cause: error,
    });
  for (const e of chain(error)) {
    const status = typeof e.status === 'number' ? e.status : undefined;
    if (status === 401 || status === 403) return fail('graph_server_auth');
    if (status === 408) return fail('graph_server_timeout');
    if (status !== undefined && status >= 400 && status < 500) return fail('graph_server_refused');
    if (status !== undefined && status >= 500) return fail('graph_server_error');
    if (e.name === 'TimeoutError' || String(e.message).startsWith('TimeoutError'))
      return fail('graph_server_timeout');
    if (typeof e.code === 'string' && e.code === 'UND_ERR_CONNECT_TIMEOUT')
      return fail('graph_server_timeout');
    if (typeof e.code === 'string' && GONE_CODES.has(e.code)) return fail('graph_server_unreachable');
    if (e.name === 'ConnectionError' || GONE_WORDS.test(String(e.message)))
      return fail('graph_server_unreachable');
  }
  return fail('graph_server_error');
}

export const isNotFound = (error: unknown) => (error as { status?: unknown })?.status === 404;
