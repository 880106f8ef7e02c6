/**
 * The chaos checker's fake Slack, in a process of its own (as Slack is), wrapped with a small
 * control server: the checker injects Slack's failures through it and reads what was posted.
 * Prints `ready <slack api url> <control url>`.
 *
 * Control API (JSON):
 * - POST /fail   {method, status?, retryAfter?, error?, times?}  the next calls of `method` fail
 * - POST /refuse {method, channel, threadTs?, ts?, error}         refuse for good until /heal; a
 *   fallback (its text says "could not be shown here") is let through, as Slack would take it
 * - POST /heal                                                     lifts every refusal
 * - GET  /posts?since=N   messages Slack kept, from the N-th on, with their post key and buttons
 * - GET  /text?channel=C&ts=T   a message's text (and blocks, once updated) as it reads now
 * - GET  /thread?channel=C&ts=T each reply of a thread as it reads now (a stream's words, an
 *   update's text and blocks), with its post key and whether it is a stream (and still streams)
 * - GET  /streams                how many streamed messages still stream now, and how many of
 *   them are being written (words came within the last 1.5 s)
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FakeSlack, type SlackCall, slackRefusal } from '../../test/helpers/fake-slack.js';

/** A message as the checker sees it. */
export interface SlackPost {
  channel: string;
  ts: string;
  thread_ts?: string;
  text: string;
  /** The signoff post key from the message metadata, when it has one. */
  key?: string;
  username?: string;
  buttons: { action_id: string; value: string }[];
  /** A streamed message (chat.startStream), not a post. */
  stream?: boolean;
}

/** A reply of a thread as a person reads it now. */
export interface ThreadReply {
  ts: string;
  key?: string;
  /** Its words: a post's text and blocks, a stream's words so far, or what the last update made of either. */
  content: string;
  /** The words a person reads: its blocks' text (its text without blocks), or a stream's words. */
  words: string;
  /** Changed by chat.update since it was posted or streamed. */
  updated: boolean;
  stream?: 'streaming' | 'stopped';
}

export interface RefuseRule {
  method: string;
  channel: string;
  threadTs?: string;
  ts?: string;
  error: string;
}

/** Fallback posts say this; a refusal never applies to them (Slack would take a plain message). */
export const FALLBACK_MARK = 'could not be shown here';

const slack = new FakeSlack();
await slack.start();

const posts: SlackPost[] = [];
/** Each updated message (`channel:ts`) as its last accepted update left it: text and blocks. */
const updated = new Map<string, string>();
/** Each post in a thread as it was posted: text and blocks. */
const posted = new Map<string, string>();
/** The words of each updated message and of each post in a thread, as a person reads them. */
const wordsOf = new Map<string, string>();

/** What a message reads as: its blocks' text where it has any (Slack shows those), else its text. */
function shownWords(args: Record<string, unknown>): string {
  const blocks = (Array.isArray(args.blocks) ? args.blocks : []) as {
    text?: string | { text?: string };
  }[];
  const texts = blocks.flatMap((b) => {
    const text = typeof b.text === 'string' ? b.text : b.text?.text;
    return text === undefined ? [] : [text];
  });
  return texts.length ? texts.join('\n') : String(args.text ?? '');
}
let seenCalls = 0;
let seenStreams = 0;

/** Turns the fake's calls into posts: each accepted chat.postMessage, and each stream started. */
function catchUp(): void {
  for (; seenCalls < slack.calls.length; seenCalls++) {
    const call = slack.calls[seenCalls] as SlackCall;
    const args = call.args;
    if (args.failed || slackRefusal(args)) continue;
    if (call.method === 'chat.update') {
      updated.set(`${args.channel}:${args.ts}`, `${args.text ?? ''} ${JSON.stringify(args.blocks ?? [])}`);
      wordsOf.set(`${args.channel}:${args.ts}`, shownWords(args));
    }
    if (call.method !== 'chat.postMessage') continue;
    const ts = slack.tsOfPost(args);
    const message = slack.messages.find((m) => m.ts === ts && m.channel === args.channel);
    if (!message) continue;
    if (message.thread_ts) {
      posted.set(
        `${message.channel}:${message.ts}`,
        `${args.text ?? ''} ${JSON.stringify(args.blocks ?? [])}`,
      );
      wordsOf.set(`${message.channel}:${message.ts}`, shownWords(args));
    }
    const blocks = (args.blocks ?? []) as {
      type: string;
      elements?: { action_id?: string; value?: string }[];
    }[];
    const meta = args.metadata as { event_payload?: { key?: string } } | undefined;
    posts.push({
      channel: message.channel,
      ts: message.ts,
      thread_ts: message.thread_ts,
      text: String(args.text ?? '').slice(0, 300),
      key: meta?.event_payload?.key,
      username: args.username as string | undefined,
      buttons: blocks
        .filter((b) => b.type === 'actions')
        .flatMap((b) => b.elements ?? [])
        .filter((e) => e.action_id)
        .map((e) => ({ action_id: String(e.action_id), value: String(e.value ?? '') })),
    });
  }
  for (; seenStreams < slack.streams.streams.length; seenStreams++) {
    const stream = slack.streams.streams[seenStreams];
    if (!stream) break;
    posts.push({
      channel: stream.channel,
      ts: stream.ts,
      thread_ts: stream.threadTs,
      text: '',
      buttons: [],
      stream: true,
    });
  }
  // What was turned into posts is not needed again: a long run would otherwise keep every call.
  if (seenCalls > 5_000) {
    slack.calls.splice(0, seenCalls);
    seenCalls = 0;
  }
}

