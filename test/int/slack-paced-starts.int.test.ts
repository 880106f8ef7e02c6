/**
 * Slack takes about one post a second in a channel (a short burst first). Eight people starting a
 * task in one channel at once need more than that: eight roots, then each task's words and card.
 * signoff paces them itself, the start's root post with delivery's cards on one budget per channel,
 * so Slack (the fake, keeping Slack's published limits) never has to answer 429, and every task
 * ends with its card; nobody is told their task starts later.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SlackService } from '../../src/main.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { FakeSlack, PUBLISHED_LIMITS } from '../helpers/fake-slack.js';
import { commandBody, postSigned } from '../helpers/slack-requests.js';
import { startTestSlack } from '../helpers/slack-service.js';
import { slackThreads, until } from '../helpers/slack-thread.js';

let db: TestDatabase;
const slack = new FakeSlack();
const { cardsIn, ephemeralsTo, posts, tsOf } = slackThreads(slack);
let service: SlackService;
let events: string;

beforeAll(async () => {
  db = await createTestDatabase('slack_paced_starts');
  await slack.start();
  ({ service, events } = await startTestSlack({
    url: db.url,
    slack,
    yaml: 'workflows:\n  pair:\n    maxIterations: 1\n',
  }));
});
afterAll(async () => {
  await service?.stop();
  await slack.stop();
  await db?.drop();
});

const STARTS = 8;
const PEOPLE = ['U0ANN', 'U0BOB', 'U0CAT', 'U0DAN'];

describe('a burst of starts in one channel, past what Slack takes', () => {
  it('eight starts at once in one channel: paced by signoff, zero 429s from Slack, one root and one card each, nobody told it starts later', async () => {
    const burst = PUBLISHED_LIMITS['chat.postMessage']?.burst ?? 0;
    expect(STARTS).toBeGreaterThan(burst);
    const texts = Array.from({ length: STARTS }, (_, i) => `paced task number ${i + 1}`);
    const answers = await Promise.all(
      texts.map((text, i) => {
        const user = PEOPLE[i % PEOPLE.length] as string;
        const url = slack.responseUrl('C0WORK', '', user);
        return postSigned(events, commandBody(`pair ${text}`, user, { response_url: url }));
      }),
    );
    expect(answers.map((a) => a.status)).toEqual(texts.map(() => 200));

    const roots = () => posts().filter((p) => p.channel === 'C0WORK' && !p.thread_ts);
    const rootOf = (text: string) => roots().find((p) => p.text.includes(text));
    const cards = await until(
      'every task’s card',
      () => {
        const found = texts.map((text) => {
          const root = rootOf(text);
          return root ? cardsIn(tsOf(root))[0] : undefined;
        });
        return found.every(Boolean) ? found : undefined;
      },
      90_000,
    );
    expect(cards).toHaveLength(STARTS);
    // Slack never had to refuse a call for its rate: no 429, on any method.
    expect(slack.limited).toEqual([]);
    // One root per start, and nobody was told their start would come later.
    for (const text of texts) expect(roots().filter((p) => p.text.includes(text))).toHaveLength(1);
    for (const user of PEOPLE)
      expect(ephemeralsTo(user).filter((t) => t.includes('could not be started just now'))).toEqual([]);
    // Paced: more posts went into the channel than its burst, never faster than Slack takes them.
    const times = slack.calls
      .filter((c) => c.method === 'chat.postMessage' && c.args.channel === 'C0WORK')
      .map((c) => c.at ?? 0);
    expect(times.length).toBeGreaterThan(2 * STARTS);
    const spanS = ((times.at(-1) ?? 0) - (times[0] ?? 0)) / 1000;
    expect(times.length).toBeLessThanOrEqual(burst + Math.ceil(spanS));
  }, 120_000);
});
