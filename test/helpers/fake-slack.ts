/**
 * A local fake of Slack's Web API: records every call and answers like Slack, errors included,
 * never more leniently. It refuses what Slack refuses: Block Kit's rules (slack-blocks.ts: a
 * confirm dialog's parts plain_text, limits per block), msg_blocks_too_long, an edit's text past
 * chat.update's limit, not_authed, posts where the bot is not a member (and any look at a private
 * channel it is not in: channel_not_found), an edit or delete of a person's message, an
 * ephemeral to someone outside the channel, a DM to a deactivated person, a bot or another
 * organization's person (Slack Connect), an unknown user
 * group (and, installed org-wide, one asked about without its workspace), a permalink of a message
 * it does not have, a trigger_id spent or older than 3 s, a modal Block Kit refuses, a response
 * URL used 5 times or older than 30 minutes (its clock moves on with `later`), a streamed message
 * off its rules (fake-slack-streams.ts: recipients, one mode, sizes, chunks, sealed after 300 s, a
 * person's Stop, no edit while it streams), the Messages tab's suggested prompts and a thread's
 * thinking status off theirs (fake-slack-assistant.ts). Lists come in pages with
 * opaque cursors (fake-slack-pages.ts), a channel's or a thread's messages in pages shorter than
 * asked with more to come (`messagesPerPage`); `users.conversations` lists a person's channels where the bot
 * is too, public or private (fake-slack-channels.ts). It keeps Slack's published rate limits (429 with
 * Retry-After past a method's tier, or a channel's posts), and answers 429 when told to; its faults
 * (fake-slack-faults.ts) include a call carried out and answered late. Clicks carry response URLs
 * it hands out (`responseUrl`), which replace the message clicked. It also speaks Socket Mode:
 * apps.connections.open (with an app-level token) hands out a WebSocket URL on which envelopes
 * are sent and acked.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FakeAgentView } from './fake-slack-assistant.js';
import { usersConversations } from './fake-slack-channels.js';
import { SlackFaults } from './fake-slack-faults.js';
import {
  HISTORY_PAGES,
  listMessages,
  MEMBERS_PAGES,
  pageOf,
  REPLIES_PAGES,
  type ShortPages,
} from './fake-slack-pages.js';
import { type FakeEphemeral, FakeResponseUrls } from './fake-slack-responses.js';
import { FakeSocketMode } from './fake-slack-socket.js';
import { FakeStreams } from './fake-slack-streams.js';
import { conversationsOpen, type FakeUser, usersInfo } from './fake-slack-users.js';
import { FakeViews, homeRefusal } from './fake-slack-views.js';
import { viewRefusal } from './slack-blocks.js';
import { slackTs } from './slack-requests.js';
import { MANIFEST_SCOPES, scopesNeeded } from './slack-scopes.js';
import { PUBLISHED_LIMITS, readBody, type SlackLimit, slackRefusal } from './slack-wire.js';

export { homeRefusal } from './fake-slack-views.js';
export { blocksRefusal, confirmRefusal, viewRefusal } from './slack-blocks.js';
export {
  BLOCK_OVERHEAD,
  BLOCK_WEIGHT_REFUSED_FROM,
  blockText,
  blockWeight,
  NO_LIMITS,
  PUBLISHED_LIMITS,
  type SlackLimit,
  slackRefusal,
  UPDATE_TEXT_BYTES,
} from './slack-wire.js';

export interface SlackCall {
  method: string;
  args: Record<string, unknown>;
  /** When Slack answered it (ms since the epoch). */
  at?: number;
}

const BOT = { user_id: 'U0BOT', bot_id: 'B0BOT', team_id: 'T0TEAM', user: 'signoff' };
/** The bot's user id: a message kept with this author is the bot's (it may edit and delete it). */
export const BOT_USER = BOT.user_id;

/** The methods that act in a channel, refused where the bot is not a member. */
const IN_CHANNEL_METHODS = new Set([
  'chat.postMessage',
  'chat.postEphemeral',
  'chat.update',
  'chat.delete',
  'conversations.history',
  'conversations.replies',
  'chat.startStream',
  'chat.appendStream',
  'chat.stopStream',
]);

/** The methods that post in a channel (what an archived or admins-only channel refuses). */
const POST_METHODS = new Set([
  'chat.postMessage',
  'chat.postEphemeral',
  'chat.update',
  'chat.startStream',
  'chat.appendStream',
  'chat.stopStream',
]);

