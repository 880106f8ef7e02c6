import type pg from 'pg';

/** The narrow seam every store takes: a pool or a client inside a transaction. */
export interface Queryable {
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(
    text: string,
    values?: unknown[],
  ): Promise<pg.QueryResult<R>>;
}

/** Runs `fn` in a transaction on one client of `pool`; rolls back and rethrows on error. */
export async function inTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/** Connection-level failures (server gone, refused, shutting down): worth retrying, not the task's fault. */
export function isConnectionError(error: unknown): boolean {
  const e = error as { code?: string; cause?: unknown; message?: string } | undefined;
  if (!e) return false;
  const code = e.code ?? '';
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
