import { describe, expect, it } from 'vitest';
import { parseAnswer } from '../../src/cli/answer.js';
import { formatReview } from '../../src/cli/printer.js';
import { choicesAt, groupsToAsk, refusal, rightRefused } from '../../src/engine/authorize.js';
import type { Review, ReviewSettings, Task } from '../../src/engine/types.js';
import { readReply } from '../../src/slack/inbound/listeners/events/thread-reply.js';
import { toReviewRequest } from '../../src/workflows/protocol/review-request.js';
import { REQUESTS } from '../fixtures/hitl-graph.js';

const settings = (over: Partial<ReviewSettings> = {}): ReviewSettings => ({
  reviewers: ['anyone'],
  allowSelfApproval: true,
  onTimeout: 'remind',
  allowSkip: false,
  dmReviewers: false,
  feedback: { minLength: 1, maxLength: 3000 },
  ...over,
});
const task = { requester: 'U_ANN' } as Task;
const review = (actions: Review['request']['actions'] = ['approve', 'revise', 'reject']) =>
  ({
    request: {
      kind: 'review',
      title: 'Check the plan',
      body: 'step 1\nstep 2',
      actions,
      labels: {},
      round: 2,
      fields: [],
    },
    settings: { reviewers: ['anyone'] },
    approvals: [],
    dueAt: null,
  }) as unknown as Review;

describe('who may decide', () => {
  it('anyone, listed users, members of listed groups, the requester when listed', () => {
    expect(refusal(settings(), task, { id: 'U_X' }, 'approve')).toBeUndefined();
    expect(refusal(settings({ reviewers: ['U_BOB'] }), task, { id: 'U_X' }, 'approve')).toBe(
      'you are not a reviewer for this step',
    );
    expect(refusal(settings({ reviewers: ['U_BOB'] }), task, { id: 'U_BOB' }, 'approve')).toBeUndefined();
    expect(
      refusal(settings({ reviewers: ['S_FIN'] }), task, { id: 'U_X', groups: ['S_FIN'] }, 'reject'),
    ).toBeUndefined();
    expect(refusal(settings({ reviewers: ['requester'] }), task, { id: 'U_ANN' }, 'revise')).toBeUndefined();
    expect(refusal(settings({ reviewers: ['requester'] }), task, { id: 'U_X' }, 'revise')).toBe(
      'you are not a reviewer for this step',
    );
  });
  it('forbids self-approval when configured, but not self-revision', () => {
    const s = settings({ allowSelfApproval: false });
    expect(refusal(s, task, { id: 'U_ANN' }, 'approve')).toContain('someone else has to approve');
    expect(refusal(s, task, { id: 'U_ANN' }, 'revise')).toBeUndefined();
  });
});

describe('rights that hinge on what Slack says', () => {
  const grouped = settings({ reviewers: ['U_BOB', 'S_FIN'] });
  it('a group is asked about only for someone whose right hinges on it', () => {
    expect(groupsToAsk(grouped, task, { id: 'U_BOB' })).toEqual([]);
    expect(groupsToAsk(settings(), task, { id: 'U_X' })).toEqual([]);
    expect(groupsToAsk(grouped, task, { id: 'U_X' })).toEqual(['S_FIN']);
    expect(groupsToAsk(grouped, task, { id: 'U_X', external: true })).toEqual([]);
    expect(groupsToAsk(grouped, task, { id: 'U_X', unknownGroups: ['S_FIN'] })).toEqual([]);
  });
  it('a group Slack did not answer for refuses only those whose right hinges on it, saying so', () => {
    const unanswered = { unknownGroups: ['S_FIN'] };
    expect(rightRefused(grouped, task, { id: 'U_BOB', ...unanswered }, 'approve')).toBeUndefined();
    expect(rightRefused(grouped, task, { id: 'U_X', ...unanswered }, 'approve')).toEqual({
      code: 'directory_unavailable',
      message:
        'Sorry, Slack did not say whether you are in <!subteam^S_FIN> just now; try again in a minute.',
    });
    expect(
      rightRefused(settings({ reviewers: ['U_BOB'] }), task, { id: 'U_X', ...unanswered }, 'approve'),
    ).toEqual({
      code: 'not_allowed',
      message: 'Sorry, you are not a reviewer for this step.',
    });
  });
  it('people from outside and guests decide only where allowExternal says so; unplaced ones count as outside', () => {
    const outside = { id: 'U_X', external: true } as const;
    expect(refusal(settings(), task, outside, 'approve')).toContain('people from outside');
    expect(refusal(settings({ allowExternal: true }), task, outside, 'approve')).toBeUndefined();
    expect(refusal(settings(), task, { id: 'U_X', external: 'unknown' }, 'reject')).toContain(
      'people from outside',
    );
    expect(rightRefused(settings(), task, { id: 'U_X', external: 'unknown' }, 'reject')?.code).toBe(
      'directory_unavailable',
    );
    expect(
      rightRefused(settings({ allowExternal: true }), task, { id: 'U_X', external: 'unknown' }, 'reject'),
    ).toBeUndefined();
  });
});

