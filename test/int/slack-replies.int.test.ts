/**
 * A reply in the thread while a review waits, end to end (signed requests to Bolt's receiver, a
 * fake Slack as strict as Slack): it is never taken for a decision it did not state. Addressed
 * replies are feedback; other replies get their author a private question whose buttons are
 * checked like the card's (the review's content hash, the task, the channel) and act on the
 * words as Slack delivered them; a tool call is never approved or edited by words.
 */
import { describe, expect, it } from 'vitest';
import { COULD_NOT_RECORD } from '../../src/slack/inbound/deps.js';
import { slackTaskId } from '../../src/slack/shared/origin.js';
import { plainCardKey, recordPost } from '../../src/slack/shared/posts.js';
import { contentHash } from '../../src/workflows/protocol/content-hash.js';
import { commandBody, ephemeralClick, postSigned, threadMessage } from '../helpers/slack-requests.js';
import { slackPerFile } from '../helpers/slack-service.js';
import { slackThreads, until } from '../helpers/slack-thread.js';

const yaml = `
workflows:
  pair:
    maxIterations: 1
    checkpoints:
      review: { reviewers: [U0BOB, U0CAT, requester], allowSelfApproval: false }
  specialist:
    checkpoints:
      review: { reviewers: [U0BOB], replies: feedback }
  goal-plan:
    checkpoints:
      goal: { reviewers: [anyone], replies: ignore }
  mailer:
    module: ./examples/approval-agent/graph.ts
  asks:
    module: ./test/fixtures/asks.ts
    checkpoints:
      review: { reviewers: [U0BOB] }
  priced:
    module: ./test/fixtures/asks.ts
    checkpoints:
      review: { reviewers: [U0BOB, U0CAT], approvals: 2 }
`;

const file = slackPerFile('slack_replies', { yaml });
const { slack } = file;
const { posts, cardsIn, rootOf, tsOf, ephemeralsIn } = slackThreads(slack);

type Shown = (typeof slack.ephemerals)[number];
type Button = { action_id: string; value: string; text: { text: string }; confirm?: unknown };

const taskOf = (thread: string) => slackTaskId({ channel: 'C0WORK', ts: thread });
const reply = (user: string, text: string, thread: string) =>
  postSigned(file.events, threadMessage(user, text, thread), { json: true });
const questionButtons = (shown: Shown | undefined): Button[] =>
  ((shown?.blocks ?? []) as { type: string; elements?: Button[] }[]).find((b) => b.type === 'actions')
    ?.elements ?? [];
/** The question's button `id` clicked by `user` (its author unless said). */
/**
 * A tap on the question's button `id` by its author, as Slack sends it (the question's own ts and
 * a response URL for it); `forged`: the value sent instead (a tampered client's, or one kept
 * from before the question was replaced).
 */
const tap = (shown: Shown, id: string, forged?: string) => {
  const value = forged ?? questionButtons(shown).find((b) => b.action_id === id)?.value ?? '';
  return postSigned(
    file.events,
    ephemeralClick(shown.user, id, value, shown.ts, slack.responseUrl(shown.channel, shown.ts)),
  );
};
const replaced = (shown: Shown) =>
  slack.responses.filter((r) => r.ts === shown.ts).map((r) => String(r.body.text));

async function startTask(text: string, user = 'U0ANN') {
  await postSigned(file.events, commandBody(text, user));
  const thread = tsOf(await until(`root of ${text}`, () => rootOf(text.split(' ').slice(1).join(' '))));
  const card = await until('review card', () => cardsIn(thread)[0], 20_000);
  return { thread, card, cardTs: tsOf(card) };
}

/** After the reply was handled: one review, still pending, nothing decided, no second card. */
async function nothingDecided(thread: string) {
  await file.service.settled();
  const reviews = await file.service.signoff.engine.reviews(taskOf(thread));
  expect(reviews.map((r) => [r.status, r.decision])).toEqual([['pending', null]]);
  expect(cardsIn(thread)).toHaveLength(1);
  expect((await file.service.signoff.engine.getTask(taskOf(thread)))?.status).toBe('waiting');
}

