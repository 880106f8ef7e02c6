/**
 * What the terminal says at a tool call's review when a line cannot answer it: a call that may not
 * go ahead as asked (edit or reject only) says it must be changed, and words say they change no
 * call.
 */
import { describe, expect, it } from 'vitest';
import { parseAnswer } from '../../src/cli/answer.js';
import { choicesOf } from '../../src/cli/choices.js';
import type { Review } from '../../src/engine/types.js';
import { toReviewRequest } from '../../src/workflows/protocol/review-request.js';
import { REQUESTS } from '../fixtures/hitl-graph.js';

const reviewOf = (request: unknown) =>
  ({
    request: toReviewRequest(request),
    settings: { reviewers: ['anyone'] },
    approvals: [],
    dueAt: null,
  }) as unknown as Review;

describe('a tool call that may be edited but not approved as asked', () => {
  const one = reviewOf(REQUESTS['edit-only']);
  const guarded = reviewOf(REQUESTS.guarded);
  const mustChange =
    'This call may not go ahead as asked: type its edited arguments as one line of JSON, "edit" for a form, or "reject" (or "reject: why").';

  it('Enter, "approve" or "y" is answered by how to change it (or reject it), never by a word it refuses, and decides nothing', () => {
    for (const typed of ['', '  ', 'approve', 'Approve.', 'y', 'lgtm', 'aprove'])
      expect([typed, parseAnswer(typed, one)]).toEqual([typed, { error: mustChange }]);
    expect(parseAnswer('edit', one)).toEqual({ form: true });
    expect(parseAnswer('reject', one)).toEqual({ action: 'reject' });
  });

  it('its arguments typed back as shown (keys in another order) are no edit, and the answer says the call must be changed', () => {
    const reordered = '{"body": "We ship today.", "subject": "Launch", "to": "all@example.com"}';
    expect(parseAnswer(reordered, one)).toEqual({
      error: `Those are the arguments as shown; nothing changed. ${mustChange}`,
    });
    const edited = reordered.replace('all@', 'team@');
    expect(parseAnswer(edited, one)).toEqual({ action: 'edit', values: { args_0: edited } });
  });

  it('its choices line offers what can answer it: edited arguments, the form, reject; no approve', () => {
    expect(choicesOf(one)).toBe(
      'type its edited arguments as one line of JSON (it may not go ahead as asked), "edit" for a form, "reject" to reject',
    );
    expect(choicesOf(one)).not.toContain('approve');
  });

  it('with several calls, one of them such a call: Enter says to decide each, and the choices line says why', () => {
    expect(parseAnswer('', guarded)).toEqual({
      error:
        'Not every call here may go ahead as asked: type "edit" to decide each, or "reject" (or "reject: why") to reject all 2.',
    });
    expect(choicesOf(guarded)).toBe(
      '"edit" to edit or decide each (not every call may go ahead as asked), "reject" to reject all 2',
    );
  });

  it('at an Agent Inbox call that may be edited, not accepted: Enter offers "reject" to ignore, never a why its ignore would drop', () => {
    const inbox = reviewOf([
      {
        action_request: { action: 'send_email', args: { to: 'a@example.com' } },
        config: { allow_accept: false, allow_edit: true, allow_ignore: true, allow_respond: false },
        description: 'An email',
      },
    ]);
    const mustChangeInbox =
      'This call may not go ahead as asked: type its edited arguments as one line of JSON, "edit" for a form, or "reject" to ignore.';
    for (const typed of ['', 'approve', '{"to": "a@example.com"}'])
      expect([typed, parseAnswer(typed, inbox)]).toEqual([
        typed,
        {
          error: typed.startsWith('{')
            ? `Those are the arguments as shown; nothing changed. ${mustChangeInbox}`
            : mustChangeInbox,
        },
      ]);
    expect(parseAnswer('reject', inbox)).toEqual({ action: 'reject' });
  });

  it('a call that may be approved is still approved by the word only, as before', () => {
    const may = reviewOf(REQUESTS.one);
    expect(parseAnswer('', may)).toEqual({
      error:
        'A tool call is approved by the word only: type "approve" to approve, or "reject" (or "reject: why") to reject.',
    });
    expect(parseAnswer('approve', may)).toEqual({ action: 'approve' });
  });
});

describe('words typed at a tool call', () => {
  it('say that words change no call, with a short example of its arguments (one key, on one line), the form, and "reject: <why>" for the agent', () => {
    const say =
      'Words do not change a tool call: type its edited arguments as one line of JSON (such as {"to": "…"}), "edit" for a form, or "reject: <why>" to tell the agent why.';
    for (const request of [REQUESTS.one, REQUESTS['edit-only']])
      expect(parseAnswer('please change the subject', reviewOf(request))).toEqual({ error: say });
    // A call whose first argument is another: the example names that one.
    const publish = reviewOf({
      actionRequests: [{ name: 'publish', args: { title: 'Q3', text: 'The quarter.' } }],
      reviewConfigs: [{ actionName: 'publish', allowedDecisions: ['approve', 'edit', 'reject'] }],
    });
    expect(parseAnswer('shorter', publish)).toMatchObject({
      error: expect.stringContaining('(such as {"title": "…"})'),
    });
    // Arguments too long to edit here: no JSON offered, what can be typed is said.
    expect(parseAnswer('shorter', reviewOf(REQUESTS.long))).toEqual({
      error:
        'Words do not change a tool call: type "approve" to approve, or "reject: <why>" to reject and tell the agent why.',
    });
  });

  it('at several calls say to decide each in the form; arguments typed there name no call', () => {
    const two = reviewOf(REQUESTS.two);
    const ways =
      'type "edit" to decide each call, "approve" to approve all 2, or "reject: <why>" to reject all 2 and tell the agent why.';
    expect(parseAnswer('please change the subject', two)).toEqual({
      error: `Words do not change a tool call: ${ways}`,
    });
    expect(parseAnswer('{"to": "x"}', two)).toEqual({
      error: `Arguments typed here could be any call's: ${ways}`,
    });
  });

  it('at an Agent Inbox call that takes a response are that response, as before; at one that takes none, its ignore takes no reason', () => {
    const inbox = (allowRespond: boolean) =>
      reviewOf([
        {
          action_request: { action: 'send_email', args: { to: 'a@example.com' } },
          config: { allow_accept: true, allow_edit: true, allow_ignore: true, allow_respond: allowRespond },
          description: 'An email',
        },
      ]);
    expect(parseAnswer('please change the subject', inbox(true))).toEqual({
      action: 'revise',
      feedback: 'please change the subject',
    });
    expect(parseAnswer('please change the subject', inbox(false))).toEqual({
      error:
        'Words do not change a tool call: type its edited arguments as one line of JSON (such as {"to": "…"}), "edit" for a form, or "reject" to ignore.',
    });
  });
});
