/**
 * The real LangGraph server (`@langchain/langgraph-api`, in memory) in a process of its own
 * (test/fixtures/langgraph-server.ts), so that a test can kill it mid-run and start it again on
 * the same port and files.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startScript } from './processes.js';

export interface LangGraphServer {
  readonly url: string;
  /** Starts it (again: on the same port and files); `hang` makes the `hanging` graph's work never end. */
  start(o?: { hang?: boolean }): Promise<void>;
  /** What it printed since it last started. */
  stdout(): string;
  /** Kills it at once (SIGKILL): nothing is flushed, no run is told. */
  kill(): Promise<void>;
  /** Freezes it (SIGSTOP): its connections stay open and nothing answers, as a server that hangs. */
  freeze(): void;
  stop(): Promise<void>;
}

export function langGraphServer(port: number): LangGraphServer {
  const data = mkdtempSync(join(tmpdir(), 'signoff-langgraph-'));
  let child: ChildProcess | undefined;
  let out = '';
  const kill = async (signal: NodeJS.Signals) => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    // A frozen process takes no signal but SIGKILL until it goes on.
    running.kill('SIGCONT');
    running.kill(signal);
    await exited;
  };
  return {
    url: `http://127.0.0.1:${port}`,
    async start({ hang = false } = {}) {
      out = '';
      child = await startScript('test/fixtures/langgraph-server.ts', {
        LANGGRAPH_PORT: String(port),
        LANGGRAPH_DATA: data,
        ...(hang && { REMOTE_HANG: '1' }),
      });
      child.stdout?.on('data', (d) => {
        out += String(d);
      });
    },
    stdout: () => out,
    freeze: () => child?.kill('SIGSTOP'),
    kill: () => kill('SIGKILL'),
    async stop() {
      await kill('SIGTERM');
      rmSync(data, { recursive: true, force: true });
    },
  };
}
