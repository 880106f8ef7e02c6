/**
 * Delivery to Slack when Slack says no: a message refused for good, a bot removed from the
 * channel, a rate limit, a post whose recording died, and a decided card while a run holds the
 * task. Through Bolt's HTTP receiver, a real engine and Postgres, and the fake Slack Web API.
 */
import { describe, expect, it } from 'vitest';
import { CARD_UNCONFIRMED, NOT_THIS_CARD } from '../../src/slack/inbound/decide.js';
import { slackTaskId } from '../../src/slack/shared/origin.js';
import { claimKey } from '../helpers/claim.js';
import { databaseDown, writeFails } from '../helpers/database.js';
import { click, commandBody, postSigned } from '../helpers/slack-requests.js';
import { slackPerFile } from '../helpers/slack-service.js';
import { type Post, slackThreads, until } from '../helpers/slack-thread.js';

const file = slackPerFile('slack_delivery', {
  yaml: 'workflows:\n  pair:\n    maxIterations: 1\n',
  // Short leases: a deliverer that lost its database gives way within seconds.
  env: { SIGNOFF_LEASE_SECONDS: '2' },
});
const { slack } = file;
const { posts, cardsIn, rootOf, tsOf, buttons } = slackThreads(slack);

const engine = () => file.service.signoff.engine;
const taskOfThread = (thread: string) => slackTaskId({ channel: 'C0WORK', ts: thread });

async function start(text: string) {
  await postSigned(file.events, commandBody(`pair ${text}`, 'U0ANN'));
  const root = await until(`root message for ${text}`, () => rootOf(text));
  return { thread: tsOf(root), taskId: taskOfThread(tsOf(root)) };
}

/**
 * Starts a task whose review card Slack posts at once but answers `ms` later (after the client
 * gave up, when longer than its 10 s).
 */
function startWithLateCard(text: string, ms: number) {
  slack.answerLate(
    'chat.postMessage',
    ms,
    (a) => JSON.stringify(a.blocks ?? '').includes('signoff_approve') && JSON.stringify(a).includes(text),
  );
  return start(text);
}

/** Bob clicks Approve on the card. */
const approve = (thread: string, card: Post) => {
  const value = buttons(card).find((b) => b.action_id === 'signoff_approve')?.value ?? '';
  return postSigned(file.events, click('U0BOB', 'signoff_approve', value, tsOf(card), thread));
};

const done = (taskId: string) =>
  until('the task done', async () =>
    (await engine().getTask(taskId))?.status === 'done' ? true : undefined,
  );