const cardSays = (cardTs: string, text: string) =>
  until(`the card says ${text}`, () =>
    slack.callsOf('chat.update').find((u) => u.ts === cardTs && JSON.stringify(u.blocks).includes(text)),
  );

describe('a reply at a review (replies: ask, the default)', () => {
  it('"lgtm" in the thread starts no revision and gets its author a private question with the choices they have', async () => {
    const { thread } = await startTask('pair write the changelog');
    await reply('U0BOB', 'lgtm', thread);
    await nothingDecided(thread);
    const [question] = ephemeralsIn(thread, 'U0BOB');
    expect(question?.text).toContain('You replied while');
    expect(JSON.stringify(question?.blocks)).toContain('>lgtm');
    expect(questionButtons(question).map((b) => b.action_id)).toEqual([
      'signoff_reply_revise',
      'signoff_reply_approve',
      'signoff_reply_reject',
      'signoff_reply_ignore',
    ]);
    expect(
      questionButtons(question).find((b) => b.action_id === 'signoff_reply_reject')?.confirm,
    ).toBeTruthy();
    // The requester may not approve their own task here: their question has no Approve.
    await reply('U0ANN', 'looks fine to me', thread);
    await nothingDecided(thread);
    const mine = ephemeralsIn(thread, 'U0ANN')[0];
    expect(questionButtons(mine).map((b) => b.action_id)).toEqual([
      'signoff_reply_revise',
      'signoff_reply_reject',
      'signoff_reply_ignore',
    ]);
    expect(slack.refusals).toEqual([]);
  });

  it("Approve on the question approves with the card's hash; a question on a review that changed or closed is refused with the engine's sentence", async () => {
    const { thread, cardTs } = await startTask('pair draft the welcome email');
    await reply('U0BOB', 'looks good!', thread);
    await reply('U0CAT', 'great work', thread);
    await reply('U0ANN', 'fine by me', thread);
    await reply('U0CAT', 'one more thing: the footer', thread);
    const questionTo = (user: string, n = 0) =>
      until(`question ${n + 1} to ${user}`, () => ephemeralsIn(thread, user)[n]);
    const bob = await questionTo('U0BOB');
    const [cat, catAgain] = [await questionTo('U0CAT'), await questionTo('U0CAT', 1)];
    const ann = await questionTo('U0ANN');
    const bobsApproval =
      questionButtons(bob).find((b) => b.action_id === 'signoff_reply_approve')?.value ?? '';

    // A value naming someone else's reply (a tampered client) decides nothing.
    await tap(ann, 'signoff_reply_approve', bobsApproval);
    await until('refused', () => replaced(ann)[0]);
    expect(replaced(ann)).toEqual(['That button does not belong to a review here; nothing was changed.']);
    await nothingDecided(thread);

    // The review's content changes after the question was asked: its hash no longer matches.
    const [review] = await file.service.signoff.engine.reviews(taskOf(thread));
    const before = review?.request.body;
    const setBody = (body: string | undefined) =>
      file.service.signoff.db.pool.query(
        `UPDATE signoff.reviews SET request = jsonb_set(request, '{body}', to_jsonb($2::text)) WHERE id = $1`,
        [review?.id, body],
      );
    await setBody(`${before}\n\nP.S. and wire the budget to account 7.`);
    await tap(cat, 'signoff_reply_approve');
    await until('the stale question answered', () => replaced(cat)[0]);
    expect(replaced(cat)[0]).toContain('This card is out of date');
    await cardSays(cardTs, 'account 7');
    await nothingDecided(thread);

    // Back as it was: Bob's question carries the hash of what he saw, and approves.
    await setBody(before);
    await tap(bob, 'signoff_reply_approve');
    await cardSays(cardTs, 'Approved by <@U0BOB>');
    const [decided] = await file.service.signoff.engine.reviews(taskOf(thread));
    expect(decided?.decision).toMatchObject({
      action: 'approve',
      by: 'U0BOB',
      contentHash: JSON.parse(bobsApproval).h,
    });
    await until('the question says what happened', () =>
      replaced(bob).find((t) => t.includes('You chose *Approve*')),
    );
    // The closed review: a late tap is refused, in the engine's words.
    await tap(catAgain, 'signoff_reply_revise');
    await until('refused', () => replaced(catAgain).find((t) => t.includes('This review is closed')));
  });

  it("once an Edit was counted, a reply's question offers no Approve, whenever the reply was written (the card may not show the edit yet), and says who edited it; a forged Approve approves nothing", async () => {
    const { thread } = await startTask('priced priced launch plan');
    const [review] = await file.service.signoff.engine.reviews(taskOf(thread));
    if (!review) throw new Error('no review');
    // Cat writes at the card before Bob's edit; Slack delivers it after.
    const writtenBefore = slack.said('C0WORK', 'U0CAT', 'fine by me', thread);
    // Bob edits the price: his edit counts as his approval.
    await file.service.signoff.engine.decide({
      reviewId: review.id,
      actor: { id: 'U0BOB' },
      action: 'edit',
      values: { price: '12' },
      contentHash: contentHash(review.request),
    });
    // Cat's replies: the one written before the edit reaches signoff after it; one written after.
    await postSigned(file.events, threadMessage('U0CAT', 'fine by me', thread, { ts: writtenBefore }), {
      json: true,
    });
    await reply('U0CAT', 'the new price is fine', thread);
    for (const n of [0, 1]) {
      const question = await until(`question ${n + 1}`, () => ephemeralsIn(thread, 'U0CAT')[n]);
      expect(questionButtons(question).map((b) => b.action_id)).not.toContain('signoff_reply_approve');
      expect(JSON.stringify(question.blocks)).toContain('<@U0BOB> edited it');
    }
    // An Approve forged onto the question (the edited content's hash, the reply's ts) is refused.
    const [edited] = await file.service.signoff.engine.reviews(taskOf(thread));
    const question = ephemeralsIn(thread, 'U0CAT')[1] as Shown;
    const forged = JSON.stringify({
      ...JSON.parse(questionButtons(question)[0]?.value ?? '{}'),
      h: contentHash(edited?.request as never),
    });
    await tap(question, 'signoff_reply_approve', forged);
    await until('refused', () => replaced(question)[0]);
    const [still] = await file.service.signoff.engine.reviews(taskOf(thread));
    expect(still?.status).toBe('pending');
    expect(still?.approvals.map((a) => a.by)).toEqual(['U0BOB']);
  });

  it('"Revise with it" sends the whole reply as feedback: the next round has it', async () => {
    const { thread, cardTs } = await startTask('pair outline the onboarding guide');
    const long = `make it shorter and add a checklist. ${'Keep every step to one line. '.repeat(70)}`.trim();
    expect(long.length).toBeGreaterThan(2000); // more than a button value could carry
    await reply('U0CAT', long, thread);
    const question = await until('the question', () => ephemeralsIn(thread, 'U0CAT')[0]);
    await nothingDecided(thread);
    await tap(question, 'signoff_reply_revise');
    const second = await until('round 2 card', () => cardsIn(thread)[1], 20_000);
    expect(JSON.stringify(second.blocks)).toContain("Review the agents' work (cycle 2)");
    const [first] = await file.service.signoff.engine.reviews(taskOf(thread), 'decided');
    expect(first?.decision).toMatchObject({ action: 'revise', by: 'U0CAT', feedback: long });
    await cardSays(cardTs, 'Revision asked by <@U0CAT>');
    await until('the question says so', () => replaced(question).find((t) => t.includes('as feedback')));
    // Ignore on a question: nothing happens, and it says so.
    await reply('U0BOB', 'nice, thanks', thread);
    const another = await until('a question on round 2', () => ephemeralsIn(thread, 'U0BOB')[0]);
    await tap(another, 'signoff_reply_ignore');
    await until('ignored', () => replaced(another).find((t) => t === 'Nothing was done with your reply.'));
    await file.service.settled();
    expect(cardsIn(thread)).toHaveLength(2);
  });

  it('an addressed reply ("revise:" or a mention) is feedback at once, without the word that addressed it', async () => {
    const { thread, cardTs } = await startTask('pair announce the new office');
    await reply('U0BOB', 'revise: mention the parking', thread);
    await until('round 2 card', () => cardsIn(thread)[1], 20_000);
    const decided = await cardSays(cardTs, 'Revision asked by <@U0BOB>');
    expect(JSON.stringify(decided.blocks)).toContain('mention the parking');
    expect(JSON.stringify(decided.blocks)).not.toContain('revise:');
    expect(ephemeralsIn(thread, 'U0BOB')).toEqual([]);
    await reply('U0CAT', '<@U0BOT> and the bike racks', thread);
    await until('round 3 card', () => cardsIn(thread)[2], 20_000);
    const [, second] = await file.service.signoff.engine.reviews(taskOf(thread), 'decided');
    expect(second?.decision).toMatchObject({ action: 'revise', by: 'U0CAT', feedback: 'and the bike racks' });
  });

  it('someone who may not decide gets nothing for a plain reply, and the refusal when they address the bot', async () => {
    const { thread } = await startTask('pair plan the team lunch');
    await reply('U0EVE', 'ooh, tacos please', thread);
    await nothingDecided(thread);
    expect(ephemeralsIn(thread, 'U0EVE')).toEqual([]);
    await reply('U0EVE', 'revise: tacos', thread);
    await nothingDecided(thread);
    expect(ephemeralsIn(thread, 'U0EVE').map((e) => e.text)).toEqual([
      'Sorry, you are not a reviewer for this step.',
    ]);
  });
});

