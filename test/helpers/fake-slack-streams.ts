/**
 * Slack's streamed messages (chat.startStream, chat.appendStream, chat.stopStream) in the fake,
 * on the strict side wherever Slack's reference is silent and others measured it:
 * - a stream is a reply in a thread (`thread_ts`) to a named person (`recipient_user_id` and
 *   `recipient_team_id`: required in channels, and in DMs too for a bot token, as measured);
 * - a call carries `markdown_text` or `chunks`, never both, and a stream goes on the way it began
 *   (`streaming_mode_mismatch`); an append carries one of them;
 * - `markdown_text` up to 12,000 characters a call, a message up to 10,000 bytes in all
 *   (`msg_too_long`; others measured 10.6–11.3 KB);
 * - chunks: markdown_text, task_update (id, title, a status of pending, in_progress, complete or
 *   error; each field up to 256 characters), plan_update (title), blocks (up to 50);
 * - a stream is sealed 300 s after it started, appending or not (`message_not_in_streaming_state`;
 *   others measured about 306 s), and once stopped, by the app or by a person's Stop
 *   (`stopped_by_user` to an append);
 * - a message still streaming is not edited with chat.update (`streaming_state_conflict`);
 * - blocks (a `blocks` chunk, the stop's `blocks`) follow Block Kit's rules as a post's do.
 */
import { blocksRefusal } from './slack-blocks.js';

/** How long Slack keeps a stream open from its start. */
export const STREAM_LIFETIME_MS = 300_000;
/** The most `markdown_text` one call may carry. */
export const STREAM_TEXT_MAX = 12_000;
/** The most a streamed message may weigh in all (UTF-8 bytes of its text and its tasks). */
export const STREAM_MESSAGE_BYTES = 10_000;
/** The most a task_update's or plan_update's field may hold. */
export const TASK_FIELD_MAX = 256;
const TASK_STATUSES = ['pending', 'in_progress', 'complete', 'error'];

export interface FakeTask {
  title: string;
  status: string;
  details: string;
  output?: string;
}

export interface FakeStream {
  channel: string;
  ts: string;
  threadTs: string;
  recipient: { user: string; team: string };
  /** How the stream goes on: the way its first content came. */
  mode?: 'markdown_text' | 'chunks';
  text: string;
  tasks: Map<string, FakeTask>;
  plan?: string;
  /** Blocks given at the stop, shown under the stream. */
  blocks?: unknown[];
  startedAt: number;
  state: 'streaming' | 'stopped' | 'stopped_by_user';
}

type Args = Record<string, unknown>;
type Answer = { ok: true; [key: string]: unknown } | { ok: false; error: string };

export class FakeStreams {
  readonly streams: FakeStream[] = [];

  constructor(
    private readonly now: () => number,
    /** Posts the stream's message where conversations.replies reads it; returns its ts. */
    private readonly post: (channel: string, threadTs: string) => string,
  ) {}

  /** The stream of message `ts`, if that message is one. */
  find(channel: unknown, ts: unknown): FakeStream | undefined {
    return this.streams.find((s) => s.channel === channel && s.ts === ts);
  }

  /** Whether message `ts` still streams (chat.update refuses it then). */
  live(channel: unknown, ts: unknown): boolean {
    const stream = this.find(channel, ts);
    return stream !== undefined && this.open(stream) === undefined;
  }

  /** A person pressed Stop on the stream's agent session: Slack stops it. */
  stoppedByUser(channel: string, ts: string): void {
    const stream = this.find(channel, ts);
    if (stream && stream.state === 'streaming') stream.state = 'stopped_by_user';
  }

  start(args: Args): Answer {
    if (typeof args.channel !== 'string' || typeof args.thread_ts !== 'string')
      return { ok: false, error: 'invalid_arguments' };
    if (!args.recipient_user_id) return { ok: false, error: 'missing_recipient_user_id' };
    if (!args.recipient_team_id) return { ok: false, error: 'missing_recipient_team_id' };
    const stream: FakeStream = {
      channel: args.channel,
      ts: '',
      threadTs: args.thread_ts,
      recipient: { user: String(args.recipient_user_id), team: String(args.recipient_team_id) },
      text: '',
      tasks: new Map(),
      startedAt: this.now(),
      state: 'streaming',
    };
    const refused = this.add(stream, args, { optional: true });
    if (refused) return { ok: false, error: refused };
    stream.ts = this.post(stream.channel, stream.threadTs);
    this.streams.push(stream);
    return { ok: true, channel: stream.channel, ts: stream.ts };
  }

  append(args: Args): Answer {
    const stream = this.find(args.channel, args.ts);
    if (!stream) return { ok: false, error: 'message_not_found' };
    const closed = this.open(stream, 'append');
    if (closed) return { ok: false, error: closed };
    const refused = this.add(stream, args, { optional: false });
    return refused ? { ok: false, error: refused } : { ok: true, channel: stream.channel, ts: stream.ts };
  }

