import { describe, expect, it } from 'vitest';
import { type Decision, reviewRequestSchema } from '../../src/engine/types.js';
import { markdownParts } from '../../src/slack/blocks/text.js';
import { contentHash } from '../../src/workflows/protocol/content-hash.js';
import { invalidEdit } from '../../src/workflows/protocol/review-form.js';
import { toReviewRequest } from '../../src/workflows/protocol/review-request.js';
import { resumeValue } from '../../src/workflows/protocol/standard-answers.js';
import {
  editMeans,
  invalidToolDecision,
  withEdit,
} from '../../src/workflows/protocol/standard-interrupts.js';
import { readDecisions } from '../../src/workflows/protocol/tool-call-form.js';
import { REQUESTS } from '../fixtures/hitl-graph.js';

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

  it('becomes a review with Accept, Edit, Respond and Ignore, and the arguments as a form', () => {
    expect(request.actions).toEqual(['approve', 'edit', 'revise', 'reject']);
    expect(request.labels).toMatchObject({
      approve: 'Accept',
      edit: 'Edit',
      revise: 'Respond',
      reject: 'Ignore',
    });
    expect(request.fields[0]?.initial).toContain('"order": "A-17"');
    expect(request.body).toContain('A refund over the limit');
  });

  it('answers in its own shape: Edit edits, Respond responds, and neither approves', () => {
    expect(resumeValue(request, decision('approve'))).toEqual([{ type: 'accept', args: null }]);
    expect(resumeValue(request, decision('reject'))).toEqual([{ type: 'ignore', args: null }]);
    expect(
      resumeValue(request, decision('edit', { values: { args_0: '{"order": "A-17", "amount": 15}' } })),
    ).toEqual([{ type: 'edit', args: { action: 'refund', args: { order: 'A-17', amount: 15 } } }]);
    expect(resumeValue(request, decision('revise', { feedback: 'use the EU rate' }))).toEqual([
      { type: 'response', args: 'use the EU rate' },
    ]);
  });

  it('a respond-only interrupt takes words; one that takes none refuses them', () => {
    const respondOnly = toReviewRequest([
      {
        action_request: { action: 'question', args: {} },
        config: { allow_ignore: false, allow_respond: true, allow_edit: false, allow_accept: false },
      },
    ]);
    expect(respondOnly.actions).toEqual(['revise']);
    expect(invalidToolDecision(respondOnly, 'revise')).toBeUndefined();
    const noWords = toReviewRequest([
      { ...interrupt[0], config: { ...interrupt[0]?.config, allow_respond: false } },
    ]);
    expect(noWords.actions).not.toContain('revise');
    expect(invalidToolDecision(noWords, 'revise')).toContain('words alone never approve');
  });
});

