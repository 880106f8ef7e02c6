/** What the terminal prints of agents' and people's text carries no control characters. */
import { describe, expect, it } from 'vitest';
import { runCommand } from '../../src/cli/commands.js';
import { createFeed, formatReview } from '../../src/cli/printer.js';
import { taskTable } from '../../src/cli/task-table.js';
import type { Engine } from '../../src/engine/api.js';
import type { DeliveredEvent, EngineEvent, Review, Task } from '../../src/engine/types.js';
import { FAILURE_SENTENCES, FAILURE_SENTENCES_AT_THE_KEYBOARD } from '../../src/failures.js';

/** Anything that is not printable text, newline or tab: C0, DEL, C1. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this looks for
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

/** Clears the screen, sets the window's title, makes a link, turns text red (8-bit CSI), rewinds. */
const HOSTILE =
  'Plan:\u001b[2J step one\u001b]0;title\u0007 and\u001b]0;a longer title\u001b\\ two \u001b]8;;https://evil.example\u0007link\u001b]8;;\u0007\u009b31m red\rover\u0008\u0000 end\tok\nnext';

async function printed(events: EngineEvent[]): Promise<string> {
  let out = '';
  const feed = createFeed({
    events: async () =>
      events.map(
        (event, i): DeliveredEvent => ({ id: i + 1, taskId: 't', key: `k${i}`, event, attempts: 1 }),
      ),
    out: {
      write: (s) => {
        out += s;
      },
    },
  });
  await feed.pump('t');
  return out;
}

describe('the terminal prints text, never control sequences', () => {
  it('an agent message with a screen clear, window titles, a hyperlink and an 8-bit CSI prints without them', async () => {
    const out = await printed([{ type: 'agent_said', agent: 'Writer\u001b[31m', text: HOSTILE }]);
    expect(out).not.toMatch(CONTROL);
    expect(out).not.toContain('title');
    expect(out).not.toContain('evil.example');
    expect(out).toBe('\nWriter:\nPlan: step one and two link red\nover end\tok\nnext\n');
  });

  it("a person's words (a redirect, feedback) print without them too", async () => {
    const out = await printed([
      {
        type: 'task_redirected',
        by: 'ann\u001b[8m',
        text: `new goal${HOSTILE}`,
        abandoned: 'old\u001b[2K',
      } as EngineEvent,
    ]);
    expect(out).not.toMatch(CONTROL);
    expect(out).toContain('Redirected by ann: the new goal is "new goalPlan: step one');
  });

  it('a review shows its title and body without them', () => {
    const review = {
      request: {
        kind: 'review',
        title: 'Check\u001b]0;x\u0007 the plan',
        body: HOSTILE,
        actions: ['approve', 'reject'],
        labels: {},
        round: 1,
        fields: [],
      },
      settings: { reviewers: ['anyone'] },
      approvals: [],
      dueAt: null,
    } as unknown as Review;
    const text = formatReview(review);
    expect(text).not.toMatch(CONTROL);
    expect(text).toContain('Review: Check the plan');
    expect(text).toContain('│ Plan: step one and two link red\n│ over end\tok\n│ next\n');
  });
});

describe("a working task's steps", () => {
  it('each step that starts prints one short line (its name cleaned); a working status without one prints nothing', async () => {
    const out = await printed([
      { type: 'task_status', status: 'working', reason: null },
      { type: 'task_status', status: 'working', reason: null, step: 'Gather facts' },
      { type: 'task_status', status: 'working', reason: null, step: 'Write\u001b[2J draft' },
    ]);
    expect(out).toBe('▸ Gather facts…\n▸ Write draft…\n');
  });
});

describe('the task list', () => {
  it("prints a task's text and a failure's reason without them", async () => {
    const task = {
      id: 'cli-1',
      workflow: 'pair',
      status: 'failed',
      updatedAt: '2026-11-01T00:00:00.000Z',
      text: 'draft\u001b]0;pwned\u0007 the memo\u001b[2J',
      statusReason: 'the model said\u001b[1A no',
    } as Task;
    const engine = { listTasks: async () => [task], available: () => [] } as unknown as Engine;
    let out = '';
    const write = (s: string) => {
      out += s;
    };
    const feed = createFeed({ events: async () => [], out: { write } });
    const io = {
      out: { write },
      err: { write },
      lines: { next: async () => undefined, asked: async () => 0, ended: () => true, close: () => undefined },
    };
    expect(await runCommand(['tasks'], engine, feed, io)).toBe(0);
    expect(out).not.toMatch(CONTROL);
    expect(out).toContain('draft the memo\n    the model said no\n');
  });
});

describe("signoff's advice for whoever runs it", () => {
  it('is said to the person at the keyboard in a failed status, a Retry card and the task list', async () => {
    const out = await printed([{ type: 'task_status', status: 'failed', reason: FAILURE_SENTENCES.auth }]);
    expect(out).toBe(`[failed: ${FAILURE_SENTENCES_AT_THE_KEYBOARD.auth}]\n`);
    const review = {
      request: {
        kind: 'review',
        title: 'The planner failed. Retry?',
        body: FAILURE_SENTENCES.unreachable,
        actions: ['approve', 'reject'],
        labels: { approve: 'Retry' },
        round: 1,
        fields: [],
      },
      settings: { reviewers: ['anyone'] },
      approvals: [],
      dueAt: null,
    } as unknown as Review;
    expect(formatReview(review)).toContain(`│ ${FAILURE_SENTENCES_AT_THE_KEYBOARD.unreachable}\n`);
    const rows = taskTable(
      [
        {
          id: 'cli-1',
          workflow: 'pair',
          status: 'failed',
          statusReason: FAILURE_SENTENCES.internal,
          text: 'x',
          updatedAt: new Date().toISOString(),
        } as unknown as Task,
      ],
      new Date(),
    );
    expect(rows).toContain(FAILURE_SENTENCES_AT_THE_KEYBOARD.internal);
    expect(out + formatReview(review) + rows).not.toContain('whoever runs signoff');
  });
});
