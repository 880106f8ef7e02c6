/**
 * Reviews waiting in sixty channels, under Slack's published limits (the fake's default): the
 * Home tab and `/signoff list` list and count every review the person may decide, from one
 * question about the person (users.conversations) instead of one per channel (conversations.members,
 * Tier 4: most went unanswered on a first open, and the tab showed a confident partial count).
 * When Slack does not answer (a channel, a user group), they say so instead of a count.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { BOT_USER } from '../helpers/fake-slack.js';
import { seededRootTs, seedWaiting } from '../helpers/seed-reviews.js';
import { appHomeOpened, commandBody, postSigned } from '../helpers/slack-requests.js';
import { slackPerFile } from '../helpers/slack-service.js';
import { slackThreads, until } from '../helpers/slack-thread.js';

const CHANNELS = Array.from({ length: 60 }, (_, i) => `C5${String(i).padStart(3, '0')}`);

const file = slackPerFile('slack_home_many_channels', {
  env: { SIGNOFF_ROLE: 'web' },
  workspace: (slack) => {
    slack.channels = ['C0WORK', ...CHANNELS];
    slack.members = { G0PRIV: [BOT_USER, 'U0ANN'] };
  },
});
const { slack } = file;
const { ephemeralsTo } = slackThreads(slack);

beforeAll(async () => {
  const pool = file.service.signoff.db.pool;
  for (const [c, channel] of CHANNELS.entries()) {
    await seedWaiting(pool, {
      prefix: `many ${c}`,
      n: 2,
      channel,
      reviewers: ['U0BOB', 'U0CAT'],
      ageSeconds: 1000 - c * 2,
    });
    for (const i of [1, 2])
      slack.messages.push({ channel, ts: seededRootTs(i), text: 'a task', user: BOT_USER });
  }
  // A private channel Bob and Cat are not in: never shown nor counted.
  await seedWaiting(pool, { prefix: 'secret', n: 5, channel: 'G0PRIV', reviewers: ['U0BOB', 'U0CAT'] });
});

type Block = { type: string; text?: { text: string }; elements?: { text?: string }[] };

/** The next Home tab published for `user`: its header, the sentence under it, where the page stands. */
async function home(user: string) {
  const before = slack.callsOf('views.publish').filter((v) => v.user_id === user).length;
  expect((await postSigned(file.events, appHomeOpened(user), { json: true })).status).toBe(200);
  const call = await until(
    `home for ${user}`,
    () => slack.callsOf('views.publish').filter((v) => v.user_id === user)[before],
  );
  const blocks = (call.view as { blocks: Block[] }).blocks;
  return {
    header: blocks[0]?.text?.text,
    warning: blocks.find((b) => b.type === 'section' && b.text?.text.startsWith(':warning:'))?.text?.text,
    where: blocks.find((b) => b.type === 'context')?.elements?.[0]?.text,
    all: JSON.stringify(blocks),
  };
}

/** What `/signoff list` in #work answers `user`. */
async function list(user: string): Promise<string> {
  const before = ephemeralsTo(user).length;
  await postSigned(
    file.events,
    commandBody('list', user, { response_url: slack.responseUrl('C0WORK', '', user) }),
  );
  return until(`list for ${user}`, () =>
    ephemeralsTo(user)
      .slice(before)
      .find((t) => t.includes('Waiting for your review')),
  );
}

describe('reviews waiting in sixty channels', () => {
  it('the Home tab and /signoff list count all 120 on the first open, from one users.conversations, under Slack’s limits', async () => {
    const bob = await home('U0BOB');
    expect(bob.header).toBe('Waiting for your review (120)');
    expect(bob.where).toBe('1–20 of 120, oldest first, and 100 more.');
    expect(bob.warning).toBeUndefined();
    expect(bob.all).not.toContain('secret');
    const text = await list('U0BOB');
    expect(text).toContain('*Waiting for your review* (120, oldest first):');
    expect(text).not.toContain(':warning:');
    // One question about Bob, kept (in Postgres) for his list too; no channel asked one by one.
    expect(slack.callsOf('users.conversations').filter((c) => c.user === 'U0BOB')).toHaveLength(1);
    expect(slack.callsOf('conversations.members')).toHaveLength(0);
    expect(slack.limited).toEqual([]);
  });

  it('when Slack will not say which channels Cat is in (429), her Home and list say some channels could not be checked, and count "at least"; once Slack answers again all 120 are there', async () => {
    const undo = slack.rateLimit('users.conversations', 1);
    try {
      const cat = await home('U0CAT');
      expect(cat.warning).toMatch(
        /^:warning: Some channels could not be checked just now \(Slack did not answer for \d+ of them\), so reviews waiting for you may be missing from this list and its count; open this again in a minute\.$/,
      );
      expect(cat.header).toMatch(/^Waiting for your review( \(at least \d+\))?$/);
      expect(cat.header).not.toContain('120');
      const text = await list('U0CAT');
      expect(text).toContain('Some channels could not be checked just now');
      expect(text).toMatch(/\*Waiting for your review\*(: none found\.| \(at least \d+, oldest first\):)/);
    } finally {
      undo();
    }
    // Slack answers again (after the Retry-After its 429 gave): every review is back, no sentence.
    const back = await until('Cat’s full Home', async () => {
      const cat = await home('U0CAT');
      return cat.header === 'Waiting for your review (120)' ? cat : undefined;
    });
    expect(back.warning).toBeUndefined();
  });

  it('a user group Slack does not answer for is named, and its reviews are not passed off as none', async () => {
    const pool = file.service.signoff.db.pool;
    slack.groups = { S0LEADS: ['U0DAN'] };
    await seedWaiting(pool, { prefix: 'leads', n: 3, channel: 'C5000', reviewers: ['S0LEADS'] });
    const undo = slack.rateLimit('usergroups.users.list', 1);
    try {
      const dan = await home('U0DAN');
      expect(dan.warning).toBe(
        ':warning: Slack did not say just now whether you are in <!subteam^S0LEADS>, so reviews waiting for you may be missing from this list and its count; open this again in a minute.',
      );
      expect(dan.all).not.toContain('Nothing is waiting for you.');
      expect(await list('U0DAN')).toContain('*Waiting for your review*: none found.');
    } finally {
      undo();
    }
    const back = await until('Dan’s Home with his group’s reviews', async () => {
      const dan = await home('U0DAN');
      return dan.header === 'Waiting for your review (3)' ? dan : undefined;
    });
    expect(back.warning).toBeUndefined();
  });
});