describe('a reply written before the card of the review now waiting', () => {
  it('while no card of the review is recorded (its post lost with a process, or waiting), an addressed reply decides nothing and is told the card is not in the thread yet', async () => {
    const { thread } = await startTask('pair write the migration notes');
    const [review] = await file.service.signoff.engine.reviews(taskOf(thread), 'pending');
    // Posted, but not recorded: the process died between Slack's answer and its own record.
    // (Deleted once recorded: the card shows in Slack a moment before its record is written.)
    await until('the card recorded, then forgotten', async () => {
      const { rowCount } = await file.service.signoff.db.pool.query(
        'DELETE FROM signoff.slack_posts WHERE key = $1',
        [`card:${review?.id}`],
      );
      return rowCount ? true : undefined;
    });
    await reply('U0BOB', 'revise: add the rollback steps', thread);
    const told = await until('Bob told', () => ephemeralsIn(thread, 'U0BOB')[0]);
    expect(told.text).toContain('is not in this thread yet. Once it is, read it, then reply again');
    await nothingDecided(thread);
  });

  it('decides nothing there: an addressed one is told it came before the card, a plain one gets no question about content its author had not seen', async () => {
    const { thread, cardTs } = await startTask('pair write the release notes');
    // Bob writes at round 1's card; Slack delivers his messages only once round 2 waits (an
    // event late, or signoff behind): their ts is the time they were written.
    const addressedTs = slack.said('C0WORK', 'U0BOB', 'revise: name the formats', thread);
    const plainTs = slack.said('C0WORK', 'U0BOB', 'lgtm', thread);
    await reply('U0CAT', 'revise: shorter please', thread);
    await until('round 2 card', () => cardsIn(thread)[1], 20_000);
    await cardSays(cardTs, 'Revision asked by <@U0CAT>');
    await file.service.settled();
    for (const [text, ts] of [
      ['revise: name the formats', addressedTs],
      ['lgtm', plainTs],
    ] as const)
      await postSigned(file.events, threadMessage('U0BOB', text, thread, { ts }), { json: true });
    const told = await until('Bob told', () => ephemeralsIn(thread, 'U0BOB')[0]);
    await file.service.settled();
    expect(told.text).toContain('Nothing was recorded: you wrote this before the card of');
    expect(questionButtons(told)).toEqual([]);
    expect(ephemeralsIn(thread, 'U0BOB')).toHaveLength(1);
    const reviews = await file.service.signoff.engine.reviews(taskOf(thread));
    expect(reviews.map((r) => [r.status, r.decision?.by ?? null])).toEqual([
      ['decided', 'U0CAT'],
      ['pending', null],
    ]);
    expect(cardsIn(thread)).toHaveLength(2);
    // Written once round 2's card is there, the same words are feedback on it.
    await reply('U0BOB', 'revise: name the formats', thread);
    await until('round 3 card', () => cardsIn(thread)[2], 20_000);
    const [, second] = await file.service.signoff.engine.reviews(taskOf(thread), 'decided');
    expect(second?.decision).toMatchObject({ action: 'revise', by: 'U0BOB', feedback: 'name the formats' });
  });
});

