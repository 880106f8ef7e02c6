import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
/**
 * Durability across processes: a review answered by a different process, and a worker killed
 * with SIGKILL in the middle of a run.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../helpers/database.js';
import { type Harness, openHarness } from '../helpers/harness.js';
import { runSignoff, startScript } from '../helpers/processes.js';

let db: Awaited<ReturnType<typeof createTestDatabase>>;
beforeAll(async () => {
  db = await createTestDatabase('restart');
});
afterAll(async () => {
  await db?.drop();
});

describe('a task outlives its process', () => {
  it('is started in one process, left waiting at end of input, and finished by another, whose resume names the task first', async () => {
    const env = { DATABASE_URL: db.url };
    const first = await runSignoff(['run', 'specialist', 'reconcile the audit findings'], env, '');
    expect(first.code).toBe(0);
    const id = /signoff resume (\S+)/.exec(first.stdout)?.[1];
    expect(id, first.stdout + first.stderr).toMatch(/^cli-/);
    expect(first.stdout.trim().split('\n').at(-1)).toBe(`task ${id}: waiting for review`);
    expect(first.stdout).toContain('Routing this to the audit specialist.');

    const second = await runSignoff(['resume', id as string], env, 'split it by quarter\napprove\n');
    expect(second.code, second.stderr).toBe(0);
    // Headed as `run` heads it: which task this is, before its review.
    expect(second.stdout.split('\n')[0]).toBe(`Task ${id} (specialist): reconcile the audit findings`);
    expect(second.stdout).toContain('revised to address the feedback "split it by quarter"');
    expect(second.stdout.trim().split('\n').at(-1)).toBe(`task ${id}: done`);

    const tasks = await runSignoff(['tasks'], env);
    expect(tasks.stdout).toMatch(new RegExp(`${id}\\s+specialist\\s+done`));
  });

  it('finishes the interrupted step after a kill -9, announcing nothing twice', async () => {
    let h: Harness | undefined;
    const worker = await startScript('test/fixtures/worker.ts', {
      DATABASE_URL: db.url,
      SIGNOFF_SCRIPTED_DELAY_MS: '400',
      // The killed worker's run lease holds the task until it expires.
      SIGNOFF_LEASE_SECONDS: '3',
    });
    try {
      h = await openHarness({ url: db.url, work: false });
      const task = await h.start('pair', 'draft the launch email');
      // Kill the worker once the first agent has spoken and the second is thinking.
      for (let i = 0; i < 200; i++) {
        const said = (await h.engine.events(task.id)).filter((e) => e.event.type === 'agent_said');
        if (said.length >= 1) break;
        await new Promise((r) => setTimeout(r, 25));
      }
      worker.kill('SIGKILL');
      await new Promise((r) => worker.once('exit', r));
      expect((await h.engine.getTask(task.id))?.status).toBe('working');

      await h.engine.work('cli', 2);
      await h.nextReview(task.id);
      const said = (await h.engine.events(task.id)).filter((e) => e.event.type === 'agent_said');
      expect(said.map((e) => (e.event as { agent: string }).agent)).toEqual(['Author', 'Reviewer', 'Author']);
      // Each step was given the history as it stood, no step's words twice: the same context as a
      // run that was never killed (the offline model says how many words it read).
      const contextOf = (events: typeof said) =>
        events.map((e) => (e.event as { text: string }).text.match(/read (\d+) words? of context/)?.[1]);
      const calm = await h.start('pair', 'draft the launch email');
      await h.nextReview(calm.id);
      const calmSaid = (await h.engine.events(calm.id)).filter((e) => e.event.type === 'agent_said');
      expect(contextOf(said)).toEqual(contextOf(calmSaid));
      expect(new Set(contextOf(said)).size).toBe(3);
      expect(await h.engine.reviews(task.id, 'pending')).toHaveLength(1);
    } finally {
      worker.kill('SIGKILL');
      await h?.close();
    }
  });
});

describe('the terminal says what is wrong', () => {
  const env = () => ({ DATABASE_URL: db.url });
  const empty = mkdtempSync(join(tmpdir(), 'no-docs-'));
  it.each([
    [
      ['run', 'nonesuch', 'do it'],
      2,
      'There is no workflow "nonesuch". Try one of: pair, specialist, goal-plan, proposal, ask.',
    ],
    [['run', 'pair'], 2, `Describe the task after the workflow's name`],
    [['run'], 2, 'Name a workflow'],
    [['resume', 'cli-nope'], 2, 'There is no task "cli-nope". See them with: npx signoff tasks'],
    [['frobnicate'], 2, 'Unknown command "frobnicate"'],
    [['docs', 'add', 'no/such/folder'], 2, 'There is no folder "no/such/folder".'],
    [['docs'], 2, 'usage: npx signoff docs add <folder> [collection]'],
    // Words right, nothing to do it with: could not do what was asked (1), not done (0).
    [['docs', 'add', empty], 1, `No .md or .txt files under "${empty}"; nothing added.`],
    [
      ['redirect', 'cli-nope', 'new goal'],
      2,
      'There is no task "cli-nope". See them with: npx signoff tasks',
    ],
  ])('signoff %j → exit %i (0 done, 1 could not, 2 bad usage)', async (args, code, message) => {
    const r = await runSignoff(args as string[], env());
    expect(r.code).toBe(code);
    expect(r.stderr).toContain(message);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('runs your own graph from the config file and takes an edit as JSON', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'own-graph-'));
    const file = join(dir, 'signoff.yml');
    const module = join(import.meta.dirname, '..', '..', 'examples', 'approval-agent', 'graph.ts');
    writeFileSync(file, `workflows:\n  mailer:\n    module: ${module}\n`);
    const r = await runSignoff(
      ['run', 'mailer', 'email the minutes'],
      { ...env(), SIGNOFF_CONFIG: file },
      'not json\n{"to": "ops@example.com", "subject": "Minutes", "body": "Attached."}\n',
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Approve send_email?');
    expect(r.stdout).toContain(
      'Words do not change a tool call: type its edited arguments as one line of JSON',
    );
    expect(r.stdout).toContain('Sent "Minutes" to ops@example.com.');
    expect(r.stdout.trim().split('\n').at(-1)).toMatch(/^task \S+: done$/);
  });

  it('decides each call of a several-call tool review at the prompt; words never decide one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tool-calls-'));
    const file = join(dir, 'signoff.yml');
    const module = join(import.meta.dirname, '..', 'fixtures', 'hitl-graph.ts');
    writeFileSync(file, `workflows:\n  tools:\n    module: ${module}\n`);
    const edited = { to: 'ops@example.com', subject: 'Launch', body: 'We ship today.' };
    const r = await runSignoff(
      ['run', 'tools', 'two calls'],
      { ...env(), SIGNOFF_CONFIG: file },
      [
        'do not send this',
        'edit',
        'maybe',
        'approve',
        JSON.stringify(edited),
        'reject',
        'no log line',
        '',
      ].join('\n'),
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('└─ "approve" to approve all 2');
    expect(r.stdout).toContain('"edit" to edit or decide each');
    expect(r.stdout).toContain(
      'Words do not change a tool call: type "edit" to decide each call, "approve" to approve all 2, or "reject: <why>" to reject all 2 and tell the agent why.',
    );
    expect(r.stdout).toContain('Type "approve" or "reject".');
    expect(r.stdout).toContain(
      `RESUMED ${JSON.stringify({
        decisions: [
          { type: 'edit', editedAction: { name: 'send_email', args: edited } },
          { type: 'reject', message: 'no log line' },
        ],
      })}`,
    );
    expect(r.stdout).toContain('→ approved with edits by');
    expect(r.stdout.trim().split('\n').at(-1)).toMatch(/^task \S+: done$/);
  });

  it('goal-plan and proposal run to the end in the terminal', async () => {
    const goal = await runSignoff(
      ['run', 'goal-plan', 'tidy the wiki'],
      env(),
      'keep the history\napprove\napprove\n',
    );
    expect(goal.code, goal.stderr).toBe(0);
    expect(goal.stdout).toContain('Is this the goal? (round 2)');
    expect(goal.stdout).toContain('Summary');
    expect(goal.stdout.trim().split('\n').at(-1)).toMatch(/^task \S+: done$/);

    const proposal = await runSignoff(
      ['run', 'proposal', 'quiet office spaces'],
      env(),
      'open-plan noise\napprove\nlooks good, approved\n',
    );
    expect(proposal.code, proposal.stderr).toBe(0);
    // Rendered for the terminal: the Markdown is gone, the words stay.
    expect(proposal.stdout).toContain('Search: "open-plan noise"');
    expect(proposal.stdout).toContain('Novelty reviewer');
    // The reason is said once, on its status line; the last line then says the status alone.
    expect(proposal.stdout).toContain('\n[done: approved]\n');
    expect(proposal.stdout.trim().split('\n').at(-1)).toMatch(/^task \S+: done$/);
  });

  it('signoff docs add ingests a folder as a collection', async () => {
    const r = await runSignoff(['docs', 'add', 'test/fixtures/docs', 'energy'], env());
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('2 documents in the collection "energy" (added or updated).\n');
  });

  it('redirect needs a task whose agents are working; on one waiting for a review it says how to send feedback instead, or, where the review takes no feedback (a query to search), to answer it first', async () => {
    const waiting = await runSignoff(['run', 'pair', 'name the release'], env());
    const id = /task (\S+): waiting for review/.exec(waiting.stdout)?.[1] as string;
    const r = await runSignoff(['redirect', id, 'name the codename instead'], env());
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `Task ${id} is waiting for a review, so no agent is working to redirect. Send the agents your words as feedback instead: npx signoff resume ${id}, then type "revise: <your words>".\n`,
    );
    // A proposal's first review asks which query to search: its words are a query, not feedback.
    const query = await runSignoff(['run', 'proposal', 'quiet office spaces'], env());
    const queryId = /task (\S+): waiting for review/.exec(query.stdout)?.[1] as string;
    const q = await runSignoff(['redirect', queryId, 'focus on libraries'], env());
    expect(q.code).toBe(1);
    expect(q.stderr).toBe(
      `Task ${queryId} is waiting for a review, so no agent is working to redirect. Answer the review first: npx signoff resume ${queryId} (type help there for its choices).\n`,
    );
  });

  it('refuses to resume a finished task', async () => {
    const done = await runSignoff(['run', 'pair', 'say hi'], env(), 'approve\n');
    const id = /task (\S+): done/.exec(done.stdout)?.[1] as string;
    const r = await runSignoff(['resume', id], env());
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`Task ${id} is done; there is nothing to decide.`);
  });

  it('explains a bad environment instead of starting', async () => {
    const r = await runSignoff(['tasks'], { ...env(), PORT: 'eighty', SLACK_BOT_TOKEN: 'xoxb-1' });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('PORT must be a whole number');
    expect(r.stderr).toContain('SLACK_SIGNING_SECRET is missing');
  });

  it('a half-configured Slack refuses only what needs Slack, naming the variable missing; tasks and help still run', async () => {
    const half = { ...env(), SLACK_BOT_TOKEN: 'xoxb-1' };
    const tasks = await runSignoff(['tasks'], half);
    expect(tasks.code, tasks.stderr).toBe(0);
    expect(tasks.stdout).toMatch(/^No tasks yet|^ID\s/m);
    const help = await runSignoff(['--help'], half);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('npx signoff tasks');

    // A server needs Slack: refused with the variable it lacks, never the terminal instead.
    const server = await runSignoff([], half);
    expect(server.code).toBe(2);
    expect(server.stderr).toBe(
      'signoff cannot start; fix the configuration:\n  SLACK_SIGNING_SECRET is missing: HTTP mode needs it (or set SLACK_APP_TOKEN for Socket Mode)\n',
    );
    const worker = await runSignoff([], { ...env(), SIGNOFF_ROLE: 'worker', SLACK_APP_TOKEN: 'xapp-1' });
    expect(worker.code).toBe(2);
    expect(worker.stderr).toContain('SLACK_BOT_TOKEN is missing: Slack needs the bot token (xoxb-…) as well');
  });
});
