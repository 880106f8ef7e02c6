/**
 * Who may do what in Slack, and how people find their work: self-approval forbidden by config,
 * reviewers messaged directly, Cancel and Retry on the root message, `/signoff list`, the Home tab.
 */
import { describe, expect, it } from 'vitest';
import { operator } from '../../src/engine/types.js';
import { connectionDiesOnce } from '../helpers/database.js';
import { testClock } from '../helpers/harness.js';
import { appHomeOpened, click, commandBody, postSigned } from '../helpers/slack-requests.js';
import { overloadableModel, slackPerFile } from '../helpers/slack-service.js';
import { slackThreads, until } from '../helpers/slack-thread.js';

const model = overloadableModel();
const clock = testClock();

const YAML = `workflows:
  pair:
    maxIterations: 1
    checkpoints:
      review:
        reviewers: [requester, U0BOB, S0LEADS]
        allowSelfApproval: false
        dmReviewers: true
        timeout: 2h
        onTimeout: reject
`;

const file = slackPerFile('slack_controls', {
  yaml: YAML,
  // Short leases: a deliverer that lost its database gives way within seconds.
  env: { SIGNOFF_LEASE_SECONDS: '2' },
  options: {
    clock,
    modelFor: model.modelFor,
  },
  workspace: (slack) => {
    slack.groups = { S0LEADS: ['U0CAT'] };
    // A private channel, with its members since before anyone opened a Home tab (signoff keeps
    // what Slack said of someone's channels for a minute).
    slack.members = { G0PRIV: ['U0BOT', 'U0ANN', 'U0CAT'] };
  },
});
const { slack } = file;
const { posts, cardsIn, rootOf, tsOf, buttons, ephemeralsTo, updatesOf } = slackThreads(slack);

const taskOf = async (text: string) =>
  (await file.service.signoff.engine.listTasks()).find((t) => t.text === text);

async function startTask(text: string, withCard = true, channel = 'C0WORK') {
  expect(
    (await postSigned(file.events, commandBody(`pair ${text}`, 'U0ANN', { channel_id: channel }))).status,
  ).toBe(200);
  const root = await until('root message', () => rootOf(text));
  const thread = tsOf(root);
  const card = withCard ? await until('review card', () => cardsIn(thread)[0]) : undefined;
  return {
    thread,
    card,
    value: (id: string) => (card ? buttons(card) : []).find((b) => b.action_id === id)?.value ?? '',
  };
}