export class FakeSlack extends SlackFaults {
  /** Every call over a limit, answered with a 429. */
  readonly limited: { method: string; channel?: string; at: number }[] = [];
  /** Per limited thing, when its limit is back to empty (GCRA's theoretical arrival time). */
  private arrivals = new Map<string, number>();
  /** Per limited thing counted by the minute (`window`), when its calls of the last minute came. */
  private windows = new Map<string, number[]>();

  /**
   * `limits`: enforced as Slack does (429 with Retry-After); Slack's published tiers for every
   * method the product calls by default, as a real workspace has them. `NO_LIMITS` turns them off:
   * only for a test whose own setup sends more than Slack would take (and that says why), never to
   * let the product's calls through.
   */
  constructor(private readonly limits: Record<string, SlackLimit> = PUBLISHED_LIMITS) {
    super();
  }

  readonly calls: SlackCall[] = [];
  /** Every call Slack would have refused, with its error. */
  readonly refusals: { method: string; error: string }[] = [];
  private server: Server | undefined;
  /** The last ts handed out, in microseconds: a ts is when its message was posted, as Slack's is. */
  private lastMicros = 0;
  /** User groups and their members, for reviewer checks; any other group is unknown (`no_such_subteam`). */
  groups: Record<string, string[]> = {};
  /** `users.info` over a member of T0TEAM: `{ is_restricted: true }` a guest, `null` no such user. */
  users: Record<string, Partial<FakeUser> | null> = {};
  /** The Enterprise organization this workspace belongs to (what `auth.test` says), if any. */
  enterprise: string | undefined;
  /**
   * Installed for the whole Enterprise organization (an org-level token): `auth.test` says so, and
   * `usergroups.users.list` needs the `team_id` of a workspace (`missing_argument` without one).
   */
  orgWide = false;
  /** The workspace each user group belongs to, where known: asked about in another, it is `no_such_subteam`. */
  groupTeams: Record<string, string> = {};
  /** The workspace's people: every one of them is in a channel that `members` does not list. */
  people: string[] = ['U0ANN', 'U0BOB', 'U0CAT', 'U0DAN', 'U0EVE'];
  /** Channels with their own members (a private channel): `conversations.members` answers these. */
  members: Record<string, string[]> = {};
  /**
   * Channels the workspace has besides those named elsewhere here (in `members`, `notJoined`,
   * `closed`, or holding a message): what `users.conversations` lists, with those.
   */
  channels: string[] = [];
  /**
   * Channels the bot has not joined: Slack refuses its posts, ephemerals, updates and reads there
   * (`not_in_channel`; `channel_not_found` for a private channel, which the bot cannot see).
   */
  notJoined: Record<string, 'public' | 'private'> = {};
  /**
   * Channels that refuse the bot's posts for good though it is a member: `is_archived` (archived;
   * an update too) and `restricted_action` (only admins may post, as #general can be set).
   */
  closed: Record<string, 'is_archived' | 'restricted_action'> = {};
  private socket = new FakeSocketMode();
  /** Trigger ids spent and views open (views.open, views.update). */
  private views = new FakeViews();
  /**
   * Messages as Slack keeps them, per channel: what `conversations.replies` reads. `user`: who
   * posted it (`BOT_USER` for the bot's own); one without is a person's, which the bot may
   * neither edit nor delete.
   */
  readonly messages: {
    channel: string;
    ts: string;
    thread_ts?: string;
    text?: string;
    metadata?: unknown;
    user?: string;
  }[] = [];
  /**
   * How many messages a page of conversations.history or .replies holds when `limit` were asked:
   * "it's possible to receive fewer results than your specified limit, even when there are
   * additional results to retrieve" (Slack's Pagination), so by default half, rounded up; a test
   * sets fewer to walk a reader through many short pages.
   */
  messagesPerPage: ShortPages = (limit) => Math.ceil(limit / 2);
  /** The ts each chat.postMessage call's message got, by the call's recorded arguments. */
  private readonly postedAt = new WeakMap<object, string>();
  /** The ts of the message a recorded chat.postMessage call made (undefined if it made none). */
  tsOfPost(args: object): string | undefined {
    return this.postedAt.get(args);
  }
  /** How far Slack's clock is ahead of this machine's (`later`). */
  private ahead = 0;
  /** Slack's time now (ms since the epoch): this machine's, moved on by `later`. */
  readonly now = (): number => Date.now() + this.ahead;
  private answers = new FakeResponseUrls(this.refusals, this.now);
  /** Streamed messages (fake-slack-streams.ts), each also a message of its thread. */
  readonly streams = new FakeStreams(this.now, (channel, threadTs) => {
    const ts = this.nextTs();
    this.messages.push({ channel, ts, thread_ts: threadTs, text: '', user: BOT.user_id });
    this.agentView.posted(channel, threadTs);
    return ts;
  });
  /** The Messages tab's prompts and threads' thinking status (fake-slack-assistant.ts). */
  readonly agentView = new FakeAgentView(
    this.now,
    (channel) => this.hasChannel(channel),
    (channel, ts) => this.messages.some((m) => m.channel === channel && m.ts === ts),
  );
  /** Ephemeral messages as their user sees them (a response_url with replace_original changes one). */
  readonly ephemerals: FakeEphemeral[] = this.answers.ephemerals;
  /** What was posted to response URLs, and for which message. */
  readonly responses = this.answers.responses;

