import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Review } from '../../src/engine/types.js';
import { SIGNOFF_FAILED } from '../../src/errors.js';
import { alwaysModal } from '../../src/slack/blocks/always-modal.js';
import { batchValue, readBatchValue } from '../../src/slack/blocks/batch.js';
import { agentMessages, rootMessage } from '../../src/slack/blocks/messages.js';
import { questionChoices, replyQuestion } from '../../src/slack/blocks/reply-question.js';
import {
  decidedCard,
  notShownBecause,
  reviewCard,
  reviewTextMessages,
} from '../../src/slack/blocks/review-card.js';
import { escalatedMessage, reminderMessage } from '../../src/slack/blocks/review-pings.js';
import {
  escapeMrkdwn,
  LIMITS,
  neutralizeMarkdown,
  neutralizePlain,
  splitText,
  truncateBytes,
  UPDATE_TEXT_BYTES,
} from '../../src/slack/blocks/text.js';
import { contentHash } from '../../src/workflows/protocol/content-hash.js';
import { toReviewRequest } from '../../src/workflows/protocol/review-request.js';
import { REQUESTS } from '../fixtures/hitl-graph.js';
import { slackRefusal } from '../helpers/fake-slack.js';

const review = (over: Partial<Review['request']> = {}, extra: Partial<Review> = {}): Review => ({
  id: 'abc123',
  taskId: 'slack-T1-C1-1.2',
  checkpoint: 'review',
  request: {
    kind: 'review',
    title: 'Approve the plan?',
    body: 'Step 1',
    actions: ['approve', 'revise', 'reject'],
    labels: {},
    round: 2,
    fields: [],
    ...over,
  },
  settings: {
    reviewers: ['requester', 'U0BOB', 'S0FIN'],
    allowSelfApproval: true,
    onTimeout: 'remind',
    allowSkip: false,
    dmReviewers: false,
    feedback: { minLength: 1, maxLength: 3000 },
  },
  status: 'pending',
  decision: null,
  decidedBy: null,
  decidedAt: null,
  dueAt: null,
  createdAt: '2026-11-22T10:00:00.000Z',
  approvals: [],
  claimedBy: null,
  claimedAt: null,
  ...extra,
});

/** Everything the bot would send, as one string, to look for live control sequences. */
const sent = (m: { text: string; blocks: unknown[] }) => JSON.stringify(m);
const LIVE = /<!(channel|here|everyone)>|<@U[A-Z0-9]+>|<https?:[^>]*>/;

describe('escaping', () => {
  it('turns mrkdwn control characters into entities and breaks broadcasts', () => {
    expect(escapeMrkdwn('a <!channel> & <@U1|x> @here')).toBe(
      'a &lt;!channel&gt; &amp; &lt;@U1|x&gt; @\u200bhere',
    );
  });
  it('leaves nothing live in markdown blocks, whatever the text', () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.constantFrom('<!channel>', '<!here>', '<@U0ADMIN>', '<!everyone>', '@channel'),
        fc.string(),
        (a, attack, b) => {
          const out = neutralizeMarkdown(`${a}${attack}${b}`);
          expect(out).not.toMatch(/<!(channel|here|everyone)>|<@U0ADMIN>|(^|[^\u200b])@channel\b/);
        },
      ),
    );
  });
  it('a task text with <!channel> is never posted raw in the root message', () => {
    const m = rootMessage(
      { requester: 'U0ANN', workflow: 'pair', text: 'ping <!channel> and <https://evil|bank>' },
      'working',
    );
    expect(sent(m).replace('<@U0ANN>', '')).not.toMatch(LIVE);
  });
});

describe('an edit of an agent message', () => {
  it('fits the text chat.update takes, whatever its characters, never cutting a character or an escape', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 3000 }), (raw) => {
        const text = agentMessages(raw)[0]?.text ?? '';
        const fitted = truncateBytes(text, UPDATE_TEXT_BYTES);
        expect(
          slackRefusal({ text: fitted, blocks: [{ type: 'markdown', text: 'x' }] }, 'chat.update'),
        ).toBeUndefined();
        // No character cut in two (a replacement character the text did not have), no escape cut.
        const replaced = (t: string) => t.split('\uFFFD').length;
        expect(replaced(fitted)).toBeLessThanOrEqual(replaced(text));
        expect(fitted).not.toMatch(/&[a-z]*…$/);
        if (Buffer.byteLength(text) <= UPDATE_TEXT_BYTES) expect(fitted).toBe(text);
      }),
    );
    // 3,000 characters of `&` and CJK: escaped, far past 4,000 bytes; cut, and still accepted.
    for (const raw of ['&'.repeat(3000), '漢'.repeat(3000)]) {
      const text = agentMessages(raw)[0]?.text ?? '';
      expect(Buffer.byteLength(text)).toBeGreaterThan(UPDATE_TEXT_BYTES);
      expect(
        slackRefusal(
          { text: truncateBytes(text, UPDATE_TEXT_BYTES), blocks: [{ type: 'markdown', text: 'x' }] },
          'chat.update',
        ),
      ).toBeUndefined();
    }
  });
});