/** A stream counts as being written when its last words came this recently. */
const WRITING_MS = 1500;

const lifts: (() => void)[] = [];

async function body(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
}

const control = createServer(async (req, res) => {
  const url = new URL(req.url ?? '/', 'http://control');
  const reply = (value: unknown) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(value));
  };
  try {
    if (req.method === 'GET' && url.pathname === '/posts') {
      catchUp();
      return reply(posts.slice(Number(url.searchParams.get('since') ?? 0)));
    }
    if (req.method === 'GET' && url.pathname === '/text') {
      catchUp();
      const key = `${url.searchParams.get('channel')}:${url.searchParams.get('ts')}`;
      return reply({ text: updated.get(key) ?? posts.find((p) => `${p.channel}:${p.ts}` === key)?.text });
    }
    if (req.method === 'GET' && url.pathname === '/thread') {
      catchUp();
      const channel = url.searchParams.get('channel');
      const thread = url.searchParams.get('ts');
      // Deleted messages are gone from the fake's messages: only what is still there is read.
      const replies: ThreadReply[] = slack.messages
        .filter((m) => m.channel === channel && m.thread_ts === thread && m.ts !== thread)
        .map((m) => {
          const post = posts.find((p) => p.channel === m.channel && p.ts === m.ts);
          const stream = slack.streams.find(m.channel, m.ts);
          const update = updated.get(`${m.channel}:${m.ts}`);
          const words = wordsOf.get(`${m.channel}:${m.ts}`);
          return {
            ts: m.ts,
            key: post?.key,
            content: update ?? (stream ? stream.text : (posted.get(`${m.channel}:${m.ts}`) ?? '')),
            // An update's words replace a stream's (a stream never updated shows what it streamed).
            words: (update === undefined && stream ? stream.text : words) ?? '',
            updated: update !== undefined,
            ...(stream && { stream: stream.state === 'streaming' ? 'streaming' : 'stopped' }),
          };
        });
      return reply(replies);
    }
    if (req.method === 'GET' && url.pathname === '/streams') {
      const open = slack.streams.streams.filter((s) => slack.streams.live(s.channel, s.ts));
      // Being written: started or appended to within the last flush or so (signoff appends once
      // a second); a stream a dead run left open still streams, but nobody writes it.
      const since = Date.now() - WRITING_MS;
      const touched = new Set(
        slack.calls
          .filter((c) => c.method === 'chat.appendStream' && (c.at ?? 0) >= since)
          .map((c) => `${c.args.channel}:${c.args.ts}`),
      );
      const writing = open.filter(
        (s) => s.startedAt >= slack.now() - WRITING_MS || touched.has(`${s.channel}:${s.ts}`),
      );
      return reply({ open: open.length, writing: writing.length });
    }
    if (req.method === 'POST' && url.pathname === '/fail') {
      const f = await body(req);
      for (let i = 0; i < Number(f.times ?? 1); i++)
        slack.failNext(String(f.method), {
          status: f.status as number | undefined,
          retryAfter: f.retryAfter as number | undefined,
          error: f.error as string | undefined,
        });
      return reply({ ok: true });
    }
    if (req.method === 'POST' && url.pathname === '/refuse') {
      const r = (await body(req)) as unknown as RefuseRule;
      const applies = (args: Record<string, unknown>) =>
        args.channel === r.channel &&
        (r.threadTs === undefined || args.thread_ts === r.threadTs) &&
        (r.ts === undefined || args.ts === r.ts) &&
        // A fallback says so in its text, or (a review's plain card) in its blocks.
        !`${args.text ?? ''} ${JSON.stringify(args.blocks ?? [])}`.includes(FALLBACK_MARK);
      lifts.push(slack.refuse(r.method, applies, r.error));
      return reply({ ok: true });
    }
    if (req.method === 'POST' && url.pathname === '/heal') {
      for (const lift of lifts.splice(0)) lift();
      // A run's one-shot failures end with it too: one queued for a method seldom called (a
      // retry's look-up) would otherwise wait there and fail a later run's calls, run after run.
      return reply({ ok: true, forgotten: slack.forgetFailures() });
    }
    res.writeHead(404).end();
  } catch (error) {
    res.writeHead(500, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: (error as Error).message }));
  }
});
await new Promise<void>((resolve) => control.listen(0, '127.0.0.1', resolve));
const port = (control.address() as AddressInfo).port;
process.stdout.write(`ready ${slack.url} http://127.0.0.1:${port}\n`);
