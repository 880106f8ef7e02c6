/** Who a Slack user is: user groups and standing, read from Slack, kept a minute, never a failure kept. */
import { WebClient } from '@slack/web-api';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { createDirectory, type Placed, type StandingStore } from '../../src/slack/shared/directory.js';
import { FakeSlack } from '../helpers/fake-slack.js';

const slack = new FakeSlack();
beforeAll(() => slack.start());
afterAll(() => slack.stop());
afterEach(() => {
  slack.users = {};
  slack.enterprise = undefined;
});
// Each test is its own story, not one burst: as Slack's rate limits see it, a minute apart (the
// directory here has no limiter of its own; what one test asks stays within Slack's limits).
beforeEach(() => slack.later(60_000));

/** What Postgres keeps in production (standing-store.ts), here in memory. */
function keptInMemory(): StandingStore {
  const rows = new Map<string, { standing: Placed; at: number }>();
  return {
    read: async (user) => rows.get(user),
    write: async (user, standing, at) => void rows.set(user, { standing, at }),
  };
}

function directory(kept: StandingStore = keptInMemory()) {
  let now = 0;
  const client = new WebClient('xoxb-test', {
    slackApiUrl: slack.url,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
  });
  const d = createDirectory({ client, kept, logger: createLogger('silent'), now: () => now });
  return {
    d,
    later: (ms: number) => {
      // Slack's clock moves with the test's: its rate limits refill as they would in that time.
      now += ms;
      slack.later(ms);
    },
  };
}
const calls = (method: string) => slack.callsOf(method).length;

describe('user groups', () => {
  it('one lookup a group a minute serves every user; askers at once share it; a failure is not kept', async () => {
    slack.groups = { S0LEADS: ['U0CAT'] };
    const { d, later } = directory();
    const before = calls('usergroups.users.list');
    const answers = await Promise.all(['U0CAT', 'U0DAN', 'U0CAT'].map((user) => d.inGroup(user, 'S0LEADS')));
    expect(answers).toEqual([true, false, true]);
    later(59_999);
    expect(await d.inGroup('U0EVE', 'S0LEADS')).toBe(false);
    expect(calls('usergroups.users.list') - before).toBe(1);

    later(1);
    slack.failNext('usergroups.users.list', { status: 429, retryAfter: 30 });
    await expect(d.inGroup('U0CAT', 'S0LEADS')).rejects.toThrow();
    slack.groups = { S0LEADS: ['U0CAT', 'U0DAN'] };
    expect(await d.inGroup('U0DAN', 'S0LEADS')).toBe(true);
    expect(calls('usergroups.users.list') - before).toBe(3);
  });

  it('a group Slack does not know has nobody in it', async () => {
    const { d } = directory();
    expect(await d.inGroup('U0CAT', 'S0GONE')).toBe(false);
  });

  it('org-wide: a group is looked up in each workspace named in turn; in none of them, Slack has not said (it rejects)', async () => {
    slack.orgWide = true;
    slack.groups = { S0WEST: ['W0CAT'] };
    slack.groupTeams = { S0WEST: 'T0WEST' };
    try {
      const { d } = directory();
      expect(await d.inGroup('W0CAT', 'S0WEST', ['T0EAST', 'T0WEST'])).toBe(true);
      expect(await d.inGroup('W0DAN', 'S0WEST', ['T0EAST', undefined, 'T0WEST'])).toBe(false);
      await expect(d.inGroup('W0CAT', 'S0WEST', ['T0EAST'])).rejects.toThrow(/no user group S0WEST/);
    } finally {
      slack.orgWide = false;
      slack.groupTeams = {};
    }
  });
});

describe('standing', () => {
  it('a member; someone of another organization; guests; someone Slack cannot find', async () => {
    slack.users = {
      U0EXT: { team_id: 'T0OTHER', is_stranger: true },
      U0GST: { is_restricted: true },
      U0ONE: { is_ultra_restricted: true },
      U0GONE: null,
    };
    const { d } = directory();
    expect(await d.standing('U0ANN', 'T0TEAM')).toBe('member');
    for (const user of ['U0EXT', 'U0GST', 'U0ONE', 'U0GONE']) expect(await d.standing(user)).toBe('external');
  });

  it('a request from another workspace is from outside, even where users.info would not say so', async () => {
    const { d } = directory();
    expect(await d.standing('U0PAL', 'T0OTHER')).toBe('external');
  });

  it('in an Enterprise organization, a person of another of its workspaces is a member; of another organization, not', async () => {
    slack.enterprise = 'E0ACME';
    slack.users = {
      U0SIS: { team_id: 'T0SISTER' },
      U0FOE: {
        team_id: 'T0RIVAL',
        enterprise_user: {
          id: 'U0FOE',
          enterprise_id: 'E0RIVAL',
          enterprise_name: 'Rival',
          teams: ['T0RIVAL'],
        },
      },
    };
    const { d } = directory();
    expect(await d.standing('U0SIS', 'T0SISTER')).toBe('member');
    expect(await d.standing('U0FOE', 'T0RIVAL')).toBe('external');
  });

  it('Slack not answering is unknown, and not kept; an answer is kept a minute', async () => {
    const { d, later } = directory();
    slack.failNext('users.info', { status: 429, retryAfter: 30 });
    expect(await d.standing('U0BOB')).toBe('unknown');
    const before = calls('users.info');
    expect(await d.standing('U0BOB')).toBe('member');
    expect(await d.standing('U0BOB')).toBe('member');
    expect(calls('users.info') - before).toBe(1);
    later(60_000);
    expect(await d.standing('U0BOB')).toBe('member');
    expect(calls('users.info') - before).toBe(2);
  });

  it('while Slack does not answer, the last answer about a person stands (a member, a guest), for up to a day; someone never answered for is unknown', async () => {
    slack.users = { U0GST: { is_restricted: true } };
    const { d, later } = directory();
    expect(await d.standing('U0BOB')).toBe('member');
    expect(await d.standing('U0GST')).toBe('external');
    later(60_000);
    const restore = slack.refuse('users.info', () => true, 'internal_error');
    try {
      const before = calls('users.info');
      expect(await d.standing('U0BOB')).toBe('member');
      expect(await d.standing('U0GST')).toBe('external');
      // Slack was asked (the minute was up): its failure is why the last answer stands.
      expect(calls('users.info') - before).toBe(2);
      expect(await d.standing('U0NEW')).toBe('unknown');
      later(24 * 3600_000);
      expect(await d.standing('U0BOB')).toBe('unknown');
    } finally {
      restore();
    }
  });
  it('the last answer is kept in the store: a new directory on it (a restart, another replica) goes by it while Slack fails', async () => {
    slack.users = { U0GST: { is_restricted: true } };
    const kept = keptInMemory();
    const first = directory(kept).d;
    expect(await first.standing('U0BOB')).toBe('member');
    expect(await first.standing('U0GST')).toBe('external');
    const restore = slack.refuse('users.info', () => true, 'internal_error');
    try {
      const { d, later } = directory(kept);
      expect(await d.standing('U0BOB')).toBe('member');
      expect(await d.standing('U0GST')).toBe('external');
      expect(await d.standing('U0NEW')).toBe('unknown');
      later(24 * 3600_000);
      expect(await d.standing('U0BOB')).toBe('unknown');
    } finally {
      restore();
    }
  });
});
