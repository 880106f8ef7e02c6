/**
 * Who uses an embedded data folder. Every signoff process on one folder shares one server: the
 * first starts it, the others join it, and the last to leave stops it. A lock file makes starting,
 * joining and leaving one at a time (two processes starting at once on a fresh folder would
 * otherwise both run initdb and write different passwords); a file per process says who is in.
 * PostgreSQL's own postmaster.pid still guards the data underneath: a second postmaster on one
 * folder refuses to start, whatever happens here.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { SignoffError } from '../errors.js';

/** Whether a process is running (one of another user's counts: the signal is refused, not missed). */
export function alive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Makes `dir` and the folders above it that are missing, one level at a time. Not `mkdirSync(dir,
 * { recursive: true })`: on Node 20 that loops for ever where a folder that exists refuses new
 * ones (`/proc/nope`: mkdir of it says ENOENT, of `/proc` EEXIST, and round again). Here a parent
 * that refuses ends it with mkdir's own error (ENOENT, EACCES…), whose path is the folder it
 * could not make; something other than a folder in the way is ENOTDIR.
 */
export function makeFolder(dir: string): void {
  const path = resolve(dir);
  const parent = dirname(path);
  try {
    makeOne(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || parent === path) throw error;
    makeFolder(parent);
    // Once more, its parent there now: a parent that refuses says so (ENOENT again, on /proc).
    makeOne(path);
  }
}

/** One mkdir; a folder already there is fine (another process may have made it just now). */
function makeOne(path: string): void {
  try {
    mkdirSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    if (statSync(path).isDirectory()) return;
    throw Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${path}'`), {
      code: 'ENOTDIR',
      syscall: 'mkdir',
      path,
    });
  }
}

/** A lock file whose holder died (or that was left empty for a while) is stale. */
function stale(file: string): boolean {
  try {
    const pid = Number(readFileSync(file, 'utf8').trim());
    if (pid) return !alive(pid);
    return Date.now() - statSync(file).mtimeMs > 5_000;
  } catch {
    return false;
  }
}

/**
 * Runs `fn` while holding `<dir>/pg.lock`, waiting up to `waitMs` for another process that holds
 * it (a first start runs initdb, a few seconds). A lock left by a process that died is taken over.
 */
export async function withDataDirLock<T>(dir: string, fn: () => Promise<T>, waitMs = 120_000): Promise<T> {
  const file = join(dir, 'pg.lock');
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      writeFileSync(file, String(process.pid), { flag: 'wx' });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (stale(file)) {
        rmSync(file, { force: true });
        continue;
      }
      if (Date.now() > deadline) {
        throw new SignoffError(
          'config_invalid',
          `Another signoff has been starting or stopping the embedded PostgreSQL in ${dir} for ${Math.round(waitMs / 1000)} s. If no signoff is running, delete ${file} and try again.`,
        );
      }
      await sleep(50);
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(file, { force: true });
  }
}

const clientsDir = (dir: string) => join(dir, 'pg.clients');

/** Says this process uses the server (call while holding the lock). */
export function enter(dir: string): void {
  makeFolder(clientsDir(dir));
  writeFileSync(join(clientsDir(dir), String(process.pid)), '');
}

/** This process no longer uses the server; returns the others still running (call while holding the lock). */
export function leave(dir: string): number[] {
  rmSync(join(clientsDir(dir), String(process.pid)), { force: true });
  let others: number[] = [];
  try {
    others = readdirSync(clientsDir(dir)).map(Number);
  } catch {
    return [];
  }
  // A process that died without leaving (killed, its terminal closed) is let go here.
  for (const pid of others.filter((p) => !alive(p)))
    rmSync(join(clientsDir(dir), String(pid)), { force: true });
  return others.filter(alive);
}
