/**
 * The fake Slack refuses what Slack refuses (issue 19, item 7), seen through the real Web API
 * client: a fake more lenient than Slack hides exactly the bugs a real workspace shows.
 */
import { type WebAPIPlatformError, WebClient } from '@slack/web-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeSlack, UPDATE_TEXT_BYTES } from '../helpers/fake-slack.js';

const slack = new FakeSlack();
let client: WebClient;

beforeAll(async () => {
  await slack.start();
  client = new WebClient('xoxb-test', { slackApiUrl: slack.url, retryConfig: { retries: 0 } });
});
afterAll(() => slack.stop());

/** Slack's error code for a call, or 'ok'. */
const answer = (call: Promise<unknown>) =>
  call.then(
    () => 'ok',
    (e: WebAPIPlatformError) => e.data?.error ?? String(e),
  );

describe('the fake Slack, as strict as Slack', () => {
  it('chat.update refuses a text over 4,000 bytes with msg_too_long; chat.postMessage takes it', async () => {
    const long = 'é'.repeat(UPDATE_TEXT_BYTES / 2 + 1);
    const posted = await client.chat.postMessage({ channel: 'C0WORK', text: long });
    expect(await answer(client.chat.update({ channel: 'C0WORK', ts: posted.ts as string, text: long }))).toBe(
      'msg_too_long',
    );
    expect(
      await answer(
        client.chat.update({ channel: 'C0WORK', ts: posted.ts as string, text: 'é'.repeat(2000) }),
      ),
    ).toBe('ok');
    expect(await answer(client.chat.update({ channel: 'C0WORK', ts: '1.000001', text: 'x' }))).toBe(
      'message_not_found',
    );
  });

  it('a confirm dialog whose text is mrkdwn is invalid_blocks; in plain_text it is taken', async () => {
    const withConfirm = (type: 'mrkdwn' | 'plain_text') => [
      {
        type: 'actions',
        elements: [
          {
            type: 'button',
            action_id: 'a',
            text: { type: 'plain_text', text: 'Go' },
            confirm: {
              title: { type: 'plain_text', text: 'Sure?' },
              text: { type, text: 'It cannot be undone.' },
              confirm: { type: 'plain_text', text: 'Go' },
              deny: { type: 'plain_text', text: 'Back' },
            },
          },
        ],
      },
    ];
    expect(
      await answer(
        client.chat.postMessage({ channel: 'C0WORK', text: 't', blocks: withConfirm('mrkdwn') as never }),
      ),
    ).toBe('invalid_blocks');
    expect(
      await answer(
        client.chat.postMessage({ channel: 'C0WORK', text: 't', blocks: withConfirm('plain_text') as never }),
      ),
    ).toBe('ok');
  });

  it('lists come in pages of `limit` with opaque cursors; a cursor Slack did not hand out is invalid_cursor', async () => {
    slack.members.C0BIG = Array.from({ length: 250 }, (_, i) => `U1${String(i).padStart(4, '0')}`);
    const first = await client.conversations.members({ channel: 'C0BIG', limit: 100 });
    expect(first.members).toHaveLength(100);
    expect(first.response_metadata?.next_cursor).not.toMatch(/^\d+$/);
    const all: string[] = [];
    for await (const page of client.paginate('conversations.members', { channel: 'C0BIG', limit: 100 }))
      all.push(...((page as { members?: string[] }).members ?? []));
    expect(all).toEqual(slack.members.C0BIG);
    expect(await answer(client.conversations.members({ channel: 'C0BIG', cursor: '100' }))).toBe(
      'invalid_cursor',
    );
    // Another listing's cursor is not this one's.
    expect(
      await answer(
        client.conversations.members({ channel: 'C0WORK', cursor: first.response_metadata?.next_cursor }),
      ),
    ).toBe('invalid_cursor');
  });

  it('conversations.open refuses a deactivated person, a bot and someone unknown; usergroups.users.list an unknown group', async () => {
    slack.users = { U0GONE: { deleted: true }, U0ROBOT: { is_bot: true }, U0NOBODY: null };
    expect(await answer(client.conversations.open({ users: 'U0GONE' }))).toBe('user_disabled');
    expect(await answer(client.conversations.open({ users: 'U0ROBOT' }))).toBe('cannot_dm_bot');
    expect(await answer(client.conversations.open({ users: 'U0NOBODY' }))).toBe('user_not_found');
    expect(await answer(client.conversations.open({ users: 'U0BOB' }))).toBe('ok');
    expect(await answer(client.usergroups.users.list({ usergroup: 'S0NONE' }))).toBe('no_such_subteam');
  });

  it('an ephemeral to someone outside the channel is user_not_in_channel', async () => {
    expect(await answer(client.chat.postEphemeral({ channel: 'C0WORK', user: 'U0OUT', text: 'hi' }))).toBe(
      'user_not_in_channel',
    );
  });

  it("chat.getPermalink answers only for a message it has; a reply's link names its thread", async () => {
    const root = await client.chat.postMessage({ channel: 'C0WORK', text: 'root' });
    const reply = await client.chat.postMessage({ channel: 'C0WORK', text: 'r', thread_ts: root.ts });
    const link = await client.chat.getPermalink({ channel: 'C0WORK', message_ts: reply.ts as string });
    expect(link.permalink).toContain(`thread_ts=${root.ts}`);
    expect(await answer(client.chat.getPermalink({ channel: 'C0WORK', message_ts: '1.000002' }))).toBe(
      'message_not_found',
    );
  });
});
