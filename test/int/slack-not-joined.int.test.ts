/**
 * `/signoff` in a channel the bot has not joined: Slack takes the command there but refuses the
 * bot's posts and ephemerals, so the person is answered through the command's response URL (which
 * works anywhere), told how to invite the bot, and nothing is left retrying.
 */
import { describe, expect, it } from 'vitest';
import { claimRequest } from '../../src/slack/inbound/claims.js';
import { commandBody, postSigned, startSubmission } from '../helpers/slack-requests.js';
import { slackPerFile, sweepStarts } from '../helpers/slack-service.js';
import { until } from '../helpers/slack-thread.js';

const ON = 'C0OUT, G0SECRET, C0ARCH, C0ADMINS, C0SLOW, C0FORM';

const file = slackPerFile('slack_not_joined', {
  // Every workflow is on in these channels only: C0NONE has none.
  yaml: `workflows:
  pair: { maxIterations: 1, channels: [${ON}] }
  specialist: { channels: [${ON}] }
  goal-plan: { channels: [${ON}] }
  proposal: { channels: [${ON}] }
  ask: { channels: [${ON}] }
`,
  workspace: (slack) => {
    slack.notJoined = { C0OUT: 'public', G0SECRET: 'private' };
    slack.closed = { C0ARCH: 'is_archived', C0ADMINS: 'restricted_action' };
  },
});
const { slack } = file;

/** A command in `channel` with a response URL the fake Slack knows; what was answered through it. */
async function command(text: string, channel: string) {
  const url = slack.responseUrl(channel, '');
  const sent = await postSigned(
    file.events,
    commandBody(text, 'U0ANN', { channel_id: channel, response_url: url }),
  );
  expect(sent.status).toBe(200);
  return () => slack.responses.filter((r) => r.channel === channel).map((r) => String(r.body.text));
}

const pendingStarts = async () =>
  Number(
    (
      await file.service.signoff.db.pool.query(
        'SELECT count(*) AS n FROM signoff.slack_requests WHERE start IS NOT NULL AND task_id IS NULL',
      )
    ).rows[0].n,
  );

describe('a channel the bot has not joined', () => {
  it.each([
    ['a public channel (not_in_channel)', 'C0OUT'],
    ['a private channel it cannot see (channel_not_found)', 'G0SECRET'],
  ])(
    'a start in %s tells the person through the response URL how to invite the bot, and stops trying',
    async (_, channel) => {
      const answers = await command('pair summarize the retro', channel);
      const said = await until('the answer through the response URL', () => answers()[0]);
      expect(said).toContain('/invite @signoff');
      expect(said).toContain('send your task again');
      // Nothing posted there, no task, and nothing left for the sweep.
      expect(slack.messages.filter((m) => m.channel === channel)).toEqual([]);
      expect(await file.service.signoff.engine.listTasks({ surface: 'slack', channel })).toEqual([]);
      expect(await pendingStarts()).toBe(0);
      expect(await sweepStarts(file.service, slack)).toBe(0);
    },
  );

  it('a start a dead process left there is given up by the sweep, and the person told through the stored URL', async () => {
    const url = slack.responseUrl('C0OUT', '');
    await claimRequest(file.service.signoff.db.pool, 'command:trigger-died-out', {
      team: 'T0TEAM',
      channel: 'C0OUT',
      user: 'U0BOB',
      workflow: 'pair',
      text: 'plan the launch',
      responseUrl: url,
    });
    expect(await sweepStarts(file.service, slack)).toBe(1);
    const told = slack.responses.filter(
      (r) => r.channel === 'C0OUT' && String(r.body.text).includes('/invite'),
    );
    expect(told.length).toBeGreaterThan(0);
    // Given up for good: the next sweep has nothing to take.
    expect(await pendingStarts()).toBe(0);
    expect(await sweepStarts(file.service, slack)).toBe(0);
  });

  it.each([
    ['a public channel', 'C0OUT'],
    ['a private channel it cannot see', 'G0SECRET'],
  ])(
    '/signoff list in %s answers through the response URL, saying first how to invite the bot',
    async (_, channel) => {
      const before = slack.responses.length;
      const answers = await command('list', channel);
      const said = await until('the list', () =>
        slack.responses.length > before ? answers().at(-1) : undefined,
      );
      expect(said.startsWith("I'm not in this channel yet")).toBe(true);
      expect(said).toContain('/invite @signoff');
      expect(slack.refusals.filter((r) => r.method === 'chat.postEphemeral')).toEqual([]);
    },
  );

  it.each([
    ['a public channel', 'C0OUT'],
    ['a private channel it cannot see', 'G0SECRET'],
  ])(
    'the start form sent from %s 31 minutes after /signoff (its response URL spent) says how to invite the bot in the form itself, and starts nothing',
    async (_, channel) => {
      const responses = slack.responses.length;
      const refusals = slack.refusals.length;
      // `/signoff` alone was typed 31 minutes ago: Slack takes no answer through its URL now.
      const responseUrl = slack.responseUrl(channel, '', 'U0ANN', 31 * 60_000);
      const sent = await postSigned(
        file.events,
        startSubmission('U0ANN', { channel, responseUrl }, 'pair', 'summarize the retro'),
      );
      expect(sent.status).toBe(200);
      // The form stays open with the sentence under the task: an answer Slack shows at any age.
      const answer = JSON.parse(sent.body || '{}');
      expect(answer.response_action).toBe('errors');
      expect(answer.errors.task).toContain('/invite @signoff');
      expect(answer.errors.task).toContain('send this form again');
      expect(await pendingStarts()).toBe(0);
      expect(slack.responses.length).toBe(responses);
      expect(slack.refusals.slice(refusals).filter((r) => r.method !== 'conversations.info')).toEqual([]);
      expect(await file.service.signoff.engine.listTasks({ surface: 'slack', channel })).toEqual([]);
    },
  );

  it('the start form sent from a channel the bot is in is taken (closed) and the task starts', async () => {
    const sent = await postSigned(
      file.events,
      startSubmission(
        'U0ANN',
        { channel: 'C0FORM', responseUrl: slack.responseUrl('C0FORM', '') },
        'pair',
        'draft the memo',
      ),
    );
    expect(sent.status).toBe(200);
    expect(sent.body).toBe('');
    await until('the task', async () =>
      (await file.service.signoff.engine.listTasks({ surface: 'slack', channel: 'C0FORM' })).find(
        (t) => t.text === 'draft the memo',
      ),
    );
  });

  it('/signoff list whose response URL Slack no longer takes (spent) is answered in the channel instead', async () => {
    const refusals = slack.refusals.length;
    const url = slack.responseUrl('C0SLOW', '', 'U0DAN', 31 * 60_000);
    await postSigned(file.events, commandBody('list', 'U0DAN', { channel_id: 'C0SLOW', response_url: url }));
    const told = await until('the list to U0DAN', () =>
      slack.ephemerals.find((e) => e.channel === 'C0SLOW' && e.user === 'U0DAN'),
    );
    expect(told.viaResponseUrl).toBeFalsy();
    expect(told.text).not.toContain('/invite');
    expect(slack.refusals.slice(refusals)).toEqual([{ method: 'response_url', error: 'expired_url' }]);
  });

  it('/signoff list in a channel the bot is in says nothing about inviting it', async () => {
    const answers = await command('list', 'C0SLOW');
    const said = await until('the list', () => answers()[0]);
    expect(said).not.toContain('/invite');
  });
});

