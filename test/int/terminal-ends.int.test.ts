/**
 * How a terminal command ends, through the real CLI: a reader that closes stdout early (`| head`),
 * Ctrl-C while an agent thinks (prompt, and the task goes on later), Ctrl-C at a review another
 * terminal already decided (the task's real status), and the exit code of a task that failed.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { killedAfterFile, runSignoff, runSignoffUnread, startSignoff } from '../helpers/processes.js';

let db: TestDatabase;
let env: Record<string, string>;
beforeAll(async () => {
  db = await createTestDatabase('terminal_ends');
  env = { DATABASE_URL: db.url };
});
afterAll(async () => {
  await db?.drop();
});
const started = killedAfterFile();
const NO_STACK = /\n\s+at |Unhandled|EPIPE/;

describe('a reader that closes stdout early', () => {
  it('`audit --format csv | head` and `events <id> | head` end quietly with exit 0, no EPIPE stack', async () => {
    const run = await runSignoff(['run', 'pair', 'name the release'], env, 'reject\n');
    const id = /Task (cli-[0-9a-f]+)/.exec(run.stdout)?.[1] as string;
    expect(id, run.stdout).toBeDefined();
    for (const args of [['audit', '--format', 'csv'], ['events', id], ['tasks']]) {
      const r = await runSignoffUnread(args, env);
      expect([args, r.code, r.stderr]).toEqual([args, 0, '']);
      expect(r.stderr).not.toMatch(NO_STACK);
    }
  }, 120_000);
});

describe('Ctrl-C', () => {
  it('while an agent thinks stops within seconds, names the task that was working and how it goes on (on stderr, and in the last line on stdout); `resume` then takes it on to its review', async () => {
    // Each agent thinks for 30 s: before, the process stayed until the step ended.
    const run = started(
      startSignoff(['run', 'pair', 'draft the launch email'], { ...env, SIGNOFF_SCRIPTED_DELAY_MS: '30000' }),
    );
    const id = (await run.waitFor(/Task (cli-[0-9a-f]+) \(pair\)/))[1] as string;
    // The first agent's call is under way once its worker took the task.
    await sleep(2000);
    const sent = Date.now();
    run.signalGroup('SIGINT');
    const end = await run.exited;
    expect(Date.now() - sent).toBeLessThan(10_000);
    expect(end.code).toBe(130);
    expect(end.stderr).toBe(
      '\nStopped. Tasks and reviews are kept in the database (DATABASE_URL); `npx signoff tasks` lists them.\n' +
        `${id} was working: it goes on from its last step with \`npx signoff resume ${id}\` (or in the next \`npx signoff\` or \`npx signoff run\`).\n`,
    );
    expect(end.stdout).not.toContain('failed');
    // A script reading stdout learns where the task stands too, as from every session's last line.
    expect(end.stdout.trim().split('\n').at(-1)).toBe(
      `task ${id}: working (stopped here; it goes on from its last step with: npx signoff resume ${id})`,
    );

    const tasks = await runSignoff(['tasks'], env);
    expect(tasks.stdout).toMatch(new RegExp(`${id}\\s+pair\\s+working`));
    // It does go on: not working for ever.
    const resumed = await runSignoff(['resume', id], env);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain('Review: ');
    expect(resumed.stdout.trim().split('\n').at(-1)).toBe(`task ${id}: waiting for review`);
    // Followed, so not announced as a task continued in the background.
    expect(resumed.stderr).not.toContain('Continuing');
  }, 180_000);

  it("at the interactive prompt while an agent thinks leaves the task's status as the last line on stdout, not the prompt; retry then points to resume", async () => {
    const run = started(startSignoff([], { ...env, SIGNOFF_SCRIPTED_DELAY_MS: '30000' }));
    await run.waitFor(/What should the agents do\?[^\n]*\n> $/);
    run.send('pair draft the launch email');
    const id = (await run.waitFor(/Task (cli-[0-9a-f]+) \(pair\)/))[1] as string;
    // The first agent's call is under way once its worker took the task.
    await sleep(2000);
    run.signalGroup('SIGINT');
    const end = await run.exited;
    expect(end.code).toBe(130);
    expect(end.stdout.split('What should the agents do?')).toHaveLength(2);
    expect(end.stdout.trim().split('\n').at(-1)).toBe(
      `task ${id}: working (stopped here; it goes on from its last step with: npx signoff resume ${id})`,
    );

    // Left working, it is resumed, not retried: retry says so.
    const retried = await runSignoff(['retry', id], env);
    expect(retried.code).toBe(1);
    expect(retried.stderr.split('\n')[0]).toBe(
      `Task ${id} is working, not failed: it goes on from its last step with: npx signoff resume ${id}`,
    );
    expect(retried.stderr).not.toContain('only a failed task can be retried');
    // Refused, it ran nothing: no worker took the task on (it would have said it cut it short).
    expect(retried.stderr.trim().split('\n')).toHaveLength(1);
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    const { rows } = await client.query('SELECT status FROM signoff.tasks WHERE id = $1', [id]);
    await client.end();
    expect(rows[0]?.status).toBe('working');
  }, 180_000);

  it("at a review another terminal decided meanwhile says the task's real status, not that it waits", async () => {
    const first = started(startSignoff(['run', 'pair', 'name the product'], env));
    const id = (await first.waitFor(/Task (cli-[0-9a-f]+) \(pair\)/))[1] as string;
    await first.waitFor(/Review: /);
    // Approved from a second terminal; the task is done.
    const second = await runSignoff(['resume', id], env, '\n');
    expect(second.stdout.trim().split('\n').at(-1)).toBe(`task ${id}: done`);

    // The first terminal watches its review: it may have seen the decision and followed the task
    // to its end already (exit 0); if not, Ctrl-C stops it (130). Either way it says the truth.
    if (first.child.exitCode === null && first.child.signalCode === null) {
      try {
        first.signalGroup('SIGINT');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
      }
    }
    const end = await first.exited;
    expect([0, 130]).toContain(end.code);
    expect(end.stdout).not.toContain('is waiting for review');
    expect(end.stdout.trim().split('\n').at(-1)).toBe(`task ${id}: done`);
  }, 180_000);
});

describe('the exit code of a command that follows a task', () => {
  it('is 3 when the task ends failed (run, and retry when it fails again), so that a script can tell; 0 when a person rejected it', async () => {
    const broken = {
      ...env,
      OPENAI_API_KEY: 'sk-test',
      OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
      OPENAI_MAX_RETRIES: '0',
    };
    const run = await runSignoff(['run', 'pair', 'draft the launch email'], broken);
    const id = /Task (cli-[0-9a-f]+)/.exec(run.stdout)?.[1] as string;
    // The reason is said once, on the line above; the last line says the status and what to do.
    const [, reason] = /\n\[failed: ([^\n]+)\]\n/.exec(run.stdout) ?? [];
    expect(reason, run.stdout).toBeDefined();
    expect(run.stdout.split(reason as string)).toHaveLength(2);
    expect(run.stdout.trim().split('\n').at(-1)).toBe(
      `task ${id}: failed; try again with: npx signoff retry ${id}`,
    );
    expect(run.code).toBe(3);
    const retried = await runSignoff(['retry', id], broken);
    // The old attempt's end, then a mark, then the new attempt's.
    expect(retried.stdout).toMatch(/\[failed: [^\n]+\]\n— retrying from its last step —\n[\s\S]*\[failed: /);
    expect(retried.stdout.trim().split('\n').at(-1)).toBe(
      `task ${id}: failed; try again with: npx signoff retry ${id}`,
    );
    expect(retried.code).toBe(3);

    const rejected = await runSignoff(['run', 'pair', 'name the release'], env, 'reject\n');
    expect(rejected.stdout).toContain('\n[rejected at review]\n');
    expect(rejected.stdout).not.toContain('rejected (rejected');
    expect(rejected.stdout.trim().split('\n').at(-1)).toMatch(/^task \S+: rejected$/);
    expect(rejected.code).toBe(0);
  }, 120_000);
});
