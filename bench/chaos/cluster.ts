/**
 * The chaos checker's cluster: one Postgres, the fake Slack process, the fake model (in this
 * process), a web process and two workers. It kills and restarts them on demand and keeps what
 * they printed, and notices any exit it did not cause.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, createWriteStream, mkdirSync, mkdtempSync, rmSync, type WriteStream } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { type EmbeddedServer, startEmbeddedPostgres } from '../../src/db/embedded.js';
import { createLogger } from '../../src/logger.js';
import { FakeOpenAI } from '../../test/helpers/fake-openai.js';
import { SIGNING_SECRET } from '../../test/helpers/slack-requests.js';
import { chaosAnswer } from './answers.js';

export type Role = 'web' | 'worker';
export const PROCESS_NAMES = ['web', 'worker-1', 'worker-2'] as const;
export type ProcessName = (typeof PROCESS_NAMES)[number];

/** Something a process printed that means a bug, whatever else happened. */
const ALARMING =
  /unhandledRejection|Unhandled ?Promise ?Rejection|Uncaught|FATAL ERROR|triggerUncaughtException/i;

/** An exit or a line the checker did not cause. */
export interface Incident {
  process: string;
  what: 'crash' | 'alarming_output';
  detail: string;
  at: number;
}

interface Member {
  name: ProcessName;
  child?: ChildProcess;
  /** Set while the checker kills or restarts it: that exit is expected. */
  expectingExit: boolean;
  starting?: Promise<void>;
  log: WriteStream;
  tail: string;
}

export interface ClusterOptions {
  /** An existing server (its database is used as is; a Postgres "restart" then drops every connection). */
  databaseUrl?: string;
  /** Where logs and the embedded server's data go; a new temporary folder by default. */
  dir?: string;
  random: () => number;
  leaseSeconds?: number;
}

const ROOT = join(import.meta.dirname, '..', '..');

/**
 * Starts a TypeScript file as `node --import tsx` (so that a SIGKILL hits the real process, not a
 * wrapper, as test/helpers/processes.ts does); resolves with the line it printed `ready` in.
 * `output` gets everything it prints, from the first byte.
 */
function spawnScript(
  file: string,
  env: Record<string, string>,
  output: (d: Buffer) => void,
): Promise<{ child: ChildProcess; line: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, file)], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stderr?.on('data', output);
  child.stdout?.on('data', output);
  return new Promise((resolve, reject) => {
    let out = '';
    const onData = (d: Buffer) => {
      out += d;
      const line = /^ready.*$/m.exec(out)?.[0];
      if (!line) return;
      child.stdout?.off('data', onData);
      child.off('exit', onExit);
      clearTimeout(timer);
      resolve({ child, line });
    };
    const onExit = (code: number | null) => {
      clearTimeout(timer);
      reject(new Error(`${file} exited ${code} before it was ready`));
    };
    // A start that hangs (its database unreachable, say) is ended and counts as failed.
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.stdout?.on('data', onData);
    child.once('exit', onExit);
  });
}

async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

export class Cluster {
  readonly dir: string;
  readonly model: FakeOpenAI;
  readonly incidents: Incident[] = [];
  databaseUrl = '';
  slackApi = '';
  control = '';
  webUrl = '';
  /** The checker's own connections: they come back by themselves after a Postgres restart. */
  pool!: pg.Pool;
  private server?: EmbeddedServer;
  private slack?: ChildProcess;
  private members = new Map<ProcessName, Member>();
  private port = 0;
  private postgresDown = false;
  private stopping = false;

  constructor(private readonly options: ClusterOptions) {
    this.dir = options.dir ?? mkdtempSync(join(tmpdir(), 'signoff-chaos-'));
    // As root, Postgres runs as another user, who must be able to enter this folder.
    chmodSync(this.dir, 0o755);
    // A word every few milliseconds: models stream (issue 22), and a kill can land mid-stream;
    // answers long enough that it often does, each naming its call first (answers.ts).
    this.model = new FakeOpenAI({
      random: options.random,
      tokenDelayMs: 25,
      reply: (_, n) => chaosAnswer(n),
    });
  }