describe('what a person is offered at a review', () => {
  it('a requester at an approve-only review is told they may not approve their own work, not that they approved it', async () => {
    const approveOnly = {
      ...review(['approve']),
      settings: settings({ allowSelfApproval: false }),
    } as Review;
    expect(await choicesAt(undefined, approveOnly, task, { id: 'U_ANN' })).toEqual({
      actions: [],
      refusal: 'Sorry, you started this task, so someone else has to approve it.',
    });
  });
  it('someone whose approval already counts towards a quorum is told so', async () => {
    const given = {
      ...review(['approve']),
      settings: settings({ approvals: 2 }),
      approvals: [{ by: 'U_BOB', at: '2026-01-01T00:00:00.000Z', contentHash: 'h' }],
    } as Review;
    expect(await choicesAt(undefined, given, task, { id: 'U_BOB' })).toEqual({
      actions: [],
      refusal: 'Sorry, you have approved this already.',
    });
  });
});

describe('who the config vouches for', () => {
  it('a user id named in reviewers decides whatever the surface says of their standing; requester, anyone and groups vouch for nobody', () => {
    const named = settings({ reviewers: ['U_X', 'requester', 'S_TEAM'] });
    for (const external of [true, 'unknown'] as const) {
      expect(refusal(named, task, { id: 'U_X', external }, 'approve')).toBeUndefined();
      expect(refusal(named, { requester: 'U_Y' } as Task, { id: 'U_Y', external }, 'reject')).toContain(
        'outside',
      );
      expect(refusal(named, task, { id: 'U_Z', external, groups: ['S_TEAM'] }, 'reject')).toContain(
        'outside',
      );
      expect(refusal(settings(), task, { id: 'U_X', external }, 'reject')).toContain('outside');
    }
  });
});

