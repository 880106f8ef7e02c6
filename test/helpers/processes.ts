import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

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
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d) => {
    stdout += d;
  });
  child.stderr?.on('data', (d) => {
    stderr += d;
  });
  child.stdin?.end(input);
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}
