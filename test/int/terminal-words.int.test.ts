/**
 * A newcomer's words in the shell and at a review, through the real CLI: an option where a command
 * takes none is refused (exit 2), never started as a task's text; `--` ends the options; a quoted
 * task holding a dash is a task, and so is one whose dash comes after its first word. Words after
 * the task id of a command that takes one are refused whole (exit 2; nothing done). At a review,
 * `run pair` or `pair` is asked about as a command, never sent as feedback. At the interactive
 * prompt, a command's hints name it as typed there (`events cli-…`, `pair …`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { unusedPort } from '../helpers/ports.js';
import { runSignoff } from '../helpers/processes.js';

let db: TestDatabase;
let env: Record<string, string>;
beforeAll(async () => {
  db = await createTestDatabase('terminal_words');
  env = { DATABASE_URL: db.url };
});
afterAll(async () => {
  await db?.drop();
});

const heading = (stdout: string) => /Task cli-[0-9a-f]+ \(pair\): (.*)\n/.exec(stdout)?.[1];

describe('options where a command takes none', () => {
  it('are refused with exit 2 and the command that works, before the database starts', async () => {
    // Nothing answers there: a refusal that waited for the database would fail to start instead.
    const none = { DATABASE_URL: `postgres://nobody@127.0.0.1:${await unusedPort()}/none` };
    const settings = 'it takes none; settings come from the environment and the config file';
    const cases: [string[], string][] = [
      [
        ['run', 'pair', '--verbose'],
        `"--verbose" is not an option of run (${settings}): to make it part of the task, put -- before the task's words: npx signoff run pair -- --verbose\n`,
      ],
      [
        ['run', 'pair', '--model', 'gpt-4', 'x'],
        `"--model" is not an option of run (${settings}): to make it part of the task, put -- before the task's words: npx signoff run pair -- --model gpt-4 x\n`,
      ],
      [
        ['redirect', 'cli-1a2b3c4d', '--force', 'a one-page checklist'],
        `"--force" is not an option of redirect (it takes none): to make it part of the new goal, put -- before the goal's words: npx signoff redirect cli-1a2b3c4d -- --force "a one-page checklist"\n`,
      ],
      [
        ['retry', 'cli-1a2b3c4d', '--verbose'],
        '"--verbose" is not an option of retry (it takes none): npx signoff retry cli-1a2b3c4d\n',
      ],
      [
        ['resume', '--last'],
        '"--last" is not an option of resume (it takes none): npx signoff resume <task-id>\n',
      ],
      [['pair', '--verbose'], 'Unknown command "pair". To start a task: npx signoff run pair -- --verbose\n'],
    ];
    for (const [args, said] of cases) {
      const r = await runSignoff(args, none);
      expect([args.join(' '), r.code, r.stderr]).toEqual([args.join(' '), 2, said]);
    }
  }, 120_000);

  it('after --, words that begin with a dash are the task (--help too); a quoted task holding a dash is a task', async () => {
    const dashed = await runSignoff(['run', 'pair', '--', '--verbose'], env);
    expect(dashed.code, dashed.stderr).toBe(0);
    expect(heading(dashed.stdout)).toBe('--verbose');
    const help = await runSignoff(['run', 'pair', '--', '--help', 'page'], env);
    expect(help.code, help.stderr).toBe(0);
    expect(heading(help.stdout)).toBe('--help page');
    const quoted = await runSignoff(['run', 'pair', 'write about --force flags'], env);
    expect(quoted.code, quoted.stderr).toBe(0);
    expect(heading(quoted.stdout)).toBe('write about --force flags');
  }, 120_000);

  it("a dash among the task's words is the task's, as POSIX reads options: only before its first word can one be an option; a later -- is text", async () => {
    const flag = await runSignoff(['run', 'pair', 'fix', 'the', '-v', 'flag'], env);
    expect(flag.code, flag.stderr).toBe(0);
    expect(heading(flag.stdout)).toBe('fix the -v flag');
    const later = await runSignoff(
      ['run', 'pair', 'rewrite', 'the', 'intro', '--', 'keep', 'it', 'short'],
      env,
    );
    expect(later.code, later.stderr).toBe(0);
    expect(heading(later.stdout)).toBe('rewrite the intro -- keep it short');
  }, 120_000);

  it('typed at the prompt as the shell takes it, `run pair --verbose` is refused the same way; `pair --verbose` is typed text, a task', async () => {
    const r = await runSignoff([], env, 'run pair --verbose\npair --verbose\n');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('"--verbose" is not an option of run');
    expect(r.stdout.match(/Task cli-[0-9a-f]+ \(pair\): /g)).toHaveLength(1);
    expect(heading(r.stdout)).toBe('--verbose');
  }, 120_000);
});

describe('words after the task id of resume, events, retry or cancel', () => {
  it('are refused with exit 2 before the database starts; at the prompt too, where nothing is done and the prompt goes on', async () => {
    const none = { DATABASE_URL: `postgres://nobody@127.0.0.1:${await unusedPort()}/none` };
    for (const command of ['resume', 'events', 'retry', 'cancel']) {
      const r = await runSignoff([command, 'cli-1a2b3c4d', 'extra', 'words'], none);
      expect([command, r.code, r.stderr]).toEqual([
        command,
        2,
        `npx signoff ${command} takes one task id and nothing after it (not "extra words"), so nothing was done: npx signoff ${command} cli-1a2b3c4d\n`,
      ]);
    }
    const run = await runSignoff(['run', 'pair', 'name the release'], env);
    const id = /Task (cli-[0-9a-f]+)/.exec(run.stdout)?.[1] as string;
    const r = await runSignoff([], env, `cancel ${id} it is not needed\ntasks\n\n`);
    expect(r.code, r.stderr).toBe(0);
    // Said as typed at the prompt: no "npx signoff" there.
    expect(r.stderr).toContain(
      `cancel takes one task id and nothing after it (not "it is not needed"), so nothing was done: cancel ${id}\n`,
    );
    expect(r.stderr).not.toContain('npx signoff cancel');
    // Not cancelled: `tasks`, typed next at the same prompt, lists it still waiting.
    expect(r.stdout).toMatch(new RegExp(`\\n${id} +pair +waiting `));
  }, 120_000);
});

describe('at a review', () => {
  it('run pair, a workflow named alone and signoff … are asked about as commands, never feedback; a sentence with them is feedback', async () => {
    const r = await runSignoff(
      ['run', 'pair', 'name the release'],
      env,
      'run pair\npair\nsignoff tasks\nrun the numbers again\n\n',
    );
    expect(r.code, r.stderr).toBe(0);
    for (const typed of ['run pair', 'pair', 'signoff tasks'])
      expect(r.stdout).toContain(
        `"${typed}" reads like a command, not an answer to this review: answer the review first ("help" lists the choices), or type "quit" to leave it waiting, then run the command. To send it as feedback, type "revise: ${typed}".\n`,
      );
    expect(r.stdout.match(/→ give feedback by /g)).toHaveLength(1);
    expect(r.stdout).toMatch(/→ give feedback by cli:\S+: run the numbers again\n/);
  }, 120_000);

  it('whatever its case (a workflow or a command after Signoff alike), and on the line after "revise" too, a command is asked about, never sent as feedback', async () => {
    const r = await runSignoff(
      ['run', 'pair', 'name the release'],
      env,
      'Run pair draft it\nSignoff tasks\nrevise\npair\nquit\n',
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('"Run pair draft it" reads like a command, not an answer to this review');
    expect(r.stdout).toContain('"Signoff tasks" reads like a command, not an answer to this review');
    // Still at the feedback prompt after it: "quit" there goes back to the review.
    expect(r.stdout).toContain(
      '"pair" reads like a command, not feedback; nothing was sent. Type the feedback, "revise: pair" to send it as is, or Enter to go back to the review.\nfeedback> Nothing was sent. Back to the review.',
    );
    expect(r.stdout).not.toMatch(/→ /);
  }, 120_000);
});

describe('hints at the interactive prompt', () => {
  it("name a command as typed at the prompt (`pair …`, `events cli-…`, `tasks`), not as the shell's `npx signoff …`; the shell's keep it", async () => {
    const r = await runSignoff([], env, 'run pair\nrun\nevents\nevents cli-0000dead\nrules approve\n\n');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("Describe the task after the workflow's name: pair summarise Q3 invoices\n");
    expect(r.stderr).toMatch(/\nName a workflow: <workflow> <task…> \(pair, [a-z-, ]+\)\.\n/);
    expect(r.stderr).toContain('Name the task, e.g. events cli-1a2b3c4d (see: tasks).\n');
    expect(r.stderr).toContain('There is no task "cli-0000dead". See them with: tasks\n');
    expect(r.stderr).toContain('usage: rules [approve|reject|revoke <number>] (see: rules)\n');
    expect(r.stderr).not.toContain('npx signoff');
    const shell = await runSignoff(['events'], env);
    expect(shell.stderr).toBe(
      'Name the task, e.g. npx signoff events cli-1a2b3c4d (see: npx signoff tasks).\n',
    );
  }, 120_000);
});
