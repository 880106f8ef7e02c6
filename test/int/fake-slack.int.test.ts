/**
 * The fake Slack refuses what Slack refuses (issue 19, item 7), seen through the real Web API
 * client: a fake more lenient than Slack hides exactly the bugs a real workspace shows.
 */
import { type WebAPIPlatformError, WebClient } from '@slack/web-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeSlack, NO_LIMITS, PUBLISHED_LIMITS, UPDATE_TEXT_BYTES } from '../helpers/fake-slack.js';
import { triggerId } from '../helpers/fake-slack-views.js';

// Opted out of the rate limits: these tests send one method dozens of times in a row, faster than
// Slack takes, to see each refusal; nothing of the product's runs here. The limits have their own
// tests below, on a fake made as every other test's is.
const slack = new FakeSlack(NO_LIMITS);
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

  it('a method whose scope the app lacks is missing_scope (a DM needs im:read); a DM holds its person and the app', async () => {
    expect(await client.conversations.members({ channel: 'D0ANN' })).toMatchObject({
      members: ['U0ANN', 'U0BOT'],
    });
    const installed = slack.scopes;
    slack.scopes = installed.filter((s) => s !== 'im:read');
    try {
      expect(await answer(client.conversations.members({ channel: 'D0ANN' }))).toBe('missing_scope');
      expect(await answer(client.conversations.info({ channel: 'D0ANN' }))).toBe('missing_scope');
      expect(await answer(client.conversations.members({ channel: 'C0WORK' }))).toBe('ok');
      slack.scopes = installed.filter((s) => s !== 'usergroups:read');
      expect(await answer(client.usergroups.users.list({ usergroup: 'S0X' }))).toBe('missing_scope');
    } finally {
      slack.scopes = installed;
    }
  });

  it('an ephemeral into a thread with no reply yet is answered ok and shown to nobody; once the thread has a reply, shown', async () => {
    const parent = slack.said('C0WORK', 'U0ANN', 'a question for the app');
    const before = slack.ephemerals.length;
    const hidden = await client.chat.postEphemeral({
      channel: 'C0WORK',
      user: 'U0ANN',
      text: 'unseen',
      thread_ts: parent,
    });
    expect(hidden.ok).toBe(true);
    expect(slack.ephemerals.length).toBe(before);
    slack.said('C0WORK', 'U0BOB', 'a reply', parent);
    await client.chat.postEphemeral({ channel: 'C0WORK', user: 'U0ANN', text: 'seen', thread_ts: parent });
    expect(slack.ephemerals.slice(before).map((e) => e.text)).toEqual(['seen']);
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

  it('a plan as Slack checks it: a title, at most 50 task cards, each with an id, a title up to 256 and a known status; never beside task cards', async () => {
    const card = (over: Record<string, unknown> = {}) => ({
      type: 'task_card',
      task_id: 'step_1',
      title: 'Write draft',
      status: 'in_progress',
      ...over,
    });
    const post = (blocks: unknown[]) =>
      answer(client.chat.postMessage({ channel: 'C0WORK', text: 't', blocks: blocks as never }));
    const plan = (tasks: unknown[], title = 'Steps') => [{ type: 'plan', title, tasks }];
    const details = { type: 'rich_text', elements: [{ type: 'rich_text_section', elements: [] }] };
    expect(await post(plan([card(), card({ task_id: 'step_2', status: 'complete', details })]))).toBe('ok');
    expect(await post(plan(Array.from({ length: 50 }, (_, i) => card({ task_id: `s${i}` }))))).toBe('ok');
    expect(await post(plan(Array.from({ length: 51 }, (_, i) => card({ task_id: `s${i}` }))))).toBe(
      'invalid_blocks',
    );
    expect(await post(plan([card({ status: 'completed' })]))).toBe('invalid_blocks');
    expect(await post(plan([card({ title: 'x'.repeat(257) })]))).toBe('invalid_blocks');
    expect(await post(plan([card({ title: 'x'.repeat(256) })]))).toBe('ok');
    expect(await post(plan([card({ task_id: undefined })]))).toBe('invalid_blocks');
    expect(await post(plan([card({ details: 'plain words' })]))).toBe('invalid_blocks');
    expect(await post(plan([{ type: 'section', text: { type: 'mrkdwn', text: 'x' } }]))).toBe(
      'invalid_blocks',
    );
    expect(await post(plan([card()], ''))).toBe('invalid_blocks');
    expect(await post([...plan([card()]), card({ task_id: 'other' })])).toBe('invalid_blocks');
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

  it('conversations.history and .replies answer pages shorter than `limit` with more to come (Slack may); read to the end they list every message once', async () => {
    const root = slack.said('C0SHORT', 'U0ANN', 'a thread');
    for (let i = 0; i < 30; i += 1) {
      slack.said('C0SHORT', 'U0ANN', `top ${i}`);
      slack.said('C0SHORT', 'U0BOB', `reply ${i}`, root);
    }
    const first = await client.conversations.history({ channel: 'C0SHORT', limit: 20 });
    expect(first.messages?.length).toBeLessThan(20);
    expect(first.has_more).toBe(true);
    expect(first.response_metadata?.next_cursor).not.toBe('');
    const read = async (method: 'conversations.history' | 'conversations.replies', args: object) => {
      const all: string[] = [];
      for await (const page of client.paginate(method, { channel: 'C0SHORT', limit: 20, ...args }))
        all.push(...((page as { messages?: { ts: string }[] }).messages ?? []).map((m) => m.ts));
      return all;
    };
    const top = slack.messages.filter((m) => m.channel === 'C0SHORT' && !m.thread_ts).map((m) => m.ts);
    expect(await read('conversations.history', {})).toEqual(top.reverse());
    const thread = slack.messages
      .filter((m) => m.channel === 'C0SHORT' && (m.ts === root || m.thread_ts === root))
      .map((m) => m.ts);
    expect(await read('conversations.replies', { ts: root })).toEqual(thread);
    // A test may make them shorter still: a message a page.
    const usual = slack.messagesPerPage;
    slack.messagesPerPage = () => 1;
    try {
      const one = await client.conversations.replies({ channel: 'C0SHORT', ts: root, limit: 20 });
      expect(one.messages).toHaveLength(1);
      expect(one.has_more).toBe(true);
    } finally {
      slack.messagesPerPage = usual;
    }
  });

  it('conversations.members answers at most 999 a page ("a limit value under 1000"), whatever is asked', async () => {
    slack.members.C0HUGE = Array.from({ length: 1500 }, (_, i) => `U2${String(i).padStart(4, '0')}`);
    const first = await client.conversations.members({ channel: 'C0HUGE', limit: 1000 });
    expect(first.members).toHaveLength(999);
    expect(first.response_metadata?.next_cursor).not.toBe('');
  });

  it('conversations.open refuses a deactivated person, a bot and someone unknown; usergroups.users.list an unknown group', async () => {
    slack.users = { U0GONE: { deleted: true }, U0ROBOT: { is_bot: true }, U0NOBODY: null };
    expect(await answer(client.conversations.open({ users: 'U0GONE' }))).toBe('user_disabled');
    expect(await answer(client.conversations.open({ users: 'U0ROBOT' }))).toBe('cannot_dm_bot');
    expect(await answer(client.conversations.open({ users: 'U0NOBODY' }))).toBe('user_not_found');
    expect(await answer(client.conversations.open({ users: 'U0BOB' }))).toBe('ok');
    expect(await answer(client.usergroups.users.list({ usergroup: 'S0NONE' }))).toBe('no_such_subteam');
  });

  it("conversations.open refuses another organization's person (Slack Connect), not another workspace's of the bot's own organization", async () => {
    slack.users = {
      U0ZED: { team_id: 'T0OTHER', is_stranger: true },
      W0WES: { team_id: 'T0WEST' },
      W0FOE: {
        team_id: 'T0RIVAL',
        enterprise_user: {
          id: 'W0FOE',
          enterprise_id: 'E0RIVAL',
          enterprise_name: 'Rival',
          teams: ['T0RIVAL'],
        },
      },
    };
    try {
      expect(await answer(client.conversations.open({ users: 'U0ZED' }))).toBe('invalid_user_combination');
      slack.enterprise = 'E0ORG';
      expect(await answer(client.conversations.open({ users: 'W0WES' }))).toBe('ok');
      expect(await answer(client.conversations.open({ users: 'W0FOE' }))).toBe('invalid_user_combination');
    } finally {
      slack.enterprise = undefined;
      slack.users = {};
    }
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

  it('a private channel the bot is not in does not exist for it: members, info, history and replies are channel_not_found', async () => {
    slack.notJoined = { G0HIDDEN: 'private', C0PUBLIC: 'public' };
    expect(await answer(client.conversations.members({ channel: 'G0HIDDEN' }))).toBe('channel_not_found');
    expect(await answer(client.conversations.info({ channel: 'G0HIDDEN' }))).toBe('channel_not_found');
    expect(await answer(client.conversations.history({ channel: 'G0HIDDEN' }))).toBe('channel_not_found');
    expect(await answer(client.conversations.replies({ channel: 'G0HIDDEN', ts: '1.000001' }))).toBe(
      'channel_not_found',
    );
    // A public channel's members are listed to a bot that has not joined it; its messages are not.
    expect(await answer(client.conversations.members({ channel: 'C0PUBLIC' }))).toBe('ok');
    expect(await answer(client.conversations.history({ channel: 'C0PUBLIC' }))).toBe('not_in_channel');
    slack.notJoined = {};
  });

  it("chat.update and chat.delete refuse a person's message (cant_update_message, cant_delete_message); the bot's own they take", async () => {
    slack.messages.push({ channel: 'C0WORK', ts: '1700000000.999999', text: 'a person said', user: 'U0ANN' });
    expect(await answer(client.chat.update({ channel: 'C0WORK', ts: '1700000000.999999', text: 'x' }))).toBe(
      'cant_update_message',
    );
    expect(await answer(client.chat.delete({ channel: 'C0WORK', ts: '1700000000.999999' }))).toBe(
      'cant_delete_message',
    );
    // Without an author it is no one's the bot may touch either.
    slack.messages.push({ channel: 'C0WORK', ts: '1700000000.999998', text: 'chatter' });
    expect(await answer(client.chat.delete({ channel: 'C0WORK', ts: '1700000000.999998' }))).toBe(
      'cant_delete_message',
    );
    const own = await client.chat.postMessage({ channel: 'C0WORK', text: 'mine' });
    expect(
      await answer(client.chat.update({ channel: 'C0WORK', ts: own.ts as string, text: 'edited' })),
    ).toBe('ok');
    expect(await answer(client.chat.delete({ channel: 'C0WORK', ts: own.ts as string }))).toBe('ok');
  });

  it.each([
    ['a static_select with no options', { blocks: [select([])] }],
    ['a title over 24 characters', { title: { type: 'plain_text', text: 'x'.repeat(25) } }],
    ['a title in mrkdwn', { title: { type: 'mrkdwn', text: 'Start' } }],
    ['a submit label over 24 characters', { submit: { type: 'plain_text', text: 'x'.repeat(25) } }],
    ['a close label over 24 characters', { close: { type: 'plain_text', text: 'x'.repeat(25) } }],
    ['private_metadata over 3,000 characters', { private_metadata: 'x'.repeat(3001) }],
    ['a callback_id over 255 characters', { callback_id: 'x'.repeat(256) }],
    ['an input block and no submit', { submit: undefined }],
    ['an option over 75 characters', { blocks: [select([{ text: 'x'.repeat(76), value: 'v' }])] }],
  ])(
    'views.open, views.push and views.update refuse a modal with %s (invalid_arguments)',
    async (_, change) => {
      const view = { ...modal(), ...change };
      expect(await answer(client.views.open({ trigger_id: triggerId(), view: view as never }))).toBe(
        'invalid_arguments',
      );
      expect(await answer(client.views.push({ trigger_id: triggerId(), view: view as never }))).toBe(
        'invalid_arguments',
      );
      const opened = await client.views.open({ trigger_id: triggerId(), view: modal() as never });
      expect(
        await answer(client.views.update({ view_id: String(opened.view?.id), view: view as never })),
      ).toBe('invalid_arguments');
    },
  );

  it('an org-wide install must name the workspace for usergroups.users.list (missing_argument), and a group is found only in its own', async () => {
    slack.orgWide = true;
    slack.groups = { S0EAST: ['U0ANN'] };
    slack.groupTeams = { S0EAST: 'T0TEAM' };
    try {
      expect(await answer(client.usergroups.users.list({ usergroup: 'S0EAST' }))).toBe('missing_argument');
      expect(await answer(client.usergroups.users.list({ usergroup: 'S0EAST', team_id: 'T0WEST' }))).toBe(
        'no_such_subteam',
      );
      const listed = await client.usergroups.users.list({ usergroup: 'S0EAST', team_id: 'T0TEAM' });
      expect(listed.users).toEqual(['U0ANN']);
      expect((await client.auth.test()).is_enterprise_install).toBe(true);
    } finally {
      slack.orgWide = false;
    }
    // A workspace's token needs no team: one given is ignored.
    expect(await answer(client.usergroups.users.list({ usergroup: 'S0EAST' }))).toBe('ok');
  });

  it("users.conversations lists a person's channels in pages of up to 999 with cursors, only those the bot is in too, public or private", async () => {
    const many = Array.from({ length: 1200 }, (_, i) => `C2${String(i).padStart(5, '0')}`);
    slack.channels = many;
    slack.members.G0SHARED = ['U0EVE', 'U0BOT'];
    slack.members.G0HIDDEN = ['U0EVE'];
    slack.notJoined.G0HIDDEN = 'private';
    // A public channel she is in and the bot is not: a bot token's answer leaves it out.
    slack.members.C0NOBOT = ['U0EVE'];
    slack.notJoined.C0NOBOT = 'public';
    slack.members.C0ELSE = ['U0ANN'];
    slack.users = { U0NOBODY: null };
    const types = 'public_channel,private_channel';
    try {
      // Public channels only, unless asked; 100 a page unless asked; at most 999.
      const first = await client.users.conversations({ user: 'U0EVE' });
      expect(first.channels?.every((c) => !c.is_private)).toBe(true);
      expect(first.channels).toHaveLength(100);
      const big = await client.users.conversations({ user: 'U0EVE', types, limit: 5000 });
      expect(big.channels).toHaveLength(999);
      expect(big.response_metadata?.next_cursor).not.toBe('');
      const ids: string[] = [];
      for await (const page of client.paginate('users.conversations', { user: 'U0EVE', types, limit: 999 }))
        ids.push(...((page as { channels?: { id: string }[] }).channels ?? []).map((c) => c.id));
      // Every public channel of the workspace's people, the private one the bot shares; not the
      // one it is not in, nor a channel without them.
      expect(ids).toEqual(expect.arrayContaining([...many, 'G0SHARED']));
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids).not.toContain('G0HIDDEN');
      expect(ids).not.toContain('C0NOBOT');
      expect(ids).not.toContain('C0ELSE');
      expect(
        await answer(
          client.users.conversations({ user: 'U0EVE', types, cursor: first.response_metadata?.next_cursor }),
        ),
      ).toBe('invalid_cursor');
      expect(await answer(client.users.conversations({ user: 'U0NOBODY' }))).toBe('user_not_found');
      expect(await answer(client.users.conversations({ user: 'U0EVE', types: 'channels' }))).toBe(
        'invalid_types',
      );
      slack.orgWide = true;
      expect(await answer(client.users.conversations({ user: 'U0EVE' }))).toBe('missing_argument');
      expect(await answer(client.users.conversations({ user: 'U0EVE', team_id: 'T0TEAM' }))).toBe('ok');
    } finally {
      slack.orgWide = false;
      slack.channels = [];
      slack.users = {};
      delete slack.notJoined.G0HIDDEN;
      delete slack.notJoined.C0NOBOT;
    }
  });
});

describe("the fake Slack's streamed messages, as strict as Slack", () => {
  const to = { recipient_user_id: 'U0ANN', recipient_team_id: 'T0TEAM' };
  const started = async (channel = 'C0WORK') => {
    const r = await client.chat.startStream({ channel, thread_ts: '1.000001', ...to });
    return { channel, ts: r.ts as string };
  };

  it('a stream is a reply to a named person: without thread_ts or either recipient it is refused; its words show in the thread as they come', async () => {
    const args = { channel: 'C0WORK', thread_ts: '1.000001', ...to };
    expect(await answer(client.chat.startStream({ ...args, thread_ts: undefined } as never))).toBe(
      'invalid_arguments',
    );
    expect(await answer(client.chat.startStream({ ...args, recipient_user_id: undefined }))).toBe(
      'missing_recipient_user_id',
    );
    expect(await answer(client.chat.startStream({ ...args, recipient_team_id: undefined }))).toBe(
      'missing_recipient_team_id',
    );
    const s = await started();
    expect(await answer(client.chat.appendStream({ ...s, markdown_text: 'Hello ' }))).toBe('ok');
    expect(await answer(client.chat.appendStream({ ...s, markdown_text: 'world' }))).toBe('ok');
    expect(slack.messages.find((m) => m.ts === s.ts)).toMatchObject({
      thread_ts: '1.000001',
      text: 'Hello world',
    });
    expect(await answer(client.chat.stopStream(s))).toBe('ok');
    expect(await answer(client.chat.appendStream({ ...s, markdown_text: '!' }))).toBe(
      'message_not_in_streaming_state',
    );
  });

  it('a stream goes on the way it began: markdown_text, then chunks, is a mismatch; both at once, or neither in an append, is refused', async () => {
    const s = await started();
    const chunk = { type: 'markdown_text' as const, text: 'x' };
    expect(await answer(client.chat.appendStream({ ...s, markdown_text: 'a', chunks: [chunk] }))).toBe(
      'cannot_provide_both_markdown_text_and_chunks',
    );
    expect(await answer(client.chat.appendStream(s as never))).toBe('markdown_text_or_chunks_required');
    expect(await answer(client.chat.appendStream({ ...s, markdown_text: 'a' }))).toBe('ok');
    expect(await answer(client.chat.appendStream({ ...s, chunks: [chunk] }))).toBe('streaming_mode_mismatch');
    expect(await answer(client.chat.appendStream({ ...s, markdown_text: 'x'.repeat(12_001) }))).toBe(
      'invalid_arguments',
    );
  });

  it('chunks as Slack checks them: a task needs an id, a title and a known status, fields up to 256; its details add on, its status replaces', async () => {
    const s = await started();
    const task = (fields: Record<string, unknown>) =>
      answer(client.chat.appendStream({ ...s, chunks: [{ type: 'task_update', ...fields } as never] }));
    expect(await task({ id: 't1', title: 'Draft', status: 'done' })).toBe('invalid_chunks');
    expect(await task({ id: 't1', status: 'pending' })).toBe('invalid_chunks');
    expect(await task({ id: 't1', title: 'x'.repeat(257), status: 'pending' })).toBe('invalid_chunks');
    expect(await task({ id: 't1', title: 'Draft', status: 'in_progress', details: 'Author ' })).toBe('ok');
    expect(await task({ id: 't1', title: 'Draft', status: 'complete', details: 'wrote it' })).toBe('ok');
    expect(
      await answer(client.chat.appendStream({ ...s, chunks: [{ type: 'plan_update', title: 'Pair' }] })),
    ).toBe('ok');
    const stream = slack.streams.find(s.channel, s.ts);
    expect(stream?.tasks.get('t1')).toEqual({
      title: 'Draft',
      status: 'complete',
      details: 'Author wrote it',
    });
    expect(stream?.plan).toBe('Pair');
    expect(await answer(client.chat.appendStream({ ...s, chunks: [{ type: 'nonsense' } as never] }))).toBe(
      'invalid_chunks',
    );
    // Blocks in a stream follow Block Kit's rules as a post's do: two blocks with one block_id are refused.
    const twins = [1, 2].map(() => ({ type: 'divider', block_id: 'same' }));
    expect(await answer(client.chat.postMessage({ channel: 'C0WORK', text: 'x', blocks: twins }))).toBe(
      'invalid_blocks',
    );
    expect(
      await answer(client.chat.appendStream({ ...s, chunks: [{ type: 'blocks', blocks: twins } as never] })),
    ).toBe('invalid_blocks');
    expect(await answer(client.chat.stopStream({ ...s, blocks: twins }))).toBe('invalid_blocks');
  });

  it('a message past 10,000 bytes is msg_too_long, and nothing of that call is added', async () => {
    const s = await started();
    expect(await answer(client.chat.appendStream({ ...s, markdown_text: 'é'.repeat(4_000) }))).toBe('ok');
    expect(await answer(client.chat.appendStream({ ...s, markdown_text: 'é'.repeat(1_001) }))).toBe(
      'msg_too_long',
    );
    expect(slack.streams.find(s.channel, s.ts)?.text).toHaveLength(4_000);
  });

  it("Slack seals a stream 300 s after it starts; a streaming message is not edited, a stopped one is; a person's Stop refuses the next append", async () => {
    const own = new FakeSlack(NO_LIMITS);
    await own.start();
    try {
      const c = new WebClient('xoxb-test', { slackApiUrl: own.url, retryConfig: { retries: 0 } });
      const start = async () => ({
        channel: 'C0WORK',
        ts: (await c.chat.startStream({ channel: 'C0WORK', thread_ts: '1.000001', ...to })).ts as string,
      });
      const s = await start();
      expect(await answer(c.chat.update({ ...s, text: 'edited' }))).toBe('streaming_state_conflict');
      own.later(299_000);
      expect(await answer(c.chat.appendStream({ ...s, markdown_text: 'still' }))).toBe('ok');
      own.later(1_000);
      expect(await answer(c.chat.appendStream({ ...s, markdown_text: 'late' }))).toBe(
        'message_not_in_streaming_state',
      );
      expect(await answer(c.chat.stopStream(s))).toBe('message_not_in_streaming_state');
      const t = await start();
      own.streams.stoppedByUser(t.channel, t.ts);
      expect(await answer(c.chat.appendStream({ ...t, markdown_text: 'more' }))).toBe('stopped_by_user');
      const u = await start();
      expect(await answer(c.chat.stopStream({ ...u, markdown_text: 'done' }))).toBe('ok');
      expect(await answer(c.chat.update({ ...u, text: 'edited' }))).toBe('ok');
    } finally {
      await own.stop();
    }
  });

  it("the Web API client's chatStream() streams through it: its words buffered, then started, appended and stopped as chunks", async () => {
    const stream = client.chatStream({ channel: 'C0WORK', thread_ts: '1.000001', ...to, buffer_size: 10 });
    await stream.append({ markdown_text: 'Hello there, ' });
    await stream.append({ markdown_text: 'how are you?' });
    const stopped = await stream.stop({ markdown_text: ' Bye.' });
    const ts = (stopped as { ts?: string }).ts as string;
    expect(slack.streams.find('C0WORK', ts)).toMatchObject({
      text: 'Hello there, how are you? Bye.',
      state: 'stopped',
    });
  });
});

describe("the fake Slack keeps Slack's published rate limits by default", () => {
  const limited = new FakeSlack();
  let c: WebClient;
  beforeAll(async () => {
    await limited.start();
    c = new WebClient('xoxb-test', {
      slackApiUrl: limited.url,
      retryConfig: { retries: 0 },
      rejectRateLimitedCalls: true,
    });
  });
  afterAll(() => limited.stop());
  const status = (call: Promise<unknown>) =>
    call.then(
      () => 'ok',
      (e: { code?: string; retryAfter?: number }) =>
        e.code === 'slack_webapi_rate_limited_error' ? `429 ${e.retryAfter}` : String(e),
    );

  it('posts: a short burst per channel, then 429 with Retry-After; another channel is not held back', async () => {
    const post = (channel: string) => status(c.chat.postMessage({ channel, text: 'x' }));
    const burst = PUBLISHED_LIMITS['chat.postMessage']?.burst ?? 0;
    for (let i = 0; i < burst; i += 1) expect(await post('C0BUSY')).toBe('ok');
    expect(await post('C0BUSY')).toMatch(/^429 [1-9]/);
    expect(await post('C0QUIET')).toBe('ok');
    // A minute later the limit has refilled.
    limited.later(60_000);
    expect(await post('C0BUSY')).toBe('ok');
  });

  it('Tier 2 (usergroups.users.list) is spent after its burst, for the whole workspace', async () => {
    limited.groups = { S0A: ['U0ANN'], S0B: ['U0BOB'] };
    const burst = PUBLISHED_LIMITS['usergroups.users.list']?.burst ?? 0;
    for (let i = 0; i < burst; i += 1)
      expect(await status(c.usergroups.users.list({ usergroup: i % 2 ? 'S0A' : 'S0B' }))).toBe('ok');
    expect(await status(c.usergroups.users.list({ usergroup: 'S0A' }))).toMatch(/^429 [1-9]/);
    expect(limited.limited.map((l) => l.method)).toContain('usergroups.users.list');
  });

  it('Tier 3 (users.conversations) is spent after its burst, for the whole workspace', async () => {
    const burst = PUBLISHED_LIMITS['users.conversations']?.burst ?? 0;
    expect(PUBLISHED_LIMITS['users.conversations']?.perMinute).toBe(50);
    for (let i = 0; i < burst; i += 1)
      expect(await status(c.users.conversations({ user: i % 2 ? 'U0ANN' : 'U0BOB' }))).toBe('ok');
    expect(await status(c.users.conversations({ user: 'U0CAT' }))).toMatch(/^429 [1-9]/);
  });

  it('streams: chat.startStream and chat.stopStream are Tier 2 each, for the whole workspace; chat.appendStream is Tier 4', async () => {
    expect(PUBLISHED_LIMITS['chat.startStream']?.perMinute).toBe(20);
    expect(PUBLISHED_LIMITS['chat.stopStream']?.perMinute).toBe(20);
    expect(PUBLISHED_LIMITS['chat.appendStream']?.perMinute).toBe(100);
    const start = (channel: string) =>
      status(
        c.chat.startStream({
          channel,
          thread_ts: '1.000001',
          recipient_user_id: 'U0ANN',
          recipient_team_id: 'T0TEAM',
        }),
      );
    const burst = PUBLISHED_LIMITS['chat.startStream']?.burst ?? 0;
    for (let i = 0; i < burst; i += 1) expect(await start(i % 2 ? 'C0ONE' : 'C0TWO')).toBe('ok');
    expect(await start('C0THREE')).toMatch(/^429 [1-9]/);
  });

  it("Socket Mode's handshake (apps.connections.open, Tier 3) is spent after its burst too", async () => {
    const app = new WebClient('xapp-test', {
      slackApiUrl: limited.url,
      retryConfig: { retries: 0 },
      rejectRateLimitedCalls: true,
    });
    const burst = PUBLISHED_LIMITS['apps.connections.open']?.burst ?? 0;
    for (let i = 0; i < burst; i += 1) expect(await status(app.apps.connections.open())).toBe('ok');
    expect(await status(app.apps.connections.open())).toMatch(/^429 [1-9]/);
  });
});

describe("the fake Slack's response URLs, as Slack keeps them", () => {
  const own = new FakeSlack();
  beforeAll(() => own.start());
  afterAll(() => own.stop());
  const post = (url: string, text: string) =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text }),
    });

  it('a response URL takes 5 answers, then is used_url (404)', async () => {
    const url = own.responseUrl('C0WORK', '', 'U0ANN');
    for (let i = 1; i <= 5; i += 1) expect((await post(url, `answer ${i}`)).status).toBe(200);
    const sixth = await post(url, 'answer 6');
    expect([sixth.status, await sixth.text()]).toEqual([404, 'used_url']);
  });

  it('a response URL is expired_url (404) 30 minutes after it was handed out, used or not', async () => {
    const fresh = own.responseUrl('C0WORK', '', 'U0ANN');
    const used = own.responseUrl('C0WORK', '', 'U0ANN');
    expect((await post(used, 'in time')).status).toBe(200);
    own.later(29 * 60_000);
    expect((await post(used, 'still in time')).status).toBe(200);
    own.later(61_000);
    for (const url of [fresh, used]) {
      const late = await post(url, 'too late');
      expect([late.status, await late.text()]).toEqual([404, 'expired_url']);
    }
  });
});

/** A modal as the product opens them: an input and a submit, within every limit. */
function modal() {
  return {
    type: 'modal',
    callback_id: 'start',
    title: { type: 'plain_text', text: 'Start a task' },
    submit: { type: 'plain_text', text: 'Start' },
    close: { type: 'plain_text', text: 'Cancel' },
    blocks: [select([{ text: 'pair', value: 'pair' }])],
  };
}

/** An input block with a static select of `options`. */
function select(options: { text: string; value: string }[]) {
  return {
    type: 'input',
    block_id: 'workflow',
    label: { type: 'plain_text', text: 'Workflow' },
    element: {
      type: 'static_select',
      action_id: 'pick',
      options: options.map((o) => ({ text: { type: 'plain_text', text: o.text }, value: o.value })),
    },
  };
}