describe('terminal answers', () => {
  it('Enter or approve approves (not at a tool call), reject rejects, anything else revises with that text', () => {
    expect(parseAnswer('', review())).toEqual({ action: 'approve' });
    expect(parseAnswer('  Approve ', review())).toEqual({ action: 'approve' });
    expect(parseAnswer('reject', review())).toEqual({ action: 'reject' });
    expect(parseAnswer('  use euros ', review())).toEqual({ action: 'revise', feedback: 'use euros' });
  });
  it('says which answers are possible when one is not', () => {
    expect(parseAnswer('more detail', review(['approve', 'reject']))).toEqual({
      error: '"revise" is not possible here: Enter or "approve" to approve, "reject" to reject.',
    });
  });
  it('at a tool call: JSON is the edited arguments, "edit" asks the form, and words decide nothing', () => {
    const one = { ...review(), request: toReviewRequest(REQUESTS.one) } as Review;
    const json = '{"to": "ops@example.com", "subject": "Hi", "body": "x"}';
    expect(parseAnswer(json, one)).toEqual({ action: 'edit', values: { args_0: json } });
    expect(parseAnswer('NO, wrong recipient', one)).toEqual({
      error: expect.stringContaining('Words do not change a tool call: type its edited arguments'),
    });
    const two = { ...review(), request: toReviewRequest(REQUESTS.two) } as Review;
    expect(parseAnswer('edit', two)).toEqual({ form: true });
    expect(parseAnswer('{"to": "x"}', two)).toEqual({
      error:
        'Arguments typed here could be any call\'s: type "edit" to decide each call, "approve" to approve all 2, or "reject: <why>" to reject all 2 and tell the agent why.',
    });
    expect(formatReview(two)).toContain('"reject" to reject all 2.');
  });
  it('at a tool call only the word "approve" approves: Enter alone or "y" says what to type, and the choices say so', () => {
    const one = { ...review(), request: toReviewRequest(REQUESTS.one) } as Review;
    const say =
      'A tool call is approved by the word only: type "approve" to approve, or "reject" (or "reject: why") to reject.';
    for (const typed of ['', '   ']) expect(parseAnswer(typed, one)).toEqual({ error: say });
    for (const typed of ['y', 'LGTM', 'ok', 'Approve.'])
      expect(parseAnswer(typed, one)).toEqual({
        error: 'Did you mean approve? Type "approve" to approve. ("help" lists every choice.)',
      });
    expect(parseAnswer(' Approve ', one)).toEqual({ action: 'approve' });
    expect(parseAnswer('reject', one)).toEqual({ action: 'reject' });
    expect(formatReview(one)).toContain('└─ "approve" to approve,');
    expect(formatReview(one)).not.toContain('Enter or');
    expect(formatReview(review())).toContain('└─ Enter or "approve" to approve,');
  });
  it('a lone "yes", "lgtm", "no" or a misspelt choice is asked about, neither a decision nor feedback; "reject: why" rejects with the reason', () => {
    const one = { ...review(), request: toReviewRequest(REQUESTS.one) } as Review;
    // A misspelt choice too: a revise may end the task (an `ask`), so a typo is never feedback.
    for (const typed of ['yes', 'lgtm', 'OK.', 'no', 'n', 'aprove', 'Approv', 'rejct', 'regect'])
      expect(parseAnswer(typed, review())).toMatchObject({
        error: expect.stringMatching(/^Did you mean (approve|reject)\?/),
      });
    expect(parseAnswer('no, make it shorter', review())).toEqual({
      action: 'revise',
      feedback: 'no, make it shorter',
    });
    expect(parseAnswer('reject: wrong recipient, do not send', one)).toEqual({
      action: 'reject',
      feedback: 'wrong recipient, do not send',
    });
    expect(parseAnswer('NO, wrong recipient, do not send this', one)).toMatchObject({
      error: expect.any(String),
    });
  });
  it('forbids self-approval by Edit too: an edit is an approval of the edited call', () => {
    const s = settings({ allowSelfApproval: false });
    expect(refusal(s, task, { id: 'U_ANN' }, 'edit')).toContain('someone else has to approve');
    expect(refusal(s, task, { id: 'U_BOB' }, 'edit')).toBeUndefined();
  });
  it('prints the review with its round, in the form titles give it, and its choices', () => {
    const text = formatReview(review());
    expect(text.split('\n')[1]).toBe('┌─ Review: Check the plan (round 2)');
    // A title that names its round as a cycle is not followed by "(round 2)" too.
    const cycle = formatReview({
      ...review(),
      request: { ...review().request, title: 'Check the plan (cycle 2)' },
    });
    expect(cycle.split('\n')[1]).toBe('┌─ Review: Check the plan (cycle 2)');
    expect(text).toContain('│ step 2');
    expect(text).toContain('"reject" to reject');
    expect(text).not.toContain('approvals');
  });
  it('prints the approvals a review needs and has', () => {
    const r = review();
    const text = formatReview({
      ...r,
      settings: { ...r.settings, approvals: 2 },
      approvals: [{ by: 'cli:ann', at: '2026-11-25T10:00:00.000Z', contentHash: 'h' }],
    });
    expect(text).toContain('│ (1 of 2 approvals: cli:ann; any reject ends the review)');
  });
});

describe('which thread replies are meant for the bot', () => {
  it('a mention (with or without a label) or a leading "redirect:" addresses it; "+1" does not', () => {
    expect(readReply('<@U0BOT> make it shorter', 'U0BOT')).toEqual({
      text: 'make it shorter',
      addressed: true,
    });
    expect(readReply('ok <@U0BOT|signoff>, plan Q3 only', 'U0BOT')).toEqual({
      text: 'ok , plan Q3 only',
      addressed: true,
    });
    expect(readReply('Redirect:  a one-day retreat', 'U0BOT')).toEqual({
      text: 'a one-day retreat',
      addressed: true,
    });
    expect(readReply('+1', 'U0BOT')).toEqual({ text: '+1', addressed: false });
    expect(readReply('<@U0ANN> what do you think?', 'U0BOT')).toEqual({
      text: '<@U0ANN> what do you think?',
      addressed: false,
    });
    expect(readReply('<@U0BOT>', 'U0BOT')).toEqual({ text: '', addressed: true });
  });
  it('at a review a leading "revise:" addresses it, and "redirect:" does not', () => {
    expect(readReply('Revise:  shorter, please', 'U0BOT', 'revise')).toEqual({
      text: 'shorter, please',
      addressed: true,
    });
    expect(readReply('lgtm', 'U0BOT', 'revise')).toEqual({ text: 'lgtm', addressed: false });
    expect(readReply('redirect: a retreat', 'U0BOT', 'revise')).toEqual({
      text: 'redirect: a retreat',
      addressed: false,
    });
  });
});