describe('Slack delivery', () => {
  it('a message Slack refuses for good is marked failed, a fallback says so, and the task goes on to the end', async () => {
    // The agent's message is refused, every time, as Slack refuses blocks it will not take.
    const stop = slack.refuse('chat.postMessage', (a) => a.username === 'Author', 'invalid_blocks');
    try {
      const { thread, taskId } = await start('draft the refund policy');
      const card = await until('the review card after the refused message', () => cardsIn(thread)[0], 20_000);
      const fallback = await until('the fallback post', () =>
        posts().find((p) => p.thread_ts === thread && p.text.includes('could not be shown')),
      );
      expect(fallback.text).toContain('invalid_blocks');
      expect(fallback.text).toContain(`signoff events ${taskId}`);
      const refused = (await engine().eventRecords(taskId)).find(
        (e) => e.event.type === 'agent_said' && (e.event as { agent: string }).agent === 'Author',
      );
      expect(refused).toMatchObject({ state: 'failed', attempts: 3, lastError: 'refused: invalid_blocks' });
      expect(slack.refusals.filter((r) => r.error === 'invalid_blocks')).toHaveLength(3);

      await approve(thread, card);
      await done(taskId);
    } finally {
      stop();
    }
  });

  it("signoff's own error while showing a card (a database error, not Slack) is retried as temporary past the three tries of a refusal, and its text never reaches Slack", async () => {
    const text = 'reconcile the card ledger';
    const secret = 'duplicate key value violates unique constraint "slack_posts_pkey" (internal detail)';
    // Recording the card Slack took fails three times, as a constraint or a bug would refuse it.
    const trap = await writeFails(file.db.url, 'signoff.slack_posts', "NEW.key LIKE 'card:%'", 3, secret);
    try {
      const { thread, taskId } = await start(text);
      // Every event of the task delivered, or failed for good and its fallback delivered.
      const records = await until(
        "the task's events settled",
        async () => {
          const all = await engine().eventRecords(taskId);
          const card = all.some((e) => e.event.type === 'review_requested');
          return card && all.every((e) => e.state !== 'pending') ? all : undefined;
        },
        30_000,
      );
      const settled = records.find((e) => e.event.type === 'review_requested');
      // Nothing Slack received carries the error's text (the fallback of a failed card showed it).
      const sent = JSON.stringify([...slack.callsOf('chat.postMessage'), ...slack.callsOf('chat.update')]);
      expect(sent).not.toContain('internal detail');
      expect(sent).not.toContain('slack_posts_pkey');
      expect(settled).toMatchObject({ state: 'delivered', attempts: 4 });
      expect(await trap.count()).toBe(3);
      // Posted once (the later attempts found it in the thread), with its content and Approve.
      const cards = cardsIn(thread);
      expect(cards).toHaveLength(1);
      expect(buttons(cards[0] as Post).map((b) => b.action_id)).toContain('signoff_approve');
      expect(records.some((e) => e.event.type === 'delivery_failed')).toBe(false);
    } finally {
      await trap.remove();
    }
  });

  it('a bot removed from the channel fails the task with a sentence; after a retry the thread gets everything', async () => {
    const stop = slack.refuse('chat.postMessage', (a) => a.thread_ts !== undefined, 'not_in_channel');
    const { thread, taskId } = await start('summarise the vendor contract');
    const failed = await until('the task failed', async () => {
      const t = await engine().getTask(taskId);
      return t?.status === 'failed' ? t : undefined;
    });
    expect(failed.statusReason).toBe(
      'signoff is not in this channel any more; invite it back (/invite @signoff), then retry (Slack said not_in_channel)',
    );
    const listed = await engine().listTasks({ statuses: ['failed'] });
    expect(listed.map((t) => t.id)).toContain(taskId);
    expect(cardsIn(thread)).toHaveLength(0);

    stop(); // the bot is invited back
    await engine().retry(taskId, { id: 'U0ANN' });
    const card = await until('the card after the retry', () => cardsIn(thread)[0], 20_000);
    const authored = posts().filter((p) => p.thread_ts === thread && (p as { username?: string }).username);
    expect(authored.map((p) => (p as { username?: string }).username)).toEqual(['Author']);
    expect(card).toBeTruthy();
  });

  it("a rate-limited card waits out Slack's Retry-After and is posted once", async () => {
    slack.failNext('chat.postMessage', { status: 429, retryAfter: 1 });
    const { thread } = await start('plan the offsite');
    const card = await until('the card', () => cardsIn(thread)[0], 20_000);
    expect(cardsIn(thread)).toEqual([card]);
    expect(slack.calls.some((c) => c.method === 'chat.postMessage' && c.args.failed)).toBe(true);
  });

  it("a root update held by chat.update's rate limit does not hold back the card, and is sent when Slack allows", async () => {
    // Slack says: no chat.update for 6 s (long enough that the card, paced with the root on its
    // channel's budget of about a post a second, comes well inside it).
    slack.failNext('chat.update', { status: 429, retryAfter: 6 });
    const { thread, taskId } = await start('sort the onboarding checklist');
    // Times as Slack saw the calls (a busy test process may notice them late).
    const at = (args: Record<string, unknown>) => slack.calls.find((c) => c.args === args)?.at ?? 0;
    const limitedAt = await until(
      'the limited update',
      () => slack.calls.find((c) => c.method === 'chat.update' && c.args.failed)?.at,
    );
    const card = await until('the card', () => cardsIn(thread)[0]);
    const rootUpdates = () => slack.callsOf('chat.update').filter((u) => u.ts === thread && !u.failed);
    // The card came while the root's update still waited for Slack's limit.
    expect(at(card as unknown as Record<string, unknown>) - limitedAt).toBeLessThan(5500);
    expect(rootUpdates().filter((u) => at(u) <= at(card as unknown as Record<string, unknown>))).toEqual([]);
    const root = await until(
      'the root says it waits',
      () => rootUpdates().find((u) => JSON.stringify(u.blocks).includes('Waiting')),
      15_000,
    );
    expect(at(root) - limitedAt).toBeGreaterThanOrEqual(5500);
    // One update, the latest status ("working" was replaced while it waited), and the wait was not
    // counted as a failed attempt.
    expect(rootUpdates()).toEqual([root]);
    // (Marked as its round lets go, just after Slack's answer.)
    const statuses = await until('the statuses marked', async () => {
      const records = await engine().eventRecords(taskId);
      const mine = records.filter((e) => e.event.type === 'task_status');
      return mine.every((e) => e.state === 'delivered') ? mine : undefined;
    });
    expect(statuses.map((e) => [e.attempts <= 1, e.lastError])).toEqual(statuses.map(() => [true, null]));
    expect(card).toBeTruthy();
  });

  it('a card answered 13 s late is posted once: the next attempt finds it in the thread, and its buttons decide', async () => {
    const text = 'draft the release notes';
    // Slack posts the card at once but answers 13 s later, after the client (10 s) has given up.
    const { thread, taskId } = await startWithLateCard(text, 13_000);
    const card = await until('the card', () => cardsIn(thread)[0], 20_000);
    const delivered = await until(
      'the card delivered',
      async () =>
        (await engine().eventRecords(taskId)).find(
          (e) => e.event.type === 'review_requested' && e.state === 'delivered',
        ),
      40_000,
    );
    // Found by its metadata on the second attempt, not posted again.
    expect(cardsIn(thread)).toEqual([card]);
    expect(delivered.attempts).toBe(2);
    expect(slack.callsOf('conversations.replies').some((c) => c.ts === thread)).toBe(true);
    // The card in the thread is the one recorded: Approve on it decides.
    await approve(thread, card);
    await done(taskId);
  });

  it('a click on a card Slack shows before it answers the post decides: Slack is asked whether the clicked message is the card', async () => {
    const text = 'draft the holiday rota';
    // Slack shows the card at once and answers the post 8 s later (within the client's 10 s).
    const { thread, taskId } = await startWithLateCard(text, 8_000);
    const card = await until('the card', () => cardsIn(thread)[0], 20_000);
    // Bob clicks while signoff still waits for Slack's answer: nothing of the card is written down yet.
    const repliesBefore = slack.callsOf('conversations.replies').length;
    expect((await approve(thread, card)).status).toBe(200);
    await done(taskId);
    expect(slack.callsOf('conversations.replies').length).toBeGreaterThan(repliesBefore);
    expect(slack.ephemerals.filter((e) => e.user === 'U0BOB').map((e) => e.text)).toEqual([]);
    // The late answer then finds the card recorded where the click found it: one card, delivered once.
    const delivered = await until('the card delivered', async () =>
      (await engine().eventRecords(taskId)).find(
        (e) => e.event.type === 'review_requested' && e.state === 'delivered',
      ),
    );
    expect(delivered.attempts).toBe(1);
    expect(cardsIn(thread)).toHaveLength(1);
  });

  it("a card's button clicked on another message, before the card is written down, is refused: Slack finds the card elsewhere", async () => {
    const text = 'draft the office move';
    const { thread, taskId } = await startWithLateCard(text, 8_000);
    const card = await until('the card', () => cardsIn(thread)[0], 20_000);
    const value = buttons(card).find((b) => b.action_id === 'signoff_approve')?.value ?? '';
    // The card's button value, on a click that names the thread's root as the clicked message.
    await postSigned(file.events, click('U0BOB', 'signoff_approve', value, thread, thread));
    await until('refused', () =>
      slack.ephemerals.find((e) => e.user === 'U0BOB' && e.text === NOT_THIS_CARD),
    );
    expect((await engine().getTask(taskId))?.status).toBe('waiting');
    // The card itself still decides.
    await approve(thread, card);
    await done(taskId);
  });

  it('a click on a card not yet written down, while Slack does not answer conversations.replies, is told to click again; the next click decides', async () => {
    const text = 'draft the parking rules';
    const { thread, taskId } = await startWithLateCard(text, 8_000);
    const card = await until('the card', () => cardsIn(thread)[0], 20_000);
    const restore = slack.refuse('conversations.replies', (a) => a.ts === thread, 'internal_error');
    try {
      await approve(thread, card);
      await until('told to click again', () =>
        slack.ephemerals.find((e) => e.user === 'U0BOB' && e.text === CARD_UNCONFIRMED),
      );
      expect((await engine().getTask(taskId))?.status).toBe('waiting');
    } finally {
      restore();
    }
    await approve(thread, card);
    await done(taskId);
  });

  it('a post Slack took whose record was lost is found in the thread, not posted again', async () => {
    const held = slack.holdNext('chat.postMessage', (a) => a.username === 'Author');
    const { thread, taskId } = await start('write the incident summary');
    // The first agent message reaches Slack; before its answer is back, the database goes away.
    await held.reached;
    const restore = await databaseDown(file.db.url);
    held.release();
    await until('the post answered', () => slack.messages.find((m) => m.thread_ts === thread));
    await new Promise((r) => setTimeout(r, 300));
    await restore();
    await until('the card', () => cardsIn(thread)[0], 30_000);
    const authorPosts = slack.messages.filter(
      (m) =>
        m.thread_ts === thread &&
        (m.metadata as { event_payload?: { key?: string } })?.event_payload?.key?.includes(':said:'),
    );
    const keys = authorPosts.map((m) => (m.metadata as { event_payload: { key: string } }).event_payload.key);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys).toHaveLength(1);
    expect(slack.callsOf('conversations.replies').length).toBeGreaterThan(0);
    expect((await engine().getTask(taskId))?.status).toBe('waiting');
  });

  it('a decided card is updated at once while another run holds the task', async () => {
    const { thread, taskId } = await start('check the invoice totals');
    const card = await until('the card', () => cardsIn(thread)[0]);
    // Another run (a parallel branch, say) holds the task.
    const run = await until("the run lease, once the task's own run let go", () =>
      claimKey(file.service.signoff.db.pool, `run:${taskId}`, { ttlSeconds: 30 }),
    );
    try {
      await approve(thread, card);
      await until('the card says who approved', () =>
        slack
          .callsOf('chat.update')
          .find((u) => u.ts === tsOf(card) && JSON.stringify(u.blocks).includes('Approved by <@U0BOB>')),
      );
      expect((await engine().getTask(taskId))?.status).toBe('working');
    } finally {
      await run?.release();
    }
    // Done once the run lets go.
    await done(taskId);
  });

  it('a root status that a newer one replaces is never sent', async () => {
    const { thread, taskId } = await start('tidy the changelog');
    const card = await until('the card', () => cardsIn(thread)[0]);
    const rootUpdates = () => slack.callsOf('chat.update').filter((u) => u.ts === thread);
    await until('the root says it waits', () =>
      rootUpdates().find((u) => JSON.stringify(u.blocks).includes('Waiting')),
    );
    const before = rootUpdates().length;
    // Another deliverer holds the task's events back while it goes working, then done.
    const delivering = await until('the delivery lease', () =>
      claimKey(file.service.signoff.db.pool, `deliver:${taskId}`, { ttlSeconds: 30 }),
    );
    await approve(thread, card);
    await done(taskId);
    await delivering.release();
    await until('the root says done', () =>
      rootUpdates().find((u) => JSON.stringify(u.blocks).includes('Done')),
    );
    // Only "done" went out: "working" was replaced before its turn came.
    expect(
      rootUpdates()
        .slice(before)
        .map((u) => JSON.stringify(u.blocks).includes('Done')),
    ).toEqual([true]);
    // The replaced one counts as delivered (marked with the round that sent Done).
    await until('every status marked delivered', async () => {
      const statuses = (await engine().eventRecords(taskId)).filter((e) => e.event.type === 'task_status');
      return statuses.every((e) => e.state === 'delivered') ? true : undefined;
    });
  });

  it('a card Slack refuses for good comes back plain, without Approve, stays plain when decided, and Reject on it decides', async () => {
    const text = 'audit the expense policy';
    const stop = slack.refuse(
      'chat.postMessage',
      (a) =>
        JSON.stringify(a.blocks ?? '').includes('signoff_approve') && JSON.stringify(a.blocks).includes(text),
      'msg_blocks_too_long',
    );
    try {
      const { thread, taskId } = await start(text);
      const card = await until('the plain card', () => cardsIn(thread)[0], 20_000);
      expect(JSON.stringify(card.blocks)).toContain(
        'could not be shown here (Slack said `msg_blocks_too_long`)',
      );
      expect(JSON.stringify(card.blocks)).toContain('cannot be approved here');
      // Nothing on it approves what it does not show.
      expect(buttons(card).map((b) => b.action_id)).toEqual([
        'signoff_revise',
        'signoff_reject',
        'signoff_claim',
        'signoff_hand_over',
      ]);
      const refusedCards = slack.calls.filter(
        (c) =>
          c.method === 'chat.postMessage' && c.args.failed && JSON.stringify(c.args.blocks).includes(text),
      );
      expect(refusedCards).toHaveLength(3);
      const reject = buttons(card).find((b) => b.action_id === 'signoff_reject')?.value ?? '';
      await postSigned(file.events, click('U0BOB', 'signoff_reject', reject, tsOf(card), thread));
      await until('the task rejected', async () =>
        (await engine().getTask(taskId))?.status === 'rejected' ? true : undefined,
      );
      const decided = await until('the plain card, decided', () =>
        slack
          .callsOf('chat.update')
          .find((u) => u.ts === tsOf(card) && JSON.stringify(u.blocks).includes('Rejected')),
      );
      expect(JSON.stringify(decided.blocks)).toContain('cannot be approved here');
      expect(JSON.stringify(decided.blocks)).not.toContain('signoff_approve');
    } finally {
      stop();
    }
  });
});
