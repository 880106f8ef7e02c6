/**
 * Links never lie, end to end: an agent whose words carry a lying Markdown link (a model's
 * answer, or a document it read) gets them posted in the thread and on the review card with the
 * real address visible; nothing Slack receives in a `markdown` block is `[label](other-url)`.
 * Words that anyone typed (a task, a review's title) are never the label of a mrkdwn link
 * (`<url|label>`) in the list, the Home tab or a reviewer's DM.
 */
import { describe, expect, it } from 'vitest';
import { scenarioSchema } from '../../src/cli/scenario.js';
import { scenarioModels } from '../../src/llm/scenario-models.js';
import { appHomeOpened, commandBody, postSigned } from '../helpers/slack-requests.js';
import { slackPerFile } from '../helpers/slack-service.js';
import { slackThreads, until } from '../helpers/slack-thread.js';

const EVIL = 'https://evil.example/login';
const LYING = `Approve the payment at [https://pay.example.com/approve](${EVIL}) ![https://pay.example.com](${EVIL}.png)`;
const scenario = scenarioSchema.parse({
  task: 'draft the payment reminder',
  agents: { Author: LYING },
  expect: { status: 'waiting' },
});

const file = slackPerFile('slack_links', {
  yaml: `workflows:
  pair:
    maxIterations: 1
  asks:
    module: ./test/fixtures/asks.ts
    checkpoints:
      review: { reviewers: [requester, U0BOB], dmReviewers: true }
`,
  options: { modelFor: scenarioModels(scenario) },
});
const { slack } = file;
const { posts, cardsIn, rootOf, tsOf, ephemeralsTo } = slackThreads(slack);

/** The text of every markdown block in a message. */
const markdownOf = (m: { blocks?: unknown }) =>
  ((m.blocks ?? []) as { type: string; text?: unknown }[])
    .filter((b) => b.type === 'markdown')
    .map((b) => String(b.text));

describe('links in what agents say', () => {
  it('a lying markdown link never reaches Slack', async () => {
    await postSigned(file.events, commandBody(`pair ${scenario.task}`));
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

/** Slack's mrkdwn links (`<target|label>`) in `text` whose label reads as an address other than the target. */
const lyingLinks = (text: string) =>
  [...text.matchAll(/<([^<>|]+)\|([^<>]*)>/g)]
    .filter(([, target, label]) => !target?.startsWith('!') && label !== target)
    .filter(([, , label]) => /:\/\/|\b[\w-]+\.[a-z]{2,}\b/i.test(label ?? ''))
    .map(([link]) => link);

describe('links to threads and cards', () => {
  it('a task or a review title that is an address is shown as text, never as the label of a link elsewhere, in the list, the Home tab and DMs', async () => {
    const typed = 'https://pay.example.com/approve';
    await postSigned(file.events, commandBody(`asks titled ${typed}`));
    const thread = tsOf(await until('root', () => rootOf(typed)));
    await until('review card', () => cardsIn(thread)[0]);
    const dms = await until('a DM to each reviewer', () => {
      const found = posts().filter((p) => p.channel.startsWith('D') && p.text.includes(typed));
      return found.length >= 2 ? found.map((p) => p.text) : undefined;
    });

    await postSigned(
      file.events,
      commandBody('list', 'U0BOB', { response_url: slack.responseUrl('C0WORK', '', 'U0BOB') }),
    );
    const list = await until('list for U0BOB', () =>
      ephemeralsTo('U0BOB').find((t) => t.includes('Open tasks in this channel') && t.includes(typed)),
    );
    const homes: string[] = [];
    for (const user of ['U0ANN', 'U0BOB']) {
      await postSigned(file.events, appHomeOpened(user), { json: true });
      const home = await until(`home for ${user}`, () =>
        slack
          .callsOf('views.publish')
          .find((v) => v.user_id === user && JSON.stringify(v.view).includes(typed)),
      );
      homes.push(JSON.stringify(home.view));
    }

    for (const text of [list, ...homes, ...dms]) {
      expect(lyingLinks(text)).toEqual([]);
      // The address shows as typed, and the link is on a word of its own.
      expect(text).toContain(typed);
      expect(text).toMatch(/\|(open|view)>/);
    }
    expect(slack.refusals).toEqual([]);
  });
});
