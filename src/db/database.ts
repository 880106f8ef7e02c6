/**
 * One pg.Pool for everything: the project's tables, LangGraph's checkpointer and the job queue.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { Logger } from '../logger.js';
import { startEmbeddedPostgres } from './embedded.js';
import { migrate, newerMigrations, readMigrations } from './migrate.js';
import { isConnectionError } from './queryable.js';

/** `migrations/` at the package root: two levels up from src/db, three from dist/src/db. */
export const MIGRATIONS_DIR = (() => {
  const here = dirname(fileURLToPath(import.meta.url));
  const candidates = [join(here, '..', '..', 'migrations'), join(here, '..', '..', '..', 'migrations')];
  return candidates.find((dir) => existsSync(dir)) ?? (candidates[0] as string);
})();

export interface Database {
  pool: pg.Pool;
  /** Two connections of their own for lease heartbeats. */
  heartbeats: pg.Pool;
  url: string;
  /** Closes the pool, then stops the embedded server if this process started one. */
  close(): Promise<void>;
}

export interface DatabaseOptions {
  url?: string;
  dataDir: string;
  logger: Logger;
  poolSize?: number;
}

/** Connects to `url`, or starts the embedded server when there is none; then migrates. */
export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  const embedded = options.url ? undefined : await startEmbeddedPostgres(options.dataDir, options.logger);
  const url = options.url ?? (embedded?.url as string);
  let closing = false;
  const connect = (max: number, idleTimeoutMillis = 10_000) => {
    // keepAlive: a connection the network dropped without a word is noticed instead of hanging.
    const pool = new pg.Pool({ connectionString: url, max, keepAlive: true, idleTimeoutMillis });
    // An idle client losing its server must not crash the process; the next query reports it, and
    // when the server went away that report is the outage's (outages.ts): one line each here would
    // be one per idle client. (Only code and message: a pg error carries its whole client object.)
    pool.on('error', (error: Error & { code?: string }) => {
      if (closing) return;
      const level = isConnectionError(error, pool) ? 'debug' : 'warn';
      options.logger[level]({ code: error.code, message: error.message }, 'idle database client failed');
    });
    // A checked-out client whose connection dies between queries emits 'error' with nobody
    // listening (pg-pool only listens while a client is idle), which would crash the process.
    // That happens inside libraries too (LangGraph's checkpointer holds clients for its
    // transactions). Every client gets a listener for life: its next query fails instead, and
    // pg-pool drops a client that failed this way when it is released.
    pool.on('connect', (client) => {
      client.on('error', (error: Error & { code?: string }) => {
        if (!closing)
          options.logger.debug({ code: error.code, message: error.message }, 'database client failed');
      });
    });
    return pool;
  };
  const pool = connect(options.poolSize ?? 20);
  // Lease heartbeats never wait behind the work they guard: when every connection of the main
  // pool is busy, a lease must still be renewed (or its run would stop for nothing). Kept open
  // a minute: heartbeats come every ten seconds (a 30 s lease), pg's default would close and
  // reopen a connection for nearly each one.
  const heartbeats = connect(2, 60_000);
  try {
    const migrations = readMigrations(MIGRATIONS_DIR);
    const applied = await migrate(pool, migrations);
    if (applied.length) options.logger.info({ applied }, 'migrations applied');
    // Not refused: during a rolling upgrade an old replica may start after a new one migrated.
    // But a rollback runs code that has never seen these tables as they are now, and says so.
    const newer = await newerMigrations(pool, migrations);
    if (newer.length)
      options.logger.warn(
        { newer, version: migrations.at(-1)?.name },
        `this database was migrated by a newer signoff (${newer.join(', ')}), which this version does not know: run the newer version on it, or restore the backup taken before the upgrade`,
      );
  } catch (error) {
    await pool.end();
    await heartbeats.end();
    await embedded?.stop();
    throw error;
  }
  return {
    pool,
    heartbeats,
    url,
    close: async () => {
      closing = true;
      await pool.end();
      await heartbeats.end();
      await embedded?.stop();
    },
  };
}
