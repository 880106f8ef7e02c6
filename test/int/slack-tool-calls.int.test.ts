/**
 * Tool calls through Slack (a graph that asks a LangChain HITLRequest, test/fixtures/hitl-graph.ts):
 * a decision on a tool call is explicit. Edit is an approval of the edited call, under the same
 * rules as Approve (self-approval, N of M, the content hash); every call of a request gets its own
 * decision; words never approve or edit a call; a call too long for a form still gets its card,
 * every key on it; calls longer than a card are posted whole in the thread, again when an edit
 * changes them. The graph says what it was resumed with ("RESUMED {…}"), so each test sees it.
 */
import { describe, expect, it } from 'vitest';
import { contentHash } from '../../src/workflows/protocol/content-hash.js';
import { click, commandBody, postSigned, reviseSubmission } from '../helpers/slack-requests.js';
import { slackPerFile } from '../helpers/slack-service.js';
import { type Post, slackThreads, until } from '../helpers/slack-thread.js';

const YAML = `workflows:
  mail:
    module: ./test/fixtures/hitl-graph.ts
    checkpoints:
      tool_call: { reviewers: [requester, U0BOB], allowSelfApproval: false }
  mail-two:
    module: ./test/fixtures/hitl-graph.ts
    checkpoints:
      tool_call: { reviewers: [U0BOB, U0CAT, U0DAN], approvals: 2 }
`;

const file = slackPerFile('slack_tool_calls', { yaml: YAML });
const { slack } = file;
const { posts, cardsIn, rootOf, tsOf, buttons, ephemeralsTo, updatesOf } = slackThreads(slack);

type Button = { action_id: string; value: string; text?: { text: string } };
const labelled = (blocks: Post['blocks'], label: string | RegExp) =>
  ((blocks.find((b) => b.type === 'actions')?.elements ?? []) as Button[]).find((b) =>
    typeof label === 'string' ? b.text?.text === label : label.test(b.text?.text ?? ''),
  );
/** The card's decision buttons, by label (the claim buttons every open card has left out). */
const CLAIMS = ['signoff_claim', 'signoff_hand_over', 'signoff_release'];
const labels = (card: Post) =>
  (buttons(card) as Button[]).filter((b) => !CLAIMS.includes(b.action_id)).map((b) => b.text?.text);
/** The posts in `thread` that carry a review's full text, with their ts. */
const fullTexts = (thread: string) =>
  posts()
    .filter((p) => p.thread_ts === thread && JSON.stringify(p.blocks).includes('The full text of'))
    .map((p) => ({ ts: tsOf(p), shown: JSON.stringify(p.blocks) }));
/** What the graph was resumed with, as it said in the thread. */
const resumed = (thread: string) =>
  posts()
    .filter((p) => p.thread_ts === thread && p.text.startsWith('RESUMED '))
    .map((p) => JSON.parse(p.text.slice('RESUMED '.length)));

let n = 0;
async function start(workflow: string, ask: string) {
  const text = `${ask} round ${++n}`;
  await postSigned(file.events, commandBody(`${workflow} ${text}`));
  const thread = tsOf(await until('root', () => rootOf(text)));
  const card = await until('tool call card', () => cardsIn(thread)[0]);
  const taskId = (await file.service.signoff.engine.listTasks({ limit: 100 })).find(
    (t) => t.text === text,
  )?.id;
  return { thread, card, taskId: taskId as string };
}

/** Clicks `button` of the message `ts` as `user`. */
const press = (user: string, button: Button | undefined, ts: string, thread: string) =>
  postSigned(file.events, click(user, button?.action_id ?? 'missing', button?.value ?? '', ts, thread));

/** Opens the Edit form of `card` as `user`; returns its view, once filled in (it opens reading the call). */
async function openEdit(user: string, card: Post, thread: string, label: string | RegExp = 'Edit') {
  const before = slack.callsOf('views.update').length;
  await press(user, labelled(card.blocks, label), tsOf(card), thread);
  const opened = await until('the form', () => slack.callsOf('views.update')[before]);
  return opened.view as {
    private_metadata: string;
    blocks: { block_id?: string; element?: { type: string; initial_value?: string; options?: unknown[] } }[];
  };
}

/** The key of a post of a review's full text (`card:<review>:text:<hash>:<part>`), if it is one. */
const textPart = (args: Record<string, unknown>) => {
  const key = (args.metadata as { event_payload?: { key?: string } } | undefined)?.event_payload?.key;
  return key?.includes(':text:') ? key : undefined;
};

