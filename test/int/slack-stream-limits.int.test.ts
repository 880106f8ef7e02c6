/**
 * Slack's limits on streams (issue 22): starting and stopping a stream are Tier 2 (about 20 a
 * minute per workspace, a short burst allowed; the fake holds to that as Slack would, with 429s).
 * Thirty tasks started at once: as many stream as the budget allows, the rest have their words
 * posted when saved, as without streaming; Slack never has to say 429, and every task's words
 * are shown, once.
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
  it('streams as many as Tier 2 allows, posts the rest, meets no 429, and shows every task’s words once', async () => {
    const began = Date.now();
    const texts = Array.from({ length: TASKS }, (_, i) => `limits task ${i}`);
    // Ten channels, so that the roots (a post a second per channel) are not what paces them.
    await Promise.all(
      texts.map((text, i) =>
        postSigned(file.events, commandBody(`pair ${text}`, 'U0ANN', { channel_id: `C0LIM${i % 10}` })),
      ),
    );
    const threads = await Promise.all(texts.map((t) => until('root', () => rootOf(t), 60_000).then(tsOf)));
    for (const thread of threads) await until('card', () => cardsIn(thread)[0], 90_000);
    const seconds = (Date.now() - began) / 1000;

    expect(slack.limited.filter((l) => l.method.startsWith('chat.'))).toEqual([]);
    const starts = slack.callsOf('chat.startStream').filter((c) => !c.failed);
    // Within the budget: a burst of three, then one every three seconds.
    expect(starts.length).toBeLessThanOrEqual(3 + Math.ceil(seconds / 3));
    expect(starts.length).toBeGreaterThan(0);
    expect(starts.length).toBeLessThan(TASKS);
    for (const thread of threads) {
      const said = shownIn(slack, thread).filter(
        (m) => /Answer \d+: one/.test(m.content) && !m.content.includes('"type":"actions"'),
      );
      expect(said, thread).toHaveLength(1);
    }
  }, 150_000);
});