describe('Slack controls', () => {
  it('the requester may not approve their own work; a reviewer can', async () => {
    const { thread, card, value } = await startTask('draft the launch post');
    const cardTs = tsOf(card as never);
    await postSigned(
      file.events,
      click('U0ANN', 'signoff_approve', value('signoff_approve'), cardTs, thread),
    );
    await until('refusal', () =>
      ephemeralsTo('U0ANN').find((t) => t.includes('someone else has to approve')),
    );
    expect(updatesOf(cardTs)).toEqual([]);
    expect((await taskOf('draft the launch post'))?.status).toBe('waiting');

    await postSigned(
      file.events,
      click('U0CAT', 'signoff_approve', value('signoff_approve'), cardTs, thread),
    );
    await until('done', async () =>
      (await taskOf('draft the launch post'))?.status === 'done' ? true : undefined,
    );
    // The card's update is delivered on its own path: it may come after the task is done.
    await until('the card says who approved', () =>
      updatesOf(cardTs).find((u) => JSON.stringify(u.blocks).includes('<@U0CAT>')),
    );
  });

  it('reviewers are messaged directly, once each, with a link to the card', async () => {
    const { card } = await startTask('plan the offsite');
    const cardTs = tsOf(card as never);
    const link = `https://fake.slack.test/archives/C0WORK/p${cardTs.replace('.', '')}`;
    const dms = await until('three direct messages', () => {
      const found = posts().filter((p) => p.channel.startsWith('D') && p.text.includes(link));
      return found.length >= 3 ? found : undefined;
    });
    // The requester, U0BOB, and U0CAT through the user group S0LEADS; nobody twice.
    expect(dms.map((d) => d.channel).sort()).toEqual(['D0ANN', 'D0BOB', 'D0CAT']);
    expect(dms[0]?.text).toContain("<@U0ANN>'s *pair* task needs your review");
  });

  it('a direct message Slack took whose record was lost is found in the DM, not sent again', async () => {
    const text = 'book the venue';
    const dmsTo = (channel: string) =>
      slack.messages.filter((m) => m.channel === channel && JSON.stringify(m.metadata ?? {}).includes('"dm:'))
        .length;
    const catBefore = dmsTo('D0CAT');
    // Bob's message reaches Slack; the connection that records it dies at that write.
    const trap = await connectionDiesOnce(
      file.db.url,
      'signoff.slack_posts',
      "NEW.channel = 'D0BOB' AND NEW.key LIKE 'dm:%'",
    );
    try {
      await postSigned(file.events, commandBody(`pair ${text}`, 'U0ANN'));
      await until('the record of the message to Bob lost', async () =>
        (await trap.died()) ? true : undefined,
      );
      const task = await until('the task', () => taskOf(text));
      await until(
        'the card delivered',
        async () => {
          const records = await file.service.signoff.engine.eventRecords(task.id);
          const card = records.find((e) => e.event.type === 'review_requested');
          return card?.state === 'delivered' ? true : undefined;
        },
        30_000,
      );
    } finally {
      await trap.remove();
    }
    // Bob was messaged once about this card: the retry found the message in the DM.
    const toBob = slack.messages.filter(
      (m) =>
        m.channel === 'D0BOB' &&
        (m.metadata as { event_payload?: { key?: string } } | undefined)?.event_payload?.key?.startsWith(
          'dm:',
        ),
    );
    const keys = toBob.map((m) => (m.metadata as { event_payload: { key: string } }).event_payload.key);
    expect(new Set(keys).size).toBe(keys.length);
    expect(slack.callsOf('conversations.history').some((c) => c.channel === 'D0BOB')).toBe(true);
    // Those after Bob are messaged too, not skipped because Bob's record was lost.
    await until('Cat messaged', () => (dmsTo('D0CAT') > catBefore ? true : undefined));
  });

  it('Cancel on the root message: refused to others, and closes the open card', async () => {
    const { thread, card } = await startTask('rename the product');
    const cardTs = tsOf(card as never);
    await postSigned(file.events, click('U0DAN', 'signoff_cancel', 'task', thread));
    await until('refusal', () => ephemeralsTo('U0DAN').find((t) => t.includes('can cancel it')));
    expect((await taskOf('rename the product'))?.status).toBe('waiting');

    await postSigned(file.events, click('U0BOB', 'signoff_cancel', 'task', thread));
    const closed = await until('card closed', () =>
      updatesOf(cardTs).find((u) => JSON.stringify(u.blocks).includes('Closed without a decision')),
    );
    expect(JSON.stringify(closed.blocks)).toContain('the task was cancelled by <@U0BOB>');
    expect(JSON.stringify(closed.blocks)).not.toContain('"actions"');
    const root = await until('root says cancelled', () =>
      updatesOf(thread).find((u) => JSON.stringify(u.blocks).includes('Cancelled')),
    );
    expect(JSON.stringify(root.blocks)).not.toContain('signoff_cancel');
    expect((await taskOf('rename the product'))?.status).toBe('cancelled');

    // A second click on the stale button is answered, not applied.
    await postSigned(file.events, click('U0BOB', 'signoff_cancel', 'task', thread));
    await until('already ended', () => ephemeralsTo('U0BOB').find((t) => t.includes('already ended')));
  });

  it('Retry on a failed task: only for its people, then it carries on', async () => {
    model.failNext(1);
    const { thread } = await startTask('summarise the survey', false);
    const failedRoot = await until('root says failed', () =>
      updatesOf(thread).find((u) => JSON.stringify(u.blocks).includes('signoff_retry')),
    );
    expect(JSON.stringify(failedRoot.blocks)).toContain('The model service failed on its side');
    expect(JSON.stringify(failedRoot.blocks)).not.toContain('503 upstream model overloaded');
    await postSigned(file.events, click('U0DAN', 'signoff_retry', 'task', thread));
    await until('refusal', () => ephemeralsTo('U0DAN').find((t) => t.includes('can retry it')));
    await postSigned(file.events, click('U0ANN', 'signoff_retry', 'task', thread));
    await until('review card after the retry', () => cardsIn(thread)[0]);
  });

  it('/signoff list and the Home tab show what waits for whom', async () => {
    await startTask('price the new plan');
    await postSigned(
      file.events,
      commandBody('list', 'U0BOB', { response_url: slack.responseUrl('C0WORK', '', 'U0BOB') }),
    );
    const list = await until('list for U0BOB', () =>
      ephemeralsTo('U0BOB').find((t) => t.includes('Open tasks in this channel')),
    );
    expect(list).toMatch(/price the new plan.*waiting for your review/);
    await postSigned(
      file.events,
      commandBody('list', 'U0DAN', { response_url: slack.responseUrl('C0WORK', '', 'U0DAN') }),
    );
    const other = await until('list for U0DAN', () =>
      ephemeralsTo('U0DAN').find((t) => t.includes('Open tasks in this channel')),
    );
    expect(other).toContain('price the new plan');
    expect(other).not.toContain('waiting for your review');

    await postSigned(file.events, appHomeOpened('U0CAT'), { json: true });
    const home = await until('home for U0CAT', () =>
      slack.callsOf('views.publish').find((v) => v.user_id === 'U0CAT'),
    );
    const view = JSON.stringify(home.view);
    expect(view).toContain('Waiting for your review');
    expect(view).toContain('price the new plan');
    expect(view).toContain('You have not started any task');
    expect(slack.refusals).toEqual([]);
  });

  it("a private channel's review reaches only its members: a reviewer outside it gets no DM, and their Home tab shows nothing of it", async () => {
    await postSigned(
      file.events,
      commandBody('pair draft the secret merger memo', 'U0ANN', { channel_id: 'G0PRIV' }),
    );
    const thread = tsOf(await until('root message', () => rootOf('draft the secret merger memo')));
    const cardTs = tsOf(await until('review card', () => cardsIn(thread)[0]));
    const link = `https://fake.slack.test/archives/G0PRIV/p${cardTs.replace('.', '')}`;
    // Reviewers are messaged in order (requester, U0BOB, then the group): once U0CAT has hers,
    // U0BOB's turn has passed.
    await until('a DM to U0CAT', () => posts().find((p) => p.channel === 'D0CAT' && p.text.includes(link)));
    const dms = posts().filter((p) => p.channel.startsWith('D') && p.text.includes(link));
    expect(dms.map((d) => d.channel).sort()).toEqual(['D0ANN', 'D0CAT']);

    const homeOf = async (user: string) => {
      const before = slack.callsOf('views.publish').filter((v) => v.user_id === user).length;
      await postSigned(file.events, appHomeOpened(user), { json: true });
      const home = await until(
        `home for ${user}`,
        () => slack.callsOf('views.publish').filter((v) => v.user_id === user)[before],
      );
      return JSON.stringify(home.view);
    };
    const bob = await homeOf('U0BOB');
    expect(bob).toContain('Waiting for your review');
    expect(bob).not.toContain('secret merger memo');
    expect(await homeOf('U0CAT')).toContain('secret merger memo');
    slack.members = {};
    // Closed, so that the last test's clock does not fire its timers too.
    const task = await taskOf('draft the secret merger memo');
    await file.service.signoff.engine.cancel(task?.id ?? '', operator('test'));
  });

  // Last: moving the clock fires the timers of every review still open in this file.
  it('a reminder at half time pings the reviewers; at the deadline the card says it was rejected and why', async () => {
    // A channel of its own: its reminder does not queue behind the other open reviews' posts.
    const { thread, card } = await startTask('order the swag', true, 'C0SWAG');
    const cardTs = tsOf(card as never);
    clock.advance(3600 + 1);
    await file.service.signoff.engine.releaseDueTimers('slack');
    const reminder = await until(
      'reminder in the thread',
      () => posts().find((p) => p.thread_ts === thread && p.text.startsWith('Reminder')),
      40_000,
    );
    expect(JSON.stringify(reminder.blocks)).toContain('<@U0ANN>, <@U0BOB>, <!subteam^S0LEADS>');
    await until('reminder DMs', () => {
      const dms = posts().filter(
        (p) => p.channel.startsWith('D') && p.text.includes('still waiting for your review'),
      );
      return dms.length >= 3 ? dms : undefined;
    });

    clock.advance(3600);
    await file.service.signoff.engine.releaseDueTimers('slack');
    // Every review still open in this file is reminded and posted to at Slack's pace (a post a
    // second per channel), so this waits longer than most.
    const closed = await until(
      'card decided by the timeout',
      () => updatesOf(cardTs).find((u) => JSON.stringify(u.blocks).includes('automatically')),
      40_000,
    );
    expect(JSON.stringify(closed.blocks)).toContain(
      'Rejected automatically: nobody decided (no decision within 2h; this step rejects on timeout)',
    );
    await until('root says rejected', () =>
      updatesOf(thread).find((u) => JSON.stringify(u.blocks).includes('Rejected')),
    );
    expect(slack.refusals).toEqual([]);
  });

  it('a deadline that passes while signoff is down fires once it is back', async () => {
    const { thread, card } = await startTask('book the venue');
    const cardTs = tsOf(card as never);
    await file.restart({ whileDown: () => clock.advance(2 * 3600 + 1) });
    await file.service.signoff.engine.releaseDueTimers('slack');
    await until('card decided by the timeout after the restart', () =>
      updatesOf(cardTs).find((u) => JSON.stringify(u.blocks).includes('Rejected automatically')),
    );
    await until('root says rejected', () =>
      updatesOf(thread).find((u) => JSON.stringify(u.blocks).includes('Rejected')),
    );
  });
});