  stop(args: Args): Answer {
    const stream = this.find(args.channel, args.ts);
    if (!stream) return { ok: false, error: 'message_not_found' };
    const closed = this.open(stream);
    if (closed) return { ok: false, error: closed };
    if (args.blocks !== undefined) {
      if (!Array.isArray(args.blocks)) return { ok: false, error: 'invalid_blocks_format' };
      if (args.blocks.length > 50) return { ok: false, error: 'msg_blocks_too_many' };
      if (blocksRefusal(args.blocks)) return { ok: false, error: 'invalid_blocks' };
    }
    const refused = this.add(stream, args, { optional: true });
    if (refused) return { ok: false, error: refused };
    if (Array.isArray(args.blocks)) stream.blocks = args.blocks;
    stream.state = 'stopped';
    return {
      ok: true,
      channel: stream.channel,
      ts: stream.ts,
      message: { text: stream.text, blocks: stream.blocks ?? [] },
    };
  }

  /** Why the stream takes nothing more now (sealed by age, stopped), or undefined. */
  private open(stream: FakeStream, method?: 'append'): string | undefined {
    if (stream.state === 'stopped_by_user' && method === 'append') return 'stopped_by_user';
    if (stream.state !== 'streaming') return 'message_not_in_streaming_state';
    if (this.now() - stream.startedAt >= STREAM_LIFETIME_MS) return 'message_not_in_streaming_state';
    return undefined;
  }

  /** Adds a call's content to the stream, or says why Slack refuses it (nothing added then). */
  private add(stream: FakeStream, args: Args, o: { optional: boolean }): string | undefined {
    const markdown = args.markdown_text;
    const chunks = args.chunks;
    if (markdown !== undefined && chunks !== undefined) return 'cannot_provide_both_markdown_text_and_chunks';
    if (markdown === undefined && chunks === undefined)
      return o.optional ? undefined : 'markdown_text_or_chunks_required';
    const mode = markdown !== undefined ? 'markdown_text' : 'chunks';
    if (stream.mode && stream.mode !== mode) return 'streaming_mode_mismatch';
    const next = { text: stream.text, tasks: new Map(stream.tasks), plan: stream.plan };
    if (markdown !== undefined) {
      if (typeof markdown !== 'string' || markdown.length > STREAM_TEXT_MAX) return 'invalid_arguments';
      next.text += markdown;
    } else {
      const refused = applyChunks(next, chunks);
      if (refused) return refused;
    }
    if (weight(next) > STREAM_MESSAGE_BYTES) return 'msg_too_long';
    stream.mode = mode;
    stream.text = next.text;
    stream.tasks = next.tasks;
    stream.plan = next.plan;
    return undefined;
  }
}

type Content = Pick<FakeStream, 'text' | 'tasks' | 'plan'>;

/** Applies chunks in order; a task's title and status replace, its details add on (as measured). */
function applyChunks(content: Content, chunks: unknown): string | undefined {
  if (!Array.isArray(chunks) || chunks.length === 0) return 'invalid_chunks';
  for (const chunk of chunks as Args[]) {
    const field = (v: unknown) => v === undefined || (typeof v === 'string' && v.length <= TASK_FIELD_MAX);
    switch (chunk?.type) {
      case 'markdown_text':
        if (typeof chunk.text !== 'string' || chunk.text.length > STREAM_TEXT_MAX) return 'invalid_chunks';
        content.text += chunk.text;
        break;
      case 'task_update': {
        const { id, title, status, details, output } = chunk;
        if (typeof id !== 'string' || !id || typeof title !== 'string' || !title) return 'invalid_chunks';
        if (!TASK_STATUSES.includes(String(status))) return 'invalid_chunks';
        if (![id, title, details, output].every(field)) return 'invalid_chunks';
        const before = content.tasks.get(id);
        content.tasks.set(id, {
          title,
          status: String(status),
          details: `${before?.details ?? ''}${(details as string | undefined) ?? ''}`,
          output: (output as string | undefined) ?? before?.output,
        });
        break;
      }
      case 'plan_update':
        if (typeof chunk.title !== 'string' || !chunk.title || !field(chunk.title)) return 'invalid_chunks';
        content.plan = chunk.title;
        break;
      case 'blocks':
        if (!Array.isArray(chunk.blocks) || chunk.blocks.length > 50) return 'invalid_chunks';
        if (blocksRefusal(chunk.blocks)) return 'invalid_blocks';
        break;
      default:
        return 'invalid_chunks';
    }
  }
  return undefined;
}

/** What a streamed message weighs: its text and its tasks, in UTF-8 bytes. */
function weight(content: Content): number {
  const tasks = [...content.tasks.values()].map((t) => `${t.title}${t.details}${t.output ?? ''}`);
  return Buffer.byteLength(content.text + tasks.join('') + (content.plan ?? ''));
}