  /**
   * The response_url Slack puts in a click on message `ts` of `channel` (or in a command of
   * `user`'s, with no message): up to 5 uses (Slack's rule); with `replace_original` it replaces
   * that message (an ephemeral one included), else it shows `user` a new ephemeral message, in
   * any channel, the bot's or not. `ageMs`: handed out that long ago (a command typed a while back).
   */
  responseUrl(channel: string, ts: string, user?: string, ageMs = 0): string {
    return this.url.replace(/api\/$/, `respond/${this.answers.handOut(channel, ts, user, ageMs)}`);
  }

  /**
   * Slack's clock moves on by `ms` (without waiting): response URLs handed out before are that much
   * older (spent after 30 minutes), trigger ids too, a thread's thinking status (gone two minutes
   * after it was set), and rate limits have refilled as they would.
   */
  later(ms: number): void {
    this.ahead += ms;
  }

  /**
   * A new message's ts, as Slack makes it: when it was posted (seconds and six digits of
   * microseconds since the epoch), each one later than the last; so a ts says when its message
   * was written, and compares with a person's reply (slack-requests.ts) or a decision's time.
   * This machine's clock, not `now()`: `later` moves Slack's windows, not the world's time.
   */
  private nextTs(): string {
    this.lastMicros = Math.max(this.lastMicros + 1, Date.now() * 1000);
    return slackTs(this.lastMicros);
  }

  /**
   * `user` writes `text` in `channel` (in the thread `threadTs`): kept as Slack keeps a person's
   * message, and its ts returned (what the event Slack sends about it carries).
   */
  said(channel: string, user: string, text: string, threadTs?: string): string {
    const ts = this.nextTs();
    this.messages.push({ channel, ts, thread_ts: threadTs, text, user });
    return ts;
  }

  /**
   * Whether Slack has `channel` for the bot: any public or private channel it is in (or a public
   * one it is not), and a DM of one of the workspace's people (D + their id after U) or one
   * holding messages.
   */
  private hasChannel(channel: string): boolean {
    if (this.notJoined[channel] === 'private') return false;
    if (/^[CG]/.test(channel)) return true;
    const person = `U${channel.slice(1)}`;
    return (
      /^D/.test(channel) &&
      ((this.people.includes(person) && this.users[person] !== null) ||
        this.messages.some((m) => m.channel === channel))
    );
  }

  /** Resolves once a Socket Mode client is connected (and has been sent `hello`). */
  socketConnected(ms = 10_000): Promise<void> {
    return this.socket.connected(ms);
  }

  /** Cuts the Socket Mode connections without a close frame, as a network drop does. */
  dropSocket(): void {
    this.socket.close();
  }

  /** Asks the Socket Mode clients to reconnect, as Slack does before it moves a connection. */
  askSocketToReconnect(reason = 'refresh_requested'): void {
    this.socket.askToReconnect(reason);
  }

  /**
   * Slack's socket host out of reach (true) or back (false): apps.connections.open still hands out
   * a URL, and each socket opened there is refused, as the drop's reconnects then meet.
   */
  refuseSockets(refusing: boolean): void {
    this.socket.refusing = refusing;
  }

  /** How many Socket Mode clients are connected now. */
  get socketCount(): number {
    return this.socket.count;
  }

  /** How many Socket Mode sockets have been opened in all, closed ones too. */
  get socketsOpened(): number {
    return this.socket.opened;
  }

