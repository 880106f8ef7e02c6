import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { unusedPort } from './ports.js';

const ROOT = join(import.meta.dirname, '..', '..');

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `signoff …` as a separate process, feeding `input` on stdin, then end of input. */
export function runSignoff(args: string[], env: Record<string, string>, input = ''): Promise<Finished> {
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'signoff.mjs'), ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
  });
  return collect(child, input);
}

/**
 * Runs `signoff …` with its stdout closed by the reader before anything is written, as
 * `signoff … | head -0` would: every write meets a closed pipe (EPIPE).
 */
export function runSignoffUnread(args: string[], env: Record<string, string>): Promise<Finished> {
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'signoff.mjs'), ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
  });
  child.stdout?.destroy();
  return collect(child, '');
}

/** Runs a TypeScript file as a process to its end. */
export function runScript(file: string, env: Record<string, string>): Promise<Finished> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, file)], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
  });
  return collect(child, '');
}

/** Starts a TypeScript file as a process (for crash tests); resolves once it prints `ready`. */
export async function startScript(file: string, env: Record<string, string>): Promise<ChildProcess> {
  // tsx as a loader in this very process: through tsx's CLI a SIGKILL would hit its wrapper and
  // leave the real worker running.
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, file)], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr?.on('data', (d) => {
    err += d;
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (d) => String(d).includes('ready') && resolve());
    child.once('exit', (code) => reject(new Error(`${file} exited ${code}: ${err}`)));
  });
  return child;
}

function collect(child: ChildProcess, input: string): Promise<Finished> {
  const { exited } = running(child);
  child.stdin?.end(input);
  return exited;
}

/** A process left running: what it printed so far, lines to send it, signals, and its end. */
export interface Running {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves once stdout (or `from`) matches (rejects if the process ends first, or after `timeoutMs`). */
  waitFor(pattern: RegExp, timeoutMs?: number, from?: 'stdout' | 'stderr'): Promise<RegExpMatchArray>;
  send(line: string): void;
  /** Sends `signal` to the process's whole group, as a terminal's Ctrl-C does to the foreground. */
  signalGroup(signal: NodeJS.Signals): void;
  exited: Promise<Finished>;
}

/**
 * Starts `signoff …` (or, with `script`, a TypeScript file) and leaves it running, stdin open. It
 * leads a process group of its own, so that a signal can reach everything it started as a
 * terminal's would.
 */
export function startSignoff(args: string[], env: Record<string, string>, script?: string): Running {
  const entry = script ? ['--import', 'tsx', join(ROOT, script)] : [join(ROOT, 'bin', 'signoff.mjs')];
  const child = spawn(process.execPath, [...entry, ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    detached: true,
  });
  return running(child);
}

/**
 * Starts a Slack worker process (`signoff` with `SIGNOFF_ROLE=worker`, as a deployment runs it) on
 * `databaseUrl`. Its Slack is a port nothing answers: a worker calls Slack only to show a task's
 * events, and reaching it is no condition of its start.
 */
export async function startSlackWorker(databaseUrl: string): Promise<Running> {
  return startSignoff([], {
    SIGNOFF_ROLE: 'worker',
    SLACK_BOT_TOKEN: 'xoxb-test',
    SLACK_SIGNING_SECRET: 'test-secret',
    SLACK_API_URL: `http://127.0.0.1:${await unusedPort()}/api/`,
    PORT: '0',
    DATABASE_URL: databaseUrl,
  });
}

/**
 * Starts `signoff …` on a pseudo-terminal (util-linux `script`), as a person at a terminal runs
 * it: its stdin and stdout are a TTY, what is sent is typed (and echoed, with CRLF line ends).
 * `script` comes with Debian's essential bsdutils; a machine without it fails the test, never skips it.
 */
export function startInTerminal(args: string[], env: Record<string, string>): Running {
  const quote = (a: string) => `'${a.replaceAll("'", `'\\''`)}'`;
  const command = [process.execPath, join(ROOT, 'bin', 'signoff.mjs'), ...args].map(quote).join(' ');
  const child = spawn('script', ['--quiet', '--flush', '--return', '--command', command, '/dev/null'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', TERM: 'dumb', ...env },
    detached: true,
  });
  return running(child);
}

function running(child: ChildProcess): Running {
  let out = '';
  let err = '';
  child.stdout?.on('data', (d) => {
    out += d;
  });
  child.stderr?.on('data', (d) => {
    err += d;
  });
  const exited = new Promise<Finished>((resolve) =>
    child.once('close', (code) => resolve({ code, stdout: out, stderr: err })),
  );
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    send: (line) => void child.stdin?.write(`${line}\n`),
    signalGroup: (signal) => process.kill(-(child.pid as number), signal),
    exited,
    waitFor: (pattern, timeoutMs = 60_000, from = 'stdout') =>
      new Promise((resolve, reject) => {
        const stream = from === 'stdout' ? child.stdout : child.stderr;
        const check = () => {
          const found = (from === 'stdout' ? out : err).match(pattern);
          if (!found) return false;
          cleanup();
          resolve(found);
          return true;
        };
        const onExit = () => {
          cleanup();
          reject(new Error(`the process ended before printing ${pattern}: ${out}\n${err}`));
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`the process did not print ${pattern} in time: ${out}\n${err}`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          stream?.off('data', check);
          child.off('close', onExit);
        };
        if (check()) return;
        stream?.on('data', check);
        child.once('close', onExit);
      }),
  };
}

/**
 * For a test file that leaves processes running: `started(r)` notes one, and once the file's tests
 * are done every one still up is killed (with what it started), so that none outlives the file.
 */
export function killedAfterFile(): (r: Running) => Running {
  const running: Running[] = [];
  afterAll(() => {
    for (const r of running) {
      // Not one that ended by itself: its group id may be another process's by now. One killed by
      // a signal (exitCode null) may have left what it started; a group with nobody left is ESRCH.
      if (r.child.exitCode !== null) continue;
      try {
        r.signalGroup('SIGKILL');
      } catch (error) {
        if ((error as { code?: string }).code !== 'ESRCH') throw error;
      }
    }
  });
  return (r) => {
    running.push(r);
    return r;
  };
}
