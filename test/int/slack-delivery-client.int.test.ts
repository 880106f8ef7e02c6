/**
 * Delivery's Web API client against the fake Slack: a post is sent once whatever happens to its
 * answer (Slack has no idempotency key for posts), a repeatable call is retried, and every retry
 * is checked against the delivery's lease first.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { underLease } from '../../src/engine/delivery-guard.js';
import { DeliveryError, isSignoffError } from '../../src/errors.js';
import { createDeliveryClient } from '../../src/slack/outbound/delivery-client.js';
import type { RateLimits } from '../../src/slack/shared/rate-limits.js';
import { BOT_USER, FakeSlack } from '../helpers/fake-slack.js';

const slack = new FakeSlack();
beforeAll(async () => {
  await slack.start();
  // The message the updates below edit: Slack edits only a message it has (else message_not_found),
  // and only the bot's own.
  slack.messages.push({ channel: 'C0WORK', ts: '1.000100', text: 'card', user: BOT_USER });
});
afterAll(() => slack.stop());

/** No limits kept here (rate-limits.int.test.ts tests them). */
const noLimits: RateLimits = { take: async () => undefined, hold: async () => undefined };
const client = () =>
  createDeliveryClient(
    'xoxb-test',
    {
      slackApiUrl: slack.url,
      timeoutMs: 1000,
      retries: { retries: 2, factor: 2, minTimeout: 50, maxTimeout: 100 },
    },
    noLimits,
  );

it('a post Slack carried out but answered after the timeout is not sent again: it fails as unanswered, to be looked for no sooner than a timeout later', async () => {
  slack.answerLate('chat.postMessage', 1500, (a) => a.text === 'late card');
  const failure = await client()
    .chat.postMessage({ channel: 'C0WORK', text: 'late card' })
    .then(
      () => undefined,
      (error: unknown) => error,
    );
  expect(failure).toBeInstanceOf(DeliveryError);
  expect(failure).toMatchObject({ kind: 'temporary', code: 'unanswered', retryAfterMs: 1000 });
  expect(slack.messages.filter((m) => m.text === 'late card')).toHaveLength(1);
  expect(slack.callsOf('chat.postMessage').filter((c) => c.text === 'late card')).toHaveLength(1);
});

it('a post answered with a 5xx is not sent again either (Slack may have made it)', async () => {
  slack.failNext('chat.postMessage', { status: 503 });
  const failure = await client()
    .chat.postMessage({ channel: 'C0WORK', text: 'card during an outage' })
    .catch((error: unknown) => error);
  expect(failure).toMatchObject({ kind: 'temporary', code: 'unanswered' });
  expect(slack.callsOf('chat.postMessage').filter((c) => c.text === 'card during an outage')).toHaveLength(1);
});

it('an update Slack answered with a 5xx is retried at once, and goes through', async () => {
  slack.failNext('chat.update', { status: 503 });
  await client().chat.update({ channel: 'C0WORK', ts: '1.000100', text: 'decided' });
  const updates = slack.callsOf('chat.update').filter((c) => c.text === 'decided');
  expect(updates.map((u) => Boolean(u.failed))).toEqual([true, false]);
});

it('a retry is not sent once the delivery has lost its lease', async () => {
  let held = true;
  const lease = { key: 'deliver:retried-task', held: () => held };
  slack.failNext('chat.update', { status: 503 });
  const first = slack.holdNext('chat.update', (a) => a.text === 'after the lease');
  const call = underLease(lease, () =>
    client().chat.update({ channel: 'C0WORK', ts: '1.000100', text: 'after the lease' }),
  ).catch((error: unknown) => error);
  await first.reached;
  // The first attempt is in flight when the lease goes (the process froze, another took over).
  held = false;
  first.release();
  expect(isSignoffError(await call, 'lease_lost')).toBe(true);
  expect(slack.callsOf('chat.update').filter((c) => c.text === 'after the lease')).toHaveLength(1);
});