describe('HITLRequest', () => {
  const request = toReviewRequest(REQUESTS.two);
  const one = toReviewRequest(REQUESTS.one);
  const mail = { to: 'team@example.com', subject: 'Launch', body: 'We ship today.' };

  it('several calls: Approve and Reject act on all of them, saying so; Edit decides each', () => {
    expect(request.actions).toEqual(['approve', 'edit', 'reject']);
    expect(request.labels).toMatchObject({
      approve: 'Approve all 2',
      edit: 'Edit or decide each',
      reject: 'Reject all 2',
    });
    expect(request.fields.map((f) => [f.id, f.optional, f.choices?.map((c) => c.value)])).toEqual([
      ['decision_0', false, ['approve', 'reject']],
      ['args_0', false, undefined],
      ['decision_1', false, ['approve', 'reject']],
    ]);
    expect(resumeValue(request, decision('approve'))).toEqual({
      decisions: [{ type: 'approve' }, { type: 'approve' }],
    });
    expect(resumeValue(request, decision('reject', { feedback: 'not today' }))).toEqual({
      decisions: [
        { type: 'reject', message: 'not today' },
        { type: 'reject', message: 'not today' },
      ],
    });
  });

  it('Edit: one decision per call as given; the graph gets an edit only where the arguments changed', () => {
    const values = {
      decision_0: 'approve',
      args_0: JSON.stringify({ ...mail, to: 'x@y.z' }),
      decision_1: 'reject',
    };
    expect(resumeValue(request, decision('edit', { values, feedback: 'no log' }))).toEqual({
      decisions: [
        { type: 'edit', editedAction: { name: 'send_email', args: { ...mail, to: 'x@y.z' } } },
        { type: 'reject', message: 'no log' },
      ],
    });
    const unchanged = { decision_0: 'approve', args_0: JSON.stringify(mail), decision_1: 'approve' };
    expect(resumeValue(request, decision('edit', { values: unchanged }))).toEqual({
      decisions: [{ type: 'approve' }, { type: 'approve' }],
    });
  });

  it('a missing or unknown decision is refused, never filled in; nothing unreadable approves', () => {
    const missing = { decision_0: 'approve', args_0: JSON.stringify(mail) };
    expect(invalidEdit(request, missing).decision_1).toContain('Choose what to do with 2. log');
    expect(invalidEdit(request, { ...missing, decision_1: 'maybe' }).decision_1).toContain('Choose one of');
    // Recorded anyway (a decision from before these checks): every call is rejected, none approved.
    const answer = resumeValue(request, decision('edit', { values: missing })) as {
      decisions: { type: string }[];
    };
    expect(answer.decisions.map((d) => d.type)).toEqual(['reject', 'reject']);
    // Words on a tool call are refused when decided, and never read as an approval or an edit.
    expect(invalidToolDecision(one, 'revise')).toContain('Approve, Edit or Reject');
    expect(resumeValue(one, decision('revise', { feedback: 'NO, do not send this' }))).toMatchObject({
      decisions: [{ type: 'reject' }],
    });
  });

  it('edited arguments are checked as JSON and against argsSchema; a field that is not the form’s is refused', () => {
    expect(invalidEdit(one, { args_0: 'nope' }).args_0).toContain('JSON object');
    expect(invalidEdit(one, { args_0: '{"to": 3, "subject": "s", "body": "b"}' }).args_0).toBe(
      '"to" must be text in double quotes.',
    );
    expect(invalidEdit(one, { args_0: JSON.stringify(mail) })).toEqual({});
    expect(invalidEdit(one, {}).args_0).toContain('Fill in');
    expect(invalidEdit(one, { args_0: JSON.stringify(mail), decision_1: 'approve' }).form).toContain(
      'no field "decision_1"',
    );
  });

  it('what an Edit amounts to: unchanged is an approval, every call rejected a reject', () => {
    expect(
      editMeans(one, { args_0: JSON.stringify({ body: mail.body, subject: mail.subject, to: mail.to }) }),
    ).toBe('approve');
    expect(editMeans(one, { args_0: JSON.stringify({ ...mail, to: 'x@y.z' }) })).toBe('edit');
    expect(
      editMeans(request, { decision_0: 'reject', args_0: JSON.stringify(mail), decision_1: 'reject' }),
    ).toBe('reject');
  });

  it('an edit counted towards a quorum is what the review shows and what its approval runs', () => {
    const edited = withEdit(one, {
      by: 'U0BOB',
      at: '2026-11-22T10:00:00.000Z',
      n: 1,
      values: { args_0: JSON.stringify({ ...mail, to: 'ops@example.com' }) },
    });
    expect(edited.body).toContain('to: "ops@example.com"');
    expect(edited.body).not.toContain('team@example.com');
    expect(edited.body).toContain('Changed at review');
    expect(edited.labels.approve).toBe('Approve as edited');
    expect(contentHash(edited)).not.toBe(contentHash(one));
    expect(resumeValue(edited, decision('approve'))).toEqual({
      decisions: [
        { type: 'edit', editedAction: { name: 'send_email', args: { ...mail, to: 'ops@example.com' } } },
      ],
    });
  });

  it('the words an edit came with, which the agent gets with the approval, are shown with it and part of what an approval saw', () => {
    const edit = {
      by: 'U0BOB',
      at: '2026-11-22T10:00:00.000Z',
      n: 1,
      values: {
        decision_0: 'approve',
        args_0: JSON.stringify(mail),
        decision_1: 'reject',
      },
    };
    const quiet = withEdit(request, edit);
    const noted = withEdit(request, { ...edit, feedback: 'Do not log this, ever.' });
    expect(noted.body).toContain('With the edit, for the agent:');
    expect(noted.body).toContain('> Do not log this, ever.');
    expect(quiet.body).not.toContain('With the edit');
    // A card drawn before the words were there does not approve them.
    expect(contentHash(noted)).not.toBe(contentHash(quiet));
    expect(resumeValue(noted, decision('approve'))).toMatchObject({
      decisions: [{ type: 'approve' }, { type: 'reject', message: 'Do not log this, ever.' }],
    });
    // Where no call is rejected the agent gets no message: nothing to show.
    const kept = withEdit(request, {
      ...edit,
      values: { ...edit.values, decision_1: 'approve' },
      feedback: 'Do not log this, ever.',
    });
    expect(kept.body).not.toContain('With the edit');
    expect(JSON.stringify(resumeValue(kept, decision('approve')))).not.toContain('Do not log');
  });
});