describe('splitting', () => {
  it('keeps every chunk within the limit and loses no words', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ minLength: 1, maxLength: 400 }), { maxLength: 60 }),
        fc.integer({ min: 200, max: 3000 }),
        (parts, max) => {
          const text = parts.join('\n');
          const chunks = splitText(text, max);
          for (const c of chunks) expect(c.length).toBeLessThanOrEqual(max);
          expect(chunks.join(' ').replace(/\s+/g, '')).toBe(text.replace(/\s+/g, ''));
        },
      ),
    );
  });
  it('closes and reopens a code fence cut in two', () => {
    const code = `\`\`\`\n${'x = 1\n'.repeat(400)}\`\`\``;
    const chunks = splitText(code, 1000);
    expect(chunks.length).toBeGreaterThan(1);
    for (const c of chunks) expect((c.match(/```/g) ?? []).length % 2).toBe(0);
  });
  it('an agent message of any length fits Slack: markdown budget per message, text under 40,000', () => {
    for (const size of [10, 11_000, 12_500, 100_000]) {
      for (const m of agentMessages('word '.repeat(size / 5))) {
        expect(m.blocks.length).toBeLessThanOrEqual(LIMITS.blocksPerMessage);
        expect(JSON.stringify(m.blocks).length).toBeLessThan(12_000 + 200);
        expect(m.text.length).toBeLessThanOrEqual(LIMITS.messageText);
      }
    }
  });
});

describe('review card', () => {
  it('has the title, content, round, reviewers pinged and three buttons, Reject with a confirm, then the claim buttons', () => {
    const card = reviewCard(review(), 'U0ANN');
    const json = sent(card);
    expect(json).toContain('Approve the plan?');
    expect(json).toContain('Round 2');
    expect(json).toContain('<@U0ANN>, <@U0BOB>, <!subteam^S0FIN>');
    const actions = card.blocks.at(-1) as {
      type: string;
      elements: { action_id: string; style?: string; confirm?: unknown; value: string }[];
    };
    expect(actions.type).toBe('actions');
    expect(actions.elements.map((e) => [e.action_id, e.style])).toEqual([
      ['signoff_approve', 'primary'],
      ['signoff_revise', undefined],
      ['signoff_reject', 'danger'],
      ['signoff_claim', undefined],
      ['signoff_hand_over', undefined],
    ]);
    expect(actions.elements[2]?.confirm).toHaveProperty('confirm');
    expect(JSON.parse(actions.elements[0]?.value ?? '')).toEqual({
      review: 'abc123',
      task: 'slack-T1-C1-1.2',
      h: contentHash(review().request), // what the card shows, for "approve what you saw"
    });
  });
  it("a Reject's confirmation says what that reject does, on the card as on a reply's question: a tool call's that the call does not run, a Search more that the agents search again, any other (a Give up too) that the task ends", () => {
    type Confirm = { title: { text: string }; text: { text: string }; confirm: { text: string } };
    const confirms = (r: Review) => {
      const card = reviewCard(r, 'U0ANN').blocks.at(-1) as {
        elements: { action_id: string; confirm?: Confirm }[];
      };
      const question = replyQuestion(r, { ts: '1.2', text: 'no' }, ['reject']).blocks.at(-1) as {
        elements: { action_id: string; confirm?: Confirm }[];
      };
      return [card, question].map((b) => {
        const c = b.elements.find((e) => /reject/.test(e.action_id))?.confirm;
        return [c?.title.text, c?.text.text, c?.confirm.text];
      });
    };
    const call = review(toReviewRequest(REQUESTS.one));
    expect(confirms(call)).toEqual([
      ['Reject this?', 'The agent is told no; the call does not run.', 'Reject'],
      [
        'Reject this?',
        'The agent is told no, with your reply as the reason; the call does not run.',
        'Reject with this message',
      ],
    ]);
    const searchMore = review({
      title: 'Is this the gap to work on? (cycle 1)',
      labels: { approve: 'Continue', revise: 'Refine the gap', reject: 'Search more' },
      rejectGoesOn: 'The agents search again (for what you write, if anything); the task goes on.',
    });
    for (const c of confirms(searchMore))
      expect(c).toEqual([
        'Search more?',
        'The agents search again (for what you write, if anything); the task goes on.',
        'Search more',
      ]);
    for (const c of confirms(review()))
      expect(c).toEqual(['Reject this?', 'This ends the task: Approve the plan?', 'Reject']);
    // Its own words, and still the end of the task: the failed specialist's Give up.
    const giveUp = review({
      title: 'The invoice specialist failed. Retry?',
      labels: { approve: 'Retry', revise: 'Retry with instructions', reject: 'Give up' },
    });
    for (const c of confirms(giveUp))
      expect(c?.slice(0, 2)).toEqual([
        'Give up?',
        'This ends the task: The invoice specialist failed. Retry?',
      ]);
  });
  it('a title that names its round in its own word ("(cycle 2)") is not followed by "Round 2" too', () => {
    const cycle = sent(reviewCard(review({ title: "Review the agents' work (cycle 2)" }), 'U0ANN'));
    expect(cycle).toContain("Review the agents' work (cycle 2)");
    expect(cycle).not.toContain('Round 2');
    expect(cycle).toContain('Reviewers: <@U0ANN>');
  });
  it('content longer than a card: the card shows its beginning and how much more is above; the posts before it hold all of it', () => {
    const body = `<!channel> ${'long '.repeat(5000)}and the recipient is eve@example.com`;
    const r = review({ body });
    const card = reviewCard(r, 'U0ANN');
    const md = card.blocks.find((b) => b.type === 'markdown') as { text: string };
    const above = reviewTextMessages(r);
    expect(above.length).toBe(3);
    const [, hidden] =
      /_([\d,]+) more characters are not shown here: the whole text is in the 3 messages above\._/.exec(
        md.text,
      ) ?? [];
    const shown = md.text.slice(0, md.text.lastIndexOf('\n\n_'));
    expect(Number(hidden?.replace(/,/g, ''))).toBe(neutralizeMarkdown(body).length - shown.length);
    expect(md.text).not.toContain('eve@example.com');
    const posted = above.map((m) => (m.blocks.find((b) => b.type === 'markdown') as { text: string }).text);
    expect(posted.join(' ').replace(/\s+/g, '')).toBe(neutralizeMarkdown(body).replace(/\s+/g, ''));
    expect(JSON.stringify(above[2])).toContain('part 3 of 3');
    for (const m of [card, ...above]) {
      expect(slackRefusal({ ...m })).toBeUndefined();
      expect(sent(m)).not.toMatch(/<!channel>/);
    }
    // Content that fits is on the card whole, and nothing goes before it.
    expect(reviewTextMessages(review())).toEqual([]);
  });
  it('the fullest card Slack can be sent still fits: longest title, body, reviewers line, quorum and feedback', () => {
    const many = Array.from({ length: 60 }, (_, i) => `U0${String(i).padStart(6, '0')}`);
    const full = review(
      {
        title: 'T'.repeat(150),
        body: 'word '.repeat(30_000),
        labels: { approve: 'A'.repeat(30), reject: 'R'.repeat(30) },
      },
      {
        dueAt: '2026-11-23T10:00:00.000Z',
        approvals: [{ by: 'U0BOB', at: '2026-11-22T10:30:00.000Z', contentHash: 'h' }],
      },
    );
    full.settings = {
      ...full.settings,
      reviewers: many,
      notify: many.map((u) => u.replace('U0', 'U1')),
      approvals: 3,
    };
    const decided = {
      ...full,
      status: 'decided' as const,
      decision: {
        action: 'revise' as const,
        feedback: 'f '.repeat(1500),
        values: {},
        by: 'U0BOB',
        at: '2026-11-22T11:00:00.000Z',
      },
    };
    for (const m of [reviewCard(full, 'U0ANN'), decidedCard(decided, 'U0ANN'), ...reviewTextMessages(full)]) {
      expect(slackRefusal({ ...m })).toBeUndefined();
    }
    // The title that grows most when neutralized (a zero-width space every two characters).
    const grown = (r: Review): Review => ({ ...r, request: { ...r.request, title: '<@'.repeat(75) } });
    for (const m of [reviewCard(grown(full), 'U0ANN'), decidedCard(grown(decided), 'U0ANN')]) {
      expect(slackRefusal({ ...m })).toBeUndefined();
    }
  });
  it('a title its header cannot hold once its mentions are neutralized is shown whole under the header', () => {
    const start = 'Pay <!here> and tell <@U0EVE> and @channel: ';
    const end = ' and the amount is 9,000 EUR, not 900';
    const title = `${start}${'x'.repeat(150 - start.length - end.length)}${end}`;
    expect(title.length).toBe(150); // as long as a request's title may be
    const plainTexts = (m: { blocks: unknown[] }) =>
      JSON.stringify(m.blocks)
        .match(/"type":"plain_text","text":"(?:[^"\\]|\\.)*"/g)
        ?.map((t) => JSON.parse(`{${t}}`).text as string) ?? [];
    const decided: Review = {
      ...review({ title }),
      status: 'decided',
      decision: { action: 'approve', values: {}, by: 'U0BOB', at: '2026-11-22T11:00:00.000Z' },
    };
    for (const card of [reviewCard(review({ title }), 'U0ANN'), decidedCard(decided, 'U0ANN')]) {
      expect(slackRefusal({ ...card })).toBeUndefined();
      // The title's mentions stay broken (the reviewers' line pings, as it should).
      expect(sent(card)).not.toMatch(/<!here>|<@U0EVE>|[^\u200b]@channel/);
      const [header, next] = card.blocks as { type: string }[];
      expect(header?.type).toBe('header');
      expect(plainTexts({ blocks: [header] })[0]).toMatch(/…$/);
      expect(next?.type).toBe('context');
      expect(plainTexts({ blocks: [next] })).toEqual([`Title in full: ${neutralizePlain(title)}`]);
    }
    // A title the header holds, neutralized, is the header alone.
    const fits = reviewCard(review({ title: `Pay <!here> ${'x'.repeat(100)}` }), 'U0ANN');
    expect(fits.blocks[1]?.type).toBe('markdown');
    expect(sent(fits)).not.toContain('Title in full');
  });
  it('a plain card (Slack refused the full one) cannot approve: no Approve, no Edit of arguments; it says where the content is', () => {
    const r = review();
    const card = reviewCard(r, 'U0ANN', { code: 'msg_blocks_too_long' });
    const ids = (m: { blocks: { type: string }[] }) =>
      (
        m.blocks.find((b) => b.type === 'actions') as { elements: { action_id: string }[] } | undefined
      )?.elements.map((e) => e.action_id) ?? [];
    const CLAIMS = ['signoff_claim', 'signoff_hand_over'];
    expect(ids(card)).toEqual(['signoff_revise', 'signoff_reject', ...CLAIMS]);
    expect(sent(card)).not.toContain('Step 1');
    expect(sent(card)).toContain('cannot be approved here');
    expect(sent(card)).toContain('msg_blocks_too_long');
    expect(sent(card)).toContain(`signoff events ${r.taskId}`);
    const toolCall = review({
      fields: [{ id: 'args_0', label: 'send_email (JSON)', multiline: true, optional: true, initial: '{}' }],
    });
    expect(ids(reviewCard(toolCall, 'U0ANN', {}))).toEqual(['signoff_reject', ...CLAIMS]);
    expect(ids(reviewCard(review({ actions: ['approve'] }), 'U0ANN', {}))).toEqual([]);
    expect(
      decidedCard(
        { ...r, status: 'cancelled' },
        'U0ANN',
        { by: 'U0ANN', reason: 'cancelled' },
        {},
      ).blocks.some((b) => b.type === 'markdown'),
    ).toBe(false);
  });
  it("a plain card for signoff's own failure says so in words, never as something Slack said, and its warning fits Slack's section limit whatever the code", () => {
    const own = sent(reviewCard(review(), 'U0ANN', { code: SIGNOFF_FAILED }));
    expect(own).toContain('signoff could not show it');
    expect(own).not.toContain('Slack said');
    expect(own).not.toContain(SIGNOFF_FAILED);
    // A code as long as an error's text would be (a surface that answered with one): cut to fit.
    const long = reviewCard(
      review({ title: 'x'.repeat(150) }, { taskId: `slack-${'T'.repeat(200)}` }),
      'U0ANN',
      {
        code: 'e'.repeat(5000),
      },
    );
    expect(slackRefusal(long as never)).toBeUndefined();
    expect(notShownBecause('invalid_blocks')).toBe(' (Slack said `invalid_blocks`)');
    expect(notShownBecause(SIGNOFF_FAILED)).not.toContain('`');
  });
  it('once decided shows who, when and the feedback, without buttons', () => {
    const card = decidedCard(
      review(
        {},
        {
          status: 'decided',
          decision: {
            action: 'revise',
            feedback: 'add <!here> costs',
            values: {},
            by: 'U0BOB',
            at: '2026-11-22T11:00:00.000Z',
          },
        },
      ),
      'U0ANN',
    );
    const json = sent(card);
    expect(card.blocks.some((b) => b.type === 'actions')).toBe(false);
    expect(json).toContain('Revision asked by <@U0BOB>');
    expect(json).toContain('add &lt;!here&gt; costs');
  });
  it('a tool call approved with edits says so and shows the call as it ran, not as it was asked', () => {
    const request = toReviewRequest(REQUESTS.one);
    const card = decidedCard(
      review(request, {
        status: 'decided',
        decision: {
          action: 'edit',
          values: { args_0: JSON.stringify({ to: 'ops@example.com', subject: 'Launch', body: 'x' }) },
          by: 'U0BOB',
          at: '2026-11-22T11:00:00.000Z',
        },
      }),
      'U0ANN',
    );
    const json = sent(card);
    expect(json).toContain('Approved with edits by <@U0BOB>');
    expect(json).toContain('ops@example.com');
    expect(json).not.toContain('team@example.com');
    expect(reviewCard(review(request), 'U0ANN').blocks.at(-1)).toMatchObject({
      elements: [
        { action_id: 'signoff_approve', text: { text: 'Approve' } },
        { action_id: 'signoff_edit', text: { text: 'Edit' } },
        { action_id: 'signoff_reject', text: { text: 'Reject' } },
        { action_id: 'signoff_claim' },
        { action_id: 'signoff_hand_over' },
      ],
    });
  });
});

describe('someone is always pinged', () => {
  const withPeople = (reviewers: string[], notify?: string[]) => {
    const r = review();
    return { ...r, settings: { ...r.settings, reviewers, notify } };
  };
  const context = (r: Review) =>
    JSON.stringify(reviewCard(r, 'U0ANN').blocks.find((b) => b.type === 'context'));

  it('with reviewers "anyone" the card and its reminders mention the requester', () => {
    const r = withPeople(['anyone'], ['requester']);
    expect(context(r)).toContain('Reviewers: anyone in this channel · cc <@U0ANN>');
    expect(JSON.stringify(reminderMessage(r, 'U0ANN', false).blocks)).toContain(
      'anyone in this channel (<@U0ANN>)',
    );
    // A review opened before `notify` existed pings the requester too.
    expect(context(withPeople(['anyone']))).toContain('cc <@U0ANN>');
  });

  it('notify adds people and groups; nobody is mentioned twice', () => {
    expect(context(withPeople(['requester', 'U0BOB'], ['requester', 'S0ONCALL']))).toContain(
      'Reviewers: <@U0ANN>, <@U0BOB> · cc <!subteam^S0ONCALL>',
    );
    expect(context(withPeople(['U0BOB'], []))).toMatch(/Reviewers: <@U0BOB>"/);
  });
});

describe('approve what you saw', () => {
  it("a card's content hash changes with what it shows, and only then", () => {
    const base = review().request;
    expect(contentHash(base)).toBe(contentHash({ ...base, round: 3, labels: { approve: 'Ship it' } }));
    expect(contentHash(base)).not.toBe(contentHash({ ...base, body: 'Step 1 and step 2' }));
    expect(contentHash(base)).not.toBe(contentHash({ ...base, title: 'Approve the other plan?' }));
  });
});

describe('sign-off rules on the card', () => {
  const quorum = (over: Partial<Review> = {}, settings: Partial<Review['settings']> = {}) => {
    const r = review({}, over);
    return { ...r, settings: { ...r.settings, approvals: 2, allowSelfApproval: false, ...settings } };
  };
  const approvedBy = (by: string) => ({ by, at: '2026-11-22T10:30:00.000Z', contentHash: 'h' });

  it('an open 2-approval card shows progress, who still may approve (not the approver, not the requester), and that a reject ends it', () => {
    const json = sent(reviewCard(quorum({ approvals: [approvedBy('U0BOB')] }), 'U0ANN'));
    expect(json).toContain('*1 of 2 approvals*: <@U0BOB>');
    expect(json).toContain(
      'still may approve: <@U0ANN>, <@U0BOB>, <!subteam^S0FIN> (not <@U0BOB>, <@U0ANN>)',
    );
    expect(json).toContain('one Reject ends the review');
    expect(reviewCard(quorum(), 'U0ANN').blocks.some((b) => b.type === 'actions')).toBe(true);
  });

  it('a card decided by a quorum names every approver; a reject after an approval says the reject ended it', () => {
    const at = '2026-11-22T11:00:00.000Z';
    const approved = decidedCard(
      quorum({
        status: 'decided',
        approvals: [approvedBy('U0BOB')],
        decision: {
          action: 'approve',
          values: {},
          by: 'U0CAT',
          at,
          approvals: [
            { by: 'U0BOB', at },
            { by: 'U0CAT', at },
          ],
        },
      }),
      'U0ANN',
    );
    expect(sent(approved)).toContain('Approved by <@U0BOB> and <@U0CAT> (2 approvals)');
    const rejected = decidedCard(
      quorum({
        status: 'decided',
        approvals: [approvedBy('U0BOB')],
        decision: { action: 'reject', values: {}, by: 'U0CAT', at },
      }),
      'U0ANN',
    );
    expect(sent(rejected)).toContain('Rejected by <@U0CAT>');
    expect(sent(rejected)).toContain('One reject ends a review that needs several approvals.');
    expect(sent(rejected)).toContain('1 of 2 approvals: <@U0BOB>');
  });

  it('a timer decision reads as nobody deciding, and an escalating deadline says who is asked next', () => {
    const at = '2026-11-22T12:00:00.000Z';
    const timedOut = decidedCard(
      review(
        {},
        {
          status: 'decided',
          decision: {
            action: 'reject',
            values: {},
            by: 'signoff',
            at,
            automatic: 'no decision within 2h; this step rejects on timeout',
          },
        },
      ),
      'U0ANN',
    );
    expect(sent(timedOut)).toContain(
      'Rejected automatically: nobody decided (no decision within 2h; this step rejects on timeout)',
    );
    const escalating = review({}, { dueAt: at });
    escalating.settings = {
      ...escalating.settings,
      timeoutSeconds: 7200,
      onTimeout: 'escalate',
      escalation: { steps: [{ to: ['S0LEADS'], afterSeconds: 3600 }], finalAction: 'reject' },
    };
    expect(sent(reviewCard(escalating, 'U0ANN'))).toContain('(then <!subteam^S0LEADS> is asked too)');
    expect(
      sent(reviewCard({ ...escalating, settings: { ...escalating.settings, escalated: 1 } }, 'U0ANN')),
    ).toContain('(rejected automatically if nobody decides)');
  });

  it('a deadline that may not approve (a tool call, a plain card) is not promised as an approval; its overdue ping says why', () => {
    const at = '2026-11-22T12:00:00.000Z';
    const timed = (over: Partial<Review['request']> = {}) => {
      const r = review(over, { dueAt: at });
      return { ...r, settings: { ...r.settings, timeoutSeconds: 7200, onTimeout: 'approve' as const } };
    };
    expect(sent(reviewCard(timed(), 'U0ANN'))).toContain('(approved automatically if nobody decides)');
    expect(sent(reviewCard(timed(), 'U0ANN', { code: 'invalid_blocks' }))).not.toContain('automatically');
    const tool = timed(toReviewRequest(REQUESTS.one));
    expect(sent(reviewCard(tool, 'U0ANN'))).not.toContain('automatically');
    const why = 'Not approved automatically: a tool call goes ahead only when a person approves it.';
    expect(sent(reminderMessage(tool, 'U0ANN', true, why))).toContain(
      `is past its deadline and still waiting for a decision. ${why}`,
    );
  });

  it('a quorum the named reviewers can no longer reach says so on the card', () => {
    const r = review();
    const named = {
      ...r,
      settings: { ...r.settings, reviewers: ['U0ANN', 'U0BOB'], approvals: 2, allowSelfApproval: false },
    };
    // The requester (U0ANN) may not approve: only U0BOB is left for two approvals.
    expect(sent(reviewCard(named, 'U0ANN'))).toContain(
      'Only 1 of the reviewers named can still approve, so this cannot reach 2 approvals',
    );
    expect(sent(reviewCard(named, 'U0CAT'))).not.toContain('cannot reach');
    // A group may hold anyone: nobody can say it is out of reach.
    const grouped = { ...named, settings: { ...named.settings, reviewers: ['U0BOB', 'S0FIN'] } };
    expect(sent(reviewCard(grouped, 'U0ANN'))).not.toContain('cannot reach');
  });

  it('a reminder does not ask again someone who approved already', () => {
    const r = review({}, { approvals: [approvedBy('U0BOB')] });
    const named = { ...r, settings: { ...r.settings, reviewers: ['U0BOB', 'U0CAT'], approvals: 2 } };
    const text = sent(reminderMessage(named, 'U0ANN', false));
    expect(text).toContain('Reminder for <@U0CAT>');
    expect(text).not.toContain('<@U0BOB>');
  });

  it('an escalation to someone outside the channel tells the thread to invite them', () => {
    const text = sent(
      escalatedMessage(
        { review: review(), to: ['U0LEAD', 'S0OPS'], reason: 'no decision within 2h' },
        'U0ANN',
        ['U0LEAD'],
      ),
    );
    expect(text).toContain('escalated to <@U0LEAD>, <!subteam^S0OPS>');
    expect(text).toContain('<@U0LEAD> is not in this channel and cannot see the card: invite them');
  });

  it('a timer decision on a review with some approvals says how many it had, not that nobody decided', () => {
    const at = '2026-11-22T12:00:00.000Z';
    const r = quorum({
      status: 'decided',
      approvals: [approvedBy('U0BOB')],
      decision: {
        action: 'reject',
        values: {},
        by: 'signoff',
        at,
        automatic: 'no decision within 2h; this step rejects on timeout',
      },
    });
    const text = sent(decidedCard(r, 'U0ANN'));
    expect(text).toContain('Rejected automatically: 1 of 2 approvals (<@U0BOB>) when time ran out');
    expect(text).not.toContain('nobody decided');
  });
});

describe("a reply's private question", () => {
  const all = ['approve', 'revise', 'reject'] as const;
  const inbox = (config: Record<string, boolean>) => ({
    format: 'agent_inbox' as const,
    value: [{ action_request: { action: 'send', args: {} }, config }],
  });
  const hitl = { format: 'hitl' as const, value: { actionRequests: [], reviewConfigs: [] } };

  it('offers what the review allows and the author may take; a tool call never an approval or an edit, and Respond wherever its agent takes a response', () => {
    expect(questionChoices(review(), [...all])).toEqual(['revise', 'approve', 'reject']);
    expect(questionChoices(review(), ['revise', 'reject'])).toEqual(['revise', 'reject']);
    expect(questionChoices(review({ actions: ['approve', 'reject'] }), [...all])).toEqual([
      'approve',
      'reject',
    ]);
    expect(questionChoices(review({ origin: hitl }), [...all])).toEqual(['reject']);
    // Only where a revise is the agent's own response do words answer it: an Agent Inbox call
    // that takes a response, whether or not it may also be edited (on the card).
    const every = { allow_accept: true, allow_edit: true, allow_respond: true, allow_ignore: true };
    expect(questionChoices(review({ origin: inbox(every) }), [...all])).toEqual(['revise', 'reject']);
    const respond = { ...every, allow_edit: false };
    expect(questionChoices(review({ origin: inbox(respond) }), [...all])).toEqual(['revise', 'reject']);
    const noWords = { ...every, allow_respond: false };
    expect(questionChoices(review({ origin: inbox(noWords) }), [...all])).toEqual(['reject']);
  });

  it('quotes the start of the reply, escaped, and keeps its buttons within what Slack takes', () => {
    const text = `<!channel> ${'x'.repeat(5000)}`;
    const r = review({ title: 'T'.repeat(150) }, { id: 'r'.repeat(100), taskId: 't'.repeat(300) });
    const q = replyQuestion(r, { ts: '1700000000.000100', text }, ['revise', 'approve', 'reject']);
    expect(sent(q)).not.toMatch(LIVE);
    expect(sent(q)).not.toContain('x'.repeat(400));
    const actions = q.blocks.find((b) => b.type === 'actions') as { elements: { value: string }[] };
    expect(actions.elements).toHaveLength(4);
    for (const e of actions.elements) expect(e.value.length).toBeLessThanOrEqual(LIMITS.buttonValue);
    expect(JSON.parse(actions.elements[0]?.value ?? '{}')).toEqual({
      review: r.id,
      task: r.taskId,
      h: contentHash(r.request),
      reply: '1700000000.000100',
    });
  });
});

describe('the policy on a card', () => {
  const ids = (m: { blocks: { type: string }[] }) =>
    (
      m.blocks.find((b) => b.type === 'actions') as unknown as { elements: { action_id: string }[] }
    ).elements.map((e) => e.action_id);
  it('offers Always allow… right after Approve where rules may be signed off, and the claim buttons last', () => {
    const r = review();
    expect(ids(reviewCard({ ...r, settings: { ...r.settings, alwaysAllow: true } }, 'U0ANN'))).toEqual([
      'signoff_approve',
      'signoff_always',
      'signoff_revise',
      'signoff_reject',
      'signoff_claim',
      'signoff_hand_over',
    ]);
  });

  it('a claimed card says who has it (and that only they decide, when exclusive) and offers Hand over… and Release', () => {
    const r = review({}, { claimedBy: 'U0BOB' });
    const card = reviewCard(
      { ...r, settings: { ...r.settings, exclusiveClaims: true, delegates: { U0CAT: 'U0DAN' } } },
      'U0ANN',
    );
    expect(ids(card).slice(-2)).toEqual(['signoff_hand_over', 'signoff_release']);
    expect(sent(card)).toContain(
      '<@U0BOB> has it: only they decide it while it is theirs; reminders go to them',
    );
    expect(sent(card)).toContain('<@U0CAT> is away: <@U0DAN> decides in their place');
  });

  it('a review approved by a rule names it: the config file’s by name, a signed-off one with who proposed and approved it', () => {
    const at = '2026-11-22T11:00:00.000Z';
    const byConfig = review(
      {},
      {
        status: 'decided',
        decision: {
          action: 'approve',
          values: {},
          by: 'signoff',
          at,
          automatic: 'x',
          rule: { name: 'small refunds' },
        },
      },
    );
    expect(sent(decidedCard(byConfig, 'U0ANN'))).toContain('by the config file\'s rule \\"small refunds\\"');
    const byTeam = review(
      {},
      {
        status: 'decided',
        decision: {
          action: 'approve',
          values: {},
          by: 'signoff',
          at,
          automatic: 'x',
          rule: { name: '#4', id: 4, proposedBy: 'U0ALI', approvedBy: ['U0BOB', 'U0CAR'] },
        },
      },
    );
    expect(sent(decidedCard(byTeam, 'U0ANN'))).toContain(
      'by rule #4 (proposed by <@U0ALI>, approved by <@U0BOB> and <@U0CAR>)',
    );
  });
});

describe('a batch checkbox', () => {
  it('reads back the review it names, a budget review’s id with its colons included', () => {
    const review = {
      id: 'slack-C0WORK-1700000000.000100:budget:500',
      request: {
        kind: 'budget',
        title: 'Budget reached',
        body: 'Continue?',
        actions: ['approve', 'reject'],
        labels: {},
        round: 1,
        fields: [],
      },
    } as unknown as Review;
    const value = batchValue(review);
    expect(value.length).toBeLessThanOrEqual(150);
    expect(readBatchValue(value)).toEqual({ review: review.id, h: value.slice(-16) });
    expect(readBatchValue('no hash here')).toBeUndefined();
  });
});

describe('the always-allow form', () => {
  it('shows a call’s arguments in one code block whole, three backticks in them included (as JSON escapes)', () => {
    const args = { cmd: 'echo ```done``` && rm -rf /srv/data' };
    const scope = {
      kind: 'call',
      workflow: 'ask',
      checkpoint: 'tool_call',
      channel: 'C0WORK',
      tool: 'run',
      args,
    } as const;
    const view = alwaysModal({ value: {} }, [scope], { reviewers: ['U0LEAD'], approvals: 1 });
    const section =
      (view.blocks as { text?: { text: string } }[])
        .map((b) => b.text?.text ?? '')
        .find((t) => t.startsWith('The arguments')) ?? '';
    // One block: its own fences and no others, the command whole.
    expect(section.split('```')).toHaveLength(3);
    expect(section).toContain('rm -rf /srv/data');
    const unescaped = (section.split('```')[1] ?? '')
      .replaceAll('&lt;', '<')
      .replaceAll('&gt;', '>')
      .replaceAll('&amp;', '&');
    expect(JSON.parse(unescaped)).toEqual(args);
  });
});