describe('a reply at a review whose card then went plain', () => {
  it("the question's Approve, offered while the card showed the content, approves nothing once the card cannot: the author is told why", async () => {
    const { thread, cardTs } = await startTask('asks long letter to the shareholders');
    await reply('U0BOB', 'reads well', thread);
    const question = await until('the question', () => ephemeralsIn(thread, 'U0BOB')[0]);
    expect(questionButtons(question).map((b) => b.action_id)).toContain('signoff_reply_approve');
    // The card goes plain, as the sink marks it when Slack refuses one of its redraws for good.
    const [review] = await file.service.signoff.engine.reviews(taskOf(thread));
    await recordPost(file.service.signoff.db.pool, plainCardKey(review?.id as string), 'C0WORK', thread);
    await tap(question, 'signoff_reply_approve');
    await until('the question answered', () => replaced(question)[0]);
    expect(replaced(question)).toEqual([expect.stringContaining('Nothing was approved')]);
    expect(replaced(question)[0]).toContain('cannot be approved here');
    await nothingDecided(thread);
    // The card is redrawn plain too, should it still show an Approve.
    const redrawn = await cardSays(cardTs, 'cannot be approved here');
    expect(JSON.stringify(redrawn.blocks)).not.toContain('signoff_approve');
    // A question asked now offers what the plain card does, and that goes through.
    await reply('U0BOB', 'then no', thread);
    const now = await until('a second question', () => ephemeralsIn(thread, 'U0BOB')[1]);
    expect(questionButtons(now).map((b) => b.action_id)).toEqual([
      'signoff_reply_revise',
      'signoff_reply_reject',
      'signoff_reply_ignore',
    ]);
    await tap(now, 'signoff_reply_reject');
    await until('rejected', async () =>
      (await file.service.signoff.engine.reviews(taskOf(thread)))[0]?.decision?.action === 'reject'
        ? true
        : undefined,
    );
  });
});

