/**
 * Revise and Edit forms, for a person Slack shows no ephemeral message in the card's channel:
 * someone reading a public channel they have not joined, or anyone in a channel the bot has been
 * removed from since. Slack sends a form's submission with no response URL, so the modal carries
 * the one of the click that opened it (within Slack's 3,000 characters of private_metadata), and
 * what became of the form reaches the person through it; so does the sentence about a modal Slack
 * did not open. Through Bolt's HTTP receiver, a real engine and Postgres, and the fake Slack Web API.
 */
import { describe, expect, it } from 'vitest';
import { triggerId } from '../helpers/fake-slack-views.js';
import {
  click,
  commandBody,
  postSigned,
  reviseSubmission,
  withResponseUrl,
  withTrigger,
} from '../helpers/slack-requests.js';
import { slackPerFile } from '../helpers/slack-service.js';
import { slackThreads, until } from '../helpers/slack-thread.js';

// U0BOB reviews; U0CAT is in the channels but no reviewer; U0OUT reads C0WORK without having joined it.
const YAML = `workflows:
  pair:
    maxIterations: 1
    checkpoints:
      review: { reviewers: [U0BOB] }
`;

const file = slackPerFile('slack_form_sentences', {
  yaml: YAML,
  workspace: (slack) => {
    slack.people = ['U0ANN', 'U0BOB', 'U0CAT'];
  },
});
const { slack } = file;
const { cardsIn, rootOf, tsOf, buttons } = slackThreads(slack);

let n = 0;
async function startTask(ask: string, channel: string) {
  const text = `${ask} ${++n}`;
  expect(
    (await postSigned(file.events, commandBody(`pair ${text}`, 'U0ANN', { channel_id: channel }))).status,
  ).toBe(200);
  const thread = tsOf(await until('root message', () => rootOf(text)));
  const card = await until('review card', () => cardsIn(thread)[0], 20_000);
  const revise = buttons(card).find((b) => b.action_id === 'signoff_revise')?.value ?? '';
  return { text, thread, cardTs: tsOf(card), revise };
}

/** `user` clicks Revise on the card, with a response URL the fake knows; the modal Slack opened. */
async function openRevise(
  user: string,
  channel: string,
  t: { thread: string; cardTs: string; revise: string },
) {
  const from = slack.callsOf('views.open').length;
  const body = click(user, 'signoff_revise', t.revise, t.cardTs, t.thread, channel);
  await postSigned(file.events, withResponseUrl(body, slack.responseUrl(channel, t.cardTs, user)));
  const opened = await until('the Revise modal', () =>
    slack
      .callsOf('views.open')
      .slice(from)
      .find((v) => !v.failed),
  );
  return (opened.view as { private_metadata: string }).private_metadata;
}

const shownThroughUrl = (user: string) =>
  slack.ephemerals.filter((e) => e.user === user && e.viaResponseUrl).map((e) => String(e.text));

describe('a form sent where Slack shows the person no ephemeral', () => {
  it.each([
    [
      'someone who has not joined the channel (user_not_in_channel)',
      'C0WORK',
      'U0OUT',
      false,
      'user_not_in_channel',
    ],
    [
      'a member, in a channel the bot was removed from since (not_in_channel)',
      'C0LEFT',
      'U0CAT',
      true,
      'not_in_channel',
    ],
  ])(
    'the Revise form sent by %s is answered through the response URL of the click that opened it',
    async (_, channel, user, botLeaves, refused) => {
      const task = await startTask('draft the partner FAQ', channel);
      const meta = await openRevise(user, channel, task);
      // What the modal carries stays within Slack's limit, and names where to answer.
      expect(meta.length).toBeLessThanOrEqual(3000);
      expect(JSON.parse(meta).responseUrl).toMatch(/\/respond\//);
      if (botLeaves) slack.notJoined[channel] = 'public';
      try {
        await postSigned(file.events, reviseSubmission(user, meta, 'shorter, please'));
        const said = await until('the sentence through the response URL', () => shownThroughUrl(user)[0]);
        expect(said).toContain('you are not a reviewer for this step');
        expect(slack.refusals).toContainEqual({ method: 'chat.postEphemeral', error: refused });
      } finally {
        delete slack.notJoined[channel];
      }
      // Nothing was decided.
      const tasks = await file.service.signoff.engine.listTasks({ surface: 'slack', channel });
      expect(tasks.find((t) => t.text === task.text)?.status).toBe('waiting');
    },
  );

  it('a Revise form whose card is not the one clicked is refused with a sentence through the response URL', async () => {
    const task = await startTask('compare the two quotes', 'C0WORK');
    const meta = JSON.parse(await openRevise('U0OUT', 'C0WORK', task));
    // The form comes back naming another message than the card (the metadata is the clicker's to forge).
    const forged = JSON.stringify({ ...meta, messageTs: '1.000000' });
    const before = shownThroughUrl('U0OUT').length;
    await postSigned(file.events, reviseSubmission('U0OUT', forged, 'anything'));
    const said = await until('the sentence', () => shownThroughUrl('U0OUT')[before]);
    expect(said).toBe('That button does not belong to a review here; nothing was changed.');
  });

  it('a Revise modal Slack did not open (its trigger expired) for someone not in the channel: the sentence comes through the click’s response URL', async () => {
    const t = await startTask('plan the partner call', 'C0WORK');
    const before = shownThroughUrl('U0OUT').length;
    const body = click('U0OUT', 'signoff_revise', t.revise, t.cardTs, t.thread);
    const expired = withTrigger(body, triggerId(Date.now() - 5000));
    await postSigned(file.events, withResponseUrl(expired, slack.responseUrl('C0WORK', t.cardTs, 'U0OUT')));
    const said = await until('the sentence', () => shownThroughUrl('U0OUT')[before]);
    expect(said).toContain('Slack did not open the form in time');
    expect(said).toContain('Click *Revise* on the card again.');
  });
});