  async start(): Promise<void> {
    mkdirSync(join(this.dir, 'logs'), { recursive: true });
    if (this.options.databaseUrl) this.databaseUrl = this.options.databaseUrl;
    else {
      this.server = await startEmbeddedPostgres(join(this.dir, 'pg'), createLogger('silent'));
      this.databaseUrl = this.server.url;
    }
    this.pool = new pg.Pool({ connectionString: this.databaseUrl, max: 4 });
    // A restart drops these connections; the next query opens new ones.
    this.pool.on('error', () => undefined);
    await this.model.start();
    const slackLog = createWriteStream(join(this.dir, 'logs', 'slack.log'));
    const { child: slack, line } = await spawnScript('bench/chaos/slack-process.ts', {}, (d) =>
      slackLog.write(d),
    );
    this.slack = slack;
    const m = /ready (\S+) (\S+)/.exec(line);
    if (!m) throw new Error('the fake Slack did not say where it listens');
    [, this.slackApi, this.control] = m as unknown as [string, string, string];
    this.port = await freePort();
    this.webUrl = `http://127.0.0.1:${this.port}/slack/events`;
    // The web process first: it runs the migrations the workers then find done.
    await this.startMember('web');
    await Promise.all([this.startMember('worker-1'), this.startMember('worker-2')]);
  }

  private env(name: ProcessName): Record<string, string> {
    return {
      DATABASE_URL: this.databaseUrl,
      SLACK_BOT_TOKEN: 'xoxb-chaos',
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_API_URL: this.slackApi,
      // Workers answer only /healthz, on a port of their own.
      PORT: name === 'web' ? String(this.port) : '0',
      OPENAI_API_KEY: 'sk-chaos',
      OPENAI_BASE_URL: this.model.url,
      OPENAI_MODEL: 'gpt-4o-mini',
      SIGNOFF_ROLE: name === 'web' ? 'web' : 'worker',
      SIGNOFF_WORKERS: '4',
      // A dead holder's task is taken over within seconds, not the default 30.
      SIGNOFF_LEASE_SECONDS: String(this.options.leaseSeconds ?? 3),
      LOG_LEVEL: 'warn',
    };
  }

  private member(name: ProcessName): Member {
    let m = this.members.get(name);
    if (!m) {
      m = {
        name,
        expectingExit: false,
        log: createWriteStream(join(this.dir, 'logs', `${name}.log`)),
        tail: '',
      };
      this.members.set(name, m);
    }
    return m;
  }

  /** Starts a process, trying again while it cannot start (Postgres restarting). */
  private startMember(name: ProcessName): Promise<void> {
    const m = this.member(name);
    m.starting ??= (async () => {
      for (let attempt = 1; ; attempt++) {
        try {
          const { child } = await spawnScript('bench/chaos/signoff-process.ts', this.env(name), (d) =>
            this.take(m, d),
          );
          this.watch(m, child);
          return;
        } catch (error) {
          m.log.write(`[chaos] start attempt ${attempt} failed: ${(error as Error).message}\n`);
          if (this.stopping || attempt >= 20) throw error;
          await sleep(500);
        }
      }
    })().finally(() => {
      m.starting = undefined;
    });
    return m.starting;
  }

  private take(m: Member, d: Buffer): void {
    const text = String(d);
    m.log.write(text);
    m.tail = (m.tail + text).slice(-4000);
    for (const line of text.split('\n'))
      if (ALARMING.test(line))
        this.incidents.push({
          process: m.name,
          what: 'alarming_output',
          detail: line.slice(0, 500),
          at: Date.now(),
        });
  }