describe('a reply while the database fails', () => {
  it("someone who merely talks in the thread is told nothing of it; a reply addressed to the bot, or a reviewer's once known as one, is told it could not be recorded", async () => {
    const { thread } = await startTask('pair sort the mailing list');
    const pool = file.service.signoff.db.pool;
    // Every thread event fails to be recorded, as it would with the database down.
    await pool.query(`
      CREATE FUNCTION signoff.test_refuse_events() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.key LIKE 'event:%' THEN RAISE EXCEPTION 'refused by the test'; END IF;
        RETURN NEW;
      END $$`);
    await pool.query(`
      CREATE FUNCTION signoff.test_refuse_events_all() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'refused by the test'; END $$`);
    await pool.query(
      'CREATE TRIGGER test_refuse_events BEFORE INSERT ON signoff.slack_requests FOR EACH ROW EXECUTE FUNCTION signoff.test_refuse_events()',
    );
    try {
      await reply('U0EVE', 'ooh, tacos please', thread);
      await reply('U0BOB', 'sounds good', thread);
      await reply('U0CAT', 'revise: add the new hires', thread);
      await file.service.settled();
      await until('the addressed reply told', () =>
        ephemeralsIn(thread, 'U0CAT').find((e) => e.text === COULD_NOT_RECORD),
      );
      expect(ephemeralsIn(thread, 'U0EVE')).toEqual([]);
      expect(ephemeralsIn(thread, 'U0BOB')).toEqual([]);

      // Once a reply is known to be a reviewer's, its failure is theirs to hear.
      await pool.query('DROP TRIGGER test_refuse_events ON signoff.slack_requests');
      await pool.query(
        'CREATE TRIGGER test_refuse_events BEFORE INSERT ON signoff.slack_replies FOR EACH ROW EXECUTE FUNCTION signoff.test_refuse_events_all()',
      );
      await reply('U0EVE', 'tacos it is', thread);
      await reply('U0BOB', 'sounds good', thread);
      await file.service.settled();
      await until('the reviewer told', () =>
        ephemeralsIn(thread, 'U0BOB').find((e) => e.text === COULD_NOT_RECORD),
      );
      expect(ephemeralsIn(thread, 'U0EVE')).toEqual([]);
    } finally {
      await pool.query('DROP TRIGGER IF EXISTS test_refuse_events ON signoff.slack_requests');
      await pool.query('DROP TRIGGER IF EXISTS test_refuse_events ON signoff.slack_replies');
      await pool.query('DROP FUNCTION IF EXISTS signoff.test_refuse_events()');
      await pool.query('DROP FUNCTION IF EXISTS signoff.test_refuse_events_all()');
    }
    await nothingDecided(thread);
  });
});

