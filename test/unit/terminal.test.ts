/**
 * How the terminal shows things: Markdown and Slack markup rendered (styled on a TTY, plain in a
 * pipe), times in local time and relative, the tasks table, a review without what was just
 * printed, and "… is thinking" on a TTY only.
 */
import { HumanMessage } from '@langchain/core/messages';
import { RunnableLambda } from '@langchain/core/runnables';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { answerHelp, parseAnswer, parseFeedback } from '../../src/cli/answer.js';
import { fillForm } from '../../src/cli/form.js';
import type { LineSource } from '../../src/cli/lines.js';
import { ANSI_STYLE, PLAIN_STYLE, renderMarkdown } from '../../src/cli/markdown.js';
import { commandWords, optionsPart, unknownOption } from '../../src/cli/options.js';
import { createFeed, formatEvent, formatReview, type Show, statusWithReason } from '../../src/cli/printer.js';
import { statusLine } from '../../src/cli/status-line.js';
import { taskTable } from '../../src/cli/task-table.js';
import { createThinking } from '../../src/cli/thinking.js';
import { ABOVE, unseen } from '../../src/cli/unseen.js';
import { usageError } from '../../src/cli/usage.js';
import { localTime, relativeTime, when } from '../../src/cli/when.js';
import { invalidEdit } from '../../src/engine/index.js';
import type { DeliveredEvent, Review, Task } from '../../src/engine/types.js';
import { ScriptedChatModel } from '../../src/llm/scripted.js';
import { askStructured } from '../../src/llm/structured.js';
import { toReviewRequest } from '../../src/workflows/protocol/review-request.js';
import { toolCallsBody } from '../../src/workflows/protocol/tool-call-body.js';
import { REQUESTS } from '../fixtures/hitl-graph.js';

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

  it("prints a tool call's arguments exactly: a `~~~` line in them does not end their code block", () => {
    const script = [
      "cat > cleanup.md <<'EOF'",
      '~~~',
      'rm -rf /srv/_data_/*.db',
      '~~~',
      'EOF',
      'sh cleanup.md  # removes the *old* databases under /srv/_data_',
    ].join('\n');
    const shown = renderMarkdown(toolCallsBody([{ name: 'shell', args: { script } }]), PLAIN_STYLE);
    const code = script.split('\n').map((line) => `    ${line}`);
    expect(shown.split('\n')).toEqual([
      'shell',
      `    script: (${script.length} characters, in full below)`,
      `    script (${script.length} characters):`,
      ...code,
    ]);
    // A fence of the block's own character, at least as long, still ends it.
    expect(renderMarkdown('~~~~\n```\n_a_\n~~~\n~~~~~\n_b_', PLAIN_STYLE)).toBe(
      '    ```\n    _a_\n    ~~~\nb',
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
    tokensIn: 0,
    tokensOut: 0,
    costUsd: 0,
    budgetUsd: null,
    ...over,
  }) as Task;

describe('signoff tasks', () => {
  it('has a header and columns as wide as their widest cell, what each task spent; text on one line, cut', () => {
    const table = taskTable(
      [
        task({}),
        task({
          id: 'cli-99',
          workflow: 'release-notes',
          status: 'stopped',
          text: `a\nlong ${'x'.repeat(80)}`,
          tokensIn: 900,
          tokensOut: 300,
          costUsd: 4.1,
          budgetUsd: 5,
        }),
        task({ status: 'failed', statusReason: 'the model service could not be reached' }),
      ],
      NOW,
      'UTC',
    );
    const [header, ...rows] = table.trimEnd().split('\n');
    expect(header).toBe(
      'ID            WORKFLOW       STATUS                    UPDATED                SPENT           TASK',
    );
    expect(rows[1]).toContain('$4.10 of $5.00');
    expect(rows[0]?.slice(header?.indexOf('SPENT'), header?.indexOf('TASK')).trim()).toBe('-');
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

  it('keeps a paragraph an agent only quoted inside a sentence: the reviewer sees it is still there', () => {
    const line = 'Send the quarterly report to all customers';
    const said = [`The line '${line}' must be removed.`, `Agreed: ${line} is too broad.\nDrop it.`];
    const body = `*Plan*\nDraft the report.\n\n${line}`;
    expect(unseen(body, said)).toBe(body);
    const card = formatReview(review(body), { style: PLAIN_STYLE, now: () => NOW }, said);
    expect(card).toContain(`│ ${line}`);
    expect(card).not.toContain('(what the agents said above)');
    // Said as a line of its own, it was on the screen whole: then it is left out.
    expect(unseen(body, [`Plan:\n${line}`])).toBe(`*Plan*\nDraft the report.\n\n${ABOVE}`);
  });

  it('prints no body line for an empty body (it printed a lone "│ " between the title and the choices)', () => {
    for (const body of ['', ' \n  ']) {
      expect(formatReview(review(body), show).split('\n')).toEqual([
        '',
        '┌─ Review: Check the draft (round 1)',
        '└─ Enter or "approve" to approve, type feedback to revise, "reject" to reject.',
      ]);
    }
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

/** A review with these actions and labels (a proposal's insight review by default). */
const asked = (
  actions: Review['request']['actions'] = ['approve', 'revise', 'reject'],
  labels: Review['request']['labels'] = {
    approve: 'Continue',
    revise: 'Refine the gap',
    reject: 'Search more',
  },
) => {
  const r = review('The gap');
  return { ...r, request: { ...r.request, actions, labels } } as Review;
};
const toolCall = () => ({ ...review(''), request: toReviewRequest(REQUESTS.one) }) as Review;

describe('an answer typed at a review', () => {
  it('a line that reads like an approval or a rejection is asked about, never feedback nor a decision', () => {
    const pair = asked(['approve', 'revise', 'reject'], { approve: 'Approve', revise: 'Give feedback' });
    for (const typed of [
      'approved',
      'Approve.',
      'approve!',
      'done',
      'looks good',
      'Looks  good!',
      'k',
      'ok',
      'yes',
      'lgtm',
    ])
      expect([typed, parseAnswer(typed, pair)]).toEqual([
        typed,
        {
          error:
            'Did you mean approve? Type "approve" to approve, or "revise: <feedback>" to give feedback. ("help" lists every choice.)',
        },
      ]);
    for (const typed of ['Reject.', 'rejected', 'no', 'nope'])
      expect([typed, parseAnswer(typed, pair)]).toEqual([
        typed,
        {
          error:
            'Did you mean reject? Type "reject" (or "reject: why") to reject, or "revise: <feedback>" to give feedback. ("help" lists every choice.)',
        },
      ]);
    expect(parseAnswer('reject:', pair)).toEqual({
      error: 'Type the reason after "reject:", or "reject" alone to reject without one.',
    });
  });

  it('a shortcut the card does not show ("a", "r", "accept", "continue" where its words are others) decides nothing: it is asked about', () => {
    const pair = asked(['approve', 'revise', 'reject'], { approve: 'Approve', revise: 'Give feedback' });
    for (const typed of ['a', 'A', 'accept', 'continue'])
      expect([typed, parseAnswer(typed, pair)]).toEqual([
        typed,
        {
          error:
            'Did you mean approve? Type "approve" to approve, or "revise: <feedback>" to give feedback. ("help" lists every choice.)',
        },
      ]);
    expect(parseAnswer('r', pair)).toEqual({
      error:
        'Did you mean reject? Type "reject" (or "reject: why") to reject, or "revise: <feedback>" to give feedback. ("help" lists every choice.)',
    });
    // The card's own word still chooses: goal-plan's "Accept goal", a proposal's "Continue".
    expect(parseAnswer('accept goal', asked(['approve', 'revise'], { approve: 'Accept goal' }))).toEqual({
      action: 'approve',
    });
    expect(parseAnswer('continue', asked())).toEqual({ action: 'approve' });
  });

  it('feedback is a sentence, or anything after "revise:"; "revise" alone (or its label) asks for it', () => {
    const pair = asked(['approve', 'revise', 'reject'], { approve: 'Approve', revise: 'Give feedback' });
    expect(parseAnswer('name the formats', pair)).toEqual({ action: 'revise', feedback: 'name the formats' });
    expect(parseAnswer('revise: approved', pair)).toEqual({ action: 'revise', feedback: 'approved' });
    expect(parseAnswer('Give feedback: shorter', pair)).toEqual({ action: 'revise', feedback: 'shorter' });
    for (const typed of ['revise', 'revise:', 'Give feedback', 'Revise.'])
      expect(parseAnswer(typed, pair)).toEqual({ feedback: true });
    expect(parseAnswer('approve', pair)).toEqual({ action: 'approve' });
    expect(parseAnswer('', pair)).toEqual({ action: 'approve' });
  });

  it("help, quit and cancel are the prompt's own words, not feedback", () => {
    const pair = asked();
    expect(parseAnswer('help', pair)).toEqual({ help: true });
    expect(parseAnswer('?', pair)).toEqual({ help: true });
    for (const typed of ['quit', 'exit', 'Exit.']) expect(parseAnswer(typed, pair)).toEqual({ quit: true });
    for (const typed of ['cancel', 'stop']) expect(parseAnswer(typed, pair)).toEqual({ cancel: true });
  });

  it('a command typed at a review (a command word alone, a shell line) is asked about, not sent as feedback; "revise:" sends it', () => {
    const pair = asked(['approve', 'revise', 'reject'], { approve: 'Approve', revise: 'Give feedback' });
    for (const typed of [
      'tasks',
      'Tasks',
      'resume',
      'list',
      'npm start',
      'npm run chaos',
      'npx signoff tasks',
      'signoff resume cli-1',
      'clear',
      'pwd',
      'cd docs',
      'git status',
      'git log --oneline -3',
      'clear; npx signoff resume cli-21eb1d50',
    ]) {
      const answer = parseAnswer(typed, pair);
      expect([typed, 'error' in answer && answer.error]).toEqual([
        typed,
        `"${typed}" reads like a command, not an answer to this review: answer the review first ("help" lists the choices), or type "quit" to leave it waiting, then run the command. To send it as feedback, type "revise: ${typed}".`,
      ]);
    }
    expect(parseAnswer('revise: tasks', pair)).toEqual({ action: 'revise', feedback: 'tasks' });
    // Feedback that only starts with a command's word is feedback.
    for (const typed of [
      'run the numbers again',
      'npm install step is missing',
      'clear up the intro',
      'Signoff date should be Friday',
      'Signoff rules should name the owner',
      'git history should be kept; say so in the intro',
      'shorter; and clear',
    ])
      expect(parseAnswer(typed, pair)).toEqual({ action: 'revise', feedback: typed });
  });

  it('a workflow named alone or after run, and signoff with a command, are asked about at a review, in the same words; sentences holding them are feedback', () => {
    const pair = asked(['approve', 'revise', 'reject'], { approve: 'Approve', revise: 'Give feedback' });
    const workflows = ['pair', 'specialist', 'goal-plan', 'proposal'];
    for (const typed of [
      'run pair',
      'run Pair',
      'run pair write the launch email',
      'run goal-plan "plan the offsite"',
      'pair',
      'Pair.',
      'proposal',
      'signoff',
      'signoff help',
      'signoff pair draft it',
      'signoff --version',
      'signoff mcp --client bot',
      'clear; run pair again',
    ]) {
      const answer = parseAnswer(typed, pair, workflows);
      expect([typed, 'error' in answer && answer.error]).toEqual([
        typed,
        `"${typed}" reads like a command, not an answer to this review: answer the review first ("help" lists the choices), or type "quit" to leave it waiting, then run the command. To send it as feedback, type "revise: ${typed}".`,
      ]);
    }
    expect(parseAnswer('revise: pair', pair, workflows)).toEqual({ action: 'revise', feedback: 'pair' });
    for (const typed of [
      'run the numbers again',
      'run it past legal first',
      'pair it with a chart',
      'the pair of paragraphs should merge',
      'make it a proposal',
      'Signoff from legal is needed',
      'signoff of the budget comes first',
      'run specialists on the figures',
    ])
      expect(parseAnswer(typed, pair, workflows)).toEqual({ action: 'revise', feedback: typed });
  });

  it('the card\'s own words choose: a proposal\'s "search more" is its reject, "continue" its approve; "search" alone is asked about, not sent as words', () => {
    expect(parseAnswer('Search more', asked())).toEqual({ action: 'reject' });
    expect(parseAnswer('search', asked())).toEqual({
      error:
        'Did you mean "search more"? Type it whole, or "revise: search" to refine the gap with these words. ("help" lists every choice.)',
    });
    expect(parseAnswer('continue', asked())).toEqual({ action: 'approve' });
    expect(parseAnswer('refine the gap', asked())).toEqual({ feedback: true });
    expect(parseAnswer('"approve" to continue', asked())).toEqual({
      action: 'revise',
      feedback: '"approve" to continue',
    });
  });

  it('at a tool call, the arguments typed again as shown are no edit, and help lists what can be typed', () => {
    const one = toolCall();
    const shown = JSON.stringify({ to: 'team@example.com', subject: 'Launch', body: 'We ship today.' });
    expect(parseAnswer(shown, one)).toEqual({
      error:
        'Those are the arguments as shown; nothing changed. Type "approve" to approve, or "reject" (or "reject: why") to reject.',
    });
    expect(parseAnswer(shown.replace('team@', 'ops@'), one)).toMatchObject({ action: 'edit' });
    // Keys in another order, spaced otherwise: still the arguments as shown, so no edit (which the
    // engine would read as an approval nobody typed).
    const reordered = '{ "body": "We ship today.",  "subject": "Launch", "to": "team@example.com" }';
    expect(parseAnswer(reordered, one)).toEqual(parseAnswer(shown, one));
    const help = answerHelp(one, 'npx signoff resume cli-1');
    expect(help).toMatch(/^At this review, type:\n {2}approve +approve\n/);
    expect(help).not.toContain('Enter');
    expect(help).toContain('leave this prompt; the task keeps waiting: npx signoff resume cli-1');
  });

  it('help lists exactly the words that work: the card\'s own ("search more", "continue", "refine the gap") and "edit" at a tool call, each one answering', () => {
    const rows = (review: Review) =>
      answerHelp(review, 'npx signoff resume cli-1')
        .split('\n')
        .slice(1, -1)
        .map((row) => row.trim().split(/ {2,}/)[0] ?? '');
    const insight = rows(asked());
    expect(insight).toEqual(
      expect.arrayContaining([
        'Enter / approve / continue',
        'reject / search more',
        'revise / refine the gap',
      ]),
    );
    const tool = rows(toolCall());
    expect(tool).toContain('edit');
    const several = { ...review(''), request: toReviewRequest(REQUESTS.two) } as Review;
    // Every word a row names (not a placeholder's row) is read as something other than a mistake.
    for (const one of [asked(), toolCall(), several])
      for (const typed of rows(one).filter((cell) => !/[<{]/.test(cell)))
        for (const word of typed.split(' / ').filter((w) => w !== 'Enter'))
          expect([word, parseAnswer(word, one)]).not.toEqual([word, { error: expect.anything() }]);
  });

  it('the line after "revise" is feedback; empty (or quit) goes back to the review; a choice is said to be one and the feedback asked again, so Enter after it only goes back', () => {
    const pair = asked(['approve', 'revise', 'reject'], { revise: 'Give feedback' });
    expect(parseFeedback('shorter please', pair)).toEqual({ action: 'revise', feedback: 'shorter please' });
    expect(parseFeedback('  ', pair)).toEqual({
      back: 'No feedback typed; nothing was sent. Back to the review.',
    });
    expect(parseFeedback('quit', pair)).toEqual({ back: 'Nothing was sent. Back to the review.' });
    expect(parseFeedback('reject', pair)).toEqual({
      again:
        '"reject" reads as one of the review\'s choices, not as feedback; nothing was sent. Type the feedback, "revise: reject" to send it as is, or Enter to go back to the review.',
    });
    expect(parseFeedback('revise', pair)).toEqual({
      again: 'Type the feedback itself (what should change), or an empty line to go back.',
    });
  });

  it('a command typed at a review or after "revise" is asked about, whatever its case (a workflow or a command after Signoff alike); never sent as feedback', () => {
    const pair = asked(['approve', 'revise', 'reject'], { revise: 'Give feedback' });
    for (const line of [
      'Run pair draft it',
      'RUN Pair',
      'Signoff pair',
      'Signoff run pair draft it',
      'Signoff tasks',
      'Signoff tasks.',
      'SIGNOFF RESUME cli-1a2b3c4d',
      'Signoff rules approve 4',
      'Signoff --version',
      'Signoff',
      'Npx signoff tasks',
    ])
      expect([line, parseAnswer(line, pair, ['pair'])]).toEqual([
        line,
        { error: expect.stringContaining('reads like a command') },
      ]);
    // A sentence that only begins with a command's word is feedback, whatever its case.
    for (const line of [
      'Run the numbers again',
      'Signoff rules should name the owner',
      'Signoff tasks are on the wiki',
      'Signoff resume the old tone',
      // A hyphenated word is no task id.
      'Signoff cancel follow-up',
    ])
      expect(parseAnswer(line, pair, ['pair'])).toEqual({ action: 'revise', feedback: line });
    // After "revise", the feedback is asked again: the Enter typed next goes back, never approves.
    for (const line of ['pair', 'Run pair draft it', 'tasks', 'Signoff tasks'])
      expect([line, parseFeedback(line, pair, ['pair'])]).toEqual([
        line,
        {
          again: `"${line}" reads like a command, not feedback; nothing was sent. Type the feedback, "revise: ${line}" to send it as is, or Enter to go back to the review.`,
        },
      ]);
  });
});

/** Lines given in advance, then end of input. */
const script = (lines: string[]): LineSource => ({
  next: async () => lines.shift(),
  asked: async () => 0,
  ended: () => !lines.length,
  close: () => undefined,
});

describe("a tool call's Edit form at the prompt", () => {
  it('with nothing to decide but the arguments, Enter changes nothing and decides nothing', async () => {
    const fields = toReviewRequest(REQUESTS.one).fields;
    const printed = collected();
    expect(await fillForm(fields, script(['']), printed.out, 3000)).toEqual({ unchanged: true });
    // Says JSON once: the field's label ("send_email arguments (JSON)", as Slack's form shows it) loses its "(JSON)".
    expect(printed.text()).toBe(
      'send_email arguments, as one line of JSON (Enter changes nothing and goes back to the review): ',
    );
    const edited = JSON.stringify({ to: 'ops@example.com', subject: 'Launch', body: 'We ship today.' });
    expect(await fillForm(fields, script([edited]), printed.out, 3000)).toEqual({
      values: { args_0: edited },
    });
  });

  it('with nothing to decide but the arguments, the same arguments with their keys reordered change nothing', async () => {
    const fields = toReviewRequest(REQUESTS.one).fields;
    const reordered = '{"body": "We ship today.", "subject": "Launch", "to": "team@example.com"}';
    expect(await fillForm(fields, script([reordered]), collected().out, 3000)).toEqual({ unchanged: true });
  });

  it('with a decision typed for each call, Enter keeps the arguments of a call approved by its typed word', async () => {
    const fields = toReviewRequest(REQUESTS.two).fields;
    const form = await fillForm(fields, script(['approve', '', 'approve']), collected().out, 3000);
    expect(form).toMatchObject({ values: { decision_0: 'approve', decision_1: 'approve' } });
  });

  /** A call whose own arguments do not fit its schema: the model left out the body it requires. */
  const bodiless = () => {
    const request = toReviewRequest({
      actionRequests: [{ name: 'send_email', args: { to: 'team@example.com', subject: 'Launch' } }],
      reviewConfigs: [
        {
          actionName: 'send_email',
          allowedDecisions: ['approve', 'edit', 'reject'],
          argsSchema: {
            type: 'object',
            properties: { to: { type: 'string' }, subject: { type: 'string' }, body: { type: 'string' } },
            required: ['to', 'subject', 'body'],
          },
        },
      ],
    });
    return {
      fields: request.fields,
      check: (values: Record<string, string>) => invalidEdit(request, values),
    };
  };

  it('arguments as shown are never checked: Enter on a call whose own arguments do not fit its schema goes back to the review', async () => {
    const { fields, check } = bodiless();
    const printed = collected();
    // Checked, Enter put the shown arguments back, they failed, and the field was asked for ever.
    expect(await fillForm(fields, script(['']), printed.out, 3000, check)).toEqual({ unchanged: true });
    expect(printed.text()).not.toContain('need "body"');
    // What the person types differently is checked, and said.
    const typed = collected();
    const partial = JSON.stringify({ to: 'ops@example.com' });
    expect(await fillForm(fields, script([partial, '']), typed.out, 3000, check)).toEqual({ left: true });
    // Every problem, in words (not Ajv's "must have required property 'subject'").
    expect(typed.text()).toContain('The arguments need "subject" and "body".\n');
  });

  it("a zod v4 schema (draft 2020-12) checks arguments typed at the terminal: wrong ones are said in words, right ones are the form's values", async () => {
    const request = toReviewRequest(REQUESTS.zod);
    const check = (values: Record<string, string>) => invalidEdit(request, values);
    const right = JSON.stringify({ to: 'ops@example.com', subject: 'Launch', body: 'Today.' });
    const printed = collected();
    const wrong = JSON.stringify({ to: 7, subject: 'Launch', body: 'Today.' });
    expect(await fillForm(request.fields, script([wrong, right]), printed.out, 3000, check)).toEqual({
      values: { args_0: right },
    });
    expect(printed.text()).toContain('"to" must be text in double quotes.\n');
  });

  it('arguments typed under a schema that cannot be read are refused in a sentence and asked again, never thrown; Enter then goes back, nothing decided', async () => {
    const request = toReviewRequest({
      actionRequests: [{ name: 'send_email', args: { to: 'team@example.com' } }],
      reviewConfigs: [
        {
          actionName: 'send_email',
          allowedDecisions: ['approve', 'edit', 'reject'],
          argsSchema: { type: 'foo' },
        },
      ],
    });
    const check = (values: Record<string, string>) => invalidEdit(request, values);
    const printed = collected();
    const typed = JSON.stringify({ to: 'ops@example.com' });
    expect(await fillForm(request.fields, script([typed, '']), printed.out, 3000, check)).toEqual({
      left: true,
    });
    expect(printed.text()).toContain(
      'The argument schema of send_email cannot be read, so edited arguments cannot be checked: approve it as asked, or reject it.\n',
    );
  });

  it('after arguments typed wrong, Enter at the field asked again goes back to the review: never an approval of the arguments they tried to change', async () => {
    const request = toReviewRequest(REQUESTS.two);
    const check = (values: Record<string, string>) => invalidEdit(request, values);
    const printed = collected();
    const form = await fillForm(
      request.fields,
      script(['approve', '{"to": ', 'approve', '']),
      printed.out,
      3000,
      check,
    );
    expect(form).toEqual({ left: true });
    expect(printed.text()).toContain(
      '1. send_email arguments, as one line of JSON (Enter goes back to the review; nothing is decided): ',
    );
    // Words that leave a prompt leave the form, at the field asked again and at a first ask: never read as JSON.
    for (const leave of ['quit', 'cancel', 'back'])
      expect(
        await fillForm(
          request.fields,
          script(['approve', '{"to": ', 'approve', leave]),
          collected().out,
          3000,
          check,
        ),
      ).toEqual({ left: true });
    expect(await fillForm(request.fields, script(['quit']), collected().out, 3000, check)).toEqual({
      left: true,
    });
    // A choice typed wrong says the way out.
    const choice = collected();
    await fillForm(request.fields, script(['maybe']), choice.out, 3000, check);
    expect(choice.text()).toContain(
      'Type "approve" or "reject". ("quit" goes back to the review; nothing is decided.)\n',
    );
  });
});

describe("a tool call's Edit form: the message for the calls rejected", () => {
  it('quit or back there goes back to the review, nothing decided, as at every field; other words (stop, cancel too) are the message', async () => {
    const fields = toReviewRequest(REQUESTS.two).fields;
    const answers = (message: string) => ['reject', '', 'approve', message];
    for (const leave of ['quit', 'back', 'Quit'])
      expect([leave, await fillForm(fields, script(answers(leave)), collected().out, 3000)]).toEqual([
        leave,
        { left: true },
      ]);
    for (const message of ['wrong list', 'stop', 'cancel'])
      expect(await fillForm(fields, script(answers(message)), collected().out, 3000)).toEqual({
        values: { decision_0: 'reject', args_0: expect.any(String), decision_1: 'approve' },
        feedback: message,
      });
  });
});

describe('what the terminal echoes', () => {
  const decided = (action: 'approve' | 'revise' | 'reject', feedback?: string) =>
    ({
      id: 1,
      event: {
        type: 'review_decided',
        review: { ...asked(), decision: { action, by: 'cli:ann', feedback, at: NOW.toISOString() } },
      },
    }) as unknown as DeliveredEvent;

  it("a decision in the card's words", () => {
    expect(formatEvent(decided('reject'))).toBe('→ search more by cli:ann');
    expect(formatEvent(decided('revise', 'storage'))).toBe('→ refine the gap by cli:ann: storage');
    expect(formatEvent(decided('approve'))).toBe('→ continue by cli:ann');
  });

  it('a status whose reason starts with it, once', () => {
    expect(statusWithReason('rejected', 'rejected at review', [' (', ')'])).toBe('rejected at review');
    expect(statusWithReason('failed', 'the model', [': ', ''])).toBe('failed: the model');
    expect(statusWithReason('done', null, [' (', ')'])).toBe('done');
  });
});

describe("a command's options, read as POSIX reads them", () => {
  const split = (line: string) => line.split(' ');

  it("a word is an option only before the task's first word, and only if it looks like one", () => {
    for (const line of [
      'run pair cut costs by -5%',
      'run pair fix the -v flag',
      'run pair compare -> B',
      'run pair write about --force flags',
      'redirect cli-1a2b3c4d drop the -x switch',
      'events -1',
      'cancel -',
    ]) {
      expect([line, unknownOption(split(line))]).toEqual([line, undefined]);
      expect(commandWords(split(line))).toEqual(split(line));
    }
    for (const [line, option] of [
      ['run pair --verbose', '--verbose'],
      ['run pair --model gpt-4 x', '--model'],
      ['run --verbose pair x', '--verbose'],
      ['run pair --model=gpt-4 x', '--model=gpt-4'],
      ['redirect cli-1a2b3c4d -f a goal', '-f'],
      ['retry cli-1a2b3c4d --verbose', '--verbose'],
      ['events cli-1a2b3c4d -v', '-v'],
    ] as const)
      expect([line, unknownOption(split(line))]).toEqual([
        line,
        expect.stringMatching(`^"${option}" is not an option`),
      ]);
  });

  it("-- ends the options only where they can be: later it is the task's", () => {
    expect(commandWords(split('run pair -- --verbose'))).toEqual(split('run pair --verbose'));
    expect(commandWords(split('run pair rewrite the intro -- keep it short'))).toEqual(
      split('run pair rewrite the intro -- keep it short'),
    );
    expect(commandWords(split('cancel -- -x'))).toEqual(['cancel', '-x']);
    expect(unknownOption(split('run pair fix -- --verbose'))).toBeUndefined();
    // Help is asked for only where an option can be.
    expect(optionsPart(split('run pair --help'))).toContain('--help');
    expect(optionsPart(split('resume -h'))).toContain('-h');
    expect(optionsPart(split('run pair explain the -h flag'))).not.toContain('-h');
    expect(optionsPart(split('run pair -- --help page'))).not.toContain('--help');
  });
});

describe('words after the task id of a command that takes only one', () => {
  const split = (line: string) => line.split(' ');

  it('resume, events, retry and cancel refuse them whole, saying nothing was done and the command that works', () => {
    for (const command of ['resume', 'events', 'retry', 'cancel']) {
      expect(usageError(split(`${command} abc extra words`), ['pair'])).toBe(
        `npx signoff ${command} takes one task id and nothing after it (not "extra words"), so nothing was done: npx signoff ${command} abc`,
      );
      expect(usageError(split(`${command} cli-1a2b3c4d`), ['pair'])).toBeUndefined();
    }
    // Several ids: each one's command, never one of them done and the others dropped.
    expect(usageError(split('cancel cli-1a2b3c4d cli-5e6f7a8b'), [])).toBe(
      'npx signoff cancel takes one task id at a time, so nothing was done: npx signoff cancel cli-1a2b3c4d, then npx signoff cancel cli-5e6f7a8b',
    );
    // A hyphenated word is no task id: only a surface's prefix (cli-, slack-) makes one.
    expect(usageError(split('cancel cli-1a2b3c4d extra-words'), [])).toBe(
      'npx signoff cancel takes one task id and nothing after it (not "extra-words"), so nothing was done: npx signoff cancel cli-1a2b3c4d',
    );
    // redirect's words after the id are its new goal.
    expect(usageError(split('redirect cli-1a2b3c4d a one-page checklist'), [])).toBeUndefined();
  });
});
