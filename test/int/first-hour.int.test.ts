/**
 * A newcomer's first hour in the terminal, through the real CLI (a process per command): documents
 * land where `proposal` looks and its hint is a command that works; a config naming a workflow
 * that does not exist is refused at start; help starts nothing and lists the workflows; the
 * prompt knows `help` and `tasks`; what the agents said is not repeated on the card; failures to
 * start say what failed, without a stack trace.
 */
import { chmodSync, cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { FakeOpenAI } from '../helpers/fake-openai.js';
import { unusedPort } from '../helpers/ports.js';
import { runSignoff, startSignoff } from '../helpers/processes.js';
import { seedWaiting } from '../helpers/seed-reviews.js';

const made: TestDatabase[] = [];
const dirs: string[] = [];
afterAll(async () => {
  for (const db of made) await db.drop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
const database = async (label: string) => {
  const db = await createTestDatabase(label);
  made.push(db);
  return { DATABASE_URL: db.url };
};
const folder = () => {
  const dir = mkdtempSync(join(tmpdir(), 'signoff-first-hour-'));
  dirs.push(dir);
  return dir;
};
const configFile = (yaml: string) => {
  const file = join(folder(), 'signoff.yml');
  writeFileSync(file, yaml);
  return file;
};
const NO_STACK = /\n\s+at /;

describe('documents for proposal', () => {
  it('docs add without a collection fills the one proposal searches', async () => {
    const env = await database('docs_default');
    // A folder named otherwise than the collection: the name of the folder is not the default.
    const research = join(folder(), 'research');
    cpSync('test/fixtures/docs', research, { recursive: true });
    const added = await runSignoff(['docs', 'add', research], env);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toContain('2 documents in the collection "docs"');

    // Continue past the query review with a typed query; the search reads the collection.
    const run = await runSignoff(['run', 'proposal', 'home batteries'], env, 'battery degradation\n');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('Sources: [solar-storage.md]');
    expect(run.stdout).not.toContain('No documents in the collection');
    // One search so far, in the singular.
    expect(run.stdout).toContain('\n│ 1 search summary so far.\n');
  }, 120_000);

  it('an empty collection names a command that fills it, and that command works', async () => {
    const env = await database('docs_hint');
    const empty = await runSignoff(['run', 'proposal', 'home batteries'], env, 'battery degradation\n');
    expect(empty.code, empty.stderr).toBe(0);
    const hint = /Add some with: (npx signoff docs add <folder>[^\n]*)/.exec(empty.stdout)?.[1];
    expect(hint, empty.stdout).toBe('npx signoff docs add <folder> docs');

    const args = (hint as string).split(' ').slice(2);
    const added = await runSignoff(
      args.map((a) => (a === '<folder>' ? 'test/fixtures/docs' : a)),
      env,
    );
    expect(added.code, added.stderr).toBe(0);
    const found = await runSignoff(['run', 'proposal', 'home batteries'], env, 'battery degradation\n');
    expect(found.stdout).toContain('Sources: [solar-storage.md]');
  }, 180_000);

  it('a folder holding a file that cannot be used (not UTF-8) is exit 1, "could not", as one with no text file is; a folder that does not exist is 2', async () => {
    const env = await database('docs_unusable');
    const dir = folder();
    // "Café" in Latin-1: é is a single byte that is no UTF-8.
    writeFileSync(join(dir, 'menu.md'), Buffer.from('Caf\xe9 cr\xe8me', 'latin1'));
    const latin1 = await runSignoff(['docs', 'add', dir], env);
    expect([latin1.code, latin1.stderr]).toEqual([
      1,
      '"menu.md" is not UTF-8 text; save it as UTF-8 and add it again. Nothing was added: the collection "docs" is as it was.\n',
    ]);
    const empty = await runSignoff(['docs', 'add', folder()], env);
    expect(empty.code, empty.stderr).toBe(1);
    const missing = await runSignoff(['docs', 'add', join(dir, 'nowhere')], env);
    expect(missing.code, missing.stderr).toBe(2);
  }, 120_000);
});

describe("a proposal's reviews in the terminal", () => {
  it('ask for a query as a query ("type the query to search instead", not "feedback") and echo a decision in the words of the card: a typed query is "use my query", reject is "search more"; the Query generator\'s "Next search" is printed once, above its card, not again in it', async () => {
    const env = await database('proposal_words');
    const r = await runSignoff(
      ['run', 'proposal', 'home batteries'],
      env,
      'help\nrevise\nbattery degradation\nreject\n',
    );
    expect(r.code, r.stderr).toBe(0);
    const first = r.stdout.slice(0, r.stdout.indexOf('└─ Enter or "approve" to continue'));
    expect(first.match(/Next search:/g)).toHaveLength(1);
    expect(first.slice(first.lastIndexOf('┌─'))).toContain('(what the agents said above)');
    expect(r.stdout).toContain('└─ Enter or "approve" to continue, type the query to search instead.');
    expect(r.stdout).toContain('revise: <the query to search instead>');
    expect(r.stdout).toContain('Type the query to search instead and press Enter');
    expect(r.stdout).toContain('"reject" to search more');
    expect(r.stdout).toMatch(/→ use my query by cli:\S+: battery degradation\n/);
    expect(r.stdout).toMatch(/→ search more by cli:\S+\n/);
    expect(r.stdout).not.toMatch(/→ (reject|revise) by/);
  }, 120_000);

  it('a typed query searched before is refused at once, never echoed as "use my query"; the next one typed is searched', async () => {
    const env = await database('proposal_typed_repeat');
    const r = await runSignoff(
      ['run', 'proposal', 'home batteries'],
      env,
      'battery degradation\nreject\nBattery  Degradation\nsolar inverters\n',
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(
      'Nothing was recorded: "Battery  Degradation" was searched before, so it would find nothing new; type another query, or continue.',
    );
    expect(r.stdout).not.toMatch(/→ use my query by cli:\S+: Battery {2}Degradation/);
    expect(r.stdout.match(/→ use my query by cli:\S+: [^\n]*/g)).toEqual([
      expect.stringMatching(/: battery degradation$/),
      expect.stringMatching(/: solar inverters$/),
    ]);
    expect(r.stdout.match(/Search: "[^"]*"/g)).toEqual([
      'Search: "battery degradation"',
      'Search: "solar inverters"',
    ]);
  }, 120_000);
});

describe('the config file', () => {
  it('a workflow that does not exist is refused at start, with the valid names and its line', async () => {
    const env = await database('config_unknown');
    const file = configFile(
      'workflows:\n  pairs:\n    maxIterations: 2\n  notes:\n    stages:\n      - { id: draft, agents: [writer] }\n    agents:\n      writer: {}\n',
    );
    const r = await runSignoff(['tasks'], { ...env, SIGNOFF_CONFIG: file });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${file}:2:3 workflows.pairs: there is no workflow "pairs"`);
    expect(r.stderr).toContain('pair, specialist, goal-plan, proposal, ask, notes');
    expect(r.stdout).toBe('');
  });

  it('a Slack deployment’s part (SIGNOFF_ROLE=worker) without Slack is refused with what to set, not a terminal instead', async () => {
    const env = await database('role_without_slack');
    const r = await runSignoff([], { ...env, SIGNOFF_ROLE: 'worker' }, 'pair never started\n');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('SIGNOFF_ROLE=worker runs a part of signoff in Slack, and no Slack is set');
    expect(r.stdout).toBe('');
  });

  it('npm start with PORT set and no Slack tokens says the terminal serves no HTTP and what would; PORT unset (or blank) says nothing', async () => {
    const env = await database('port_terminal');
    const said =
      'PORT is set, but without Slack tokens npm start is the terminal, which serves no HTTP (no /healthz, /api/v1, /mcp or /metrics): those are served by signoff connected to Slack, so set SLACK_BOT_TOKEN with SLACK_SIGNING_SECRET (HTTP mode) or SLACK_APP_TOKEN (Socket Mode).\n';
    const set = await runSignoff([], { ...env, PORT: '3998' }, '');
    expect(set.code, set.stderr).toBe(0);
    expect(set.stderr.startsWith(said), set.stderr).toBe(true);
    expect(set.stdout).toContain('signoff in the terminal (no Slack tokens set)');
    for (const port of [undefined, ' ']) {
      const unset = await runSignoff([], port === undefined ? env : { ...env, PORT: port }, '');
      expect(unset.code, unset.stderr).toBe(0);
      expect(unset.stderr).not.toContain('PORT is set');
    }
  }, 120_000);

  it('signoff mcp with no config file read says SIGNOFF_CONFIG is not set and how to set it; with a file lacking clients, names that file', async () => {
    // Nothing answers there: the clients are checked before the database opens.
    const none = { DATABASE_URL: `postgres://nobody@127.0.0.1:${await unusedPort()}/none` };
    const unset = await runSignoff(['mcp'], none);
    expect(unset.code).toBe(2);
    expect(unset.stderr).toBe(
      "npx signoff mcp asks as one of the config file's api.clients, and no config file was read (SIGNOFF_CONFIG is not set; a signoff.yml here is not read without it): set it to the file that lists the client, e.g. SIGNOFF_CONFIG=signoff.yml npx signoff mcp\n",
    );
    const file = configFile('workflows:\n  pair:\n    maxIterations: 2\n');
    const without = await runSignoff(['mcp'], { ...none, SIGNOFF_CONFIG: file });
    expect(without.code).toBe(2);
    expect(without.stderr).toBe(
      `npx signoff mcp asks as one of the config file's api.clients, and ${file} has none: add one (see the README, "Ask from an MCP client").\n`,
    );
  });
});

describe('a task of a workflow declared in a config file', () => {
  it('resumed without that file is refused before anything is decided, naming SIGNOFF_CONFIG; with it, it goes on', async () => {
    const env = await database('resume_declared');
    const file = configFile(
      'workflows:\n  email:\n    stages:\n      - { id: draft, agents: [writer], review: draft_review }\n    agents:\n      writer: {}\n',
    );
    const started = await runSignoff(['run', 'email', 'write the launch email'], {
      ...env,
      SIGNOFF_CONFIG: file,
    });
    expect(started.code, started.stderr).toBe(0);
    const id = /Task (cli-[0-9a-f]+)/.exec(started.stdout)?.[1] as string;
    // The command it suggests loads the same file, or it would be the one refused below.
    expect(started.stdout).toContain(
      `Continue later with: SIGNOFF_CONFIG=${file} npx signoff resume ${id}\n`,
    );

    // Enter would approve: it must not be taken.
    const without = await runSignoff(['resume', id], env, '\n');
    expect(without.code).toBe(2);
    expect(without.stderr).toBe(
      `Task ${id} runs the workflow "email" from a config file, and this run loaded none (SIGNOFF_CONFIG is not set): nothing was decided. Set SIGNOFF_CONFIG to the file that declares "email" and run it again: SIGNOFF_CONFIG=<file> npx signoff resume ${id}\n`,
    );
    expect(without.stdout).not.toContain('→ approve');
    const tasks = await runSignoff(['tasks'], env);
    expect(tasks.stdout).toMatch(new RegExp(`${id} +email +waiting for review`));
    // Another file loaded: the refusal names the command once, with the file to set, and no
    // agent's or hint's "npx signoff" is rewritten to name the wrong file.
    const other = configFile('workflows:\n  pair:\n    maxIterations: 2\n');
    const wrong = await runSignoff(['resume', id], { ...env, SIGNOFF_CONFIG: other }, '\n');
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toBe(
      `Task ${id} runs the workflow "email" from a config file, and this run loaded ${other}, which does not have it: nothing was decided. Set SIGNOFF_CONFIG to the file that declares "email" and run it again: SIGNOFF_CONFIG=<file> npx signoff resume ${id}\n`,
    );

    const withIt = await runSignoff(['resume', id], { ...env, SIGNOFF_CONFIG: file }, '\n');
    expect(withIt.code, withIt.stderr).toBe(0);
    expect(withIt.stdout).toMatch(/→ approve by cli:\S+\n/);
    expect(withIt.stdout).toContain(`task ${id}: done`);
  }, 120_000);
});

describe('help', () => {
  it('starts nothing (a database that cannot be reached does not matter) and lists the workflows with their descriptions; so does --help after a command, never a task named "--help"', async () => {
    const file = configFile('workflows:\n  pair:\n    description: Two heads, then yours.\n');
    for (const args of [['help'], ['--help'], ['run', 'pair', '--help'], ['resume', '-h']]) {
      const r = await runSignoff(args, {
        DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
        SIGNOFF_CONFIG: file,
      });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain('npx signoff run <workflow> <task…>');
      expect(r.stdout).toMatch(/\n {2}pair +Two heads, then yours\.\n/);
      expect(r.stdout).toMatch(/\n {2}goal-plan +Agree the goal, then the plan/);
    }
  }, 120_000);

  it('--version and -v print the package version, starting nothing (a database that cannot be reached does not matter); "version" points to --version', async () => {
    const { version } = JSON.parse(
      readFileSync(join(import.meta.dirname, '..', '..', 'package.json'), 'utf8'),
    );
    const env = { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' };
    for (const flag of ['--version', '-v']) {
      const r = await runSignoff([flag], env);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe(`${version}\n`);
      expect(r.stderr).toBe('');
    }
    const word = await runSignoff(['version'], env);
    expect(word.code).toBe(2);
    expect(word.stderr).toBe('Unknown command "version". Did you mean: npx signoff --version\n');
  });

  it('at the prompt, a shell line (npm start, clear, ls) is said to be one, as at a review, not taken for a workflow', async () => {
    const env = await database('prompt_shell_lines');
    const r = await runSignoff([], env, 'npm start\nclear\nls\n\n');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toContain('There is no workflow');
    for (const typed of ['npm start', 'clear', 'ls'])
      expect(r.stdout).toContain(
        `"${typed}" reads like a shell command, not a task: type "<workflow> <task>" (e.g. pair write a product announcement), help or tasks here; to run it, leave first with quit (or an empty line).\n`,
      );
    expect(r.stdout).not.toMatch(/Task cli-/);
  });

  it('at the prompt, help (or ?, as at a review) and tasks (pasted as Signoff tasks too) are commands, not workflow names', async () => {
    const env = await database('prompt_commands');
    const r = await runSignoff([], env, 'help\n?\ntasks\nSignoff tasks\n\n');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toContain('There is no workflow');
    // At the prompt, how to start one is what to type there, not another command.
    expect(
      r.stdout.split(
        'No tasks yet. Start one here: type "<workflow> <task>", e.g. pair write a product announcement',
      ),
    ).toHaveLength(3);
    expect(r.stdout).not.toContain('npx signoff run <workflow>');
    // `help` and `?` list the workflows again, after the greeting did.
    expect(r.stdout.match(/ {2}proposal +Research/g)).toHaveLength(3);
    expect(r.stdout.match(/The commands \(.+\) work here as in the shell/g)).toHaveLength(2);
  });
});

describe('a task in the terminal', () => {
  it('shows what the agents said once: the review does not print it again; hints are npx commands', async () => {
    const env = await database('no_repeat');
    const r = await runSignoff(['run', 'pair', 'name the release'], env);
    expect(r.code, r.stderr).toBe(0);
    const first = /Author:\n(.+)\n/.exec(r.stdout)?.[1] as string;
    expect(first, r.stdout).toContain('[offline model]');
    expect(r.stdout.split(first)).toHaveLength(2);
    expect(r.stdout).toMatch(/Continue later with: npx signoff resume cli-\S+\n/);
    // Markdown and Slack markup are rendered, not shown raw.
    expect(r.stdout).not.toMatch(/\*Author\*|\*\*/);
  });

  it('`events` shows every entry as the transcript does: Markdown rendered, reviews in full, no empty entry', async () => {
    const env = await database('events_rendered');
    const run = await runSignoff(['run', 'goal-plan', 'plan the office move'], env, '\n');
    const id = /Task (cli-[0-9a-f]+)/.exec(run.stdout)?.[1] as string;
    const r = await runSignoff(['events', id], env);
    expect(r.code, r.stderr).toBe(0);
    // The goal review's body, which the workflow writes in Markdown (**Goal:**), rendered.
    expect(r.stdout).toMatch(
      /#\d+ review_requested shown\n {4}Review: Is this the goal\? \(round 1\)\n {4}Goal: /,
    );
    expect(r.stdout).not.toContain('**');
    // Each entry has a line under its heading: the task going back to work says so.
    expect(r.stdout).not.toMatch(/^#\d+ [^\n]*\n(?=#|$)/m);
    expect(r.stdout).toMatch(/#\d+ task_status shown\n {4}\[working\]\n/);
  }, 120_000);

  it('signoff tasks has a header and keeps its columns with long statuses', async () => {
    const env = await database('tasks_table');
    await runSignoff(['run', 'pair', 'name the release'], env);
    const r = await runSignoff(['tasks'], env);
    const [header, row] = r.stdout.split('\n');
    expect(header).toMatch(/^ID +WORKFLOW +STATUS +UPDATED +SPENT +TASK$/);
    expect(row?.indexOf('waiting for review')).toBe(header?.indexOf('STATUS'));
    expect(row?.indexOf('name the release')).toBe(header?.indexOf('TASK'));
  }, 120_000);
});

describe('a local model server', () => {
  it('OPENAI_BASE_URL without OPENAI_API_KEY runs the agents on that server, not the offline model', async () => {
    const env = await database('local_model');
    const server = new FakeOpenAI();
    await server.start();
    try {
      const r = await runSignoff(['run', 'pair', 'name the release'], {
        ...env,
        OPENAI_BASE_URL: server.url,
        OPENAI_MODEL: 'llama3.2',
      });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).not.toContain('[offline model]');
      expect(r.stdout).toContain('Here is a short answer');
      expect(server.calls.map((c) => c.model)).toContain('llama3.2');
    } finally {
      await server.stop();
    }
  }, 120_000);
});

describe('hints say what to do next', () => {
  it('a command without its task id names that command in its example', async () => {
    const env = await database('hint_ids');
    for (const command of ['events', 'resume', 'retry', 'cancel']) {
      const r = await runSignoff([command], env);
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(
        `Name the task, e.g. npx signoff ${command} cli-1a2b3c4d (see: npx signoff tasks).\n`,
      );
    }
  });

  it('docs add given a file says it is a file and gives the command with its folder', async () => {
    const env = await database('hint_docs');
    const r = await runSignoff(['docs', 'add', 'test/fixtures/docs/solar-storage.md'], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      '"test/fixtures/docs/solar-storage.md" is a file; docs add takes the folder it is in: npx signoff docs add test/fixtures/docs\n',
    );
  });

  it('at a goal review, "revise" (or "Refine") alone asks for the feedback instead of sending the word; the next line is the feedback', async () => {
    const env = await database('hint_revise');
    const r = await runSignoff(
      ['run', 'goal-plan', 'plan the office move'],
      env,
      'reject\nrevise\nRefine\nkeep it under a week\n',
    );
    expect(r.code, r.stderr).toBe(0);
    // In the review's own words, as its card says them.
    expect(r.stdout).toContain(
      '"reject" is not possible here: Enter or "approve" to accept goal, type feedback to refine.',
    );
    expect(
      r.stdout.split(
        'Type your feedback (what should change) and press Enter; an empty line goes back to the review.',
      ),
    ).toHaveLength(2);
    // "Refine", the goal review's own word for revise, typed as the feedback: the feedback is asked for again.
    expect(r.stdout).toContain('Type the feedback itself (what should change), or an empty line to go back.');
    // Echoed in the card's words: the goal review's revise is "Refine".
    expect(r.stdout).toMatch(/→ refine by cli:\S+: keep it under a week\n/);
    expect(r.stdout).not.toMatch(/→ \S+ by cli:\S+: (revise|refine)\n/i);
  }, 120_000);

  it('a command by another name points to its own (list → tasks); a workflow named as a command points to run', async () => {
    const env = await database('hint_commands');
    const list = await runSignoff(['list'], env);
    expect(list.code).toBe(2);
    expect(list.stderr).toMatch(/^Unknown command "list". Did you mean: npx signoff tasks\n/);
    const pair = await runSignoff(['pair', 'write', 'the', 'note'], env);
    expect(pair.stderr).toMatch(
      /^Unknown command "pair". To start a task: npx signoff run pair "write the note"\n/,
    );
  });

  it('a task id after status (or list) points to events, which shows that task; tasks refuses words it does not take, saying what it takes; at the prompt too', async () => {
    const env = await database('hint_status');
    const run = await runSignoff(['run', 'pair', 'name the release'], env);
    const id = /Task (cli-[0-9a-f]+)/.exec(run.stdout)?.[1] as string;
    for (const alias of ['status', 'list']) {
      const r = await runSignoff([alias, id], env);
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(`Unknown command "${alias}". Did you mean: npx signoff events ${id}\n`);
    }
    // The command suggested works, and shows that task.
    const shown = await runSignoff(['events', id], env);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('[waiting for review]');
    // `tasks` takes no words: neither a task id nor a flag is ignored in silence.
    const one = await runSignoff(['tasks', id], env);
    expect(one.code).toBe(2);
    expect(one.stderr).toBe(
      `npx signoff tasks lists every task and takes no task id. One task, all it showed: npx signoff events ${id}\n`,
    );
    expect(one.stdout).toBe('');
    const all = await runSignoff(['tasks', '--all'], env);
    expect(all.code).toBe(2);
    expect(all.stderr).toBe(
      'npx signoff tasks takes nothing after it (not "--all"): it lists the 50 tasks updated last, with their status.\n',
    );
    // At the prompt too (pasted whole or not), rather than "There is no workflow"; named as typed there.
    const prompt = await runSignoff([], env, `tasks ${id}\nnpx signoff status ${id}\n\n`);
    expect(prompt.stdout).not.toContain('There is no workflow');
    expect(prompt.stderr).toContain(`One task, all it showed: events ${id}\n`);
    expect(prompt.stderr).toContain(`Unknown command "status". Did you mean: events ${id}\n`);
  }, 120_000);

  it('wrong words are answered before the database starts: with none that answers, the usage line and exit 2', async () => {
    const env = { DATABASE_URL: `postgres://nobody@127.0.0.1:${await unusedPort()}/none` };
    const cases: [string[], string | RegExp][] = [
      [['list'], 'Unknown command "list". Did you mean: npx signoff tasks\n'],
      [['frobnicate'], /^Unknown command "frobnicate".\nusage:\n/],
      [
        ['run', 'pair'],
        'Describe the task after the workflow\'s name: npx signoff run pair "summarise Q3 invoices"\n',
      ],
      [['run'], /^Name a workflow: npx signoff run <workflow> <task…> \(pair, [a-z-, ]+\)\.\n$/],
      [['events'], 'Name the task, e.g. npx signoff events cli-1a2b3c4d (see: npx signoff tasks).\n'],
      [['docs'], 'usage: npx signoff docs add <folder> [collection]\n'],
    ];
    for (const [args, said] of cases) {
      const r = await runSignoff(args, env);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      if (typeof said === 'string') expect(r.stderr).toBe(said);
      else expect(r.stderr).toMatch(said);
    }
  }, 120_000);

  it('run with a workflow but no task shows the shell command with a task; "Pair" is pair', async () => {
    const env = await database('hint_run');
    const r = await runSignoff(['run', 'pair'], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'Describe the task after the workflow\'s name: npx signoff run pair "summarise Q3 invoices"\n',
    );
    // Workflow names are lowercase by rule: "Pair" can only mean pair.
    const upper = await runSignoff(['run', 'Pair', 'name the release'], env);
    expect(upper.code, upper.stderr).toBe(0);
    expect(upper.stdout).toMatch(/Task cli-[0-9a-f]+ \(pair\): name the release/);
  }, 120_000);

  it('the interactive prompt says what waits for a review; a command as the shell takes it runs there (resume cli-…, npx signoff resume cli-…)', async () => {
    const env = await database('prompt_resume');
    const first = await runSignoff(['run', 'pair', 'name the release'], env);
    const id = /Task (cli-[0-9a-f]+)/.exec(first.stdout)?.[1] as string;
    // The first leaves the review with "quit"; the second, pasted with its "npx signoff", approves it.
    const r = await runSignoff([], env, `resume ${id}\nquit\nnpx signoff resume ${id}\n\n\n`);
    expect(r.code, r.stderr).toBe(0);
    // Coming to the prompt says what waits, in the prompt's own words.
    expect(r.stdout).toContain(
      `1 task waits for a review: \`tasks\` lists them; \`resume ${id}\` picks it up.\n`,
    );
    expect(r.stdout).not.toContain('There is no workflow');
    expect(r.stdout.split("Review: Review the agents' work")).toHaveLength(3);
    expect(r.stdout).toContain(`task ${id}: waiting for review\n`);
    expect(r.stdout).toMatch(/→ approve by cli:\S+\n/);
    expect(r.stdout).toContain(`task ${id}: done\n`);
    // Nothing waits any more: leaving the prompt says nothing of waiting tasks.
    expect(r.stdout).not.toContain('for a review, kept for later');
  }, 120_000);

  it('leaving the prompt with quit (as a review is left) while a task waits says so, and how to come back to it', async () => {
    const env = await database('prompt_leave');
    const r = await runSignoff([], env, 'pair name the release\nquit\nquit\npair never started\n');
    expect(r.stdout).not.toContain('There is no workflow');
    expect(r.stdout).not.toContain('never started');
    expect(r.code, r.stderr).toBe(0);
    const id = /Task (cli-[0-9a-f]+)/.exec(r.stdout)?.[1] as string;
    expect(r.stdout).toContain(
      `1 task waits for a review, kept for later: \`npx signoff tasks\` lists them; \`npx signoff resume ${id}\` picks it up.`,
    );
  }, 120_000);

  it('leaving the prompt counts what `tasks` lists as waiting (tasks asked through the API too), on a line of its own after Ctrl-D', async () => {
    const env = await database('prompt_leave_count');
    const own = await runSignoff(['run', 'pair', 'name the release'], env);
    const id = /Task (cli-[0-9a-f]+)/.exec(own.stdout)?.[1] as string;
    // Two tasks an agent asked through the HTTP API (Slack's surface), waiting on their review,
    // updated after the terminal's.
    const pool = new pg.Pool({ connectionString: env.DATABASE_URL });
    await seedWaiting(pool, { prefix: 'asked', n: 2, channel: 'C0API', ageSeconds: 2 }).finally(() =>
      pool.end(),
    );
    const listed = await runSignoff(['tasks'], env);
    expect(listed.stdout.match(/ waiting for review /g)).toHaveLength(3);
    // Ctrl-D at the prompt: the input ends once the question is on screen.
    const prompt = startSignoff([], env);
    await prompt.waitFor(/to leave\)\n> $/);
    prompt.child.stdin?.end();
    const r = await prompt.exited;
    expect(r.code, r.stderr).toBe(0);
    // The one named to pick up is the terminal's own, though the others were updated since.
    expect(r.stdout).toContain(
      `\n3 tasks wait for a review: \`tasks\` lists them; \`resume ${id}\` picks one up.\n`,
    );
    expect(
      r.stdout.endsWith(
        `\n> \n3 tasks wait for a review, kept for later: \`npx signoff tasks\` lists them; \`npx signoff resume ${id}\` picks one up.\n`,
      ),
    ).toBe(true);
  }, 120_000);
});

describe('failures to start say what failed', () => {
  it('a database that does not answer', async () => {
    const r = await runSignoff(['tasks'], { DATABASE_URL: 'postgres://me:secret@127.0.0.1:1/signoff' });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(
      'the database at 127.0.0.1:1 did not answer (connection refused): is it running? check DATABASE_URL',
    );
    expect(r.stderr).not.toContain('secret');
    expect(r.stderr).not.toMatch(NO_STACK);
  });

  it('a database address that hangs up: names the database (no password) and what to check', async () => {
    // Something listens, but closes every connection at once: not PostgreSQL, or not for us.
    const server = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const r = await runSignoff(['tasks'], {
        DATABASE_URL: `postgres://me:secret@127.0.0.1:${port}/signoff`,
      });
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain(
        `the database at 127.0.0.1:${port}/signoff hung up without answering (connection terminated unexpectedly): is a PostgreSQL server listening there, and does it take this connection (sslmode, pg_hba.conf)? check DATABASE_URL`,
      );
      expect(r.stderr).not.toContain('secret');
      expect(r.stderr).not.toMatch(NO_STACK);
    } finally {
      server.close();
    }
  });

  it("a database user that may not create signoff's schemas: says which privilege and how to grant it", async () => {
    const { DATABASE_URL } = await database('no_create');
    const role = `r_${Math.random().toString(36).slice(2, 10)}`;
    const admin = new pg.Client({ connectionString: DATABASE_URL });
    await admin.connect();
    try {
      await admin.query(`CREATE ROLE ${role} LOGIN PASSWORD 'secret'`);
      const url = new URL(DATABASE_URL);
      url.username = role;
      url.password = 'secret';
      const name = url.pathname.slice(1);
      const r = await runSignoff(['tasks'], { DATABASE_URL: url.toString() });
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain(
        `user "${role}" may not create signoff's schemas in database "${name}" (permission denied for database ${name}): make it the database's owner (ALTER DATABASE ${name} OWNER TO ${role}), or GRANT CREATE ON DATABASE ${name} TO ${role}`,
      );
      expect(r.stderr).not.toContain('secret');
      expect(r.stderr).not.toMatch(NO_STACK);
    } finally {
      await admin.query(`DROP OWNED BY ${role}`).catch(() => undefined);
      await admin.end();
      const other = new pg.Client({ connectionString: DATABASE_URL.replace(/\/[^/]*$/, '/postgres') });
      await other.connect();
      await other.query(`DROP ROLE IF EXISTS ${role}`);
      await other.end();
    }
  });

  it('a data folder that cannot be made', async () => {
    // A regular file where a folder should be; nobody, root included, can make a folder in it.
    const file = join(folder(), 'not-a-folder');
    writeFileSync(file, '');
    const r = await runSignoff(['tasks'], { SIGNOFF_DATA_DIR: join(file, 'data') });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(
      `cannot create the data folder ${join(file, 'data')}: ${file} is not a folder; set SIGNOFF_DATA_DIR to a folder you can write`,
    );
    expect(r.stderr).not.toMatch(NO_STACK);
  });

  it('a data folder without permission', async () => {
    // sysfs refuses new folders even to root; elsewhere a folder without write permission does.
    const parent = process.getuid?.() === 0 ? '/sys' : folder();
    if (parent !== '/sys') chmodSync(parent, 0o555);
    const dir = join(parent, 'signoff-data');
    const r = await runSignoff(['tasks'], { SIGNOFF_DATA_DIR: dir });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(
      `cannot create the data folder ${dir}: permission denied; set SIGNOFF_DATA_DIR to a folder you can write`,
    );
    expect(r.stderr).not.toMatch(NO_STACK);
  });

  it.runIf(existsSync('/proc/self'))(
    'a data folder the system refuses (/proc): says so at once, without first saying it starts the server',
    async () => {
      // Node 20's recursive mkdir looped on this for ever (mkdir /proc/nope ENOENT, /proc EEXIST).
      const run = startSignoff(['tasks'], { SIGNOFF_DATA_DIR: '/proc/nope/data' });
      const end = await Promise.race([run.exited, sleep(20_000).then(() => 'still running' as const)]);
      if (end === 'still running') run.signalGroup('SIGKILL');
      expect(end).not.toBe('still running');
      if (end === 'still running') return;
      expect(end.code).toBe(1);
      expect(end.stderr).toBe(
        'signoff stopped: cannot create the data folder /proc/nope/data: /proc does not take new folders; set SIGNOFF_DATA_DIR to a folder you can write\n',
      );
    },
  );

  it('says it is starting the embedded PostgreSQL the first time, not after', async () => {
    const parent = folder();
    // As root the server runs as another user, who must be able to enter the folder.
    chmodSync(parent, 0o755);
    const dir = join(parent, 'data');
    const first = await runSignoff(['tasks'], { SIGNOFF_DATA_DIR: dir });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toMatch(
      new RegExp(`^Starting the embedded PostgreSQL in ${dir} \\(first run: ~\\d+ s\\)…\n`),
    );
    const again = await runSignoff(['tasks'], { SIGNOFF_DATA_DIR: dir });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).not.toContain('Starting the embedded PostgreSQL');
  }, 180_000);
});
