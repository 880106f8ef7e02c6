/**
 * Links never lie, end to end: an agent whose words carry a lying Markdown link (a model's
 * answer, or a document it read) gets them posted in the thread and on the review card with the
 * real address visible; nothing Slack receives in a `markdown` block is `[label](other-url)`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scenarioModels, scenarioSchema } from '../../src/cli/scenario.js';
import type { SlackService } from '../../src/main.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { FakeSlack } from '../helpers/fake-slack.js';
import { commandBody, postSigned } from '../helpers/slack-requests.js';
import { startTestSlack } from '../helpers/slack-service.js';
import { slackThreads, until } from '../helpers/slack-thread.js';

const EVIL = 'https://evil.example/login';
const LYING = `Approve the payment at [https://pay.example.com/approve](${EVIL}) ![https://pay.example.com](${EVIL}.png)`;
const scenario = scenarioSchema.parse({
  task: 'draft the payment reminder',
  agents: { Author: LYING },
  expect: { status: 'waiting' },
});

let db: TestDatabase;
const slack = new FakeSlack();
const { posts, cardsIn, rootOf, tsOf } = slackThreads(slack);
let service: SlackService;
let events: string;

beforeAll(async () => {
  db = await createTestDatabase('slack_links');
  await slack.start();
  ({ service, events } = await startTestSlack({
    url: db.url,
    slack,
    yaml: 'workflows:\n  pair:\n    maxIterations: 1\n',
    options: { modelFor: scenarioModels(scenario) },
  }));
});
afterAll(async () => {
  await service?.stop();
  await slack.stop();
  await db?.drop();
});

/** The text of every markdown block in a message. */
const markdownOf = (m: { blocks?: unknown }) =>
  ((m.blocks ?? []) as { type: string; text?: unknown }[])
    .filter((b) => b.type === 'markdown')
    .map((b) => String(b.text));

describe('links in what agents say', () => {
  it('a lying markdown link never reaches Slack', async () => {
    await postSigned(events, commandBody(`pair ${scenario.task}`));
    const thread = tsOf(await until('root', () => rootOf(scenario.task)));
    const card = await until('review card', () => cardsIn(thread)[0]);
    const words = posts().find(
      (p) => p.thread_ts === thread && (p as unknown as { username?: string }).username === 'Author',
    );

    // The reader sees where the link goes, in the agent's words and on the card people act on.
    const shown = `https://pay.example.com/approve (${EVIL})`;
    expect(markdownOf(words ?? {}).join('')).toContain(shown);
    expect(markdownOf(card).join('')).toContain(shown);

    // Nothing Slack received in a markdown block links to the evil address under another label.
    const everything = [...slack.callsOf('chat.postMessage'), ...slack.callsOf('chat.update')].flatMap(
      markdownOf,
    );
    expect(everything.length).toBeGreaterThanOrEqual(2);
    for (const md of everything) expect(md).not.toMatch(/(^|[^\\])\]\(https:\/\/evil\.example/);
  });
});
