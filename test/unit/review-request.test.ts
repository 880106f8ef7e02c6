/**
 * What an interrupt becomes: always a review (it is made inside the run's settling transaction,
 * where a throw would leave the task working for ever), shortened with a note when it does not fit.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { reviewRequestSchema } from '../../src/engine/types.js';
import { reviseModal } from '../../src/slack/blocks/modals.js';
import { toReviewRequest } from '../../src/workflows/protocol/review-request.js';
import { titleWithRound } from '../../src/workflows/protocol/review-title.js';

const circular: Record<string, unknown> = { a: 1 };
circular.self = circular;

const hitl = (args: Record<string, unknown>) => ({
  actionRequests: [{ name: 'send_email', args, description: 'An email is about to go out' }],
  reviewConfigs: [{ actionName: 'send_email', allowedDecisions: ['approve', 'edit', 'reject'] }],
});

describe('toReviewRequest', () => {
  it.each([
    [
      'a tool call whose arguments pass 3,000 characters',
      hitl({ to: 'a@example.com', body: 'x'.repeat(5000) }),
    ],
    ['a 200-character title and a 200k body', { title: 't'.repeat(200), body: 'b'.repeat(200_000) }],
    ['a BigInt', { amount: 10n ** 30n }],
    ['a cycle', circular],
    [
      'seven fields',
      {
        title: 'Fields',
        body: '',
        fields: Array.from({ length: 7 }, (_, i) => ({ id: `f${i}`, label: `F${i}` })),
      },
    ],
    ['a kind that is no checkpoint name', { kind: 'Payment Review!', title: 'Pay?', body: 'Pay Bob' }],
    ['labels too long', { title: 'Pay?', body: '', labels: { approve: 'A'.repeat(80) }, actions: ['nope'] }],
    ['a feedback label too long', { title: 'Query?', body: '', feedbackLabel: `  ${'q'.repeat(300)}` }],
    ['a feedback label not text', { title: 'Query?', body: '', feedbackLabel: { text: 'query' } }],
    ['nothing at all', undefined],
    ['a string', 'approve this?'],
  ])('never throws and always validates: %s', (_what, value) => {
    const request = toReviewRequest(value);
    expect(reviewRequestSchema.safeParse(request).success).toBe(true);
  });

  it('never throws and always validates, whatever the interrupt carries', () => {
    fc.assert(
      fc.property(
        fc.anything({ withBigInt: true, withMap: true, withSet: true, withNullPrototype: true }),
        (v) => {
          expect(reviewRequestSchema.safeParse(toReviewRequest(v)).success).toBe(true);
        },
      ),
    );
  });

  it("a workflow's feedbackLabel (what the words typed for revise are) is kept, trimmed to 100 characters", () => {
    expect(
      toReviewRequest({ title: 'Search?', body: '', feedbackLabel: ' The query to search instead ' })
        .feedbackLabel,
    ).toBe('The query to search instead');
    expect(
      toReviewRequest({ title: 'Search?', body: '', feedbackLabel: 'q'.repeat(300) }).feedbackLabel,
    ).toHaveLength(100);
    expect(
      toReviewRequest({ title: 'Search?', body: '', feedbackLabel: '   ' }).feedbackLabel,
    ).toBeUndefined();
    // A request already in signoff's shape (a kind) is trimmed the same way.
    const asked = { kind: 'query_review', title: 'Search?', body: '' };
    expect(toReviewRequest({ ...asked, feedbackLabel: ' The query ' }).feedbackLabel).toBe('The query');
    expect(toReviewRequest({ ...asked, feedbackLabel: '   ' }).feedbackLabel).toBeUndefined();
  });

  it('a long title is cut and given whole in the body; a long body is cut with a note and cannot be approved', () => {
    const title = `Pay the invoice ${'of ACME Corporation '.repeat(10)}to IBAN DE00 1234`;
    const request = toReviewRequest({ kind: 'payment', title, body: `${'line\n'.repeat(40_000)}the end` });
    expect(request.kind).toBe('payment');
    expect(request.title.length).toBeLessThanOrEqual(150);
    expect(request.title.endsWith('…')).toBe(true);
    expect(request.body).toContain(`**Title in full:** ${title}`);
    expect(request.body).toMatch(/_\(… [\d,]+ characters cut\)_$/);
    expect(request.body).not.toContain('the end');
    expect(request.body).toContain('too long to show in full, so it cannot be approved here');
    expect(request.actions).toEqual(['revise', 'reject']);
  });

  it('a request that fits only its title is shortened, not shown as JSON, and keeps its Approve', () => {
    const request = toReviewRequest({ title: 'x'.repeat(200), body: 'All of it is here.' });
    expect(request.title).toBe(`${'x'.repeat(149)}…`);
    expect(request.body).toContain('All of it is here.');
    expect(request.actions).toEqual(['approve', 'revise', 'reject']);
  });

  it('a form field that does not fit is left out, with a note saying which and why', () => {
    const request = toReviewRequest({
      title: 'Send it?',
      body: 'To: bob@example.com',
      fields: [
        { id: 'to', label: 'To', initial: 'bob@example.com' },
        { id: 'text', label: 'Text', initial: 'y'.repeat(4000) },
      ],
    });
    expect(request.fields.map((f) => f.id)).toEqual(['to']);
    expect(request.body).toContain(
      'The form field “Text” was left out: its value (4,000 characters) is longer than a form can hold.',
    );
  });

  it('a value in another shape is shown whole, as JSON, with nothing of it dropped', () => {
    const request = toReviewRequest({ title: 'A document', content: { to: 'eve@example.com' } });
    expect(request.title).toBe('The workflow asks for your review');
    expect(request.body).toContain('eve@example.com');
  });

  it.each([3, 10])(
    '%i editable tool calls keep Edit: every call has its decision and its arguments in the form, within a modal',
    (n) => {
      const calls = Array.from({ length: n }, (_, i) => ({
        name: 'send_email',
        args: { to: `person${i}@example.com`, subject: 'Launch', body: 'We ship today.' },
      }));
      const config = { actionName: 'send_email', allowedDecisions: ['approve', 'edit', 'reject'] };
      const request = toReviewRequest({
        actionRequests: calls,
        reviewConfigs: calls.map(() => config),
      });
      expect(request.actions).toEqual(['approve', 'edit', 'reject']);
      expect(request.body).not.toContain('left out');
      expect(request.fields.map((f) => f.id)).toEqual(
        calls.flatMap((_, i) => [`decision_${i}`, `args_${i}`]),
      );
      // Slack takes at most 100 blocks in a view.
      const modal = reviseModal({ value: null }, request.title, 3000, request.fields);
      expect(modal.blocks.length).toBeLessThanOrEqual(100);
    },
  );
});

describe("a review's title with its round", () => {
  it('adds "(round N)" unless the title ends with its round already, as a cycle, draft or round', () => {
    expect(titleWithRound({ title: "Review the agents' work (cycle 2)", round: 2 })).toBe(
      "Review the agents' work (cycle 2)",
    );
    expect(titleWithRound({ title: 'Review the proposal (draft 3)', round: 3 })).toBe(
      'Review the proposal (draft 3)',
    );
    expect(titleWithRound({ title: 'Approve the plan?', round: 2 })).toBe('Approve the plan? (round 2)');
    // Words in the title that happen to read as a round are the title's, not its round.
    expect(titleWithRound({ title: 'Sign off draft 1 of the Q3 budget', round: 1 })).toBe(
      'Sign off draft 1 of the Q3 budget (round 1)',
    );
    expect(titleWithRound({ title: 'Review the proposal (draft 2)', round: 3 })).toBe(
      'Review the proposal (draft 2) (round 3)',
    );
  });
});