/** The first call of `method` that matches fails with a Slack error, once; `()` says how often it did. */
function failOnce(method: string, when: (args: Record<string, unknown>) => boolean, error: string) {
  let n = 0;
  const stop = slack.refuse(method, (args) => n === 0 && when(args) && ++n === 1, error);
  return Object.assign(() => n, { stop });
}

/** U0BOB edits the email to go to ops (the report approved as asked): his approval, towards two. */
async function editEmail(card: Post, thread: string, subject = 'Ledger') {
  const view = await openEdit('U0BOB', card, thread, /^Edit/);
  const edited = { to: 'ops@example.com', subject, body: 'Attached.' };
  await postSigned(
    file.events,
    reviseSubmission('U0BOB', view.private_metadata, '', {
      field_decision_0: { selected: 'approve' },
      field_args_0: JSON.stringify(edited),
      field_decision_1: { selected: 'approve' },
    }),
  );
  return edited;
}

describe('a tool call is decided explicitly', () => {
  it('the requester’s unchanged Edit is an approval, refused when self-approval is off; Approve sends {type: approve}', async () => {
    const { thread, card, taskId } = await start('mail', 'one');
    expect(labels(card)).toEqual(['Approve', 'Edit', 'Reject']);
    const view = await openEdit('U0ANN', card, thread);
    const field = view.blocks.find((b) => b.block_id === 'field_args_0');
    const unchanged = field?.element?.initial_value ?? '';
    expect(JSON.parse(unchanged)).toEqual({
      to: 'team@example.com',
      subject: 'Launch',
      body: 'We ship today.',
    });

    const sent = await postSigned(
      file.events,
      reviseSubmission('U0ANN', view.private_metadata, '', { field_args_0: unchanged }),
    );
    expect(sent.status).toBe(200);
    await until('refusal', () =>
      ephemeralsTo('U0ANN').find((t) => t.includes('someone else has to approve')),
    );
    expect(await file.service.signoff.engine.reviews(taskId, 'pending')).toHaveLength(1);
    expect(resumed(thread)).toEqual([]);

    await press('U0BOB', labelled(card.blocks, 'Approve'), tsOf(card), thread);
    const [answer] = await until('resumed', () => (resumed(thread).length ? resumed(thread) : undefined));
    expect(answer).toEqual({ decisions: [{ type: 'approve' }] });
  });

  it('an Edit whose arguments differ from those shown only in key order and spacing is an approval as asked, never an edit', async () => {
    const { thread, card, taskId } = await start('mail', 'one');
    const view = await openEdit('U0BOB', card, thread);
    const reordered = '{ "body": "We ship today.",\n"subject": "Launch",   "to": "team@example.com" }';
    const sent = await postSigned(
      file.events,
      reviseSubmission('U0BOB', view.private_metadata, '', { field_args_0: reordered }),
    );
    expect(sent.status).toBe(200);
    const [answer] = await until('resumed', () => (resumed(thread).length ? resumed(thread) : undefined));
    expect(answer).toEqual({ decisions: [{ type: 'approve' }] });
    const [decided] = await file.service.signoff.engine.reviews(taskId, 'decided');
    expect(decided?.decision).toMatchObject({ action: 'approve', by: 'U0BOB', values: {} });
  });

  it('the requester may still reject every call through the Edit form when self-approval is off', async () => {
    const { thread, card, taskId } = await start('mail', 'two');
    const told = ephemeralsTo('U0ANN').length;
    const view = await openEdit('U0ANN', card, thread, /^Edit/);
    const args = view.blocks.find((b) => b.block_id === 'field_args_0')?.element?.initial_value ?? '';
    const sent = await postSigned(
      file.events,
      reviseSubmission('U0ANN', view.private_metadata, 'hold it, wrong day', {
        field_decision_0: { selected: 'reject' },
        field_args_0: args,
        field_decision_1: { selected: 'reject' },
      }),
    );
    expect(sent.status).toBe(200);
    const [answer] = await until('resumed', () => (resumed(thread).length ? resumed(thread) : undefined));
    expect(answer).toEqual({
      decisions: [
        { type: 'reject', message: 'hold it, wrong day' },
        { type: 'reject', message: 'hold it, wrong day' },
      ],
    });
    const [decided] = await file.service.signoff.engine.reviews(taskId, 'decided');
    expect(decided?.decision).toMatchObject({ action: 'reject', by: 'U0ANN' });
    expect(ephemeralsTo('U0ANN').slice(told)).toEqual([]);
  });

  it('words never decide a tool call: the engine refuses a revise, and nothing runs', async () => {
    const { thread, taskId } = await start('mail', 'one');
    const [review] = await file.service.signoff.engine.reviews(taskId, 'pending');
    await expect(
      file.service.signoff.engine.decide({
        reviewId: review?.id as string,
        taskId,
        actor: { id: 'U0BOB' },
        action: 'revise',
        feedback: 'NO, wrong recipient, do not send this',
      }),
    ).rejects.toMatchObject({
      code: 'invalid_decision',
      message: expect.stringContaining('Approve, Edit or Reject'),
    });
    expect(await file.service.signoff.engine.reviews(taskId, 'pending')).toHaveLength(1);
    expect(resumed(thread)).toEqual([]);
  });

  it('an Edit on a two-approval review counts once: the card shows the edited call, and the second approver approves that', async () => {
    const { thread, card, taskId } = await start('mail-two', 'one');
    const view = await openEdit('U0BOB', card, thread);
    const edited = { to: 'ops@example.com', subject: 'Launch', body: 'We ship today.' };
    await postSigned(
      file.events,
      reviseSubmission('U0BOB', view.private_metadata, '', { field_args_0: JSON.stringify(edited) }),
    );
    const redrawn = await until('card redrawn with the edit', () =>
      updatesOf(tsOf(card)).find((u) => JSON.stringify(u.blocks).includes('ops@example.com')),
    );
    const shown = JSON.stringify(redrawn.blocks);
    expect(shown).toContain('1 of 2 approvals');
    expect(shown).not.toContain('team@example.com');
    expect(await file.service.signoff.engine.reviews(taskId, 'pending')).toHaveLength(1);
    expect(resumed(thread)).toEqual([]);

    // The old card's Approve was for the call as first asked: refused, not counted.
    await press('U0CAT', labelled(card.blocks, /^Approve/), tsOf(card), thread);
    await until('stale refusal', () => ephemeralsTo('U0CAT').find((t) => t.includes('out of date')));
    expect(resumed(thread)).toEqual([]);

    const current = updatesOf(tsOf(card)).at(-1)?.blocks as Post['blocks'];
    await press('U0CAT', labelled(current, /^Approve/), tsOf(card), thread);
    const [answer] = await until('resumed', () => (resumed(thread).length ? resumed(thread) : undefined));
    expect(answer).toEqual({
      decisions: [{ type: 'edit', editedAction: { name: 'send_email', args: edited } }],
    });
    await until('decided card', () =>
      updatesOf(tsOf(card)).find((u) => JSON.stringify(u.blocks).includes('Approved with edits')),
    );
  });

  it('an Edit that changes calls longer than a card: they are posted whole again, below the card, which points there before it offers Approve', async () => {
    const { thread, card } = await start('mail-two', 'report');
    // As first asked: in full just above the card, the first recipient there.
    const first = fullTexts(thread);
    expect(first.length).toBeGreaterThan(0);
    expect(first.every((p) => p.ts < tsOf(card))).toBe(true);
    expect(first.map((p) => p.shown).join('')).toContain('team@example.com');
    expect(JSON.stringify(card.blocks)).toMatch(/the whole text is in the (message|\d+ messages) above/);

    const edited = await editEmail(card, thread, 'Report');
    // The card as edited offers Approve for it only once the calls as they are now are in full
    // in the thread: posted below the card, which points there.
    const redrawn = await until('card redrawn with the edit', () =>
      updatesOf(tsOf(card)).find((u) => JSON.stringify(u.blocks).includes('1 of 2 approvals')),
    );
    const again = fullTexts(thread).filter((p) => p.ts > tsOf(card));
    const shownAgain = again.map((p) => p.shown).join('');
    expect(shownAgain).toContain('ops@example.com');
    expect(shownAgain).not.toContain('team@example.com');
    expect(shownAgain).toContain('as changed at review (edit 1), for the review card above');
    expect(again.length).toBe(first.length);
    expect(JSON.stringify(redrawn.blocks)).toMatch(
      /the whole text as it is now \(edit 1\) is in the (message|\d+ messages) below/,
    );
    const approve = labelled(redrawn.blocks as Post['blocks'], 'Approve as edited');
    expect(approve && JSON.parse(approve.value).h).toBe(
      contentHash(
        (await file.service.signoff.engine.review(JSON.parse(approve?.value ?? '{}').review))?.review
          ?.request as never,
      ),
    );

    await press('U0CAT', approve, tsOf(card), thread);
    const [answer] = await until('resumed', () => (resumed(thread).length ? resumed(thread) : undefined));
    expect(answer).toEqual({
      decisions: [{ type: 'edit', editedAction: { name: 'send_email', args: edited } }, { type: 'approve' }],
    });
    // The decided card still points below, where what was approved is in full; nothing posted twice.
    const decided = await until('decided card', () =>
      updatesOf(tsOf(card)).find((u) => JSON.stringify(u.blocks).includes('Approved with edits')),
    );
    expect(JSON.stringify(decided.blocks)).toContain('as it is now (edit 1) is in the');
    expect(fullTexts(thread)).toHaveLength(2 * first.length);
  });

  it('a first posting whose last part fails once (internal_error): the card goes out only after it, all three parts above', async () => {
    const failed = failOnce(
      'chat.postMessage',
      (a) => textPart(a)?.endsWith(':2') === true,
      'internal_error',
    );
    try {
      const { thread, card } = await start('mail-two', 'ledger');
      expect(failed()).toBe(1);
      const above = fullTexts(thread).filter((p) => p.ts < tsOf(card));
      expect(above).toHaveLength(3);
      expect(above.at(-1)?.shown).toContain('END');
      expect(JSON.stringify(card.blocks)).toContain('is in the 3 messages above');
    } finally {
      failed.stop();
    }
  });

  it('an Edit whose full text takes three posts, the last failing once (internal_error): the retry posts it, and only then does the card offer Approve, saying the 3 messages below hold it', async () => {
    const { thread, card } = await start('mail-two', 'ledger');
    expect(fullTexts(thread)).toHaveLength(3);
    const failed = failOnce(
      'chat.postMessage',
      (a) => textPart(a)?.endsWith(':2') === true,
      'internal_error',
    );
    try {
      const edited = await editEmail(card, thread);
      const redrawn = await until('card redrawn with the edit', () =>
        updatesOf(tsOf(card)).find((u) => JSON.stringify(u.blocks).includes('1 of 2 approvals')),
      );
      expect(failed()).toBe(1);
      // Every part of the edited text is below the card, the last one too, before any redraw
      // offers Approve on it.
      const below = fullTexts(thread).filter((p) => p.ts > tsOf(card));
      expect(below).toHaveLength(3);
      expect(below.at(-1)?.shown).toContain('END');
      const lastPart = slack.calls.findLastIndex(
        (c) => c.method === 'chat.postMessage' && !c.args.failed && textPart(c.args)?.endsWith(':2'),
      );
      const firstApprove = slack.calls.findIndex(
        (c) =>
          c.method === 'chat.update' &&
          c.args.ts === tsOf(card) &&
          JSON.stringify(c.args.blocks).includes('Approve as edited'),
      );
      expect(lastPart).toBeGreaterThan(-1);
      expect(firstApprove).toBeGreaterThan(lastPart);
      expect(JSON.stringify(redrawn.blocks)).toContain('is in the 3 messages below');

      await press(
        'U0CAT',
        labelled(redrawn.blocks as Post['blocks'], 'Approve as edited'),
        tsOf(card),
        thread,
      );
      const [answer] = await until('resumed', () => (resumed(thread).length ? resumed(thread) : undefined));
      expect(answer).toEqual({
        decisions: [
          { type: 'edit', editedAction: { name: 'send_email', args: edited } },
          { type: 'approve' },
        ],
      });
    } finally {
      failed.stop();
    }
  });

  it('an Edit whose full text Slack refuses in part for good: the card is redrawn plain for it, without Approve, and an Approve of it is refused', async () => {
    const { thread, card, taskId } = await start('mail-two', 'ledger');
    const stop = slack.refuse(
      'chat.postMessage',
      (a) => textPart(a)?.endsWith(':2') === true,
      'invalid_blocks',
    );
    try {
      await editEmail(card, thread);
      const plain = await until('card redrawn plain', () =>
        updatesOf(tsOf(card)).find((u) => JSON.stringify(u.blocks).includes('cannot be approved here')),
      );
      expect(JSON.stringify(plain.blocks)).toContain('Slack said `invalid_blocks`');
      expect((buttons(plain as Post) as Button[]).map((b) => b.action_id)).toEqual([
        'signoff_reject',
        'signoff_claim',
        'signoff_hand_over',
      ]);
      expect(updatesOf(tsOf(card)).some((u) => JSON.stringify(u.blocks).includes('Approve as edited'))).toBe(
        false,
      );

      // An Approve of the edited call (a button drawn before, a form left open) approves nothing.
      const [review] = await file.service.signoff.engine.reviews(taskId, 'pending');
      const approve = {
        action_id: 'signoff_approve',
        value: JSON.stringify({ review: review?.id, task: taskId, h: contentHash(review?.request as never) }),
      };
      await press('U0CAT', approve, tsOf(card), thread);
      await until('refusal', () => ephemeralsTo('U0CAT').find((t) => t.startsWith('Nothing was approved')));
      expect(await file.service.signoff.engine.reviews(taskId, 'pending')).toHaveLength(1);
      expect(resumed(thread)).toEqual([]);
    } finally {
      stop();
    }
  });

  it('several calls: each needs its own decision; a form missing one is refused and nothing runs', async () => {
    const { thread, card } = await start('mail', 'two');
    expect(labels(card)).toEqual(['Approve all 2', 'Edit or decide each', 'Reject all 2']);
    const view = await openEdit('U0BOB', card, thread, /^Edit/);
    expect(view.blocks.map((b) => b.block_id).filter((id) => id?.startsWith('field_'))).toEqual([
      'field_decision_0',
      'field_args_0',
      'field_decision_1',
    ]);
    const edited = { to: 'ops@example.com', subject: 'Launch', body: 'We ship today.' };
    const submit = (fields: Record<string, string | { selected: string }>) =>
      postSigned(
        file.events,
        reviseSubmission('U0BOB', view.private_metadata, 'no log line, please', fields),
      );

    const missing = await submit({
      field_decision_0: { selected: 'approve' },
      field_args_0: JSON.stringify(edited),
    });
    expect(JSON.parse(missing.body)).toMatchObject({
      response_action: 'errors',
      errors: { field_decision_1: expect.stringContaining('Choose') },
    });
    expect(resumed(thread)).toEqual([]);

    const ok = await submit({
      field_decision_0: { selected: 'approve' },
      field_args_0: JSON.stringify(edited),
      field_decision_1: { selected: 'reject' },
    });
    expect(ok.status).toBe(200);
    const [answer] = await until('resumed', () => (resumed(thread).length ? resumed(thread) : undefined));
    expect(answer).toEqual({
      decisions: [
        { type: 'edit', editedAction: { name: 'send_email', args: edited } },
        { type: 'reject', message: 'no log line, please' },
      ],
    });
  });

  it('three editable calls keep Edit: each call has its own decision and arguments in the form, and each is answered as chosen', async () => {
    const { thread, card } = await start('mail', 'three');
    expect(labels(card)).toEqual(['Approve all 3', 'Edit or decide each', 'Reject all 3']);
    const view = await openEdit('U0BOB', card, thread, /^Edit/);
    expect(view.blocks.map((b) => b.block_id).filter((id) => id?.startsWith('field_'))).toEqual([
      'field_decision_0',
      'field_args_0',
      'field_decision_1',
      'field_args_1',
      'field_decision_2',
      'field_args_2',
    ]);
    const press_ = { to: 'press@example.com', subject: 'Launch', body: 'We ship tomorrow.' };
    const sent = await postSigned(
      file.events,
      reviseSubmission('U0BOB', view.private_metadata, 'not the board yet', {
        field_decision_0: { selected: 'approve' },
        field_args_0: view.blocks.find((b) => b.block_id === 'field_args_0')?.element?.initial_value ?? '',
        field_decision_1: { selected: 'approve' },
        field_args_1: JSON.stringify(press_),
        field_decision_2: { selected: 'reject' },
        field_args_2: view.blocks.find((b) => b.block_id === 'field_args_2')?.element?.initial_value ?? '',
      }),
    );
    expect(sent.status).toBe(200);
    const [answer] = await until('resumed', () => (resumed(thread).length ? resumed(thread) : undefined));
    expect(answer).toEqual({
      decisions: [
        { type: 'approve' },
        { type: 'edit', editedAction: { name: 'send_email', args: press_ } },
        { type: 'reject', message: 'not the board yet' },
      ],
    });
  });

  it('a call that may be edited but not approved as asked, sent back unchanged (keys reordered), is refused in the form and nothing runs; changed, it runs as edited', async () => {
    const { thread, card } = await start('mail', 'guarded');
    // The card asks for a change, not an approval: one of its calls may not go ahead as asked.
    expect(JSON.stringify(card.blocks)).toContain('Change send_email, log?');
    expect(JSON.stringify(card.blocks)).not.toContain('Approve send_email');
    const view = await openEdit('U0BOB', card, thread, /^Edit/);
    const submit = (args: Record<string, string>) =>
      postSigned(
        file.events,
        reviseSubmission('U0BOB', view.private_metadata, '', {
          field_decision_0: { selected: 'approve' },
          field_args_0: JSON.stringify(args),
          field_decision_1: { selected: 'approve' },
        }),
      );
    const same = await submit({ body: 'We ship today.', subject: 'Launch', to: 'all@example.com' });
    expect(JSON.parse(same.body)).toMatchObject({
      response_action: 'errors',
      errors: {
        field_args_0: '1. send_email may not go ahead as asked: change its arguments, or reject it.',
      },
    });
    expect(resumed(thread)).toEqual([]);
    const edited = { to: 'team@example.com', subject: 'Launch', body: 'We ship today.' };
    expect((await submit(edited)).status).toBe(200);
    const [answer] = await until('resumed', () => (resumed(thread).length ? resumed(thread) : undefined));
    expect(answer).toEqual({
      decisions: [{ type: 'edit', editedAction: { name: 'send_email', args: edited } }, { type: 'approve' }],
    });
  });

  it("a call whose schema is zod v4's (draft 2020-12, as a createAgent tool's): an Edit that does not fit is said in the modal, nothing runs; one that fits runs as edited", async () => {
    const { thread, card } = await start('mail', 'zod');
    const view = await openEdit('U0BOB', card, thread);
    const submit = (args: Record<string, unknown>) =>
      postSigned(
        file.events,
        reviseSubmission('U0BOB', view.private_metadata, '', { field_args_0: JSON.stringify(args) }),
      );
    const wrong = await submit({ to: 7, subject: 'Launch', body: 'We ship today.' });
    expect(JSON.parse(wrong.body)).toEqual({
      response_action: 'errors',
      errors: { field_args_0: '"to" must be text in double quotes.' },
    });
    expect(resumed(thread)).toEqual([]);
    const edited = { to: 'ops@example.com', subject: 'Launch', body: 'We ship today.' };
    expect((await submit(edited)).status).toBe(200);
    const [answer] = await until('resumed', () => (resumed(thread).length ? resumed(thread) : undefined));
    expect(answer).toEqual({
      decisions: [{ type: 'edit', editedAction: { name: 'send_email', args: edited } }],
    });
  });

  it('a review stored by the previous version: its Approve is refused where a call may not be approved as asked, and nothing runs', async () => {
    const { thread, card, taskId } = await start('mail', 'guarded');
    expect(labels(card)).not.toContain('Approve all 2');
    // The review as the version before per-call decisions stored it: Approve because one call
    // allowed it, Edit as a Revise; its card's Approve carried the stored request's hash.
    const [review] = await file.service.signoff.engine.reviews(taskId, 'pending');
    await file.service.signoff.db.pool.query(
      `UPDATE signoff.reviews
       SET request = request || '{"actions": ["approve", "revise", "reject"], "labels": {"revise": "Edit"}}'
       WHERE id = $1`,
      [review?.id],
    );
    const stored = (await file.service.signoff.engine.review(review?.id as string))?.review.request;
    const oldApprove = {
      action_id: 'signoff_approve',
      value: JSON.stringify({ review: review?.id, task: taskId, h: contentHash(stored as never) }),
    };
    await press('U0BOB', oldApprove, tsOf(card), thread);
    await until('refusal', () =>
      ephemeralsTo('U0BOB').find((t) => t.includes('may not be approved as asked')),
    );
    expect(await file.service.signoff.engine.reviews(taskId, 'pending')).toHaveLength(1);
    expect(resumed(thread)).toEqual([]);
  });

  it('a 5,000-character call gets a card naming every key, its recipient after the long body too', async () => {
    const { thread, card } = await start('mail', 'long');
    const body = JSON.stringify(card.blocks);
    expect(body).toContain('subject');
    expect(body).toContain('mallory@evil.example');
    expect(body).toContain('Too long to edit here');
    // The arguments do not fit a form field (3,000 characters): no Edit that could not hold them.
    expect(labels(card)).toEqual(['Approve', 'Reject']);
    await press('U0BOB', labelled(card.blocks, 'Approve'), tsOf(card), thread);
    const [answer] = await until('resumed', () => (resumed(thread).length ? resumed(thread) : undefined));
    expect(answer).toEqual({ decisions: [{ type: 'approve' }] });
  });
});
