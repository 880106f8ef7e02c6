/**
 * A task left working (Ctrl-C in one `signoff run`) is continued by the next command that runs
 * tasks, through the real CLI. That command does not follow it, and may run it with other model
 * settings than it started with: it says so as the run starts, and how the task ended (failed,
 * waiting for review) with the command that shows it, on stderr; stdout stays the session's own.
 * Its failure names the address it ran with; read from a process with another, it names none.
 * A task resumed at the interactive prompt is that prompt's own: followed, never announced.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { unusedPort } from '../helpers/ports.js';
import { killedAfterFile, runSignoff, startSignoff } from '../helpers/processes.js';

let db: TestDatabase;
let env: Record<string, string>;
beforeAll(async () => {
  db = await createTestDatabase('terminal_continued');
  env = { DATABASE_URL: db.url };
});
afterAll(async () => {
  await db?.drop();
});
const started = killedAfterFile();

/** Starts a pair task whose agents think for a minute, and stops its command with Ctrl-C: the task stays working. */
async function leftWorking(text: string): Promise<string> {
  const run = started(startSignoff(['run', 'pair', text], { ...env, SIGNOFF_SCRIPTED_DELAY_MS: '60000' }));
  const id = (await run.waitFor(/Task (cli-[0-9a-f]+) \(pair\)/))[1] as string;
  const sent = Date.now();
  run.signalGroup('SIGINT');
  expect((await run.exited).code).toBe(130);
  // Also when the Ctrl-C comes as the run takes its lease: that run stops too (it held the exit
  // for 10 s, and its lease for 30 s more, which the next command waited out).
  expect(Date.now() - sent).toBeLessThan(8000);
  return id;
}

const announced = (id: string, text: string) =>
  `\nContinuing task ${id} here (pair: ${text}): this terminal does not follow it, so only how it ends is shown. Follow it with: npx signoff resume ${id}\n`;

describe('a task left working, continued by a later command', () => {
  it('that fails with other model settings: the command says it continues it, and that it failed, with the sentence and what to run', async () => {
    const id = await leftWorking('draft the launch email');
    // The prompt, with a model at a closed port: the task left working fails here.
    const port = await unusedPort();
    const prompt = started(
      startSignoff([], {
        ...env,
        OPENAI_API_KEY: 'sk-test',
        OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1`,
      }),
    );
    await prompt.waitFor(new RegExp(`Task ${id} \\(continued here\\): failed`), 60_000, 'stderr');
    expect(prompt.stderr()).toBe(
      announced(id, 'draft the launch email') +
        `\nTask ${id} (continued here): failed (The model service at 127.0.0.1:${port} could not be reached (connection refused: nothing listens there). Retry once a model service runs at 127.0.0.1:${port}, or OPENAI_BASE_URL names the address where one does.). See it with: npx signoff events ${id}; try again with: npx signoff retry ${id}\n`,
    );
    // Nothing of it on stdout: that is the prompt's.
    expect(prompt.stdout()).not.toContain(id);
    prompt.send('');
    expect((await prompt.exited).code).toBe(0);
    // Read later where OPENAI_BASE_URL names another address: the sentence stored there does not
    // name this one, which is not where the task failed.
    const elsewhere = await unusedPort();
    const events = await runSignoff(['events', id], {
      ...env,
      OPENAI_API_KEY: 'sk-test',
      OPENAI_BASE_URL: `http://127.0.0.1:${elsewhere}/v1`,
    });
    expect(events.code, events.stderr).toBe(0);
    expect(events.stdout).toContain(
      "The model service could not be reached (connection refused: nothing listens there). Check that a model service answers at the address the task used (OPENAI_BASE_URL as it was set then, or OpenAI's api.openai.com if it was not; it may differ from this terminal's), then Retry.",
    );
    expect(events.stdout).not.toContain(`127.0.0.1:${elsewhere}`);
  }, 120_000);

  it("that stops at a review: says it waits and how to answer it, while stdout's last line is the followed task's", async () => {
    const id = await leftWorking('name the release');
    const run = started(startSignoff(['run', 'pair', 'plan the retro'], env));
    const own = (await run.waitFor(/Task (cli-[0-9a-f]+) \(pair\)/))[1] as string;
    await run.waitFor(new RegExp(`Task ${id} \\(continued here\\): waiting for review`), 60_000, 'stderr');
    await run.waitFor(/Review: /);
    run.send('reject');
    const end = await run.exited;
    expect(end.stderr).toBe(
      announced(id, 'name the release') +
        `\nTask ${id} (continued here): waiting for review. Answer it with: npx signoff resume ${id}\n`,
    );
    expect(end.stdout).not.toContain(id);
    expect(end.stdout.trim().split('\n').at(-1)).toMatch(new RegExp(`^task ${own}: rejected`));
  }, 120_000);
});

describe('a task resumed at the interactive prompt', () => {
  it('is followed there as by `npx signoff resume`: no "continued here" notice, its words, next review and end in order on stdout', async () => {
    // A database of its own: no task left working by the tests above runs here meanwhile.
    const own = await createTestDatabase('terminal_resumed_at_prompt');
    const env = { DATABASE_URL: own.url };
    // Waiting for review before the prompt's process starts (the prompt's banner points to it).
    const first = await runSignoff(['run', 'pair', 'second tagline'], env);
    const id = /Task (cli-[0-9a-f]+)/.exec(first.stdout)?.[1] as string;
    const r = await runSignoff([], env, `resume ${id}\nshorter\nreject\n\n`).finally(() => own.drop());
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`\`resume ${id}\` picks it up.`);
    // The prompt follows the task it resumed: nothing of it is announced as another's.
    expect(r.stderr).not.toContain('continued here');
    expect(r.stderr).not.toContain('does not follow it');
    const order = [
      '→ give feedback by',
      'revised to address the feedback "shorter"',
      "Review: Review the agents' work (cycle 2)",
      '→ reject by',
      `task ${id}: rejected`,
    ].map((text) => r.stdout.indexOf(text));
    expect(order, r.stdout).not.toContain(-1);
    expect(order).toEqual([...order].sort((a, b) => a - b));
  }, 120_000);
});