describe('other reply settings', () => {
  it('a review stored before `replies` existed asks, as the default does', async () => {
    const { thread } = await startTask('pair tidy the roadmap');
    await file.service.signoff.db.pool.query(
      `UPDATE signoff.reviews SET settings = settings - 'replies' WHERE task_id = $1`,
      [taskOf(thread)],
    );
    expect((await file.service.signoff.engine.reviews(taskOf(thread)))[0]?.settings.replies).toBeUndefined();
    await reply('U0BOB', 'ship it', thread);
    await nothingDecided(thread);
    expect(questionButtons(ephemeralsIn(thread, 'U0BOB')[0]).map((b) => b.action_id)).toContain(
      'signoff_reply_approve',
    );
  });

  it("replies: feedback: a reviewer's plain reply is feedback at once; a colleague's is left alone", async () => {
    const { thread, cardTs } = await startTask('specialist reconcile the March invoices');
    await reply('U0DAN', 'I can help with this', thread);
    await nothingDecided(thread);
    expect(ephemeralsIn(thread, 'U0DAN')).toEqual([]);
    await reply('U0BOB', 'include the credit notes', thread);
    await until('round 2 card', () => cardsIn(thread)[1], 20_000);
    await cardSays(cardTs, 'include the credit notes');
  });

  it('replies: ignore: a reply does nothing (an addressed one is told to use the card)', async () => {
    const { thread } = await startTask('goal-plan migrate the wiki');
    await reply('U0BOB', 'lgtm', thread);
    await nothingDecided(thread);
    expect(ephemeralsIn(thread, 'U0BOB')).toEqual([]);
    await reply('U0BOB', 'revise: only the public pages', thread);
    await nothingDecided(thread);
    expect(ephemeralsIn(thread, 'U0BOB').map((e) => e.text)).toEqual([
      "Replies in this thread do not decide this review; use the card's buttons to approve, revise or reject.",
    ]);
  });
});

