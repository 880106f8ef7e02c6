/**
 * What a real workspace refuses, handled as Slack returns it (issue 19, items 6-7): a reviewer
 * Slack will not DM and a user group that is gone, a click from someone who has not joined the
 * channel, links that only Slack can make. Each ends in a sentence to the person or a skip of
 * that one, never in losing what the others should get.
 */
import { describe, expect, it } from 'vitest';
import { appHomeOpened, click, commandBody, postSigned, withResponseUrl } from '../helpers/slack-requests.js';
import { slackPerFile } from '../helpers/slack-service.js';
import { slackThreads, until } from '../helpers/slack-thread.js';

// S0GONE was deleted in Slack after the config named it; U0DIS was deactivated; U0BOT2 is a bot.
const YAML = `workflows:
  pair:
    maxIterations: 1
    checkpoints:
      review:
        reviewers: [S0GONE, U0DIS, U0BOT2, U0BOB]
        dmReviewers: true
`;

const file = slackPerFile('slack_refusals', {
  yaml: YAML,
  workspace: (slack) => {
    slack.people = ['U0ANN', 'U0BOB', 'U0CAT', 'U0DIS', 'U0BOT2'];
    slack.users = { U0DIS: { deleted: true }, U0BOT2: { is_bot: true } };
  },
});
const { slack } = file;
const { posts, cardsIn, rootOf, tsOf, buttons } = slackThreads(slack);

async function startTask(text: string) {
  expect((await postSigned(file.events, commandBody(`pair ${text}`, 'U0ANN'))).status).toBe(200);
  const root = await until('root message', () => rootOf(text));
  const thread = tsOf(root);
  const card = await until('review card', () => cardsIn(thread)[0]);
  const cardTs = tsOf(card);
  const value = (id: string) => buttons(card).find((b) => b.action_id === id)?.value ?? '';
  return { thread, cardTs, value };
}

const dmsIn = (channel: string) => posts().filter((p) => p.channel === channel);

describe('what Slack refuses, handled', () => {
  it('a deleted user group, a deactivated reviewer and a bot cannot be messaged: each is skipped, and the reviewer after them still gets their DM', async () => {
    await startTask('check the renewal terms');
    // In the config's order: the group, then U0DIS and U0BOT2 (Slack refuses each), then U0BOB.
    const dm = await until("U0BOB's direct message", () => dmsIn('D0BOB')[0]);
    expect(dm.text).toContain('needs your review');
    expect(slack.callsOf('conversations.open').map((c) => c.users)).toEqual(
      expect.arrayContaining(['U0DIS', 'U0BOT2', 'U0BOB']),
    );
    expect([...dmsIn('D0DIS'), ...dmsIn('D0BOT2')]).toEqual([]);
  });

  it('someone reading the channel without having joined it clicks the card and Cancel: Slack shows them no ephemeral there, so each sentence comes through the click’s response URL', async () => {
    const { thread, cardTs, value } = await startTask('renew the domain');
    const outsider = 'U0OUT';
    await postSigned(
      file.events,
      withResponseUrl(
        click(outsider, 'signoff_approve', value('signoff_approve'), cardTs, thread),
        slack.responseUrl('C0WORK', cardTs, outsider),
      ),
    );
    const shown = await until('the sentence to the outsider', () =>
      slack.ephemerals.find((e) => e.user === outsider && e.viaResponseUrl),
    );
    expect(shown.text).toContain('you are not a reviewer for this step');
    expect(slack.refusals).toContainEqual({ method: 'chat.postEphemeral', error: 'user_not_in_channel' });

    await postSigned(
      file.events,
      withResponseUrl(
        click(outsider, 'signoff_cancel', 'task', thread, undefined),
        slack.responseUrl('C0WORK', thread, outsider),
      ),
    );
    await until(
      'the sentence about Cancel',
      () => slack.ephemerals.filter((e) => e.user === outsider && e.viaResponseUrl)[1],
    );
    // Nothing changed: the card waits, the task too.
    const task = (await file.service.signoff.engine.listTasks()).find((t) => t.text === 'renew the domain');
    expect(task?.status).toBe('waiting');
  });

  it('the Home tab and /signoff list link each task to its thread with the link Slack gave, asked of Slack once', async () => {
    const { thread } = await startTask('order the team offsite snacks');
    const link = `https://fake.slack.test/archives/C0WORK/p${thread.replace('.', '')}`;
    const asked = () => slack.callsOf('chat.getPermalink').filter((c) => c.message_ts === thread).length;

    const homes = () => slack.callsOf('views.publish').filter((v) => v.user_id === 'U0ANN');
    const openHome = async () => {
      const before = homes().length;
      await postSigned(file.events, appHomeOpened('U0ANN'), { json: true });
      return JSON.stringify(await until('the Home tab', () => homes()[before]));
    };
    // A link Slack has not given within the tab's wait shows on the next open (kept meanwhile).
    const home = await until('a Home tab with the link', async () => {
      const shown = await openHome();
      return shown.includes(link) ? shown : undefined;
    });
    expect(home).toContain('order the team offsite snacks');
    expect(home).toContain(`<${link}|open>`);
    expect(home).not.toContain('slack.com/archives');

    await postSigned(
      file.events,
      commandBody('list', 'U0ANN', { response_url: slack.responseUrl('C0WORK', '', 'U0ANN') }),
    );
    const list = await until('the list', () =>
      slack.ephemerals.find((e) => e.user === 'U0ANN' && e.text?.includes('Open tasks in this channel')),
    );
    expect(list.text).toContain(`<${link}|open>`);
    await openHome();
    expect(asked()).toBe(1);
  });
});
