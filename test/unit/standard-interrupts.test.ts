import { describe, expect, it } from 'vitest';
import { toReviewRequest } from '../../src/engine/review-request.js';
import { invalidEdit, resumeValue } from '../../src/engine/standard-interrupts.js';
import type { Decision } from '../../src/engine/types.js';

const decision = (action: Decision['action'], more: Partial<Decision> = {}): Decision => ({
  action,
  values: {},
  by: 'U0BOB',
  at: '2026-11-22T10:00:00.000Z',
  ...more,
});

describe('Agent Inbox HumanInterrupt', () => {
  const interrupt = [
    {
      action_request: { action: 'refund', args: { order: 'A-17', amount: 20 } },
      config: { allow_ignore: true, allow_respond: true, allow_edit: true, allow_accept: true },
      description: 'A refund over the limit',
    },
  ];
  const request = toReviewRequest(interrupt);

  it('becomes a review with Accept, Edit and Ignore and the arguments as a form', () => {
    expect(request.actions).toEqual(['approve', 'revise', 'reject']);
    expect(request.labels).toMatchObject({ approve: 'Accept', revise: 'Edit', reject: 'Ignore' });
    expect(request.fields[0]?.initial).toContain('"order": "A-17"');
    expect(request.body).toContain('A refund over the limit');
  });

  it('answers in its own shape', () => {
    expect(resumeValue(request, decision('approve'))).toEqual([{ type: 'accept', args: null }]);
    expect(resumeValue(request, decision('reject'))).toEqual([{ type: 'ignore', args: null }]);
    expect(
      resumeValue(request, decision('revise', { values: { args_0: '{"order": "A-17", "amount": 15}' } })),
    ).toEqual([{ type: 'edit', args: { action: 'refund', args: { order: 'A-17', amount: 15 } } }]);
  });

  it('a respond-only interrupt sends the feedback as the response', () => {
    const respondOnly = toReviewRequest([
      {
        action_request: { action: 'question', args: {} },
        config: { allow_ignore: false, allow_respond: true, allow_edit: false, allow_accept: false },
      },
    ]);
    expect(respondOnly.actions).toEqual(['revise']);
    expect(resumeValue(respondOnly, decision('revise', { feedback: 'use the EU rate' }))).toEqual([
      { type: 'response', args: 'use the EU rate' },
    ]);
  });
});

describe('HITLRequest', () => {
  const request = toReviewRequest({
    actionRequests: [
      { name: 'send_email', args: { to: 'a@b.c', subject: 'Hi', body: 'x' } },
      { name: 'log', args: { line: 'sent' } },
    ],
    reviewConfigs: [
      {
        actionName: 'send_email',
        allowedDecisions: ['approve', 'edit', 'reject'],
        argsSchema: { type: 'object', required: ['to'], properties: { to: { type: 'string' } } },
      },
      { actionName: 'log', allowedDecisions: ['approve'] },
    ],
  });

  it('one decision per action: edits where allowed, approval elsewhere; reject carries the message', () => {
    expect(request.fields.map((f) => f.id)).toEqual(['args_0']);
    expect(
      resumeValue(
        request,
        decision('revise', { values: { args_0: '{"to": "x@y.z", "subject": "Hi", "body": "y"}' } }),
      ),
    ).toEqual({
      decisions: [
        {
          type: 'edit',
          editedAction: { name: 'send_email', args: { to: 'x@y.z', subject: 'Hi', body: 'y' } },
        },
        { type: 'approve' },
      ],
    });
    expect(resumeValue(request, decision('reject', { feedback: 'not today' }))).toEqual({
      decisions: [
        { type: 'reject', message: 'not today' },
        { type: 'reject', message: 'not today' },
      ],
    });
  });

  it('edited arguments are checked as JSON and against argsSchema', () => {
    expect(invalidEdit(request, { args_0: 'nope' }).args_0).toContain('JSON object');
    expect(invalidEdit(request, { args_0: '{"to": 3}' }).args_0).toContain('must be string');
    expect(invalidEdit(request, { args_0: '{"to": "a@b.c"}' })).toEqual({});
  });
});
