/**
 * What the README's terminal section tells a newcomer is what the terminal does, through the real
 * CLI: how `quit` at a review and Ctrl-D leave, and the sample screen of a pair task's review.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { runSignoff } from '../helpers/processes.js';

/** The README with its line breaks and indents as single spaces: a sentence may wrap anywhere. */
const README = readFileSync(join(import.meta.dirname, '..', '..', 'README.md'), 'utf8');
const readmeText = README.replace(/\s+/g, ' ');

let db: TestDatabase;
let env: Record<string, string>;
beforeAll(async () => {
  db = await createTestDatabase('first_hour_readme');
  env = { DATABASE_URL: db.url };
});
afterAll(async () => {
  await db?.drop();
});

const PROMPT = 'What should the agents do?';

describe('the README on leaving a review', () => {
  it('quit at a review goes back to the interactive prompt and end of input (Ctrl-D) leaves for the shell, as the README says', async () => {
    const quit = await runSignoff([], env, 'pair name the release\nquit\ntasks\n');
    expect(quit.code, quit.stderr).toBe(0);
    // Asked for a workflow again after the review was left: `tasks` there lists the task.
    expect(quit.stdout.split(PROMPT)).toHaveLength(3);
    expect(quit.stdout).toMatch(/> ID +WORKFLOW +STATUS/);
    const ended = await runSignoff([], env, 'pair name the launch\n');
    expect(ended.code, ended.stderr).toBe(0);
    // End of input at the review leaves: no question for a workflow nobody can answer any more.
    expect(ended.stdout.split(PROMPT)).toHaveLength(2);
    expect(ended.stdout).toMatch(
      /\ntask \S+: waiting for review\n\n2 tasks wait for a review, kept for later: /,
    );
    expect(readmeText).toContain(
      '`quit` (or `exit`) leaves the review, the task waiting, with the command that resumes it: `npx signoff run` then ends, as at Ctrl-D, while the interactive prompt (`npx signoff` alone) goes back to asking for a workflow, where `quit` again (or Ctrl-D at any question) leaves for the shell',
    );
    expect(readmeText).not.toContain('leaves the prompt as Ctrl-D does');
  }, 120_000);
});

describe("the README's sample screen", () => {
  it("is what `run pair` prints now: every line of it, the review card's heading and choices too", async () => {
    const start = README.indexOf('What the screen looks like');
    const open = README.indexOf('```\n', start) + 4;
    const sample = README.slice(open, README.indexOf('```', open));
    const [command, ...rest] = sample.split('\n');
    const text = /^\$ npx signoff run pair "(.+)"$/.exec(command ?? '')?.[1] as string;
    expect(text, command).toBeTruthy();
    const r = await runSignoff(['run', 'pair', text], env, 'name the formats\n\n');
    expect(r.code, r.stderr).toBe(0);
    const id = /Task (cli-[0-9a-f]+)/.exec(r.stdout)?.[1] as string;
    const actor = /→ give feedback by (cli:\S+):/.exec(r.stdout)?.[1] as string;
    // Piped, what is typed is not echoed: a prompt's "> " starts the line printed after it.
    const printed = new Set(r.stdout.split('\n').map((line) => line.replace(/^> /, '')));
    const shown = rest
      // Up to the next command (`tasks`: its times differ); the first run's line is on stderr; the
      // typed lines are the person's; "…" alone stands for lines left out.
      .slice(
        0,
        rest.findIndex((line) => line.startsWith('$ ')),
      )
      .filter(
        (line) => line && line !== '…' && !line.startsWith('>') && !line.startsWith('Starting the embedded'),
      )
      // The sample's id and person are its own; `…` stands for the task's text.
      .map((line) =>
        line.replaceAll('cli-04eb13d0', id).replaceAll('cli:ann', actor).replaceAll('"…"', `"${text}"`),
      );
    expect(shown.length).toBeGreaterThan(10);
    for (const line of shown) expect(printed, `${line}\n---\n${r.stdout}`).toContain(line);
  }, 120_000);
});
