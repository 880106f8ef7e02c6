import type pg from 'pg';

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

/** Connection-level failures (server gone, refused, shutting down): worth retrying, not the task's fault. */
export function isConnectionError(error: unknown): boolean {
  const e = error as { code?: unknown; cause?: unknown; message?: string } | undefined;
  if (!e) return false;
  // A DOMException (an aborted fetch, a timed-out signal) carries a numeric code.
  const code = typeof e.code === 'string' ? e.code : '';
  if (code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03') return true;
  if (['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND'].includes(code)) return true;
  if (
    /Connection terminated|connect ECONNREFUSED|Client has encountered a connection error/i.test(
      e.message ?? '',
    )
  ) {
    return true;
  }
  return e.cause !== undefined && e.cause !== error && isConnectionError(e.cause);
}
