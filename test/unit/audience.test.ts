/** Who may see a task: its channel's members, read from Slack page by page, kept a minute. */
import { WebClient } from '@slack/web-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Task } from '../../src/engine/types.js';
import { createLogger } from '../../src/logger.js';
import { createAudience } from '../../src/slack/shared/audience.js';
import type { UserChannels } from '../../src/slack/shared/user-channels.js';
import { FakeSlack } from '../helpers/fake-slack.js';

const slack = new FakeSlack();
beforeAll(() => slack.start());
afterAll(() => slack.stop());

const taskIn = (channel: string) => ({ origin: { team: 'T0TEAM', channel, ts: '1.0' } }) as unknown as Task;

function audience(userChannels?: UserChannels) {
  let now = 0;
  const client = new WebClient('xoxb-test', {
    slackApiUrl: slack.url,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
  });
  const a = createAudience({ client, logger: createLogger('silent'), now: () => now, userChannels });
  return {
    a,
    later: (ms: number) => {
      // Slack's clock moves with the test's: its rate limits refill as they would in that time.
      now += ms;
      slack.later(ms);
    },
  };
}
const asked = () => slack.callsOf('conversations.members').length;

describe('audience', () => {
  it('reads every page of a large channel, 1,000 at a time (Slack’s most), and asks Slack once a minute per channel', async () => {
    const many = Array.from({ length: 2450 }, (_, i) => `U${String(i).padStart(4, '0')}`);
    slack.members = { C0BIG: many, G0PRIV: ['U0ANN'] };
    const { a, later } = audience();
    const before = asked();
    expect(await a.sees('U2449', taskIn('C0BIG'))).toBe(true);
    expect(asked() - before).toBe(3);
    expect(await a.sees('U0ANN', taskIn('C0BIG'))).toBe(false);
    expect(asked() - before).toBe(3);
    const items = [
      { task: taskIn('G0PRIV'), n: 1 },
      { task: taskIn('C0BIG'), n: 2 },
    ];
    expect((await a.visible('U0ANN', items)).map((i) => i.n)).toEqual([1]);
    later(60_000);
    slack.members = { G0PRIV: [] };
    expect(await a.sees('U0ANN', taskIn('G0PRIV'))).toBe(false);
  });

  it("asks a DM's members once a day, not once a minute: a DM is the app and one person for good", async () => {
    slack.members = { D0ANN: ['U0ANN', 'U0BOT'], C0WORK: ['U0ANN'] };
    const { a, later } = audience();
    const before = asked();
    expect((await a.among('U0ANN', ['D0ANN', 'C0WORK'])).seen).toEqual(['D0ANN', 'C0WORK']);
    const first = asked() - before;
    later(30 * 60_000);
    expect(await a.sees('U0ANN', taskIn('D0ANN'))).toBe(true);
    expect(await a.sees('U0BOB', taskIn('D0ANN'))).toBe(false);
    expect(await a.sees('U0ANN', taskIn('C0WORK'))).toBe(true);
    // Half an hour on: the channel was asked again, the DM was not.
    expect(asked() - before).toBe(first + 1);
    later(24 * 60 * 60_000);
    expect(await a.sees('U0ANN', taskIn('D0ANN'))).toBe(true);
    expect(asked() - before).toBe(first + 2);
  });

  it('shows nothing when Slack cannot say, and asks again next time', async () => {
    slack.members = { G0PRIV: ['U0ANN'] };
    const { a } = audience();
    slack.failNext('conversations.members', { error: 'fetch_members_failed' });
    expect(await a.sees('U0ANN', taskIn('G0PRIV'))).toBe(false);
    await expect(a.membersOf(taskIn('G0PRIV'))).resolves.toEqual(new Set(['U0ANN']));
    expect(await a.sees('U0ANN', { origin: {} } as unknown as Task)).toBe(false);
  });

  it('which of many channels someone is in: one answer about the person, no channel asked', async () => {
    const places = Array.from({ length: 60 }, (_, i) => `C3${String(i).padStart(3, '0')}`);
    const theirs = new Set(places.filter((_, i) => i % 3 === 0));
    const { a } = audience({ of: async () => theirs });
    const before = asked();
    const where = await a.among('U0ANN', places);
    expect(where).toEqual({ seen: [...theirs], unchecked: [] });
    expect(asked() - before).toBe(0);
  });

  it('when that answer fails, each channel is asked; those Slack does not answer (its 429s) are named unchecked, never taken for no', async () => {
    const places = Array.from({ length: 50 }, (_, i) => `C4${String(i).padStart(3, '0')}`);
    slack.members = {};
    const { a } = audience({ of: async () => Promise.reject(new Error('ratelimited')) });
    const where = await a.among('U0ANN', places);
    // Slack's Tier 4 burst answers a few at once; the rest are 429s.
    expect(where.seen.length).toBeGreaterThan(0);
    expect(where.unchecked.length).toBeGreaterThan(0);
    expect(where.seen.length + where.unchecked.length).toBe(50);
    expect(slack.limited.some((l) => l.method === 'conversations.members')).toBe(true);
  });
});
