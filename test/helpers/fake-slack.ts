/**
 * A local fake of Slack's Web API: records every call and answers like Slack, errors included.
 * It refuses what Slack refuses (invalid_blocks over the limits, msg_too_long, not_authed) and
 * answers 429 with Retry-After when told to. It also speaks Socket Mode: apps.connections.open
 * (with an app-level token) hands out a WebSocket URL on which envelopes are sent and acked.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type WebSocket, WebSocketServer } from 'ws';

export interface SlackCall {
  method: string;
  args: Record<string, unknown>;
  /** When Slack answered it (ms since the epoch). */
  at?: number;
}

const BOT = { user_id: 'U0BOT', bot_id: 'B0BOT', team_id: 'T0TEAM', user: 'signoff' };

function parseOr(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

async function readBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks).toString('utf8');
  if ((req.headers['content-type'] ?? '').includes('application/json')) return raw ? JSON.parse(raw) : {};
  const out: Record<string, unknown> = {};
  for (const [k, v] of new URLSearchParams(raw)) {
    // The Web API client sends objects and arrays as JSON strings inside a form.
    out[k] = /^[[{]/.test(v) ? parseOr(v) : v;
  }
  return out;
}

/** What Slack says about a message's blocks and text, or undefined when it would accept them. */
export function slackRefusal(args: Record<string, unknown>): string | undefined {
  const text = typeof args.text === 'string' ? args.text : '';
  if (text.length > 40_000) return 'msg_too_long';
  const blocks = (args.blocks ?? []) as {
    type: string;
    text?: { text?: string } | string;
    elements?: { value?: string }[];
  }[];
  if (!Array.isArray(blocks)) return 'invalid_blocks';
  if (blocks.length > 50) return 'invalid_blocks';
  let markdown = 0;
  for (const b of blocks) {
    if (b.type === 'markdown') markdown += String(b.text ?? '').length;
    if (b.type === 'section' && typeof b.text === 'object' && (b.text.text ?? '').length > 3000)
      return 'invalid_blocks';
    if (b.type === 'header' && typeof b.text === 'object' && (b.text.text ?? '').length > 150)
      return 'invalid_blocks';
    for (const e of b.elements ?? []) if ((e.value ?? '').length > 2000) return 'invalid_blocks';
  }
  if (markdown > 12_000) return 'invalid_blocks';
  if (!text && blocks.length === 0) return 'no_text';
  return undefined;
}

/** A promise and its resolve (Promise.withResolvers needs Node 22). */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = (): void => undefined;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** A limit Slack enforces: calls a minute, calls at once, and whether it is counted per channel. */
export interface SlackLimit {
  perMinute: number;
  burst: number;
  perChannel?: boolean;
}

/**
 * Slack's published limits (docs.slack.dev, "Rate limits"), enforced when a FakeSlack is made
 * with them: posts about one a second per channel with short bursts; chat.update and the other
 * Tier 3 methods 50 a minute per workspace; Tier 2, 20; Tier 4, 100.
 */
export const PUBLISHED_LIMITS: Record<string, SlackLimit> = {
  'chat.postMessage': { perMinute: 60, burst: 4, perChannel: true },
  'chat.update': { perMinute: 50, burst: 4 },
  'conversations.replies': { perMinute: 50, burst: 4 },
  'conversations.open': { perMinute: 50, burst: 4 },
  'chat.getPermalink': { perMinute: 100, burst: 6 },
  'usergroups.users.list': { perMinute: 20, burst: 3 },
  'conversations.members': { perMinute: 100, burst: 6 },
};

export class FakeSlack {
  /** Every call over a limit, answered with a 429. */
  readonly limited: { method: string; channel?: string; at: number }[] = [];
  /** Per limited thing, when its limit is back to empty (GCRA's theoretical arrival time). */
  private arrivals = new Map<string, number>();

  /** `limits`: enforce these as Slack does (429 with Retry-After); none by default. */
  constructor(private readonly limits: Record<string, SlackLimit> = {}) {}

  readonly calls: SlackCall[] = [];
  /** Every call Slack would have refused, with its error. */
  readonly refusals: { method: string; error: string }[] = [];
  private server: Server | undefined;
  private ts = 1_700_000_000;
  private failures: { method: string; status: number; retryAfter?: number; error?: string }[] = [];
  /** User groups and their members, for reviewer checks. */
  groups: Record<string, string[]> = {};
  /** The workspace's people: every one of them is in a channel that `members` does not list. */
  people: string[] = ['U0ANN', 'U0BOB', 'U0CAT', 'U0DAN', 'U0EVE'];
  /** Channels with their own members (a private channel): `conversations.members` answers these. */
  members: Record<string, string[]> = {};
  private sockets = new Set<WebSocket>();
  private holds: {
    method: string;
    when: (args: Record<string, unknown>) => boolean;
    arrived: () => void;
    released: Promise<void>;
  }[] = [];
  /** Standing refusals: every call that matches is answered with the error, as Slack would. */
  private refusing: { method: string; when: (args: Record<string, unknown>) => boolean; error: string }[] =
    [];
  /** Messages as Slack keeps them, per channel: what `conversations.replies` reads. */
  readonly messages: {
    channel: string;
    ts: string;
    thread_ts?: string;
    text?: string;
    metadata?: unknown;
  }[] = [];
  private acks = new Map<string, (payload: unknown) => void>();

  /** Resolves once a Socket Mode client is connected (and has been sent `hello`). */
  async socketConnected(ms = 10_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (this.sockets.size === 0) {
      if (Date.now() > deadline) throw new Error('no Socket Mode connection');
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /** Sends an envelope over Socket Mode; resolves with the payload of the app's ack. */
  async sendEnvelope(
    type: 'slash_commands' | 'interactive' | 'events_api',
    payload: object,
  ): Promise<unknown> {
    const envelope_id = randomUUID();
    const acked = new Promise<unknown>((resolve) => this.acks.set(envelope_id, resolve));
    const message = JSON.stringify({
      envelope_id,
      type,
      payload,
      accepts_response_payload: type !== 'events_api',
    });
    for (const socket of this.sockets) socket.send(message);
    return acked;
  }

  get url(): string {
    const address = this.server?.address() as AddressInfo;
    return `http://127.0.0.1:${address.port}/api/`;
  }

  /** The next call of `method` fails: 429 with Retry-After, or a Slack error such as channel_not_found. */
  /**
   * The next call of `method` waits before it is answered: `reached` resolves when it arrives,
   * `release` lets it through (to do something while a request is in flight).
   */
  holdNext(
    method: string,
    when: (args: Record<string, unknown>) => boolean = () => true,
  ): { reached: Promise<void>; release: () => void } {
    const reached = deferred();
    const released = deferred();
    this.holds.push({ method, when, arrived: reached.resolve, released: released.promise });
    return { reached: reached.promise, release: released.resolve };
  }

  /** Refuses every call of `method` whose arguments match, with a Slack error, until removed. */
  refuse(method: string, when: (args: Record<string, unknown>) => boolean, error: string): () => void {
    const rule = { method, when, error };
    this.refusing.push(rule);
    return () => {
      this.refusing = this.refusing.filter((r) => r !== rule);
    };
  }

  failNext(method: string, failure: { status?: number; retryAfter?: number; error?: string }): void {
    this.failures.push({ method, status: failure.status ?? 200, ...failure });
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
        this.calls.push({ method, args, at: Date.now() });
        return reply(200, { ok: true, url: this.url.replace(/^http/, 'ws').replace(/api\/$/, 'link') });
      }
      if (!token.startsWith('Bearer xoxb-')) return reply(200, { ok: false, error: 'not_authed' });
      const hold = this.holds.findIndex((h) => h.method === method && h.when(args));
      if (hold >= 0) {
        const [h] = this.holds.splice(hold, 1);
        h?.arrived();
        await h?.released;
      }
      const wait = this.overLimit(method, args);
      if (wait > 0) {
        this.limited.push({ method, channel: args.channel as string | undefined, at: Date.now() });
        this.calls.push({ method, args: { ...args, failed: true, limited: true }, at: Date.now() });
        return reply(
          429,
          { ok: false, error: 'ratelimited' },
          { 'retry-after': String(Math.ceil(wait / 1000)) },
        );
      }
      const failure = this.failures.findIndex((f) => f.method === method);
      if (failure >= 0) {
        const [f] = this.failures.splice(failure, 1);
        this.calls.push({ method, args: { ...args, failed: true }, at: Date.now() });
        if (f?.status === 429)
          return reply(
            429,
            { ok: false, error: 'ratelimited' },
            { 'retry-after': String(f.retryAfter ?? 1) },
          );
        return reply(f?.status ?? 200, { ok: false, error: f?.error ?? 'internal_error' });
      }
      const refusal = this.refusing.find((r) => r.method === method && r.when(args));
      if (refusal) {
        this.calls.push({ method, args: { ...args, failed: true }, at: Date.now() });
        this.refusals.push({ method, error: refusal.error });
        return reply(200, { ok: false, error: refusal.error });
      }
      this.calls.push({ method, args, at: Date.now() });
      reply(200, this.answer(method, args));
    });
    const wss = new WebSocketServer({ server: this.server, path: '/link' });
    wss.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
      socket.on('message', (data) => {
        const { envelope_id, payload } = JSON.parse(String(data)) as {
          envelope_id: string;
          payload: unknown;
        };
        this.acks.get(envelope_id)?.(payload);
        this.acks.delete(envelope_id);
      });
      socket.send(
        JSON.stringify({
          type: 'hello',
          num_connections: 1,
          debug_info: { host: 'fake', approximate_connection_time: 3600 },
          connection_info: { app_id: 'A0APP' },
        }),
      );
    });
    await new Promise<void>((resolve) => this.server?.listen(port, '127.0.0.1', resolve));
  }

  /** 0 when the call is within its limit (and counts it), else milliseconds until it would be. */
  private overLimit(method: string, args: Record<string, unknown>): number {
    const limit = this.limits[method];
    if (!limit) return 0;
    const key = limit.perChannel ? `${method}:${String(args.channel)}` : method;
    const now = Date.now();
    const period = 60_000 / limit.perMinute;
    const tat = Math.max(this.arrivals.get(key) ?? now, now);
    const wait = tat - now - period * (limit.burst - 1);
    if (wait > 0) return wait;
    this.arrivals.set(key, tat + period);
    return 0;
  }

  private answer(method: string, args: Record<string, unknown>): object {
    switch (method) {
      case 'auth.test':
        return { ok: true, ...BOT, url: 'https://fake.slack.test/' };
      case 'chat.postMessage': {
        const refused = slackRefusal(args);
        if (refused) {
          this.refusals.push({ method, error: refused });
          return { ok: false, error: refused };
        }
        this.ts += 1;
        const ts = `${this.ts}.000100`;
        this.messages.push({
          channel: String(args.channel),
          ts,
          thread_ts: args.thread_ts as string | undefined,
          text: args.text as string | undefined,
          metadata: args.metadata,
        });
        return { ok: true, channel: args.channel, ts, message: { text: args.text } };
      }
      case 'conversations.replies': {
        const thread = this.messages.filter(
          (m) => m.channel === args.channel && (m.ts === args.ts || m.thread_ts === args.ts),
        );
        const withMetadata = args.include_all_metadata === true || args.include_all_metadata === 'true';
        return {
          ok: true,
          messages: thread.map(({ metadata, ...m }) => (withMetadata ? { ...m, metadata } : m)),
          has_more: false,
        };
      }
      case 'conversations.history': {
        const top = this.messages.filter((m) => m.channel === args.channel && !m.thread_ts).reverse();
        const withMetadata = args.include_all_metadata === true || args.include_all_metadata === 'true';
        return {
          ok: true,
          messages: top.map(({ metadata, ...m }) => (withMetadata ? { ...m, metadata } : m)),
          has_more: false,
        };
      }
      case 'chat.update': {
        const refused = slackRefusal(args);
        if (refused) this.refusals.push({ method, error: refused });
        return refused ? { ok: false, error: refused } : { ok: true, channel: args.channel, ts: args.ts };
      }
      case 'chat.delete': {
        const at = this.messages.findIndex((m) => m.channel === args.channel && m.ts === args.ts);
        if (at < 0) return { ok: false, error: 'message_not_found' };
        this.messages.splice(at, 1);
        return { ok: true, channel: args.channel, ts: args.ts };
      }
      case 'chat.postEphemeral':
        return { ok: true, message_ts: `${this.ts}.000200` };
      case 'views.open':
      case 'views.update':
        return { ok: true, view: { id: 'V0VIEW', ...(args.view as object) } };
      case 'usergroups.users.list':
        return { ok: true, users: this.groups[String(args.usergroup)] ?? [] };
      case 'conversations.members': {
        // Pages of `limit` (Slack's cursor pagination), so that a client that reads one page only is caught.
        const all = this.members[String(args.channel)] ?? this.people;
        const limit = Number(args.limit ?? 100);
        const from = Number(args.cursor ?? 0);
        const next = from + limit < all.length ? String(from + limit) : '';
        return { ok: true, members: all.slice(from, from + limit), response_metadata: { next_cursor: next } };
      }
      case 'chat.getPermalink':
        return {
          ok: true,
          permalink: `https://fake.slack.test/archives/${args.channel}/p${String(args.message_ts).replace('.', '')}`,
        };
      case 'conversations.open':
        return { ok: true, channel: { id: `D${String(args.users).replace(/^U/, '')}` } };
      default:
        return { ok: true };
    }
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.terminate();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }
}