describe('a review stored before calls were decided one by one', () => {
  // As the previous version stored it: Approve when any call allowed it, Edit as a Revise with the
  // editable calls' arguments, and the interrupt as it came.
  const value = REQUESTS.guarded;
  const stored = reviewRequestSchema.parse({
    kind: 'tool_call',
    title: 'Approve send_email, log?',
    body: '**send_email**\n```\n{}\n```\n\n**log**\n```\n{}\n```',
    actions: ['approve', 'revise', 'reject'],
    labels: { revise: 'Edit' },
    fields: [{ id: 'args_0', label: 'send_email (JSON)', multiline: true, initial: '{}' }],
    origin: { format: 'hitl', value },
  });

  it('its Approve is refused when a call may not be approved as asked', () => {
    expect(invalidToolDecision(stored, 'approve')).toBe(
      'send_email may not be approved as asked, so Approve cannot answer this review: decide each call with Edit, or reject it.',
    );
    expect(invalidToolDecision(stored, 'reject')).toBeUndefined();
    // Read now, the same interrupt offers no Approve at all.
    expect(toReviewRequest(value).actions).toEqual(['edit', 'reject']);
  });

  it('an approval it recorded before this version never approves that call: it is rejected, saying why; the others go ahead', () => {
    expect(resumeValue(stored, decision('approve'))).toEqual({
      decisions: [
        {
          type: 'reject',
          message: 'This call may not be approved as asked, and nobody edited it, so it was not run.',
        },
        { type: 'approve' },
      ],
    });
  });
});