  /** How many Socket Mode sockets were refused (`refuseSockets`). */
  get socketsRefused(): number {
    return this.socket.refused;
  }

  /** Sends an envelope over Socket Mode; resolves with the payload of the app's ack. */
  sendEnvelope(type: 'slash_commands' | 'interactive' | 'events_api', payload: object): Promise<unknown> {
    return this.socket.send(type, payload);
  }

  get url(): string {
    const address = this.server?.address() as AddressInfo;
    return `http://127.0.0.1:${address.port}/api/`;
  }

  callsOf(method: string): Record<string, unknown>[] {
    return this.calls.filter((c) => c.method === method).map((c) => c.args);
  }

  /** Listens on `port` (default: any free one), e.g. where an app already looks for Slack. */
  async start(port = 0): Promise<void> {
    this.server = createServer(async (req, res) => {
      // What was called, for a test or benchmark in another process.
      if (req.method === 'GET' && (req.url === '/calls' || req.url === '/messages')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(req.url === '/calls' ? this.calls : this.messages));
        return;
      }
      // Messages posted before, for a benchmark in another process: seeded tasks' roots, the bot's
      // unless they name another author.
      if (req.method === 'POST' && req.url === '/messages') {
        const seeded = (await readBody(req)).messages as FakeSlack['messages'];
        this.messages.push(...seeded.map((m) => ({ user: BOT.user_id, ...m })));
        res.writeHead(200).end();
        return;
      }
      if (req.method === 'POST' && req.url?.startsWith('/respond/')) {
        return this.respond(req.url.slice('/respond/'.length), await readBody(req), res);
      }
      const method = (req.url ?? '').replace(/^\/api\//, '').split('?')[0] ?? '';
      const args = await readBody(req);
      const reply = (status: number, body: object, headers: Record<string, string> = {}) => {
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end(JSON.stringify(body));
      };
      const token = String(req.headers.authorization ?? '');
      // Socket Mode's handshake takes the app-level token; everything else the bot token.
      if (method === 'apps.connections.open') {
        if (!token.startsWith('Bearer xapp-')) return reply(200, { ok: false, error: 'invalid_auth' });
        // Limited as any method (Tier 3): a client reconnecting in a loop meets 429s.
        const wait = this.overLimit(method, args);
        if (wait > 0) return this.limitedReply(method, args, wait, reply);
        // Held or failed as any method (a reconnect waiting for Slack, an app-level token revoked).
        await this.whileHeld(method, args);
        const fault = this.faultFor(method, args);
        if (fault) {
          this.calls.push({ method, args: { ...args, failed: true }, at: Date.now() });
          return reply(fault.status, fault.body, fault.headers);
        }
        this.calls.push({ method, args, at: Date.now() });
        return reply(200, { ok: true, url: this.url.replace(/^http/, 'ws').replace(/api\/$/, 'link') });
      }
      if (!token.startsWith('Bearer xoxb-')) return reply(200, { ok: false, error: 'not_authed' });
      await this.whileHeld(method, args);
      const wait = this.overLimit(method, args);
      if (wait > 0) return this.limitedReply(method, args, wait, reply);
      const fault = this.faultFor(method, args);
      if (fault) {
        if (fault.limited)
          this.limited.push({ method, channel: args.channel as string | undefined, at: Date.now() });
        if (fault.refused) this.refusals.push({ method, error: fault.body.error });
        const marks = fault.limited ? { failed: true, limited: true } : { failed: true };
        this.calls.push({ method, args: { ...args, ...marks }, at: Date.now() });
        return reply(fault.status, fault.body, fault.headers);
      }
      const answer = this.answer(method, args) as { ok?: boolean };
      // A call Slack answered with an error did nothing: recorded as failed, like the faults'.
      this.calls.push({
        method,
        args: answer.ok === false ? { ...args, failed: true } : args,
        at: Date.now(),
      });
      // Carried out already; only the answer is late (the caller may have given up by then).
      await this.answerDelay(method, args);
      if (!res.destroyed) reply(200, answer);
    });
    this.socket.attach(this.server);
    await new Promise<void>((resolve) => this.server?.listen(port, '127.0.0.1', resolve));
  }

