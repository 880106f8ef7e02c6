/** Who may see a task: its channel's members, read from Slack page by page, kept a minute. */
import { WebClient } from '@slack/web-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Task } from '../../src/engine/types.js';
import { createLogger } from '../../src/logger.js';
import { createAudience } from '../../src/slack/shared/audience.js';
import { FakeSlack } from '../helpers/fake-slack.js';

const slack = new FakeSlack();
beforeAll(() => slack.start());
afterAll(() => slack.stop());

const taskIn = (channel: string) => ({ origin: { team: 'T0TEAM', channel, ts: '1.0' } }) as unknown as Task;

function audience() {
  let now = 0;
  const client = new WebClient('xoxb-test', { slackApiUrl: slack.url, retryConfig: { retries: 0 } });
  const a = createAudience({ client, logger: createLogger('silent'), now: () => now });
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
  it('reads every page of a large channel, and asks Slack once a minute per channel', async () => {
    const many = Array.from({ length: 450 }, (_, i) => `U${String(i).padStart(4, '0')}`);
    slack.members = { C0BIG: many, G0PRIV: ['U0ANN'] };
    const { a, later } = audience();
    const before = asked();
    expect(await a.sees('U0449', taskIn('C0BIG'))).toBe(true);
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

  it('shows nothing when Slack cannot say, and asks again next time', async () => {
    slack.members = { G0PRIV: ['U0ANN'] };
    const { a } = audience();
    slack.failNext('conversations.members', { error: 'fetch_members_failed' });
    expect(await a.sees('U0ANN', taskIn('G0PRIV'))).toBe(false);
    await expect(a.membersOf(taskIn('G0PRIV'))).resolves.toEqual(new Set(['U0ANN']));
    expect(await a.sees('U0ANN', { origin: {} } as unknown as Task)).toBe(false);
  });
});
