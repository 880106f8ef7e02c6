/**
 * Several signoff processes on one embedded data folder (no DATABASE_URL), as a person runs them:
 * the bot or a task in one terminal, `signoff tasks` in another. They share one server: the first
 * starts it, the others join it, the last to leave stops it; two starting at once on a fresh
 * folder do not collide. Ctrl-C stops a terminal task quietly, in one line, with exit code 130.
 */
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type Running, runSignoff, startSignoff } from '../helpers/processes.js';

const dirs: string[] = [];
const running: Running[] = [];
afterAll(() => {
  for (const r of running) if (r.child.exitCode === null) r.signalGroup('SIGKILL');
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
/** A fresh data folder (its parent enterable: as root the server runs as another user). */
const dataFolder = () => {
  const dir = mkdtempSync(join(tmpdir(), 'signoff-shared-'));
  chmodSync(dir, 0o755);
  dirs.push(dir);
  return join(dir, 'data');
};
/** Whether an initdb making `data`'s database folder runs (Linux: its command line in /proc). */
const initdbRuns = (data: string) =>
  readdirSync('/proc').some((pid) => {
    if (!/^\d+$/.test(pid)) return false;
    try {
      const line = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      return line.includes('initdb') && line.includes(data);
    } catch {
      return false;
    }
  });
/** Processes on a first start run initdb and every migration: on 2 busy cores, tens of seconds. */
const serverRuns = (data: string) => existsSync(join(data, 'pg', 'postmaster.pid'));
const started = (r: Running) => {
  running.push(r);
  return r;
};

describe('one embedded data folder, several processes', () => {
  it('two processes starting at once on a fresh folder share one server: one starts it, the other joins, the last out stops it', async () => {
    const data = dataFolder();
    const [a, b] = [0, 1].map(() =>
      started(startSignoff([], { SIGNOFF_DATA_DIR: data }, 'test/fixtures/embedded-client.ts')),
    ) as [Running, Running];
    const ready = await Promise.all(
      [a, b].map(async (p) => JSON.parse((await p.waitFor(/ready (.*)\n/))[1] as string)),
    );
    expect(ready[0].url).toBe(ready[1].url);
    expect(ready.map((r) => r.started).sort()).toEqual([false, true]);

    a.send('write a');
    await a.waitFor(/wrote/);
    b.send('write b');
    await b.waitFor(/wrote/);
    // The first leaves: the server stays up for the other, which still reads both rows.
    a.send('stop');
    expect((await a.exited).code).toBe(0);
    expect(serverRuns(data)).toBe(true);
    b.send('count');
    await b.waitFor(/count 2/);
    b.send('stop');
    expect((await b.exited).code).toBe(0);
    expect(serverRuns(data)).toBe(false);

    // The data is intact: a later process starts the server again and finds both rows.
    const c = started(startSignoff([], { SIGNOFF_DATA_DIR: data }, 'test/fixtures/embedded-client.ts'));
    expect(JSON.parse((await c.waitFor(/ready (.*)\n/))[1] as string).started).toBe(true);
    c.send('count');
    await c.waitFor(/count 2/);
    c.send('stop');
    expect((await c.exited).code).toBe(0);
  }, 180_000);

  it('`signoff tasks` in a second terminal lists the task a `signoff run` waits on; Ctrl-C then stops that run quietly, exit 130, and the task is kept', async () => {
    const data = dataFolder();
    const env = { SIGNOFF_DATA_DIR: data };
    const first = started(startSignoff(['run', 'pair', 'draft the launch email'], env));
    const id = (await first.waitFor(/Task (cli-[0-9a-f]+) \(pair\)/))[1] as string;
    await first.waitFor(/Review: /);

    const tasks = await runSignoff(['tasks'], env);
    expect(tasks.stderr).toBe('');
    expect(tasks.code).toBe(0);
    expect(tasks.stdout).toMatch(new RegExp(`${id}.*waiting`));

    // Ctrl-C reaches the terminal's whole foreground group: signoff and anything it started.
    first.signalGroup('SIGINT');
    const end = await first.exited;
    expect(end.code).toBe(130);
    // The first start said it was making the database; the stop says what is kept; nothing else.
    expect(end.stderr).toBe(
      `Starting the embedded PostgreSQL in ${data} (first run: ~10 s)…\n` +
        `\nStopped. Tasks and reviews are kept in ${data}/; \`npx signoff tasks\` lists them.\n`,
    );
    // The last process out stopped the server; the task is still there, waiting.
    expect(serverRuns(data)).toBe(false);
    const after = await runSignoff(['tasks'], env);
    expect(after.stdout).toMatch(new RegExp(`${id}.*waiting`));
    expect(serverRuns(data)).toBe(false);
  }, 300_000);

  it('Ctrl-C at a review stops quietly: one line says what is kept, no log lines, exit 130, the server stopped', async () => {
    const data = dataFolder();
    const run = started(
      startSignoff(['run', 'specialist', 'reconcile the May invoices'], { SIGNOFF_DATA_DIR: data }),
    );
    await run.waitFor(/Review: /);
    run.signalGroup('SIGINT');
    const end = await run.exited;
    expect(end.stderr).toBe(
      `Starting the embedded PostgreSQL in ${data} (first run: ~10 s)…\n` +
        `\nStopped. Tasks and reviews are kept in ${data}/; \`npx signoff tasks\` lists them.\n`,
    );
    expect(end.code).toBe(130);
    expect(serverRuns(data)).toBe(false);
  }, 180_000);

  it('Ctrl-C while the embedded server starts says the command stops once the database is up, then stops as ever: exit 130, no task begun, the server stopped', async () => {
    const data = dataFolder();
    const run = started(startSignoff(['run', 'pair', 'draft the early note'], { SIGNOFF_DATA_DIR: data }));
    // The server is starting (its pid file written); signoff's migrations are still to run.
    for (let i = 0; i < 3000 && !serverRuns(data); i++) await new Promise((r) => setTimeout(r, 10));
    expect(serverRuns(data)).toBe(true);
    run.signalGroup('SIGINT');
    const end = await run.exited;
    expect(end.code).toBe(130);
    expect(end.stderr).toBe(
      `Starting the embedded PostgreSQL in ${data} (first run: ~10 s)…\n` +
        '\nStopping once signoff has started…\n' +
        `\nStopped. Tasks and reviews are kept in ${data}/; \`npx signoff tasks\` lists them.\n`,
    );
    expect(end.stdout).not.toMatch(/Task cli-/);
    // Without waiting for the server, the process died mute and left it running, detached.
    expect(serverRuns(data)).toBe(false);
    const tasks = await runSignoff(['tasks'], { SIGNOFF_DATA_DIR: data });
    expect(tasks.stdout).not.toMatch(/draft the early note/);
  }, 180_000);

  it('two Ctrl-C signals together (a wrapper such as tsx relaying the terminal’s) are one press: the orderly stop, its line, the server stopped', async () => {
    const data = dataFolder();
    const run = started(startSignoff(['run', 'pair', 'draft the relayed note'], { SIGNOFF_DATA_DIR: data }));
    await run.waitFor(/Review: /);
    run.signalGroup('SIGINT');
    await new Promise((r) => setTimeout(r, 40));
    run.signalGroup('SIGINT');
    const end = await run.exited;
    expect(end.code).toBe(130);
    expect(end.stderr).toMatch(/\nStopped\. Tasks and reviews are kept in /);
    // Taken for a second press, it would exit at once and leave the detached server running.
    expect(serverRuns(data)).toBe(false);
  }, 180_000);

  it('Ctrl-C while initdb makes the database folder never shows initdb’s failure: a sentence (stopped before starting, or once up), exit 130, no task, the next start works', async () => {
    const data = dataFolder();
    const env = { SIGNOFF_DATA_DIR: data };
    const run = started(startSignoff(['run', 'pair', 'draft the first note'], env));
    // initdb is making the folder (no server runs in it yet).
    for (let i = 0; i < 3000 && !initdbRuns(data); i++) await new Promise((r) => setTimeout(r, 10));
    expect(initdbRuns(data)).toBe(true);
    expect(serverRuns(data)).toBe(false);
    run.signalGroup('SIGINT');
    const end = await run.exited;
    expect(end.code).toBe(130);
    // Mostly initdb is cut short (its own failure is the stop's doing); near its end it finishes,
    // and the command stops once the database is up.
    expect(end.stderr).toMatch(
      /(Stopped before signoff had started: nothing was begun\.|Stopped\. Tasks and reviews are kept in .*)\n$/,
    );
    expect(end.stderr).not.toMatch(/initdb|init script|signoff stopped/i);
    expect(serverRuns(data)).toBe(false);
    const tasks = await runSignoff(['tasks'], env);
    expect(tasks.code, tasks.stderr).toBe(0);
    expect(tasks.stdout).not.toMatch(/draft the first note/);
  }, 180_000);
});