  /** A call over its limit: recorded, and answered 429 with the seconds until it would be within. */
  private limitedReply(
    method: string,
    args: Record<string, unknown>,
    wait: number,
    reply: (status: number, body: object, headers?: Record<string, string>) => void,
  ): void {
    this.limited.push({ method, channel: args.channel as string | undefined, at: Date.now() });
    this.calls.push({ method, args: { ...args, failed: true, limited: true }, at: Date.now() });
    reply(429, { ok: false, error: 'ratelimited' }, { 'retry-after': String(Math.ceil(wait / 1000)) });
  }

  /** 0 when the call is within its limit (and counts it), else milliseconds until it would be. */
  private overLimit(method: string, args: Record<string, unknown>): number {
    const limit = this.limits[method];
    if (!limit) return 0;
    const key = limit.perChannel ? `${method}:${String(args.channel)}` : method;
    const now = this.now();
    if (limit.window) return this.overWindow(key, limit.perMinute, now);
    const period = 60_000 / limit.perMinute;
    const tat = Math.max(this.arrivals.get(key) ?? now, now);
    const wait = tat - now - period * (limit.burst - 1);
    if (wait > 0) return wait;
    this.arrivals.set(key, tat + period);
    return 0;
  }

  /** A limit of `max` calls in any minute: 0 (and counted), or milliseconds until the oldest leaves it. */
  private overWindow(key: string, max: number, now: number): number {
    const recent = (this.windows.get(key) ?? []).filter((at) => at > now - 60_000);
    this.windows.set(key, recent);
    const oldest = recent.length >= max ? recent[recent.length - max] : undefined;
    if (oldest !== undefined) return oldest + 60_000 - now;
    recent.push(now);
    return 0;
  }

  /**
   * The bot scopes the app was installed with: a method that needs another is refused with
   * `missing_scope`, as Slack refuses it (manifest.yml's, unless a test installs it otherwise).
   */
  scopes: readonly string[] = MANIFEST_SCOPES;

