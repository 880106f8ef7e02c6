/**
 * Slack's limits on streams (issue 22): starting and stopping a stream are Tier 2, "at least 20
 * requests per minute" per workspace (the fake counts 20 in any minute, with 429s past them, as
 * Slack would). Thirty tasks started at once: the first twenty to speak stream, the rest have
 * their words posted when saved, as without streaming; Slack never has to say 429, and every
 * task's words are shown, once.
 */
import { describe, expect, it } from 'vitest';
import { FakeOpenAI } from '../helpers/fake-openai.js';
import { commandBody, postSigned } from '../helpers/slack-requests.js';
import { slackPerFile } from '../helpers/slack-service.js';
import { shownIn } from '../helpers/slack-shown.js';
import { slackThreads, until } from '../helpers/slack-thread.js';

const TASKS = 30;
const model = new FakeOpenAI({
  tokenDelayMs: 30,
  reply: (_, n) => `Answer ${n}: one two three four five six seven eight end.`,
});
const YAML = `starts: { perPerson: 50, perChannel: 50 }
workflows:
  pair:
    maxIterations: 1
`;
const file = slackPerFile('slack_stream_limits', { model, yaml: YAML, env: { SIGNOFF_WORKERS: '4' } });
const { slack } = file;
const { rootOf, tsOf, cardsIn } = slackThreads(slack);

describe('thirty tasks started at once', () => {
  it('the first twenty to speak stream, the other ten are posted when saved; no 429, every task’s words once', async () => {
    const texts = Array.from({ length: TASKS }, (_, i) => `limits task ${i}`);
    // Ten channels, so that the roots (a post a second per channel) are not what paces them.
    await Promise.all(
      texts.map((text, i) =>
        postSigned(file.events, commandBody(`pair ${text}`, 'U0ANN', { channel_id: `C0LIM${i % 10}` })),
      ),
    );
    const threads = await Promise.all(texts.map((t) => until('root', () => rootOf(t), 60_000).then(tsOf)));
    for (const thread of threads) await until('card', () => cardsIn(thread)[0], 90_000);

    expect(slack.limited.filter((l) => l.method.startsWith('chat.'))).toEqual([]);
    const starts = slack.calls.filter((c) => c.method === 'chat.startStream' && !c.args.failed);
    const first = starts[0]?.at ?? 0;
    const inFirstMinute = starts.filter((c) => (c.at ?? 0) < first + 60_000);
    expect(inFirstMinute).toHaveLength(20);
    // Each stream is stopped once, by whichever of its run and the hand-over came first: a stop
    // spends one of the same twenty a minute.
    const stops = slack.calls.filter((c) => c.method === 'chat.stopStream').map((c) => c.args.ts);
    expect(stops.length).toBe(new Set(stops).size);
    const streamed = new Set(starts.map((c) => c.args.thread_ts));
    const isWords = (text: unknown) => typeof text === 'string' && /Answer \d+: one/.test(text);
    // The others' words were posted, each after the twentieth stream had begun: the first twenty
    // to speak took the budget.
    const posted = slack.calls.filter(
      (c) =>
        c.method === 'chat.postMessage' &&
        !c.args.failed &&
        isWords(c.args.text) &&
        !streamed.has(c.args.thread_ts),
    );
    expect(new Set(posted.map((c) => c.args.thread_ts)).size).toBe(TASKS - streamed.size);
    const twentieth = inFirstMinute.at(-1)?.at ?? 0;
    for (const p of posted) expect(p.at).toBeGreaterThanOrEqual(twentieth);
    for (const thread of threads) {
      const said = shownIn(slack, thread).filter(
        (m) => /Answer \d+: one/.test(m.content) && !m.content.includes('"type":"actions"'),
      );
      expect(said, thread).toHaveLength(1);
    }
  }, 150_000);
});
