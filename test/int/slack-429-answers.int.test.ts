/**
 * A 429 from Slack on what only tells or shows a person something: Slack did not carry the call
 * out, so it is not the end of it. A private sentence (chat.postEphemeral), or a reply's question
 * with its buttons, is sent again after the Retry-After; a Home tab (views.publish) is drawn again after it, from what is current then, and
 * the openings meanwhile make one draw, not one each, and a service that stops drops that redraw.
 * Through Bolt's HTTP receiver, a real engine
 * and Postgres, and the fake Slack Web API answering 429 with Retry-After as Slack does.
 */
import { describe, expect, it, vi } from 'vitest';
import { appHomeOpened, commandBody, postSigned, threadMessage } from '../helpers/slack-requests.js';
import { slackPerFile, startTestSlack } from '../helpers/slack-service.js';
import { slackThreads, until } from '../helpers/slack-thread.js';

const YAML = `workflows:
  pair:
    maxIterations: 1
    checkpoints:
      review: { reviewers: [U0BOB] }
`;

const file = slackPerFile('slack_429_answers', { yaml: YAML });
const { slack } = file;
const { cardsIn, rootOf, tsOf } = slackThreads(slack);

let n = 0;
async function startTask(ask: string) {
  const text = `${ask} ${++n}`;
  expect((await postSigned(file.events, commandBody(`pair ${text}`, 'U0ANN'))).status).toBe(200);
  const thread = tsOf(await until('root message', () => rootOf(text)));
  await until('review card', () => cardsIn(thread)[0], 20_000);
  return { text, thread };
}

/** The Home tabs Slack published for `user` (not the calls it answered 429). */
const homesOf = (user: string) =>
  slack.callsOf('views.publish').filter((v) => v.user_id === user && !v.failed);
const publishCallsOf = (user: string) => slack.callsOf('views.publish').filter((v) => v.user_id === user);

describe('a 429 on what tells or shows a person something', () => {
  it('a 429 on chat.postEphemeral still ends with the person seeing the sentence (a thread reply, which has no response URL)', async () => {
    const { thread } = await startTask('summarise the vendor contract');
    // U0CAT is no reviewer; Slack answers the first private sentence 429, Retry-After 1 s.
    slack.failNext('chat.postEphemeral', { status: 429, retryAfter: 1 });
    await postSigned(file.events, threadMessage('U0CAT', 'revise: add the penalties', thread), {
      json: true,
    });
    const shown = await until('the sentence U0CAT sees', () =>
      slack.ephemerals.find((e) => e.user === 'U0CAT' && e.thread_ts === thread),
    );
    expect(shown.text).toContain('you are not a reviewer for this step');
    // The first try was the one Slack answered 429.
    const tries = slack.callsOf('chat.postEphemeral').filter((c) => c.user === 'U0CAT');
    expect(tries.map((c) => Boolean(c.failed))).toEqual([true, false]);
  });

  it("a 429 on chat.postEphemeral still ends with a reply's author seeing the question about it, buttons and all", async () => {
    const { thread } = await startTask('tidy the release notes');
    // U0BOB reviews; a plain reply (not addressed to the bot) gets a private question.
    slack.failNext('chat.postEphemeral', { status: 429, retryAfter: 1 });
    await postSigned(file.events, threadMessage('U0BOB', 'the dates look off', thread), { json: true });
    const shown = await until('the question U0BOB sees', () =>
      slack.ephemerals.find((e) => e.user === 'U0BOB' && e.thread_ts === thread),
    );
    expect(shown.text).toContain('waits for a decision');
    // The question itself: the reply quoted, and the buttons that answer it.
    const blocks = JSON.stringify(shown.blocks);
    expect(blocks).toContain('the dates look off');
    expect(blocks).toContain('"action_id":"signoff_reply_revise"');
    const tries = slack
      .callsOf('chat.postEphemeral')
      .filter((c) => c.user === 'U0BOB' && c.thread_ts === thread);
    expect(tries.map((c) => Boolean(c.failed))).toEqual([true, false]);
  });

  it('a 429 on views.publish still ends with the Home showing the current reviews; openings meanwhile make one call, not one each', async () => {
    const first = await startTask('check the invoice totals');
    const undo = slack.rateLimit('views.publish', 1);
    let second: { text: string } | undefined;
    try {
      const calls = publishCallsOf('U0BOB').length;
      for (let i = 0; i < 3; i++) await postSigned(file.events, appHomeOpened('U0BOB'), { json: true });
      await file.service.settled();
      // One draw under way (answered 429); the other openings wait for it instead of calling too.
      expect(publishCallsOf('U0BOB').length - calls).toBe(1);
      // A review that starts waiting after the 429: the tab drawn later shows it too.
      second = await startTask('check the credit notes');
    } finally {
      undo();
    }
    const home = await until('the Home tab drawn after the 429', () => homesOf('U0BOB').at(-1), 20_000);
    const shown = JSON.stringify(home.view);
    expect(shown).toContain(first.text);
    expect(shown).toContain(second?.text);
  });
});

describe('a service that stops', () => {
  it('drops a Home tab redraw waiting out a 429: service.stop() clears its timer (wired through to home-refresh)', async () => {
    // A web process of its own on the same database, to stop here (the file's goes on).
    const web = await startTestSlack({ url: file.db.url, slack, yaml: YAML, env: { SIGNOFF_ROLE: 'web' } });
    const set = vi.spyOn(globalThis, 'setTimeout');
    const clear = vi.spyOn(globalThis, 'clearTimeout');
    // Slack says: no views.publish for 7 s (a wait nothing else here sets a timer for).
    const undo = slack.rateLimit('views.publish', 7);
    try {
      await postSigned(web.events, appHomeOpened('U0DAN'), { json: true });
      const redraw = await until('the redraw waiting out the 429', () => {
        const at = set.mock.calls.findIndex((c) => c[1] === 7000);
        return at < 0 ? undefined : set.mock.results[at]?.value;
      });
      expect(clear).not.toHaveBeenCalledWith(redraw);
      await web.service.stop();
      expect(clear).toHaveBeenCalledWith(redraw);
    } finally {
      undo();
      set.mockRestore();
      clear.mockRestore();
    }
  });
});
