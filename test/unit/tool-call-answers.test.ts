/**
 * What the terminal says at a tool call's review when a line cannot answer it: a call that may not
 * go ahead as asked (edit or reject only) says it must be changed, and words say they change no
 * call. (The feedback prompt's and the interactive prompt's hints are tested here too.)
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

  it('a call that may be approved is still approved by the word only, as before', () => {
    const may = reviewOf(REQUESTS.one);
    expect(parseAnswer('', may)).toEqual({
      error:
        'A tool call is approved by the word only: type "approve" to approve, or "reject" (or "reject: why") to reject.',
    });
    expect(parseAnswer('approve', may)).toEqual({ action: 'approve' });
  });
});
