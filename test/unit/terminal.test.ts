/**
 * How the terminal shows things: Markdown and Slack markup rendered (styled on a TTY, plain in a
 * pipe), times in local time and relative, the tasks table, a review without what was just
 * printed, and "… is thinking" on a TTY only.
 */
import { HumanMessage } from '@langchain/core/messages';
import { RunnableLambda } from '@langchain/core/runnables';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { ANSI_STYLE, PLAIN_STYLE, renderMarkdown } from '../../src/cli/markdown.js';
import { createFeed, formatReview, type Show } from '../../src/cli/printer.js';
import { statusLine } from '../../src/cli/status-line.js';
import { taskTable } from '../../src/cli/task-table.js';
import { createThinking } from '../../src/cli/thinking.js';
import { ABOVE, unseen } from '../../src/cli/unseen.js';
import { localTime, relativeTime, when } from '../../src/cli/when.js';
import type { DeliveredEvent, Review, Task } from '../../src/engine/types.js';
import { ScriptedChatModel } from '../../src/llm/scripted.js';
import { askStructured } from '../../src/llm/structured.js';

const NOW = new Date('2026-11-26T11:35:29.469Z');

/** An output that keeps what was written. */
function collected() {
  const parts: string[] = [];
  return { out: { write: (s: string) => void parts.push(s) }, text: () => parts.join('') };
}

describe('Markdown for a terminal', () => {
  it('removes the markup in a pipe: bold, Slack bold, italic, code, headings, lists, quotes, links, fences', () => {
    const text = [
      '*Author*',
      '**Goal:** ship it',
      '## Plan',
      '- one *two* three',
      '* item',
      '1. first',
      '> quoted',
      'see [the docs](https://x.test/d) or <https://y.test|why>; run `a*b*c`',
      '```ts',
      'const x = 1; // **not bold**',
      '```',
      '2 * 3 * 4 stays, snake_case stays, _this_ is italic',
    ].join('\n');
    expect(renderMarkdown(text, PLAIN_STYLE)).toBe(
      [
        'Author',
        'Goal: ship it',
        'Plan',
        '• one two three',
        '• item',
        '1. first',
        '  quoted',
        'see the docs (https://x.test/d) or why (https://y.test); run a*b*c',
        '    const x = 1; // **not bold**',
        '2 * 3 * 4 stays, snake_case stays, this is italic',
      ].join('\n'),
    );
  });

  it('styles it on a TTY', () => {
    expect(renderMarkdown('*Author* **Goal:** _now_ `x`', ANSI_STYLE)).toBe(
      '\x1b[1mAuthor\x1b[22m \x1b[1mGoal:\x1b[22m \x1b[3mnow\x1b[23m \x1b[36mx\x1b[39m',
    );
  });
});

describe('times', () => {
  it('are local and relative', () => {
    expect(when('2026-11-26T13:35:29.469Z', NOW, 'UTC')).toBe('13:35 (in 2 hours)');
    expect(when('2026-11-26T13:35:29.469Z', NOW, 'Europe/Paris')).toBe('14:35 (in 2 hours)');
    expect(when('2026-11-28T09:00:00Z', NOW, 'UTC')).toBe('Sat 28 Nov, 09:00 (in 2 days)');
    expect(localTime(new Date('2027-01-02T08:00:00Z'), NOW, 'UTC')).toBe('Sat, 2 Jan 2027, 08:00');
    expect(relativeTime(new Date('2026-11-26T11:30:00Z'), NOW)).toBe('5 minutes ago');
    expect(relativeTime(new Date('2026-11-26T11:35:50Z'), NOW)).toBe('in less than a minute');
  });
});

const task = (over: Partial<Task>): Task =>
  ({
    id: 'cli-1a2b3c4d',
    workflow: 'pair',
    status: 'done',
    statusReason: null,
    text: 'write the note',
    updatedAt: '2026-11-26T11:30:00Z',
    ...over,
  }) as Task;

describe('signoff tasks', () => {
  it('has a header and columns as wide as their widest cell; text on one line, cut', () => {
    const table = taskTable(
      [
        task({}),
        task({
          id: 'cli-99',
          workflow: 'release-notes',
          status: 'stopped',
          text: `a\nlong ${'x'.repeat(80)}`,
        }),
        task({ status: 'failed', statusReason: 'the model service could not be reached' }),
      ],
      NOW,
      'UTC',
    );
    const [header, ...rows] = table.trimEnd().split('\n');
    expect(header).toBe('ID            WORKFLOW       STATUS                    UPDATED                TASK');
    for (const row of [rows[0], rows[1], rows[2]]) {
      expect(row?.indexOf('11:30 (5 minutes ago)')).toBe(header?.indexOf('UPDATED'));
    }
    expect(rows[1]).toContain('stopped without approval');
    expect(rows[1]?.endsWith(`a long ${'x'.repeat(52)}…`)).toBe(true);
    expect(rows[3]).toBe('    the model service could not be reached');
  });
});

const review = (body: string, dueAt: string | null = null) =>
  ({
    request: {
      kind: 'review',
      title: 'Check the draft',
      body,
      actions: ['approve', 'revise', 'reject'],
      labels: {},
      round: 1,
      fields: [],
    },
    settings: { reviewers: ['anyone'] },
    approvals: [],
    dueAt,
  }) as unknown as Review;