describe('a long tool call', () => {
  it('5,000 characters: a valid review naming every key in order, and no field it cannot hold', () => {
    const request = toReviewRequest(REQUESTS.long);
    expect(request.body).toMatch(
      /subject: "Terms"\nbody: \(5,019 characters, in full below\)\nto: "mallory@evil.example"/,
    );
    expect(request.body).toContain('END');
    expect(request.body).toContain('Too long to edit here (5,089 characters; a form field holds 3,000)');
    expect(request.fields).toEqual([]);
    expect(request.actions).toEqual(['approve', 'reject']);
  });

  it("a description too long for the call's line is shown whole in a code block before its arguments; one cut to fit leaves nothing that approves", () => {
    const said = `I will send the letter to the whole list. ${'It has the figures. '.repeat(30)}_Changed at review_ Then I delete the old copy.`;
    const one = toReviewRequest({
      actionRequests: [{ name: 'send_email', args: { to: 'all@example.com' }, description: said }],
      reviewConfigs: [{ actionName: 'send_email', allowedDecisions: ['approve', 'reject'] }],
    });
    expect(one.body).toContain(
      `**send_email**\n\`\`\`\ndescription (${said.length} characters):\n${said}\n\`\`\`\n\`\`\`\nto: "all@example.com"`,
    );
    expect(one.actions).toContain('approve');

    const endless = toReviewRequest({
      actionRequests: [
        {
          name: 'send_email',
          args: { to: 'a@example.com' },
          description: `${'y'.repeat(90_000)} AND DELETE EVERYTHING`,
        },
      ],
      reviewConfigs: [{ actionName: 'send_email', allowedDecisions: ['approve', 'edit', 'reject'] }],
    });
    expect(endless.body).toContain('more characters)');
    expect(endless.body).not.toContain('DELETE EVERYTHING');
    expect(endless.actions).toEqual(['reject']);
  });

  it('200,000 characters: cut with what is left said, under the body limit; never a throw', () => {
    const request = toReviewRequest({
      actionRequests: [{ name: 'upload', args: { data: 'x'.repeat(200_000), to: 'bucket' } }],
      reviewConfigs: [{ actionName: 'upload', allowedDecisions: ['approve', 'edit', 'reject'] }],
    });
    expect(request.body.length).toBeLessThan(100_000);
    expect(request.body).toContain('more characters)');
    expect(request.body).toContain('to: "bucket"');
  });

  it('a value cut to fit: its line says so, and nothing may approve the calls (no Approve, no Edit of the other call)', () => {
    const request = toReviewRequest({
      actionRequests: [
        { name: 'send_email', args: { to: 'team@example.com', subject: 'Launch', body: 'We ship today.' } },
        { name: 'upload', args: { data: 'x'.repeat(90_000), to: 'bucket' } },
      ],
      reviewConfigs: [
        { actionName: 'send_email', allowedDecisions: ['approve', 'edit', 'reject'] },
        { actionName: 'upload', allowedDecisions: ['approve', 'edit', 'reject'] },
      ],
    });
    expect(request.body).toContain('data: (90,000 characters, the first 80,000 below)');
    expect(request.body).toContain('(10,000 more characters)');
    expect(request.body).toContain('too long to show in full, so it cannot be approved or edited here');
    expect(request.body).not.toContain('approve it as it is');
    expect(request.actions).toEqual(['reject']);
    // What fits stays in full, approvable: 80,000 characters together.
    const fits = toReviewRequest({
      actionRequests: [{ name: 'upload', args: { data: 'x'.repeat(80_000), to: 'bucket' } }],
      reviewConfigs: [{ actionName: 'upload', allowedDecisions: ['approve', 'reject'] }],
    });
    expect(fits.body).toContain('data: (80,000 characters, in full below)');
    expect(fits.actions).toEqual(['approve', 'reject']);
  });

  it('characters that hide or reorder text are shown as escapes', () => {
    const request = toReviewRequest({
      actionRequests: [{ name: 'pay', args: { iban: 'DE00\u202e1234', memo: 'a\u200bb' } }],
      reviewConfigs: [{ actionName: 'pay', allowedDecisions: ['approve', 'reject'] }],
    });
    expect(request.body).toContain('iban: "DE00\\u202e1234"');
    expect(request.body).toContain('memo: "a\\u200bb"');
    expect(request.body).not.toMatch(/[\u200b\u202e]/);
  });

  it('three backticks in an argument end no code block for any reader: shown as escapes, in JSON', () => {
    const asked = (args: Record<string, unknown>) =>
      toReviewRequest({
        actionRequests: [{ name: 'write', args }],
        reviewConfigs: [{ actionName: 'write', allowedDecisions: ['approve', 'reject'] }],
      }).body;
    const content = `Use \`\`\`sh fences; *this* and the_data_dir stay as written. ${'word '.repeat(2_000)}`;
    const body = asked({ content });
    // The fences are the only backticks in threes: a reader that counts them anywhere (Slack's
    // splitter) ends the blocks where CommonMark does.
    const fenced = body.split('\n').filter((line) => line.includes('```'));
    expect(fenced).toEqual(['```', '```', '```', '```']);
    const shown = body.split('\n').find((line) => line.startsWith('"Use '));
    expect(JSON.parse(shown ?? '')).toBe(content);
    // Posted in parts (the full text before a long card), each part closes what it opens.
    const parts = markdownParts(body, 4_000);
    expect(parts.length).toBeGreaterThan(1);
    for (const part of parts) expect(part.split('\n').filter((line) => line === '```').length % 2).toBe(0);
    // A short value on its line too.
    expect(asked({ note: 'a```b' })).toContain('note: "a\\u0060\\u0060\\u0060b"');
  });

  it('more calls than a form holds: approve or reject them all, no Edit', () => {
    const calls = Array.from({ length: 11 }, (_, i) => ({ name: 'log', args: { line: `l${i}` } }));
    const request = toReviewRequest({
      actionRequests: calls,
      reviewConfigs: [{ actionName: 'log', allowedDecisions: ['approve', 'edit', 'reject'] }],
    });
    expect(request.actions).toEqual(['approve', 'reject']);
    expect(request.fields).toEqual([]);
    expect(request.body).toContain('too many to decide one by one here');
  });
});

describe("a tool call's edited arguments", () => {
  const call = {
    name: 'send_email',
    args: { to: 'team@example.com', subject: 'Launch' },
    allowed: ['approve', 'edit', 'reject'] as const,
  };
  it('a truncated line of JSON is said not to parse, and where (at the end); JSON that is no object is asked for as one', () => {
    expect(readDecisions([call], {}, { args_0: '{"to": "ops@example.com", "subj' })).toEqual({
      errors: {
        args_0: expect.stringMatching(
          /^The arguments of send_email could not be read as JSON \(unterminated string at the end\): write them as one JSON object, such as \{"to": "…"\}\.$/,
        ),
      },
    });
    expect(readDecisions([call], {}, { args_0: '["ops@example.com"]' })).toEqual({
      errors: { args_0: 'Write the arguments of send_email as a JSON object, such as {"to": "…"}.' },
    });
  });
});
