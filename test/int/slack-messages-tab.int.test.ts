/**
 * Tasks from the app's Messages tab (Slack's agent view), end to end through Bolt's HTTP receiver
 * and the fake Slack: opening the tab sets the workflows as its suggested prompts; a message
 * naming a workflow and a task starts it in that message's thread (the root as the bot's first
 * reply, agents, card, Approve, done), once however often Slack sends the event, with a thinking
 * status while the agents work; any other message gets a sentence, never silence.
 */
import { WebClient } from '@slack/web-api';
import { beforeEach, describe, expect, it } from 'vitest';
import { rootMessage } from '../../src/slack/blocks/messages.js';
import { claimRequest } from '../../src/slack/inbound/claims.js';
import { STARTS_LATER } from '../../src/slack/inbound/deps.js';
import { LOADING_MESSAGES, WORKING_STATUS } from '../../src/slack/outbound/thinking.js';
import { KEEP_THINKING_MS } from '../../src/slack/outbound/thinking-keeper.js';
import { slackTaskId } from '../../src/slack/shared/origin.js';
import { postMetadata } from '../../src/slack/shared/posts.js';
import { BOT_USER } from '../helpers/fake-slack.js';
import {
  agentSessionStopped,
  appHomeOpened,
  click,
  directMessage,
  messagesTabOpened,
  postSigned,
} from '../helpers/slack-requests.js';
import { scriptedWith, slackPerFile, sweepStarts } from '../helpers/slack-service.js';
import { slackThreads, until } from '../helpers/slack-thread.js';
import { virtualClock } from '../helpers/virtual-clock.js';

const DM = 'D0ANN';

/** Agents on a task saying HOLD wait for `release()` (or their call's abort: a cancel). */
let release: () => void = () => {};
const held = () =>
  new Promise<void>((resolve) => {
    release = resolve;
  });
let gate = held();

/** When runs set their DM thread's thinking status again: moved by the tests, with Slack's clock. */
const thinkingClock = virtualClock();

const file = slackPerFile('slack_messages_tab', {
  // specialist is kept to one channel: not a workflow anyone may start in a DM.
  yaml: 'workflows:\n  pair:\n    maxIterations: 1\n  specialist:\n    channels: [C0WORK]\n',
  options: {
    thinkingClock,
    modelFor: scriptedWith(async (_agent, input, options) => {
      if (!JSON.stringify(input.map((m) => m.content)).includes('HOLD')) return;
      await new Promise<void>((resolve, reject) => {
        void gate.then(resolve);
        options?.signal?.addEventListener('abort', () => reject(options.signal?.reason));
      });
    }),
  },
});
const { slack } = file;
const { cardsIn, posts, buttons } = slackThreads(slack);

/** Ann writes `text` at the top of her DM with the app, as Slack keeps it and sends it. */
async function write(text: string, threadTs?: string) {
  const ts = slack.said(DM, 'U0ANN', text, threadTs);
  const res = await postSigned(file.events, directMessage('U0ANN', text, { channel: DM, ts, threadTs }), {
    json: true,
  });
  expect(res.status).toBe(200);
  return ts;
}

/** The bot's messages in the thread of the person's message `asked`, in the order they were posted. */
const botIn = (asked: string) =>
  slack.messages.filter((m) => m.channel === DM && m.thread_ts === asked && m.user === BOT_USER);

/** The task's root: the bot's first reply in the thread of the person's message `asked`. */
const rootFor = (asked: string, text: string) =>
  until(`the root of "${text}"`, () => {
    const first = botIn(asked)[0];
    return first?.text?.includes(text) ? first : undefined;
  });

/** The post of a start's root (its metadata names the start) among the bot's posts. */
const isRoot = (p: object) =>
  JSON.stringify((p as { metadata?: unknown }).metadata ?? {}).includes('"start:');

/** The review cards in the thread of `asked` (the root's buttons are no card). */
const cardsUnder = (asked: string) => cardsIn(asked).filter((p) => !isRoot(p));

/** The bot's messages at the top of the DM: a task from the Messages tab posts none. */
const topLevel = () => slack.messages.filter((m) => m.channel === DM && !m.thread_ts && m.user === BOT_USER);

/** The statuses set on a thread, in order. */
const statusesOf = (thread: string) =>
  slack
    .callsOf('assistant.threads.setStatus')
    .filter((c) => c.channel_id === DM && c.thread_ts === thread && !c.failed)
    .map((c) => String(c.status));

