/**
 * What answers a review at the terminal, through the real CLI process: on a terminal (a
 * pseudo-terminal here), only a line typed once the review is on screen: Enter pressed while
 * agents work is dropped and said to be, and lines pasted together are one answer; piped answers
 * written ahead are read as they come. A tool call is approved by the word "approve" only.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { runSignoff, startInTerminal, startSignoff } from '../helpers/processes.js';

let db: TestDatabase;
let config: string;
beforeAll(async () => {
  db = await createTestDatabase('terminal_answers');
  config = join(mkdtempSync(join(tmpdir(), 'terminal-answers-')), 'signoff.yml');
  const module = join(import.meta.dirname, '..', 'fixtures', 'hitl-graph.ts');
  writeFileSync(config, `workflows:\n  pair:\n    maxIterations: 1\n  tools:\n    module: ${module}\n`);
});
afterAll(async () => {
  await db?.drop();
});

const IGNORED = /\(A line typed before this was asked was ignored\.\)/g;

describe('at a terminal', () => {
  it('Enter pressed while agents work answers no review (dropped, and said to be); feedback pasted with a blank line after it is one answer, the blank line part of it', async () => {
    const run = startInTerminal(['run', 'pair', 'name the launch'], {
      DATABASE_URL: db.url,
      SIGNOFF_CONFIG: config,
    });
    try {
      // Typed while the task starts and its agents work, before any review is shown.
      run.send('');
      await run.waitFor(IGNORED);
      expect(run.stdout()).not.toMatch(/→ approve/);
      // Feedback pasted with a blank line after it: one answer, the words; the blank answers nothing.
      run.send('name the formats\n');
      await run.waitFor(/Review the agents' work \(cycle 2\)[\s\S]*> $/);
      expect(run.stdout().match(IGNORED)).toHaveLength(1);
      expect(run.stdout()).toMatch(/→ give feedback by \S+: name the formats/);
      expect(run.stdout()).not.toMatch(/→ approve/);
      run.send('approve');
      const ended = await run.exited;
      expect(ended.code, ended.stdout).toBe(0);
      expect(ended.stdout).toMatch(/→ approve by \S+/);
      expect(ended.stdout).toMatch(/task \S+: done/);
    } finally {
      if (run.child.exitCode === null) run.signalGroup('SIGKILL');
    }
  });
});

describe('piped answers', () => {
  it('are read as they come, a script of answers written ahead; a tool call is not approved by Enter or "y", only by "approve"', async () => {
    const r = await runSignoff(
      ['run', 'tools', 'one call'],
      { DATABASE_URL: db.url, SIGNOFF_CONFIG: config },
      '\ny\napprove\n',
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('└─ "approve" to approve,');
    const told =
      'A tool call is approved by the word only: type "approve" to approve, or "reject" (or "reject: why") to reject.';
    expect(r.stdout.split(told)).toHaveLength(2);
    // "y" reads like a decision but is none: asked about, never taken for one.
    expect(r.stdout).toContain('Did you mean approve? Type "approve" to approve.');
    expect(r.stdout).toMatch(/→ approve by \S+/);
    expect(r.stdout).toContain(`RESUMED ${JSON.stringify({ decisions: [{ type: 'approve' }] })}`);
    expect(r.stdout).not.toContain('ignored');
    expect(r.stdout.trim().split('\n').at(-1)).toMatch(/^task \S+: done$/);
  });

  it("asks the Edit form's note again when it is longer than the review takes, keeping the calls' decisions", async () => {
    const r = await runSignoff(
      ['run', 'tools', 'two calls'],
      { DATABASE_URL: db.url, SIGNOFF_CONFIG: config },
      ['edit', 'approve', '', 'reject', 'x'.repeat(3500), 'no log line', ''].join('\n'),
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('That is 3,500 characters; this review takes at most 3,000.');
    expect(r.stdout).toContain(
      `RESUMED ${JSON.stringify({ decisions: [{ type: 'approve' }, { type: 'reject', message: 'no log line' }] })}`,
    );
    expect(r.stdout.trim().split('\n').at(-1)).toMatch(/^task \S+: done$/);
  });

  it("asks the Edit form's arguments again when they are not JSON, saying briefly where (the bit it stopped at, never the whole line back), keeping the calls' decisions", async () => {
    const body = 'We ship today. '.repeat(40).trim();
    const edited = { to: 'ops@example.com', subject: 'Launch', body: 'We ship today.' };
    const r = await runSignoff(
      ['run', 'tools', 'two calls'],
      { DATABASE_URL: db.url, SIGNOFF_CONFIG: config },
      [
        'edit',
        'approve',
        // A long line with a comma left out, then one whose key lost its quotes.
        `{"to": "ops@example.com", "subject": "Launch", "body": "${body}" "cc": "board@example.com"}`,
        'reject',
        '{"to": "ops@example.com", subject: "Launch", "body": "We ship today."}',
        JSON.stringify(edited),
        'not this mail',
        '',
      ].join('\n'),
    );
    expect(r.code, r.stderr).toBe(0);
    const said = r.stdout
      .split('\n')
      .flatMap((line) => line.split(/(?=The arguments of)/))
      .filter((line) => line.startsWith('The arguments'));
    expect(said).toEqual([
      'The arguments of 1. send_email could not be read as JSON (expected \',\' or \'}\' after property value at “"cc": "board@example…”): write them as one JSON object, such as {"to": "…"}.',
      'The arguments of 1. send_email could not be read as JSON (expected double-quoted property name at “subject: "Launch", "…”): write them as one JSON object, such as {"to": "…"}.',
    ]);
    // Only the arguments are asked again: the log's "reject", typed once, is kept.
    expect(r.stdout.split('2. log: "approve" or "reject"?')).toHaveLength(2);
    expect(r.stdout.split('1. send_email arguments, as one line of JSON')).toHaveLength(4);
    expect(r.stdout).toContain(
      `RESUMED ${JSON.stringify({
        decisions: [
          { type: 'edit', editedAction: { name: 'send_email', args: edited } },
          { type: 'reject', message: 'not this mail' },
        ],
      })}`,
    );
    expect(r.stdout.trim().split('\n').at(-1)).toMatch(/^task \S+: done$/);
  });
});

describe('no decision is inferred at the prompt', () => {
  const env = () => ({ DATABASE_URL: db.url, SIGNOFF_CONFIG: config });
  const last = (stdout: string) => stdout.trim().split('\n').at(-1);

  it("a tool call's Edit form left unchanged (Enter on its arguments) goes back to the review and approves nothing", async () => {
    const r = await runSignoff(['run', 'tools', 'one call'], env(), 'edit\n\n');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('(Enter changes nothing and goes back to the review)');
    expect(r.stdout).toContain(
      'Nothing changed in the arguments, so nothing was decided. Back to the review: type "approve" to approve them as shown.',
    );
    expect(r.stdout).not.toMatch(/→ (approve|approved)/);
    expect(r.stdout).not.toContain('RESUMED');
    expect(last(r.stdout)).toMatch(/^task \S+: waiting for review$/);
  });

  it('after arguments typed wrong, Enter where they are asked again goes back to the review: the calls are not approved as shown', async () => {
    const r = await runSignoff(['run', 'tools', 'two calls'], env(), 'edit\napprove\n{"to": \napprove\n\n');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(
      '1. send_email arguments, as one line of JSON (Enter goes back to the review; nothing is decided): ',
    );
    expect(r.stdout).toContain('Nothing was decided. Back to the review.');
    expect(r.stdout).not.toMatch(/→ (approve|approved)/);
    expect(r.stdout).not.toContain('RESUMED');
    expect(last(r.stdout)).toMatch(/^task \S+: waiting for review$/);
  });

  it('a tool call\'s arguments typed again as shown are no edit: only "approve" then approves, and a real edit is an edit', async () => {
    const shown = JSON.stringify({ to: 'team@example.com', subject: 'Launch', body: 'We ship today.' });
    const edited = JSON.stringify({ to: 'ops@example.com', subject: 'Launch', body: 'We ship today.' });
    const r = await runSignoff(['run', 'tools', 'one call'], env(), `${shown}\nedit\n${edited}\n`);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Those are the arguments as shown; nothing changed.');
    expect(r.stdout).toContain('→ approved with edits by');
    expect(r.stdout).toContain('"type":"edit"');
    expect(last(r.stdout)).toMatch(/^task \S+: done$/);
  });

  it("a tool call's arguments typed with their keys in another order are the arguments as shown: no edit, and no approval", async () => {
    const reordered = '{"body": "We ship today.", "subject": "Launch", "to": "team@example.com"}';
    const r = await runSignoff(['run', 'tools', 'one call'], env(), `${reordered}\nedit\n${reordered}\n`);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Those are the arguments as shown; nothing changed.');
    expect(r.stdout).toContain('Nothing changed in the arguments, so nothing was decided.');
    expect(r.stdout).not.toMatch(/→ (approve|approved)/);
    expect(r.stdout).not.toContain('RESUMED');
    expect(last(r.stdout)).toMatch(/^task \S+: waiting for review$/);
  });

  it('a call that may be edited but not approved as asked: Enter, "approve" and its arguments pasted back as shown each say it must be changed, and how; an edit runs it', async () => {
    const shown = '{"body": "We ship today.", "subject": "Launch", "to": "all@example.com"}';
    const edited = { to: 'team@example.com', subject: 'Launch', body: 'We ship today.' };
    const r = await runSignoff(
      ['run', 'tools', 'edit-only mail'],
      env(),
      `\napprove\n${shown}\n${JSON.stringify(edited)}\n`,
    );
    expect(r.code, r.stderr).toBe(0);
    const say =
      'This call may not go ahead as asked: type its edited arguments as one line of JSON, "edit" for a form, or "reject" (or "reject: why").';
    expect(r.stdout.split(say)).toHaveLength(4);
    expect(r.stdout).toContain(`Those are the arguments as shown; nothing changed. ${say}`);
    expect(r.stdout).toContain(
      '└─ type its edited arguments as one line of JSON (it may not go ahead as asked), "edit" for a form, "reject" to reject.',
    );
    // The title asks what may be done: no approval of the call as asked (Slack's card says the same).
    expect(r.stdout).toContain('Review: Change send_email?');
    expect(r.stdout).toContain(
      `RESUMED ${JSON.stringify({ decisions: [{ type: 'edit', editedAction: { name: 'send_email', args: edited } }] })}`,
    );
    expect(last(r.stdout)).toMatch(/^task \S+: done$/);
  });

  it('words typed at a tool call are said to change no call, with what does in one short line (no argument set wrapped over lines); nothing is decided', async () => {
    const r = await runSignoff(['run', 'tools', 'one call'], env(), 'please change the subject\n');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(
      'Words do not change a tool call: type its edited arguments as one line of JSON (such as {"to": "…"}), "edit" for a form, or "reject: <why>" to tell the agent why.\n',
    );
    expect(r.stdout).not.toMatch(/→ /);
    expect(r.stdout).not.toContain('RESUMED');
    expect(last(r.stdout)).toMatch(/^task \S+: waiting for review$/);
  });

  it('after "revise" the next line is the feedback; an empty one goes back to the review and approves nothing', async () => {
    const r = await runSignoff(['run', 'pair', 'name the launch'], env(), 'revise\n\n');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('No feedback typed; nothing was sent. Back to the review.');
    expect(r.stdout).not.toMatch(/→ (approve|revise|give feedback)/);
    expect(last(r.stdout)).toMatch(/^task \S+: waiting for review$/);

    const given = await runSignoff(['run', 'pair', 'name the launch'], env(), 'revise\nname the formats\n');
    expect(given.stdout).toMatch(/→ give feedback by \S+: name the formats\n/);
  });

  it('after "revise", a command or a choice typed as the feedback keeps the feedback prompt: the Enter typed next goes back to the review and approves nothing', async () => {
    const r = await runSignoff(
      ['run', 'pair', 'name the launch'],
      env(),
      'revise\ntasks\n\nrevise\nreject\n\n',
    );
    expect(r.code, r.stderr).toBe(0);
    for (const typed of ['tasks', 'reject'])
      expect(r.stdout).toMatch(
        new RegExp(
          `"${typed}" reads [^\\n]*; nothing was sent\\. Type the feedback, "revise: ${typed}" to send it as is, or Enter to go back to the review\\.\\nfeedback> No feedback typed; nothing was sent\\. Back to the review\\.`,
        ),
      );
    expect(r.stdout).not.toMatch(/→ /);
    expect(r.stdout).not.toContain('RESUMED');
    expect(last(r.stdout)).toMatch(/^task \S+: waiting for review$/);
  });

  it('words that read like a decision are asked about, not sent as feedback; help lists the choices; quit leaves the task waiting', async () => {
    const words = [
      'approved',
      'Approve.',
      'approve!',
      'Reject.',
      'rejected',
      'reject:',
      'done',
      'looks good',
      'k',
    ];
    const r = await runSignoff(
      ['run', 'pair', 'name the launch'],
      env(),
      [...words, 'help', 'quit', 'approve', ''].join('\n'),
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(/→ /);
    expect(
      r.stdout.split(
        'Did you mean approve? Type "approve" to approve, or "revise: <feedback>" to give feedback.',
      ),
    ).toHaveLength(7);
    expect(r.stdout.split('Did you mean reject?')).toHaveLength(3);
    expect(r.stdout).toContain('Type the reason after "reject:", or "reject" alone to reject without one.');
    expect(r.stdout).toMatch(/At this review, type:\n {2}Enter \/ approve +approve\n/);
    expect(r.stdout).toMatch(
      // This file's runs load a config file: the command names it, or that resume would be refused.
      /\n {2}quit \/ exit \/ q +leave this prompt; the task keeps waiting: SIGNOFF_CONFIG=\S+signoff\.yml npx signoff resume cli-/,
    );
    const id = /Task (cli-[0-9a-f]+)/.exec(r.stdout)?.[1];
    expect(r.stdout).toContain(
      `Task ${id} is waiting for review. Continue later with: SIGNOFF_CONFIG=${config} npx signoff resume ${id}`,
    );
    // "quit" left the prompt: the "approve" after it answered nothing.
    expect(last(r.stdout)).toBe(`task ${id}: waiting for review`);
  });

  it('"cancel" at a review asks first, naming both answers that confirm it ("yes", or "cancel" again); each cancels the task', async () => {
    const asked = 'Type "yes" (or "cancel" again) to confirm; anything else goes back to the review: ';
    for (const confirm of ['yes', 'cancel']) {
      const r = await runSignoff(['run', 'pair', 'name the launch'], env(), `cancel\nno\nstop\n${confirm}\n`);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain('Not cancelled. Back to the review.');
      expect(r.stdout.split(asked)).toHaveLength(3);
      // The reason, said just above, is not said again on the last line.
      expect(r.stdout).toMatch(/\[cancelled by cli:\S+\]\n/);
      expect(r.stdout).toMatch(/\ntask \S+: cancelled\n$/);
    }
  });
});

describe('a prompt that waits', () => {
  /** `signoff run pair <task>` whose review rejects by itself after `timeout`; stdin stays open and silent. */
  const timedRun = (timeout: string, task: string) => {
    const timed = join(mkdtempSync(join(tmpdir(), 'terminal-answers-')), 'signoff.yml');
    writeFileSync(
      timed,
      `workflows:\n  pair:\n    maxIterations: 1\n    checkpoints:\n      review: { timeout: ${timeout}, onTimeout: reject }\n`,
    );
    return startSignoff(['run', 'pair', task], { DATABASE_URL: db.url, SIGNOFF_CONFIG: timed });
  };

  it('shows a reminder when it fires, above the prompt, without printing the card again', async () => {
    const run = timedRun('20s', 'somebody is reminded');
    try {
      await run.waitFor(/Review: /);
      // Half time (10 s): the reminder is on screen while nobody typed, well before the deadline
      // (before, it waited for the deadline's change of the review, 20 s), then the prompt again.
      await run.waitFor(/⏰ Reminder[^\n]*\n> /, 15_000);
      expect(run.stdout()).not.toContain('nobody decided');
      expect(run.stdout().split('Review: '), run.stdout()).toHaveLength(2);
      run.send('approve');
      const end = await run.exited;
      expect(end.code, end.stderr).toBe(0);
      expect(end.stdout.trim().split('\n').at(-1)).toMatch(/^task \S+: done/);
    } finally {
      run.child.kill();
    }
  });

  it('shows what the deadline decided while nobody typed, and gives up the card that no longer waits: the run ends without input', async () => {
    // Before, the prompt waited on its silent stdin for ever, the card on screen stale.
    const run = timedRun('3s', 'nobody answers');
    try {
      await run.waitFor(/Review: /);
      await run.waitFor(/→ reject automatically, nobody decided/, 40_000);
      const end = await run.exited;
      expect(end.code, end.stderr).toBe(0);
      expect(end.stdout.trim().split('\n').at(-1)).toMatch(/^task \S+: rejected/);
    } finally {
      run.child.kill();
    }
  });
});