describe('a channel that refuses the bot for good though it is in it', () => {
  it.each([
    ['archived (is_archived)', 'C0ARCH', 'This channel is archived'],
    ['where only admins may post (restricted_action)', 'C0ADMINS', 'Only admins may post here'],
  ])('a start in a channel %s says why, and stops trying', async (_, channel, why) => {
    const answers = await command('pair summarize the retro', channel);
    const said = await until('the answer through the response URL', () => answers()[0]);
    expect(said).toContain(why);
    expect(said).not.toContain('starts by itself');
    expect(await file.service.signoff.engine.listTasks({ surface: 'slack', channel })).toEqual([]);
    expect(await pendingStarts()).toBe(0);
    expect(await sweepStarts(file.service, slack)).toBe(0);
  });

  it('a start the sweep could not finish in half an hour is given up, and the person told: in the channel, since the response URL has expired', async () => {
    // The command was typed 31 minutes ago: Slack no longer takes answers through its URL.
    const url = slack.responseUrl('C0SLOW', '', 'U0BOB', 31 * 60_000);
    const key = 'command:trigger-long-failing';
    await claimRequest(file.service.signoff.db.pool, key, {
      team: 'T0TEAM',
      channel: 'C0SLOW',
      user: 'U0BOB',
      workflow: 'pair',
      text: 'plan the launch',
      responseUrl: url,
    });
    await file.service.signoff.db.pool.query(
      `UPDATE signoff.slack_requests SET claimed_at = now() - interval '31 minutes' WHERE key = $1`,
      [key],
    );
    const before = slack.refusals.length;
    expect(await sweepStarts(file.service, slack)).toBe(1);
    expect(slack.refusals.slice(before)).toEqual([{ method: 'response_url', error: 'expired_url' }]);
    const told = slack.ephemerals.filter((e) => e.channel === 'C0SLOW' && e.user === 'U0BOB');
    expect(told.map((e) => e.text)).toEqual([expect.stringContaining('could not be started')]);
    expect(slack.messages.filter((m) => m.channel === 'C0SLOW')).toEqual([]);
    expect(await pendingStarts()).toBe(0);
    expect(await sweepStarts(file.service, slack)).toBe(0);
  });
});

describe('a channel where no workflow is on', () => {
  it('/signoff alone says so instead of opening a form with nothing to choose', async () => {
    const sent = await postSigned(
      file.events,
      commandBody('', 'U0ANN', { channel_id: 'C0NONE', response_url: slack.responseUrl('C0NONE', '') }),
    );
    expect(sent.status).toBe(200);
    expect(sent.body).toContain('No workflow is turned on in this channel');
    expect(slack.callsOf('views.open')).toEqual([]);
  });
});