/**
 * Waits for a run's keeper of its thread's status to be asleep again, its set done (a few seconds
 * at most: with no keeper, nothing comes, and what the thread shows says so).
 */
const keeperAsleep = () =>
  until('a keeper of the status asleep', () => (thinkingClock.sleeping() > 0 ? true : undefined), 3000).catch(
    () => undefined,
  );

/** The bot's answers in the thread of a person's message. */
const answersTo = (ts: string) => posts().filter((p) => p.channel === DM && p.thread_ts === ts);

/** The tasks whose thread is the person's message `asked` (the engine's own rows). */
const tasksUnder = async (asked: string) =>
  (
    await file.service.signoff.db.pool.query<{ id: string; origin: object }>(
      `SELECT id, origin FROM signoff.tasks WHERE origin->>'channel' = $1 AND origin->>'ts' = $2`,
      [DM, asked],
    )
  ).rows;

const available = () =>
  file.service.signoff.engine
    .available(DM)
    .map((w) => w.name)
    .sort();

describe('the Messages tab', () => {
  it('opening it sets the workflows the person may start there as its prompts (no thread: the tab’s)', async () => {
    expect(available()).not.toContain('specialist');
    await postSigned(file.events, messagesTabOpened('U0ANN', DM), { json: true });
    const shown = await until('the prompts', () => slack.agentView.prompts.get(DM));
    expect(shown.title).toBe('Start a task');
    expect(shown.prompts.map((p) => p.message).sort()).toEqual(available());
    expect(slack.callsOf('assistant.threads.setSuggestedPrompts').every((c) => !('thread_ts' in c))).toBe(
      true,
    );
  });

  it('a message naming a workflow and a task starts it in the DM: thinking while the agents work, cleared at the card, Approve ends it', async () => {
    gate = held();
    const task = 'write a haiku about ledgers HOLD';
    const asked = await write(`pair: ${task}`);
    const root = await rootFor(asked, task);
    // The agents are held: the thread shows them working, with the loading messages.
    await until('the thinking status', () => (slack.agentView.statusOf(DM, asked) ? true : undefined));
    // Set as the task starts, and as its run does: working, and nothing else.
    expect(new Set(statusesOf(asked))).toEqual(new Set([WORKING_STATUS]));
    const setting = slack.callsOf('assistant.threads.setStatus').find((c) => c.thread_ts === asked);
    expect(setting?.loading_messages).toEqual(LOADING_MESSAGES);
    release();
    const card = await until('the review card in the DM thread', () => cardsUnder(asked)[0], 20_000);
    expect(card.channel).toBe(DM);
    // Waiting for the review: cleared by signoff (not only by Slack on the card's post).
    await until('the status cleared', () => (statusesOf(asked).at(-1) === '' ? true : undefined));
    const taskId = slackTaskId({ channel: DM, ts: asked });
    expect((await file.service.signoff.engine.getTask(taskId))?.status).toBe('waiting');

    const cardTs = slack.messages.find(
      (m) =>
        m.channel === DM &&
        JSON.stringify(m.metadata) === JSON.stringify((card as { metadata?: unknown }).metadata),
    )?.ts as string;
    const approve = buttons(card).find((b) => b.action_id === 'signoff_approve');
    const res = await postSigned(
      file.events,
      click('U0ANN', 'signoff_approve', approve?.value ?? '', cardTs, asked, DM),
    );
    expect(res.status).toBe(200);
    await until('the task done', async () =>
      (await file.service.signoff.engine.getTask(taskId))?.status === 'done' ? true : undefined,
    );
    // Ended: the root says so (a status update may wait its turn in chat.update's limit), and the
    // thinking status is cleared with it.
    await until('the root says done', () =>
      slack.callsOf('chat.update').find((u) => u.ts === root.ts && String(u.text).includes('Done')),
    );
    await until('the status cleared at the end', () => (statusesOf(asked).at(-1) === '' ? true : undefined));
    expect(slack.agentView.statusOf(DM, asked)).toBe('');
  });

  it('a DM task whose agents work longer than two minutes keeps its thinking status all along (Slack drops one two minutes after it was set)', async () => {
    gate = held();
    const task = 'reconcile a year of ledgers HOLD';
    const asked = await write(`pair: ${task}`);
    await rootFor(asked, task);
    await until('the thinking status', () => (slack.agentView.statusOf(DM, asked) ? true : undefined));
    await keeperAsleep();
    // Four minutes, half a minute at a time, for the process and for Slack alike; no post meanwhile.
    for (let passed = 30_000; passed <= 240_000; passed += 30_000) {
      await thinkingClock.advance(30_000);
      await keeperAsleep();
      slack.later(30_000);
      expect(slack.agentView.statusOf(DM, asked), `${passed / 1000} s on`).toBe(WORKING_STATUS);
    }
    release();
    await until('the card', () => cardsUnder(asked)[0], 20_000);
    await until('the status cleared', () => (statusesOf(asked).at(-1) === '' ? true : undefined));
    expect(slack.agentView.statusOf(DM, asked)).toBe('');
  });

  it('a cancel while a run sets its thread’s status again leaves no status: a set that reaches Slack after the sink’s clear is cleared again', async () => {
    gate = held();
    const task = 'archive the old invoices HOLD';
    const asked = await write(`pair: ${task}`);
    const root = await rootFor(asked, task);
    const taskId = slackTaskId({ channel: DM, ts: asked });
    // Set as the task started and as its run did; the run's keeper waits for its next turn.
    await until('both sets', () => (statusesOf(asked).length >= 2 ? true : undefined));
    await until('the keeper asleep', () => (thinkingClock.sleeping() > 0 ? true : undefined));
    // Its next set is on its way to Slack, slowly...
    const late = slack.holdNext(
      'assistant.threads.setStatus',
      (a) => a.thread_ts === asked && a.status === WORKING_STATUS,
    );
    await thinkingClock.advance(KEEP_THINKING_MS);
    await late.reached;
    // ...while Ann cancels: the task is cancelled, and the sink clears the status.
    const res = await postSigned(file.events, click('U0ANN', 'signoff_cancel', 'task', root.ts, asked, DM));
    expect(res.status).toBe(200);
    await until('the task cancelled', async () =>
      (await file.service.signoff.engine.getTask(taskId))?.status === 'cancelled' ? true : undefined,
    );
    await until('the sink’s clear', () => (statusesOf(asked).at(-1) === '' ? true : undefined));
    // The held set reaches Slack after the clear: the thread would show a cancelled task working.
    const cleared = statusesOf(asked).length;
    late.release();
    await until('the late set answered', () => (statusesOf(asked).length > cleared ? true : undefined));
    await until('the status cleared again', () =>
      statusesOf(asked).at(-1) === '' && !slack.agentView.statusOf(DM, asked) ? true : undefined,
    );
    release();
  });

  it('a task started from a DM message lives in that message’s thread: the root is the bot’s first reply there, the agents’ words and the card follow it, nothing at the top of the DM', async () => {
    gate = Promise.resolve();
    const task = 'draft the launch email';
    const asked = await write(`pair: ${task}`);
    const root = await rootFor(asked, task);
    // Posted as a reply to the person's message, with the task's status and its buttons.
    const rootPost = posts().find((p) => p.channel === DM && isRoot(p) && p.text.includes(task));
    expect(rootPost?.thread_ts).toBe(asked);
    expect(buttons(rootPost as never).map((b) => b.action_id)).toEqual(['signoff_cancel', 'signoff_history']);
    const card = await until('the card in the message’s thread', () => cardsUnder(asked)[0], 20_000);
    expect(card.thread_ts).toBe(asked);
    // Everything the bot said about the task is in that thread, the root first, then the agents'
    // words (under their names), then the card.
    const thread = botIn(asked);
    expect(thread[0]?.ts).toBe(root.ts);
    const inThread = posts().filter((p) => p.channel === DM && p.thread_ts === asked);
    expect(inThread.filter((p) => 'username' in p).length).toBeGreaterThan(0);
    expect(posts().filter((p) => p.channel === DM && 'username' in p && !p.thread_ts)).toEqual([]);
    expect(topLevel()).toEqual([]);
    // Named by the person's message, its root kept beside it.
    expect(await tasksUnder(asked)).toEqual([
      {
        id: slackTaskId({ channel: DM, ts: asked }),
        origin: { team: 'T0TEAM', channel: DM, ts: asked, root: root.ts },
      },
    ]);
  });

  it('Stop on the root reply cancels the task (the click names the reply, its thread the task), and the root says so', async () => {
    gate = held();
    const task = 'sort the supplier invoices HOLD';
    const asked = await write(`pair: ${task}`);
    const root = await rootFor(asked, task);
    const taskId = slackTaskId({ channel: DM, ts: asked });
    await until('the task working', async () =>
      (await file.service.signoff.engine.getTask(taskId))?.status === 'working' ? true : undefined,
    );
    const res = await postSigned(file.events, click('U0ANN', 'signoff_cancel', 'task', root.ts, asked, DM));
    expect(res.status).toBe(200);
    await until('the task cancelled', async () =>
      (await file.service.signoff.engine.getTask(taskId))?.status === 'cancelled' ? true : undefined,
    );
    await until('the root says cancelled', () =>
      slack.callsOf('chat.update').find((u) => u.ts === root.ts && String(u.text).includes('Cancelled')),
    );
    // Nobody was told the message is no task.
    expect(
      slack.callsOf('chat.postEphemeral').filter((e) => String(e.text).includes('not a signoff task')),
    ).toEqual([]);
    release();
  });

  it('a message Slack sends again (the same event, the same message) starts one task with one root in its thread', async () => {
    gate = Promise.resolve();
    const task = 'plan the offsite agenda';
    const text = `pair: ${task}`;
    const asked = slack.said(DM, 'U0ANN', text);
    const event = directMessage('U0ANN', text, { channel: DM, ts: asked });
    // Slack retries when its ack was late: the same body, the same event id, at once and again.
    const answers = await Promise.all([
      postSigned(file.events, event, { json: true }),
      postSigned(file.events, event, { json: true }),
    ]);
    expect(answers.map((r) => r.status)).toEqual([200, 200]);
    await until('the card', () => cardsUnder(asked)[0], 20_000);
    await file.service.settled();
    expect(posts().filter((p) => p.channel === DM && isRoot(p) && p.text.includes(task))).toHaveLength(1);
    expect((await rootFor(asked, task)).thread_ts).toBe(asked);
    expect(cardsUnder(asked)).toHaveLength(1);
    expect((await tasksUnder(asked)).map((t) => t.id)).toEqual([slackTaskId({ channel: DM, ts: asked })]);
    expect(topLevel()).toEqual([]);
  });

  it('a DM start its process left half done is finished by the sweep from the root it posted in the message’s thread, not a second root', async () => {
    gate = Promise.resolve();
    const task = 'check the travel receipts';
    const asked = slack.said(DM, 'U0ANN', `pair: ${task}`);
    const key = `im:${DM}:${asked}`;
    const start = { team: 'T0TEAM', channel: DM, user: 'U0ANN', workflow: 'pair', text: task, thread: asked };
    await claimRequest(file.service.signoff.db.pool, key, start);
    // The root went out in the message's thread; the process died before recording it.
    const posted = await new WebClient('xoxb-test', { slackApiUrl: slack.url }).chat.postMessage({
      channel: DM,
      thread_ts: asked,
      ...rootMessage({ requester: 'U0ANN', workflow: 'pair', text: task }, 'working'),
      metadata: postMetadata(`start:${key}`),
    });
    expect(await sweepStarts(file.service, slack)).toBe(1);
    await until('the card', () => cardsUnder(asked)[0], 20_000);
    expect(botIn(asked)[0]?.ts).toBe(posted.ts);
    expect(
      slack.messages.filter((m) => m.channel === DM && isRoot(m) && m.text?.includes(task)),
    ).toHaveLength(1);
    expect(await tasksUnder(asked)).toEqual([
      {
        id: slackTaskId({ channel: DM, ts: asked }),
        origin: { team: 'T0TEAM', channel: DM, ts: asked, root: posted.ts },
      },
    ]);
    expect(topLevel()).toEqual([]);
  });

  it('a DM start Slack did not take yet is said in the message’s thread where Ann sees it (an ephemeral in a thread with no reply is not shown)', async () => {
    gate = Promise.resolve();
    const task = 'sort the conference invoices';
    // The root's post fails for now: the start is left to the sweep, and Ann is told so.
    slack.failNext('chat.postMessage', { status: 500 });
    const asked = await write(`pair: ${task}`);
    await until('the sentence', () => answersTo(asked).find((p) => p.text === STARTS_LATER));
    expect(
      slack.callsOf('chat.postEphemeral').filter((e) => e.channel === DM && e.thread_ts === asked),
    ).toEqual([]);
    expect(await sweepStarts(file.service, slack)).toBe(1);
    await until('the card', () => cardsUnder(asked)[0], 20_000);
    expect(topLevel()).toEqual([]);
  });

  it('a DM task waiting for its review is in its owner’s Home tab, and in nobody else’s: Slack says who is in the DM', async () => {
    gate = Promise.resolve();
    const task = 'list the offsite venues';
    const asked = await write(`pair: ${task}`);
    await until('the card', () => cardsUnder(asked)[0], 20_000);
    const home = async (user: string) => {
      const drawn = slack.callsOf('views.publish').length;
      await postSigned(file.events, appHomeOpened(user), { json: true });
      return until(`${user}'s Home tab`, () =>
        slack
          .callsOf('views.publish')
          .slice(drawn)
          .find((c) => c.user_id === user),
      );
    };
    expect(JSON.stringify((await home('U0ANN')).view)).toContain(task);
    expect(JSON.stringify((await home('U0BOB')).view)).not.toContain(task);
    expect(slack.refusals.filter((r) => r.error === 'missing_scope')).toEqual([]);
  });

  it('a thinking status Slack refuses is only logged: the task still reaches its card, once', async () => {
    gate = Promise.resolve();
    const stop = slack.refuse('assistant.threads.setStatus', () => true, 'internal_error');
    try {
      const task = 'rename the ledger columns';
      const asked = await write(`pair: ${task}`);
      await rootFor(asked, task);
      await until('the card', () => cardsUnder(asked)[0], 20_000);
      await file.service.settled();
      expect(slack.refusals.filter((r) => r.method === 'assistant.threads.setStatus').length).toBeGreaterThan(
        0,
      );
      expect(cardsUnder(asked)).toHaveLength(1);
      const events = await file.service.signoff.engine.events(slackTaskId({ channel: DM, ts: asked }));
      expect(events.filter((e) => e.event.type === 'delivery_failed')).toEqual([]);
    } finally {
      stop();
    }
  });

  it('a reply in a DM task’s thread goes where replies in task threads go: "revise:" at the card sends it back', async () => {
    gate = Promise.resolve();
    const task = 'list three names for the ledger service';
    const asked = await write(`pair ${task}`);
    await rootFor(asked, task);
    await until('the first card', () => cardsUnder(asked)[0], 20_000);
    await write('revise: shorter names, please', asked);
    await until('a second card after the revise', () => cardsUnder(asked)[1], 20_000);
    const reviews = await file.service.signoff.engine.reviews(slackTaskId({ channel: DM, ts: asked }));
    expect(reviews[0]?.decision).toMatchObject({ action: 'revise' });
  });

  it('a Stop on the thinking status cancels the task', async () => {
    gate = held();
    const task = 'tidy the vendor list HOLD';
    const asked = await write(`pair: ${task}`);
    await rootFor(asked, task);
    await until('the thinking status', () => (slack.agentView.statusOf(DM, asked) ? true : undefined));
    await postSigned(file.events, agentSessionStopped('U0ANN', DM, asked), { json: true });
    const taskId = slackTaskId({ channel: DM, ts: asked });
    await until('the task cancelled', async () =>
      (await file.service.signoff.engine.getTask(taskId))?.status === 'cancelled' ? true : undefined,
    );
    await until('the status cleared', () => (statusesOf(asked).at(-1) === '' ? true : undefined));
    expect(slack.agentView.statusOf(DM, asked)).toBe('');
    release();
  });

  it('a message that names no workflow is answered with how to start one and which workflows there are', async () => {
    const ts = await write('hello, what can you do?');
    const [answer] = await until('the answer', () => (answersTo(ts).length ? answersTo(ts) : undefined));
    expect(answer?.text).toContain('To start a task, write the workflow and what the agents should do');
    for (const name of available()) expect(answer?.text).toContain(`*${name}*`);
    expect(answer?.text).not.toContain('specialist');
    await file.service.settled();
    expect(answersTo(ts)).toHaveLength(1);
    expect(
      slack.messages.filter(
        (m) => m.channel === DM && !m.thread_ts && m.user === BOT_USER && m.text?.includes('hello'),
      ),
    ).toEqual([]);
  });

  it('a workflow that does not exist, or one kept to other channels, is answered with a sentence saying which there are', async () => {
    const ts = await write('deploy: the new website');
    const [answer] = await until('the answer', () => (answersTo(ts).length ? answersTo(ts) : undefined));
    expect(answer?.text).toBe(
      `There is no workflow "deploy". Try one of: ${file.service.signoff.engine
        .available(DM)
        .map((w) => w.name)
        .join(', ')}.`,
    );
    const off = await write('specialist: reconcile the March invoices');
    const [refused] = await until('the answer', () => (answersTo(off).length ? answersTo(off) : undefined));
    expect(refused?.text).toContain('The workflow "specialist" is switched off');
    const bare = await write('pair');
    const [ask] = await until('the answer', () => (answersTo(bare).length ? answersTo(bare) : undefined));
    expect(ask?.text).toContain("Describe the task after the workflow's name");
  });
});