  private watch(m: Member, child: ChildProcess): void {
    m.child = child;
    m.expectingExit = false;
    m.log.write(`[chaos] started pid ${child.pid} at ${new Date().toISOString()}\n`);
    child.once('exit', (code, signal) => {
      m.log.write(`[chaos] exit code ${code} signal ${signal} at ${new Date().toISOString()}\n`);
      if (m.child === child) m.child = undefined;
      if (m.expectingExit || this.stopping) return;
      this.incidents.push({
        process: m.name,
        what: 'crash',
        detail: `exit code ${code} signal ${signal}; last output: ${m.tail.slice(-1500)}`,
        at: Date.now(),
      });
      // Keep the cluster whole: the run goes on, the crash is already counted.
      void this.startMember(m.name).catch(() => undefined);
    });
  }

  /** `kill -9` of one process; it is started again after `downMs`. */
  async kill(name: ProcessName, downMs: number): Promise<void> {
    const m = this.member(name);
    if (m.starting) await m.starting.catch(() => undefined);
    const child = m.child;
    if (!child) return;
    m.expectingExit = true;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    await sleep(downMs);
    void this.startMember(name).catch(() => undefined);
  }

  /**
   * Freezes a process (SIGSTOP) for `ms`, then lets it go on (SIGCONT): a long GC pause or a
   * frozen VM. Longer than the lease, its runs are taken over meanwhile; whatever it then tries
   * to write must be refused.
   */
  async pause(name: ProcessName, ms: number): Promise<void> {
    const child = this.member(name).child;
    if (!child) return;
    child.kill('SIGSTOP');
    await sleep(ms);
    child.kill('SIGCONT');
  }

  /** Stops Postgres (every process loses its connections), starts it again after `downMs`. */
  async restartPostgres(downMs: number): Promise<void> {
    if (this.postgresDown) return;
    this.postgresDown = true;
    try {
      if (this.server) {
        await this.server.stop();
        await sleep(downMs);
        this.server = await startEmbeddedPostgres(join(this.dir, 'pg'), createLogger('silent'));
      } else {
        // A shared server cannot be stopped: every connection to this database is cut instead.
        const name = new URL(this.databaseUrl).pathname.slice(1) || 'postgres';
        await this.pool.query(
          'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
          [name],
        );
        await sleep(downMs);
      }
    } finally {
      this.postgresDown = false;
    }
  }

  /** Every process up (started and not being restarted) and Postgres answering. */
  async whole(): Promise<boolean> {
    if (this.postgresDown) return false;
    for (const name of PROCESS_NAMES) {
      const m = this.member(name);
      if (!m.child || m.starting) return false;
    }
    return this.pool.query('SELECT 1').then(
      () => true,
      () => false,
    );
  }

  /** Waits until `whole()`; starts any process that is down and not being started. */
  async heal(): Promise<void> {
    for (const name of PROCESS_NAMES) {
      const m = this.member(name);
      if (!m.child && !m.starting) void this.startMember(name).catch(() => undefined);
    }
    const deadline = Date.now() + 60_000;
    while (!(await this.whole())) {
      if (Date.now() > deadline) throw new Error('the cluster did not come back within 60 s');
      await sleep(200);
    }
  }

  /** Asks the fake Slack's control endpoint; its JSON answer. */
  async post(path: string, body: object): Promise<Record<string, unknown>> {
    const res = await fetch(`${this.control}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return (await res.json().catch(() => ({}))) as Record<string, unknown>;
  }

  async stop(options: { keepDir?: boolean } = {}): Promise<void> {
    this.stopping = true;
    for (const m of this.members.values()) {
      await m.starting?.catch(() => undefined);
      const child = m.child;
      if (child) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGKILL');
        await exited;
      }
      m.log.end();
    }
    this.slack?.kill('SIGKILL');
    await this.model.stop();
    await this.pool?.end().catch(() => undefined);
    await this.server?.stop();
    if (!options.keepDir) rmSync(this.dir, { recursive: true, force: true });
  }
}
