import { isIP } from 'node:net';
import pg from 'pg';

/** The narrow seam every store takes: a pool or a client inside a transaction. */
export interface Queryable {
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(
    text: string,
    values?: unknown[],
  ): Promise<pg.QueryResult<R>>;
}

/**
 * Runs `fn` with one client of `pool`. A checked-out client whose connection dies while it waits
 * between queries emits 'error', which would crash the process with nobody listening: here it
 * is caught, the next query fails instead, and the broken client is discarded, not pooled.
 * `discard` does the same on purpose (a client left holding a session lock).
 */
export async function withClient<T>(
  pool: pg.Pool,
  fn: (client: pg.PoolClient, discard: (why: Error) => void) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  const onError = (error: Error) => {
    broken = error;
  };
  client.on('error', onError);
  try {
    return await fn(client, onError);
  } finally {
    client.off('error', onError);
    client.release(broken);
  }
}

/** Runs `fn` in a transaction on one client of `pool`; rolls back and rethrows on error. */
export async function inTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  return withClient(pool, async (client) => {
    try {
      await client.query('BEGIN');
      const result = await fn(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  });
}

/**
 * Runs `fn` so that its statements commit together or not at all: in a transaction of its own
 * when `db` is the pool; a client is taken to be inside its caller's transaction (every caller
 * that hands one down opened it with `inTransaction`).
 */
export function atomically<T>(db: Queryable, fn: (db: Queryable) => Promise<T>): Promise<T> {
  return db instanceof pg.Pool ? inTransaction(db, fn) : fn(db);
}

/** Where a pool's connections go: host and port, and the Unix socket when it uses one. */
interface Endpoint {
  host: string;
  port: number;
  socket?: string;
}

function endpointOf(pool: pg.Pool): Endpoint {
  const options = pool.options as pg.PoolConfig;
  let host = options.host ?? 'localhost';
  let port = Number(options.port ?? 5432);
  if (options.connectionString) {
    const url = new URL(options.connectionString);
    host = url.searchParams.get('host') ?? (decodeURIComponent(url.hostname) || host);
    port = Number(url.port || url.searchParams.get('port') || port);
  }
  host = host.replace(/^\[(.*)\]$/, '$1');
  return host.startsWith('/') ? { host, port, socket: `${host}/.s.PGSQL.${port}` } : { host, port };
}

/** Socket-level failures Node reports with these codes (and the syscall that met them). */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOENT',
]);

type Link = {
  code?: unknown;
  syscall?: unknown;
  address?: unknown;
  port?: unknown;
  hostname?: unknown;
  severity?: unknown;
  status?: unknown;
  message?: unknown;
  errors?: unknown;
  cause?: unknown;
};

/** Another service's client: fetch (the model, a LangGraph server) or an SDK's HTTP error. */
function fromHttpClient(e: Link, message: string): boolean {
  return (
    (e instanceof TypeError && message === 'fetch failed') ||
    typeof e.status === 'number' ||
    /^API(Connection|ConnectionTimeout)?Error$/.test(String((e as object).constructor?.name))
  );
}

/** The calls a socket makes; a file's ENOENT (open, stat…) is no connection's. */
const SOCKET_CALLS = new Set(['connect', 'read', 'write', 'writev', 'getaddrinfo']);

/**
 * A socket error names where it failed to connect; one on an open connection names nothing, and is
 * the database's only when no other client's error carried it (`wrapped`: a link above it had the
 * socket's code without being the socket's, as an HTTP library's error has for the reset it met).
 */
function reached(e: Link, db: Endpoint, wrapped: boolean): boolean {
  if (!SOCKET_CALLS.has(String(e.syscall))) return false;
  if (typeof e.hostname === 'string') return e.hostname === db.host;
  if (typeof e.address !== 'string') return !wrapped;
  if (db.socket) return e.address === db.socket;
  return e.port === db.port && (isIP(db.host) === 0 || e.address === db.host);
}

/**
 * The database's connection failures (server gone, refused, shutting down): worth retrying, not
 * the task's fault. Only the database's: a model or any other service that cannot be reached
 * fails the step with a sentence, so its errors, though they wrap the same `ECONNREFUSED`, are
 * told apart by where they came from (an HTTP client) and where they failed to connect.
 */
export function isConnectionError(error: unknown, pool: pg.Pool): boolean {
  const db = endpointOf(pool);
  let e = error as Link | undefined;
  let wrapped = false;
  for (let depth = 0; e && typeof e === 'object' && depth < 8; depth++) {
    const code = typeof e.code === 'string' ? e.code : '';
    const message = typeof e.message === 'string' ? e.message : '';
    // Postgres's own: connection exceptions (class 08) and shutdowns (57P01-57P03).
    if (typeof e.severity === 'string' && /^(08...|57P0[123])$/.test(code)) return true;
    // node-postgres's own words for a connection it lost.
    if (/^Connection terminated|^Client has encountered a connection error/.test(message)) return true;
    if (fromHttpClient(e, message)) return false;
    if (SOCKET_CODES.has(code)) {
      if (typeof e.syscall === 'string') return reached(e, db, wrapped);
      // Node's AggregateError when every address of a name refused (e.g. localhost's ::1 and 127.0.0.1).
      if (Array.isArray(e.errors)) return e.errors.some((inner: Link) => reached(inner, db, wrapped));
      // A client's own error that carries the socket's code (an HTTP library's): what it wraps is its.
      wrapped = true;
    }
    e = e.cause === e ? undefined : (e.cause as Link | undefined);
  }
  return false;
}