describe('a review in the terminal', () => {
  const show: Show = { style: PLAIN_STYLE, now: () => NOW };

  it('leaves out what the agents just said, keeps the rest, and says so', () => {
    const said = ['First draft of the note.\n\nWith a second paragraph.', 'Looks fine; shorten it.'];
    const body =
      '*Author*\nFirst draft of the note.\n\nWith a second paragraph.\n\n*Reviewer*\nLooks fine; shorten it.';
    expect(unseen(body, said)).toBe(ABOVE);
    expect(unseen(`${body}\n\n**What changed:** the intro`, said)).toBe(
      `${ABOVE}\n\n**What changed:** the intro`,
    );
    expect(unseen(body, [])).toBe(body);
    // A labelled line said as it stands goes too, however short its text.
    expect(
      unseen('**Goal:** tidy the wiki\n\n**Feasibility:** high', [
        '**Goal:** tidy the wiki\n**Feasibility:** high',
      ]),
    ).toBe(ABOVE);
    // A short paragraph found inside something said is kept: it could be there by chance.
    expect(unseen('Yes.\n\nShip it', ['Yes. We could.'])).toBe('Yes.\n\nShip it');
  });

  it('shows its due time in local time and relative, and its body rendered', () => {
    const text = formatReview(review('**Goal:** ship it', '2026-11-26T13:35:29.469Z'), show);
    expect(text).toContain('due ');
    expect(text).toMatch(/due \d\d:\d\d \(in 2 hours\)/);
    expect(text).toContain('│ Goal: ship it');
    expect(text).not.toContain('2026-11-26T');
  });

  it('printed by the feed, it leaves out the words the feed just printed', async () => {
    const printed = collected();
    const events: DeliveredEvent[] = [
      {
        id: 1,
        event: { type: 'agent_said', agent: 'Author', text: 'First draft of the note.' },
      } as DeliveredEvent,
    ];
    const feed = createFeed({ events: async () => events, out: printed.out, show });
    await feed.pump('t1');
    expect(printed.text()).toBe('\nAuthor:\nFirst draft of the note.\n');
    const card = feed.review('t1', review('*Author*\nFirst draft of the note.'));
    expect(card).not.toContain('First draft');
    expect(card).toContain('(what the agents said above)');
    // Asked again (a bad answer), it still does not repeat them.
    expect(feed.review('t1', review('*Author*\nFirst draft of the note.'))).not.toContain('First draft');
  });
});

describe('who is thinking', () => {
  it('is known from the model calls of a task, until they end', async () => {
    const thinking = createThinking();
    const model = new ScriptedChatModel({
      agent: 'Writer',
      delayMs: 300,
      callbacks: thinking.callbacks('Writer'),
    });
    // LangGraph puts the graph's thread (the task's, `#n` for a redirected generation) in the metadata.
    const call = model.invoke('hello', { metadata: { thread_id: 'cli-1#2' } });
    await vi.waitFor(() => expect(thinking.of('cli-1')).toBe('Writer'));
    expect(thinking.of('cli-2')).toBeUndefined();
    await call;
    await vi.waitFor(() => expect(thinking.of('cli-1')).toBeUndefined());
  });

  it("is known from a structured answer's call too (goal-plan's Evaluator and Planner, a verdict)", async () => {
    const thinking = createThinking();
    const model = new ScriptedChatModel({
      agent: 'Evaluator',
      delayMs: 300,
      callbacks: thinking.callbacks('Evaluator'),
    });
    // In a graph node: the graph's config (its thread in the metadata) reaches the model call
    // through the async context, as LangGraph passes it.
    const node = RunnableLambda.from(() =>
      askStructured(model, z.object({ goalSpec: z.string() }), [new HumanMessage('Task: x')]),
    );
    const call = node.invoke(null, { metadata: { thread_id: 'cli-1' } });
    await vi.waitFor(() => expect(thinking.of('cli-1')).toBe('Evaluator'));
    await call;
    await vi.waitFor(() => expect(thinking.of('cli-1')).toBeUndefined());
  });

  it('on a TTY is a line the next output replaces; in a pipe it is never written', () => {
    const tty = collected();
    const screen = statusLine(tty.out, true);
    screen.status('Writer is thinking…');
    screen.status('Writer is thinking…');
    screen.write('\nWriter:\nthe words\n');
    expect(tty.text()).toBe('Writer is thinking…\r\x1b[2K\nWriter:\nthe words\n');

    const pipe = collected();
    const plain = statusLine(pipe.out, false);
    plain.status('Writer is thinking…');
    plain.write('the words\n');
    expect(pipe.text()).toBe('the words\n');
  });

  it('the feed shows it while the task works and clears it when the words come', async () => {
    const out = collected();
    const screen = statusLine(out.out, true);
    const events: DeliveredEvent[] = [];
    let agent: string | undefined = 'Writer';
    const feed = createFeed({
      events: async () => events,
      out: screen,
      show: { style: PLAIN_STYLE, now: () => NOW },
      thinking: () => agent,
    });
    await feed.pump('t1');
    expect(out.text()).toBe('Writer is thinking…');
    events.push({ id: 1, event: { type: 'agent_said', agent: 'Writer', text: 'Done.' } } as DeliveredEvent);
    agent = undefined;
    await feed.pump('t1');
    expect(out.text()).toBe('Writer is thinking…\r\x1b[2K\nWriter:\nDone.\n');
  });
});