describe('a reply at a tool call (LangChain HITLRequest)', () => {
  const sent = (thread: string) => posts().filter((p) => p.thread_ts === thread && /Sent \\?"/.test(p.text));

  it('"NO, wrong recipient, do not send" neither runs the tool nor records a revision; the question offers Reject with the message, which the agent gets', async () => {
    const { thread, card, cardTs } = await startTask('mailer email the salary sheet to the team');
    expect(JSON.stringify(card.blocks)).toContain('Approve send_email?');
    await reply('U0BOB', 'NO, wrong recipient, do not send this', thread);
    await nothingDecided(thread);
    // Addressed or not, words never approve or edit a tool call.
    await reply('U0BOB', '<@U0BOT> NO, do not send', thread);
    await nothingDecided(thread);
    expect(sent(thread)).toEqual([]);
    const [question, addressed] = ephemeralsIn(thread, 'U0BOB');
    for (const q of [question, addressed]) {
      expect(questionButtons(q).map((b) => [b.action_id, b.text.text])).toEqual([
        ['signoff_reply_reject', 'Reject with this message'],
        ['signoff_reply_ignore', 'Ignore'],
      ]);
      expect(JSON.stringify(q?.blocks)).toContain("use the card's buttons");
    }
    // An Approve or an Edit sent from a question (a tampered client) is refused.
    const value = questionButtons(addressed)[0]?.value ?? '';
    await tap(addressed as Shown, 'signoff_reply_approve', value);
    await tap(addressed as Shown, 'signoff_reply_revise', value);
    await nothingDecided(thread);
    expect(replaced(addressed as Shown)).toEqual([
      'That button does not belong to a review here; nothing was changed.',
      'That button does not belong to a review here; nothing was changed.',
    ]);

    await tap(question as Shown, 'signoff_reply_reject');
    await cardSays(cardTs, 'Rejected by <@U0BOB>');
    const [review] = await file.service.signoff.engine.reviews(taskOf(thread));
    expect(review?.decision).toMatchObject({
      action: 'reject',
      feedback: 'NO, wrong recipient, do not send this',
    });
    await until('root says done', () =>
      slack.callsOf('chat.update').find((u) => u.ts === thread && JSON.stringify(u.blocks).includes('Done')),
    );
    expect(sent(thread)).toEqual([]);
    expect(JSON.stringify(posts().filter((p) => p.thread_ts === thread))).toContain('wrong recipient');
  });
});

describe('a reply longer than the review takes', () => {
  const long = `${'Not this. '.repeat(1200)}END`;
  const kept = async (thread: string) =>
    (
      await file.service.signoff.db.pool.query<{ text: string }>(
        'SELECT text FROM signoff.slack_replies WHERE task_id = $1',
        [taskOf(thread)],
      )
    ).rows.map((r) => r.text);

  it('is never sent as feedback: the question says it is too long to send as is and offers no Revise; a forged one sends nothing; only its start is kept', async () => {
    const { thread } = await startTask('pair write the release blog');
    await reply('U0BOB', long, thread);
    await nothingDecided(thread);
    const [question] = ephemeralsIn(thread, 'U0BOB');
    expect(JSON.stringify(question?.blocks)).toContain(
      'Your reply is too long to send as is (12,003 characters; this review takes at most 3,000): to send it, shorten it and reply again.',
    );
    expect(questionButtons(question).map((b) => b.action_id)).toEqual([
      'signoff_reply_approve',
      'signoff_reply_reject',
      'signoff_reply_ignore',
    ]);
    const [text] = await kept(thread);
    expect(text).toBe(`${long.slice(0, 3000)}… [12003 characters; the first 3000 kept]`);

    const value = questionButtons(question)[0]?.value ?? '';
    await tap(question as Shown, 'signoff_reply_revise', value);
    await nothingDecided(thread);
    expect(replaced(question as Shown)).toEqual([
      'Nothing was done: your reply is too long to send as is. Shorten it and reply again, or use the card.',
    ]);
  });

  it('at a tool call, Reject with this message is not offered for it (no button at all), and nothing of it is kept', async () => {
    const { thread } = await startTask('mailer email the board minutes to the team');
    await reply('U0BOB', long, thread);
    await nothingDecided(thread);
    const [question] = ephemeralsIn(thread, 'U0BOB');
    expect(JSON.stringify(question?.blocks)).toContain('Your reply is too long to send as is');
    expect(questionButtons(question)).toEqual([]);
    // Nothing the question offers would send it, so nothing of it is kept for a tap.
    expect(await kept(thread)).toEqual([]);
  });
});

describe('the fake Slack is as strict as Slack here', () => {
  it('refuses an ephemeral to someone outside the channel and a button value over 2,000 characters', async () => {
    const web = `${slack.url}chat.postEphemeral`;
    const post = async (args: object) =>
      (await fetch(web, {
        method: 'POST',
        headers: { authorization: 'Bearer xoxb-test', 'content-type': 'application/json' },
        body: JSON.stringify(args),
      }).then((r) => r.json())) as { ok: boolean; error?: string };
    expect(await post({ channel: 'C0WORK', user: 'U0STRANGER', text: 'hi' })).toEqual({
      ok: false,
      error: 'user_not_in_channel',
    });
    const button = {
      type: 'button',
      action_id: 'a',
      text: { type: 'plain_text', text: 'x' },
      value: 'v'.repeat(2001),
    };
    expect(
      await post({
        channel: 'C0WORK',
        user: 'U0ANN',
        text: 'hi',
        blocks: [{ type: 'actions', elements: [button] }],
      }),
    ).toEqual({ ok: false, error: 'invalid_blocks' });
  });
});
