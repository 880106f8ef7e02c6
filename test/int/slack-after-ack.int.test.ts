/**
 * Work after an ack waits for a lull in Slack's requests, and only Slack's requests count: health
 * probes, scrapes and unsigned or forged POSTs on the same port never hold back a decision. The
 * time the work reads is a clock the test moves (after-ack.ts), so nothing here depends on timing.
 */
import { describe, expect, it } from 'vitest';
import { click, commandBody, postSigned, startSubmission } from '../helpers/slack-requests.js';
import { slackPerFile } from '../helpers/slack-service.js';
import { slackThreads, until } from '../helpers/slack-thread.js';
import { virtualClock } from '../helpers/virtual-clock.js';

const clock = virtualClock();

const file = slackPerFile('slack_after_ack', {
  yaml: 'workflows:\n  pair:\n    maxIterations: 1\n',
  options: { afterAckClock: clock },
});
const { slack } = file;
const { rootOf, tsOf, cardsIn, buttons } = slackThreads(slack);

/** The work behind the ack just sent, waiting out the lull (AFTER_ACK.quietMs, 20 ms) on the clock. */
const heldBack = () => until('work waiting for a lull', () => (clock.sleeping() > 0 ? true : undefined));

/** What anyone on the internet can send to the port Slack posts to. */
async function burstOfOthers(): Promise<number[]> {
  const base = file.events.replace('/slack/events', '');
  const requests = Array.from({ length: 20 }, (_, i) => [
    fetch(`${base}/healthz`),
    fetch(`${base}/metrics`),
    fetch(file.events, { method: 'POST', body: commandBody(`pair unsigned ${i}`) }),
    // Signed with the wrong secret: Bolt refuses it as it refuses an unsigned one.
    postSigned(file.events, commandBody(`pair forged ${i}`), { secret: 'not-the-secret' }),
  ]).flat();
  return (await Promise.all(requests)).map((r) => r.status);
}

describe('work after an ack', () => {
  it('a burst of /healthz, /metrics and unsigned or forged POSTs does not hold back a signed click', async () => {
    await postSigned(file.events, commandBody('pair name the new meeting room'));
    await heldBack();
    await clock.advance(20);
    const thread = tsOf(await until('root', () => rootOf('name the new meeting room')));
    const card = await until('review card', () => cardsIn(thread)[0]);
    const approve = buttons(card).find((b) => b.action_id === 'signoff_approve');

    const acked = await postSigned(
      file.events,
      click('U0BOB', 'signoff_approve', approve?.value ?? '', tsOf(card), thread),
    );
    expect(acked.status).toBe(200);
    await heldBack();
    await clock.advance(10);
    const statuses = await burstOfOthers();
    expect(new Set(statuses)).toEqual(new Set([200, 401]));
    // 20 ms after the click, as if none of the burst had come: the decision is being recorded.
    await clock.advance(10);
    expect(clock.sleeping()).toBe(0);
    await file.service.settled();
    await until('the card says who approved', () =>
      slack
        .callsOf('chat.update')
        .find((u) => u.ts === tsOf(card) && JSON.stringify(u.blocks).includes('Approved by <@U0BOB>')),
    );
  });

  it('signed requests still hold the work back until they stop', async () => {
    await clock.advance(5000); // nothing left waiting from before
    await file.service.settled();
    await postSigned(file.events, commandBody('list', 'U0ANN'));
    await heldBack();
    await clock.advance(10);
    await postSigned(file.events, commandBody('list', 'U0BOB'));
    await clock.advance(10);
    // The second request came 10 ms ago: both lists wait 10 ms more.
    expect(clock.sleeping()).toBe(2);
    await clock.advance(10);
    expect(clock.sleeping()).toBe(0);
    await file.service.settled();
  });

  it('the start form’s start is work after the ack like the command’s: held back while Slack’s requests arrive', async () => {
    await clock.advance(5000); // nothing left waiting from before
    await file.service.settled();
    const sent = await postSigned(
      file.events,
      startSubmission('U0ANN', { channel: 'C0AFTER' }, 'pair', 'plan the offsite from the form'),
    );
    expect(sent.status).toBe(200);
    await heldBack();
    expect(rootOf('plan the offsite from the form')).toBeUndefined();
    await clock.advance(20);
    await until('root', () => rootOf('plan the offsite from the form'));
    await file.service.settled();
  });
});
