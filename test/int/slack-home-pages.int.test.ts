/**
 * 106 reviews waiting for one person (issue 19, item 9): the Home tab and `/signoff list` count
 * them all, name each one's task and channel, and page through to the newest; reviews in a
 * channel the person is not in, or for someone else, are never shown nor counted.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { BOT_USER } from '../helpers/fake-slack.js';
import { seededRootTs, seedWaiting } from '../helpers/seed-reviews.js';
import { appHomeOpened, commandBody, homeClick, postSigned } from '../helpers/slack-requests.js';
import { slackPerFile } from '../helpers/slack-service.js';
import { slackThreads, until } from '../helpers/slack-thread.js';

const file = slackPerFile('slack_home_pages', {
  env: { SIGNOFF_ROLE: 'web' },
  workspace: (slack) => {
    slack.members = { G0PRIV: ['U0BOT', 'U0ANN', 'U0CAT'] };
  },
});
const { slack } = file;
const { ephemeralsTo } = slackThreads(slack);

beforeAll(async () => {
  const pool = file.service.signoff.db.pool;
  await seedWaiting(pool, { prefix: 'for bob', n: 106, channel: 'C0WORK', reviewers: ['U0BOB'] });
  // Newer than Bob's, and not his to see or decide.
  await seedWaiting(pool, {
    prefix: 'secret',
    n: 15,
    channel: 'G0PRIV',
    reviewers: ['U0BOB'],
    ageSeconds: 5,
  });
  await seedWaiting(pool, {
    prefix: 'for cat',
    n: 15,
    channel: 'C0WORK',
    reviewers: ['U0CAT'],
    ageSeconds: 5,
  });
  // Their root messages, as Slack has them: the links to their threads come from Slack.
  for (const [channel, n] of [
    ['C0WORK', 106],
    ['G0PRIV', 15],
  ] as const)
    for (let i = 1; i <= n; i += 1)
      slack.messages.push({ channel, ts: seededRootTs(i), text: 'a task', user: BOT_USER });
});

type Block = {
  type: string;
  block_id?: string;
  text?: { text: string };
  elements?: { type: string; text?: string | { text: string }; action_id?: string; value?: string }[];
};

/** The next Home tab published for `user` after `request` is sent. */
async function homeAfter(user: string, request: string): Promise<Block[]> {
  const before = slack.callsOf('views.publish').filter((v) => v.user_id === user).length;
  expect((await postSigned(file.events, request, { json: request.startsWith('{') })).status).toBe(200);
  const call = await until(
    `home for ${user}`,
    () => slack.callsOf('views.publish').filter((v) => v.user_id === user)[before],
  );
  return (call.view as { blocks: Block[] }).blocks;
}

/** The reviews a Home page lists (section lines with a raised hand), where it stands, its buttons. */
function pageOf(blocks: Block[]) {
  const lines = blocks.filter((b) => b.type === 'section' && b.text?.text.startsWith(':raised_hand:'));
  const context = blocks.find((b) => b.type === 'context')?.elements?.[0]?.text as string | undefined;
  const buttons = blocks.find((b) => b.type === 'actions' && b.block_id === 'home_pages')?.elements ?? [];
  return {
    header: blocks[0]?.text?.text,
    lines: lines.map((b) => b.text?.text ?? ''),
    // The task's words as text (never a link's label), the link Slack gave to its thread on its
    // own (missing only when Slack did not give it in time).
    tasks: lines.map(
      (b) => /^:raised_hand: \*(for bob \d+)\*(?: · <[^|>]+\|open>)?/.exec(b.text?.text ?? '')?.[1],
    ),
    where: context,
    button: (id: string) => buttons.find((e) => e.action_id === id),
  };
}

describe('106 reviews waiting for one person', () => {
  it('the Home tab counts 106, names each entry’s task and channel, pages with More to the newest, and Back to the first returns', async () => {
    let page = pageOf(await homeAfter('U0BOB', appHomeOpened('U0BOB')));
    expect(page.header).toBe('Waiting for your review (106)');
    expect(page.where).toBe('1–20 of 106, oldest first, and 86 more.');
    expect(page.lines[0]).toContain('<#C0WORK>');
    // The title names its cycle: no "(round 1)" after it.
    expect(page.lines[0]).toMatch(/ · Review the agents' work \(cycle 1\)(\n|$)/);
    const seen = [...page.tasks];
    const where = [page.where];
    while (page.button('signoff_home_more')) {
      const next = page.button('signoff_home_more')?.value as string;
      page = pageOf(await homeAfter('U0BOB', homeClick('U0BOB', 'signoff_home_more', next)));
      expect(page.header).toBe('Waiting for your review (106)');
      expect(page.lines.every((l) => l.includes('<#C0WORK>'))).toBe(true);
      seen.push(...page.tasks);
      where.push(page.where);
    }
    expect(seen).toEqual(Array.from({ length: 106 }, (_, i) => `for bob ${i + 1}`));
    expect(where).toEqual([
      '1–20 of 106, oldest first, and 86 more.',
      '21–40 of 106, oldest first, and 66 more.',
      '41–60 of 106, oldest first, and 46 more.',
      '61–80 of 106, oldest first, and 26 more.',
      '81–100 of 106, oldest first, and 6 more.',
      '101–106 of 106, oldest first.',
    ]);
    expect(page.button('signoff_home_first')).toBeDefined();

    const first = pageOf(await homeAfter('U0BOB', homeClick('U0BOB', 'signoff_home_first', 'first')));
    expect(first.tasks[0]).toBe('for bob 1');
    expect(first.button('signoff_home_first')).toBeUndefined();
    const everything = JSON.stringify(slack.callsOf('views.publish'));
    expect(everything).not.toContain('secret');
    expect(everything).not.toContain('for cat');
    // Every tab was within what Slack takes (100 blocks, Block Kit's limits).
    expect(slack.refusals).toEqual([]);
  });

  it('a member of the private channel counts its reviews only where she may decide them', async () => {
    const cat = pageOf(await homeAfter('U0CAT', appHomeOpened('U0CAT')));
    // Her own 15 in C0WORK; the private channel's are Bob's to decide, not hers.
    expect(cat.header).toBe('Waiting for your review (15)');
    expect(cat.where).toBe('1–15 of 15, oldest first.');
    expect(cat.button('signoff_home_more')).toBeUndefined();
  });

  it('/signoff list counts the 106, names the ten oldest with task and channel, and says where the rest are', async () => {
    await postSigned(
      file.events,
      commandBody('list', 'U0BOB', { response_url: slack.responseUrl('C0WORK', '', 'U0BOB') }),
    );
    const list = await until('list for U0BOB', () =>
      ephemeralsTo('U0BOB').find((t) => t.includes('Waiting for your review')),
    );
    expect(list).toContain('*Waiting for your review* (106, oldest first):');
    // The reviews' lines, above the channel's open tasks.
    const lines =
      list
        .split('\n\n')[0]
        ?.split('\n')
        .filter((l) => l.startsWith('• ')) ?? [];
    expect(lines).toHaveLength(10);
    expect(lines.every((l) => l.includes('<#C0WORK>'))).toBe(true);
    expect(lines[0]).toMatch(/\*for bob 1\*(?: · <[^|>]+\|open>)? · <#C0WORK>/);
    expect(list).toContain("…and 96 more: signoff's Home tab (under Apps) pages through them all.");
    expect(list).not.toContain('secret');
  });
});