describe('the fake Slack’s agent view keeps to Slack’s reference', () => {
  const call = async (method: string, body: object) => {
    const res = await fetch(`${slack.url}${method}`, {
      method: 'POST',
      headers: { authorization: 'Bearer xoxb-test', 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return (await res.json()) as { ok: boolean; error?: string };
  };
  const prompt = { title: 'pair', message: 'pair' };

  // Each test's calls come a minute apart: the fake keeps Slack's Tier 4 limit on these methods too.
  beforeEach(() => slack.later(60_000));

  it('refuses prompts without a channel, without prompts, past four, or without a title and a message; drops a thread’s silently', async () => {
    const method = 'assistant.threads.setSuggestedPrompts';
    expect(await call(method, { prompts: [prompt] })).toEqual({ ok: false, error: 'invalid_arguments' });
    expect(await call(method, { channel_id: 'D0BOB' })).toEqual({ ok: false, error: 'invalid_arguments' });
    const five = Array.from({ length: 5 }, () => prompt);
    expect(await call(method, { channel_id: 'D0BOB', prompts: five })).toEqual({
      ok: false,
      error: 'invalid_arguments',
    });
    expect(await call(method, { channel_id: 'D0BOB', prompts: [{ title: 'pair' }] })).toMatchObject({
      ok: false,
    });
    expect(await call(method, { channel_id: 'D0NOBODY', prompts: [prompt] })).toEqual({
      ok: false,
      error: 'channel_not_found',
    });
    slack.later(60_000);
    expect(await call(method, { channel_id: 'D0BOB', thread_ts: '1.000100', prompts: [prompt] })).toEqual({
      ok: true,
    });
    expect(slack.agentView.prompts.get('D0BOB')).toBeUndefined();
    expect(await call(method, { channel_id: 'D0BOB', prompts: [prompt] })).toEqual({ ok: true });
    expect(slack.agentView.prompts.get('D0BOB')?.prompts).toEqual([prompt]);
  });

  it('refuses a status without its thread, in a thread the channel does not have, or with more than ten loading messages', async () => {
    const method = 'assistant.threads.setStatus';
    const ts = slack.said('D0BOB', 'U0BOB', 'hello');
    expect(await call(method, { channel_id: 'D0BOB', status: 'is working' })).toEqual({
      ok: false,
      error: 'invalid_arguments',
    });
    expect(await call(method, { channel_id: 'D0BOB', thread_ts: '9.000100', status: 'is working' })).toEqual({
      ok: false,
      error: 'invalid_thread_ts',
    });
    expect(await call(method, { channel_id: 'D0NOBODY', thread_ts: ts, status: 'is working' })).toEqual({
      ok: false,
      error: 'channel_not_found',
    });
    const eleven = Array.from({ length: 11 }, (_, i) => `step ${i}`);
    expect(
      await call(method, {
        channel_id: 'D0BOB',
        thread_ts: ts,
        status: 'is working',
        loading_messages: eleven,
      }),
    ).toEqual({ ok: false, error: 'invalid_arguments' });
    expect(await call(method, { channel_id: 'D0BOB', thread_ts: ts, status: 'is working' })).toEqual({
      ok: true,
    });
    expect(slack.agentView.statusOf('D0BOB', ts)).toBe('is working');
    // Slack clears it when the app posts in the thread.
    await call('chat.postMessage', { channel: 'D0BOB', thread_ts: ts, text: 'done' });
    expect(slack.agentView.statusOf('D0BOB', ts)).toBe('');
  });

  it('drops a status two minutes after it was set when no message followed, and not before', async () => {
    const method = 'assistant.threads.setStatus';
    const ts = slack.said('D0BOB', 'U0BOB', 'a long one');
    expect(await call(method, { channel_id: 'D0BOB', thread_ts: ts, status: 'is working' })).toEqual({
      ok: true,
    });
    slack.later(119_000);
    expect(slack.agentView.statusOf('D0BOB', ts)).toBe('is working');
    slack.later(1_000);
    expect(slack.agentView.statusOf('D0BOB', ts)).toBe('');
    // Set again, it shows for two more minutes.
    expect(await call(method, { channel_id: 'D0BOB', thread_ts: ts, status: 'is working' })).toEqual({
      ok: true,
    });
    slack.later(90_000);
    expect(slack.agentView.statusOf('D0BOB', ts)).toBe('is working');
  });
});
