/**
 * Model faults on the real ChatOpenAI client (one retry, two-second timeout) against the fake
 * OpenAI server, through the fake Slack: a 429 then an answer goes on; a server that keeps failing
 * fails the task with a sentence and Retry, and Retry after recovery continues; a timeout is
 * called a timeout, a body that trickles after its headers included; an answer over the size
 * cap is refused; a redirect hangs up on the call in flight, and nothing of it is posted.
 */
import { describe, expect, it } from 'vitest';
import { MODEL_ANSWER_MAX_BYTES } from '../../src/config/config.js';
import { FakeOpenAI } from '../helpers/fake-openai.js';
import { click, commandBody, postSigned, threadMessage } from '../helpers/slack-requests.js';
import { slackPerFile } from '../helpers/slack-service.js';
import { slackThreads, until } from '../helpers/slack-thread.js';

const model = new FakeOpenAI();
const t = slackPerFile('model_faults', {
  model,
  yaml: 'workflows:\n  pair:\n    maxIterations: 2\n',
  // Two seconds: time enough for a busy host to read an answer up to the size cap.
  env: { OPENAI_MAX_RETRIES: '1', OPENAI_TIMEOUT_SECONDS: '2' },
});
const { slack } = t;
const { rootOf, tsOf, cardsIn, posts } = slackThreads(slack);

const rootSays = (thread: string, words: string) =>
  until(`root says ${words}`, () =>
    slack.callsOf('chat.update').find((u) => u.ts === thread && JSON.stringify(u.blocks).includes(words)),
  );
const start = async (text: string) => {
  await postSigned(t.events, commandBody(`pair ${text}`));
  return tsOf(await until('root', () => rootOf(text)));
};

describe('model faults', () => {
  it('a 429 and then an answer: the step goes on', async () => {
    model.failNext({ status: 429, retryAfter: 1 });
    const thread = await start('plan the retro');
    await until('review card', () => cardsIn(thread)[0], 20_000);
  });

  it('a server that keeps failing: a sentence and Retry; Retry after it recovers continues from the failed step', async () => {
    // The first agent answers; the second agent's call fails, and so does its one retry.
    model.failNext({});
    model.failNext({ status: 500 }, 2);
    const answered = model.calls.length + 1;
    const thread = await start('write the changelog');
    const failed = await rootSays(thread, 'The model service failed on its side');
    expect(JSON.stringify(failed.blocks)).toContain('signoff_retry');
    expect(model.calls.length - answered).toBe(2);
    await postSigned(t.events, click('U0ANN', 'signoff_retry', 'task', thread));
    await until('review card after the retry', () => cardsIn(thread)[0], 20_000);
    // Continued from the failed step: the first agent did not answer again.
    expect(
      posts().filter((p) => p.thread_ts === thread && p.text.startsWith('Here is a short answer')),
    ).toHaveLength(2);
  });

  it('a call that takes too long is reported as a timeout', async () => {
    model.failNext({ delayMs: 5000 }, 2);
    const thread = await start('sort the backlog');
    await rootSays(thread, 'The model service did not answer in time');
  });

  it('a server that sends its headers and then trickles its body is hung up on at the deadline: a timeout, with Retry', async () => {
    model.failNext({});
    model.failNext({ trickleMs: 50 }, 2);
    const thread = await start('tidy the wiki');
    const failed = await rootSays(thread, 'The model service did not answer in time');
    expect(JSON.stringify(failed.blocks)).toContain('signoff_retry');
    const trickled = model.calls.filter((c) => c.answered === 'trickle');
    expect(trickled).toHaveLength(2);
    await until('the server saw both calls hung up on', () =>
      trickled.every((c) => c.hungUp) ? true : undefined,
    );
  });

  it('an answer bigger than the cap is refused, not held: the step fails with a sentence and Retry', async () => {
    model.failNext({});
    model.failNext({ padToBytes: MODEL_ANSWER_MAX_BYTES + (4 << 20) }, 2);
    const thread = await start('summarise the incident');
    const failed = await rootSays(thread, "The model's answer was not in the form this step needs");
    expect(JSON.stringify(failed.blocks)).toContain('signoff_retry');
    expect(cardsIn(thread)).toEqual([]);
  });

  it('a redirect hangs up on the call in flight, and nothing of that call is posted', async () => {
    // The first agent answers; the second agent's call hangs; the requester redirects meanwhile.
    model.failNext({});
    model.failNext({ delayMs: 30_000 });
    const slow = model.calls.length + 1;
    const thread = await start('draft the press release');
    await until('the slow call arrived', () => (model.calls.length > slow ? true : undefined));
    await postSigned(t.events, threadMessage('U0ANN', 'redirect: draft a blog post instead', thread), {
      json: true,
    });
    await until('the server saw the client hang up', () => (model.calls[slow]?.hungUp ? true : undefined));
    await until('review of the new goal', () => cardsIn(thread)[0], 20_000);
    expect(model.calls[slow]?.answered).toBe(0);
  });

  it('a cancel hangs up on the call in flight too, and nothing of it is posted', async () => {
    model.failNext({});
    model.failNext({ delayMs: 30_000 });
    const slow = model.calls.length + 1;
    const thread = await start('draft the all-hands agenda');
    await until('the slow call arrived', () => (model.calls.length > slow ? true : undefined));
    await postSigned(t.events, click('U0ANN', 'signoff_cancel', 'task', thread));
    await until('the server saw the client hang up', () => (model.calls[slow]?.hungUp ? true : undefined));
    await rootSays(thread, 'Cancelled');
    expect(model.calls[slow]?.answered).toBe(0);
    expect(posts().filter((p) => p.thread_ts === thread)).toHaveLength(1); // the first agent only
  });
});