  private answer(method: string, args: Record<string, unknown>): object {
    const lacking = scopesNeeded(method, args).find((any) => !any.some((s) => this.scopes.includes(s)));
    if (lacking) {
      // Slack's answer names what was needed and what the token has.
      this.refusals.push({ method, error: 'missing_scope' });
      return {
        ok: false,
        error: 'missing_scope',
        needed: lacking.join(','),
        provided: this.scopes.join(','),
      };
    }
    const outside = IN_CHANNEL_METHODS.has(method) ? this.notJoined[String(args.channel)] : undefined;
    if (outside) {
      const error = outside === 'private' ? 'channel_not_found' : 'not_in_channel';
      this.refusals.push({ method, error });
      return { ok: false, error };
    }
    const closed = POST_METHODS.has(method) ? this.closed[String(args.channel)] : undefined;
    if (closed && (closed === 'is_archived' || method !== 'chat.update')) {
      this.refusals.push({ method, error: closed });
      return { ok: false, error: closed };
    }
    switch (method) {
      case 'auth.test':
        return {
          ok: true,
          ...BOT,
          url: 'https://fake.slack.test/',
          ...(this.enterprise ? { enterprise_id: this.enterprise } : {}),
          is_enterprise_install: this.orgWide,
        };
      case 'users.info':
        return usersInfo(String(args.user ?? ''), this.users[String(args.user)], {
          team: BOT.team_id,
          enterprise: this.enterprise,
        });
      case 'chat.postMessage': {
        const refused = slackRefusal(args);
        if (refused) {
          this.refusals.push({ method, error: refused });
          return { ok: false, error: refused };
        }
        const ts = this.nextTs();
        this.postedAt.set(args, ts);
        this.messages.push({
          channel: String(args.channel),
          ts,
          thread_ts: args.thread_ts as string | undefined,
          text: args.text as string | undefined,
          metadata: args.metadata,
          user: BOT.user_id,
        });
        this.agentView.posted(String(args.channel), args.thread_ts as string | undefined);
        return { ok: true, channel: args.channel, ts, message: { text: args.text } };
      }
      case 'conversations.replies': {
        const thread = this.messages.filter(
          (m) => m.channel === args.channel && (m.ts === args.ts || m.thread_ts === args.ts),
        );
        if (thread.length === 0) return { ok: false, error: 'thread_not_found' };
        return listMessages(
          thread,
          args,
          `${method}:${args.channel}:${args.ts}`,
          REPLIES_PAGES,
          this.messagesPerPage,
        );
      }
      case 'conversations.history': {
        // Newest first, as Slack lists a channel.
        const top = this.messages.filter((m) => m.channel === args.channel && !m.thread_ts).reverse();
        return listMessages(top, args, `${method}:${args.channel}`, HISTORY_PAGES, this.messagesPerPage);
      }
      case 'chat.startStream':
      case 'chat.appendStream':
      case 'chat.stopStream': {
        const verb =
          method === 'chat.startStream' ? 'start' : method === 'chat.appendStream' ? 'append' : 'stop';
        const done = this.streams[verb](args);
        if (!done.ok) {
          this.refusals.push({ method, error: done.error });
          return done;
        }
        // What the thread shows of it: its words so far.
        const stream = this.streams.find(done.channel, done.ts);
        const m = this.messages.find((x) => x.channel === done.channel && x.ts === done.ts);
        if (m && stream) m.text = stream.text;
        return done;
      }
      case 'chat.update': {
        // Only a message it has; the edit is what conversations.history shows next.
        const m = this.messages.find((x) => x.channel === args.channel && x.ts === args.ts);
        // A person's message is not the bot's to edit; a message still streaming is not edited.
        const refused = !m
          ? 'message_not_found'
          : m.user !== BOT.user_id
            ? 'cant_update_message'
            : this.streams.live(args.channel, args.ts)
              ? 'streaming_state_conflict'
              : slackRefusal(args, method);
        if (refused || !m) {
          this.refusals.push({ method, error: refused ?? 'message_not_found' });
          return { ok: false, error: refused };
        }
        if (typeof args.text === 'string') m.text = args.text;
        return { ok: true, channel: args.channel, ts: args.ts };
      }
      case 'chat.delete': {
        const at = this.messages.findIndex((m) => m.channel === args.channel && m.ts === args.ts);
        // A bot token deletes only the bot's own messages.
        const error =
          at < 0 ? 'message_not_found' : this.messages[at]?.user !== BOT.user_id ? 'cant_delete_message' : '';
        if (error) {
          this.refusals.push({ method, error });
          return { ok: false, error };
        }
        this.messages.splice(at, 1);
        return { ok: true, channel: args.channel, ts: args.ts };
      }
      case 'chat.postEphemeral': {
        // Slack shows an ephemeral only to a member of the channel, and checks its blocks.
        const members = this.members[String(args.channel)] ?? this.people;
        const refused = members.includes(String(args.user)) ? slackRefusal(args) : 'user_not_in_channel';
        if (refused) {
          this.refusals.push({ method, error: refused });
          return { ok: false, error: refused };
        }
        const ts = this.answers.nextTs();
        // "Ephemeral messages in threads are only shown if there is already an active thread"
        // (chat.postEphemeral's reference): into a thread with no reply yet, Slack answers ok and
        // shows nothing. Marked on the call, which the tests' reading of what was shown leaves out.
        const thread = args.thread_ts as string | undefined;
        if (
          thread &&
          !this.messages.some((m) => m.channel === args.channel && m.thread_ts === thread && m.ts !== thread)
        ) {
          args.unshown = true;
          return { ok: true, message_ts: ts };
        }
        this.ephemerals.push({
          channel: String(args.channel),
          user: String(args.user),
          ts,
          thread_ts: args.thread_ts as string | undefined,
          text: args.text as string | undefined,
          blocks: args.blocks as unknown[] | undefined,
        });
        return { ok: true, message_ts: ts };
      }
      case 'views.open':
      case 'views.push':
      case 'views.update': {
        const refused =
          (method === 'views.update' ? undefined : this.views.exchange(args.trigger_id, this.now())) ??
          viewRefusal(args.view);
        const updated =
          refused || method !== 'views.update' ? undefined : this.views.update(args.view_id, args.hash);
        const error = refused ?? (updated && 'error' in updated ? updated.error : undefined);
        if (error) {
          this.refusals.push({ method, error });
          return { ok: false, error };
        }
        const shown =
          updated && 'hash' in updated ? { id: args.view_id, hash: updated.hash } : this.views.opened();
        return { ok: true, view: { ...(args.view as object), ...shown } };
      }
      case 'views.publish': {
        const refused = homeRefusal(args.view);
        if (refused) {
          this.refusals.push({ method, error: refused });
          return { ok: false, error: refused };
        }
        return { ok: true, view: { id: `V0HOME${String(args.user_id)}`, ...(args.view as object) } };
      }
      case 'usergroups.users.list': {
        // An org-level token names the workspace the group is in ("required if org token is
        // used"); a workspace token's team_id is ignored.
        if (this.orgWide && !args.team_id) {
          this.refusals.push({ method, error: 'missing_argument' });
          return { ok: false, error: 'missing_argument' };
        }
        const group = String(args.usergroup);
        const home = this.groupTeams[group];
        const elsewhere = this.orgWide && home !== undefined && home !== args.team_id;
        const users = elsewhere ? undefined : this.groups[group];
        return users ? { ok: true, users } : { ok: false, error: 'no_such_subteam' };
      }
      case 'conversations.members': {
        // A private channel the bot is not in does not exist for it; a public one's members are listed.
        if (this.notJoined[String(args.channel)] === 'private') {
          this.refusals.push({ method, error: 'channel_not_found' });
          return { ok: false, error: 'channel_not_found' };
        }
        // A DM (the app's with one person: `D` and their id's rest) holds that person and the app.
        const dm = String(args.channel).startsWith('D')
          ? [`U${String(args.channel).slice(1)}`, BOT.user_id]
          : undefined;
        const all = this.members[String(args.channel)] ?? dm ?? this.people;
        const listed = pageOf(all, args, `${method}:${args.channel}`, MEMBERS_PAGES);
        return 'error' in listed
          ? { ok: false, error: listed.error }
          : { ok: true, members: listed.page, response_metadata: listed.meta.response_metadata };
      }
      case 'chat.getPermalink': {
        // Only for a message Slack has; a reply's link opens its thread.
        const m = this.messages.find((x) => x.channel === args.channel && x.ts === args.message_ts);
        if (!m) return { ok: false, error: 'message_not_found' };
        const base = `https://fake.slack.test/archives/${m.channel}/p${m.ts.replace('.', '')}`;
        return {
          ok: true,
          channel: m.channel,
          permalink: m.thread_ts ? `${base}?thread_ts=${m.thread_ts}&cid=${m.channel}` : base,
        };
      }
      case 'users.conversations':
        return usersConversations(
          {
            bot: BOT.user_id,
            channels: this.knownChannels(),
            membersOf: (c) => this.members[c] ?? this.people,
            botIn: (c) => !this.notJoined[c],
            isPrivate: (c) => c.startsWith('G') || this.notJoined[c] === 'private',
            known: (u) => this.users[u] !== null,
            orgWide: this.orgWide,
          },
          args,
        );
      case 'conversations.info': {
        // As Slack: a private channel the bot is not in does not exist for it; a public one does.
        const id = String(args.channel);
        const outside = this.notJoined[id];
        if (outside === 'private') {
          this.refusals.push({ method, error: 'channel_not_found' });
          return { ok: false, error: 'channel_not_found' };
        }
        return {
          ok: true,
          channel: {
            id,
            is_channel: id.startsWith('C'),
            is_private: id.startsWith('G'),
            is_archived: this.closed[id] === 'is_archived',
            is_member: !outside,
          },
        };
      }
      case 'assistant.threads.setSuggestedPrompts':
      case 'assistant.threads.setStatus': {
        const done =
          method === 'assistant.threads.setStatus'
            ? this.agentView.setStatus(args)
            : this.agentView.setSuggestedPrompts(args);
        if (!done.ok) this.refusals.push({ method, error: String(done.error) });
        return done;
      }
      case 'conversations.open':
        return conversationsOpen(String(args.users ?? ''), this.users[String(args.users)], {
          team: BOT.team_id,
          enterprise: this.enterprise,
        });
      default:
        // As Slack answers a method it does not have: a call the fake does not model fails loudly
        // instead of passing as done.
        return { ok: false, error: 'unknown_method' };
    }
  }

  /** Every channel the workspace has, in the order they were first named. */
  private knownChannels(): string[] {
    return [
      ...new Set([
        ...this.channels,
        ...Object.keys(this.members),
        ...Object.keys(this.notJoined),
        ...Object.keys(this.closed),
        ...this.messages.map((m) => m.channel),
      ]),
    ].filter((c) => /^[CG]/.test(c));
  }

  /** A post to a response URL: Slack answers 404 for one it does not know or that is used up. */
  private respond(id: string, body: Record<string, unknown>, res: ServerResponse): void {
    const [status, text] = this.answers.post(id, body);
    res.writeHead(status, { 'content-type': 'text/plain' });
    res.end(text);
  }

  async stop(): Promise<void> {
    this.socket.close();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }
}
