/**
 * Claim and hand-off in Slack, through Bolt's HTTP receiver, a real engine and Postgres, and the
 * fake Slack Web API: "I'll take it" redraws the card saying who has it; on an exclusive checkpoint
 * someone else's Approve is refused with a sentence; Hand over… names a person in a modal, who is
 * pinged in the thread; `/signoff away` opens its form, and the review goes to the delegate, the
 * card saying so.
 */
import { describe, expect, it } from 'vitest';
import { triggerId } from '../helpers/fake-slack-views.js';
import { click, commandBody, postSigned, viewSubmission, withTrigger } from '../helpers/slack-requests.js';
import { slackPerFile } from '../helpers/slack-service.js';
import { type Post, slackThreads, until } from '../helpers/slack-thread.js';

const YAML = `workflows:
  ask:
    checkpoints:
      review: { reviewers: [U0BOB, U0CAT, U0DAN], exclusiveClaims: true }
  pair:
    maxIterations: 1
    checkpoints:
      review: { reviewers: [anyone] }
`;

const file = slackPerFile('slack_claims', { yaml: YAML });
const { slack } = file;
const { cardsIn, rootOf, tsOf, buttons, ephemeralsTo, updatesOf } = slackThreads(slack);
const text = (p: unknown) => JSON.stringify(p);

const press = (user: string, card: Post, thread: string, actionId: string, trigger?: string) => {
  const value = buttons(card).find((b) => b.action_id === actionId)?.value ?? '';
  const body = click(user, actionId, value, tsOf(card), thread);
  return postSigned(file.events, trigger ? withTrigger(body, trigger) : body);
};
const said = (user: string, pattern: RegExp) =>
  until(`${user} told ${pattern}`, () => ephemeralsTo(user).find((t) => pattern.test(t)), 15_000);

/** A modal sent back with a people picker (and a date) filled in. */
const submit = (user: string, callbackId: string, metadata: string, person: string, date?: string) =>
  viewSubmission(user, callbackId, metadata, {
    person: { user: person },
    ...(date ? { until: { date } } : {}),
  });

describe('claim and hand-off in Slack', () => {
  it("I'll take it → the card says who has it; another's Approve is refused; Hand over… pings the person picked; /signoff away hands it to a delegate", async () => {
    await postSigned(file.events, commandBody('ask Renew the office lease?'));
    const thread = tsOf(await until('root', () => rootOf('Renew the office lease?')));
    const card = await until('card', () => cardsIn(thread)[0], 20_000);
    expect(buttons(card).map((b) => b.action_id)).toEqual(
      expect.arrayContaining(['signoff_claim', 'signoff_hand_over']),
    );

    await press('U0BOB', card, thread, 'signoff_claim');
    await said('U0BOB', /It is yours: reminders about it come to you, and only you decide it/);
    await until('the card says Bob has it', () =>
      updatesOf(tsOf(card)).find((u) => /<@U0BOB> has it: only they decide it/.test(text(u))),
    );
    await press('U0CAT', card, thread, 'signoff_approve');
    await said('U0CAT', /<@U0BOB> has claimed this review, and only they decide it/);

    const opened = slack.callsOf('views.open').length;
    await press('U0BOB', card, thread, 'signoff_hand_over', triggerId());
    const modal = await until('the hand-over form', () => slack.callsOf('views.open')[opened], 10_000);
    const metadata = (modal.view as { private_metadata: string }).private_metadata;
    await postSigned(file.events, submit('U0BOB', 'signoff_hand_over', metadata, 'U0CAT'));
    await until('Cat pinged', () =>
      slack
        .callsOf('chat.postMessage')
        .find((p) => p.thread_ts === thread && /<@U0CAT>, <@U0BOB> handed you/.test(text(p))),
    );

    // Cat is away: the review goes to Dan, and the card says so.
    const forms = slack.callsOf('views.open').length;
    const back = new Date(Date.now() + 5 * 86_400_000).toISOString().slice(0, 10);
    await postSigned(
      file.events,
      withTrigger(commandBody(`away until ${back} to <@U0DAN|dan>`, 'U0CAT'), triggerId()),
    );
    const away = await until('the away form', () => slack.callsOf('views.open')[forms], 10_000);
    // The day and the person typed are the form's.
    expect(JSON.stringify(away.view)).toContain(`"initial_date":"${back}"`);
    expect(JSON.stringify(away.view)).toContain('"initial_user":"U0DAN"');
    await postSigned(
      file.events,
      submit(
        'U0CAT',
        'signoff_away',
        (away.view as { private_metadata: string }).private_metadata,
        'U0DAN',
        back,
      ),
    );
    await until('the card says Dan has it for Cat', () =>
      updatesOf(tsOf(card)).find(
        (u) => /<@U0DAN> has it/.test(text(u)) && /<@U0CAT> is away: <@U0DAN> decides/.test(text(u)),
      ),
    );
    await until('Dan pinged', () =>
      slack
        .callsOf('chat.postMessage')
        .find((p) => p.thread_ts === thread && /<@U0CAT> is away until .*<@U0DAN>/.test(text(p))),
    );
    // Dan approves on the card as it is now (its button carries the content it shows).
    const latest = updatesOf(tsOf(card)).at(-1) as unknown as Post;
    const value = buttons(latest).find((b) => b.action_id === 'signoff_approve')?.value ?? '';
    await postSigned(file.events, click('U0DAN', 'signoff_approve', value, tsOf(card), thread));
    await until('the card approved by Dan', () =>
      updatesOf(tsOf(card)).find((u) => /Approved by <@U0DAN>/.test(text(u))),
    );
  });

  it('/signoff away with a day it cannot read and a typed @name: the form opens on tomorrow and says, at its top, what to pick', async () => {
    const forms = slack.callsOf('views.open').length;
    await postSigned(
      file.events,
      withTrigger(commandBody('away until next friday to @dan', 'U0BOB'), triggerId()),
    );
    const away = await until('the away form', () => slack.callsOf('views.open')[forms], 10_000);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    const view = JSON.stringify(away.view);
    expect(view).toContain(`"initial_date":"${tomorrow}"`);
    expect(view).not.toContain('initial_user');
    expect(view).toContain(
      `I could not read \\"next friday\\": pick the day and the person below (write a day as ${tomorrow}).`,
    );
    expect(view).toContain('Slack sent \\"@dan\\" as plain text, not as a person: pick them below.');
  });

  it('Hand over… to a guest of the workspace, where anyone may decide: refused with a sentence, the review stays unclaimed', async () => {
    slack.users.U0GST = { is_restricted: true };
    await postSigned(file.events, commandBody('pair Check the guest list?', 'U0BOB'));
    const thread = tsOf(await until('root', () => rootOf('Check the guest list?')));
    const card = await until('card', () => cardsIn(thread)[0], 20_000);
    const opened = slack.callsOf('views.open').length;
    await press('U0CAT', card, thread, 'signoff_hand_over', triggerId());
    const modal = await until('the hand-over form', () => slack.callsOf('views.open')[opened], 10_000);
    const metadata = (modal.view as { private_metadata: string }).private_metadata;
    await postSigned(file.events, submit('U0CAT', 'signoff_hand_over', metadata, 'U0GST'));
    await said('U0CAT', /<@U0GST> may not decide this review, so it cannot be handed to them/);
    const task = await file.service.signoff.engine.taskAt('slack', { channel: 'C0WORK', thread });
    const [review] = await file.service.signoff.engine.reviews(task?.id ?? '', 'pending');
    expect(review?.claimedBy ?? null).toBeNull();
  });
});
