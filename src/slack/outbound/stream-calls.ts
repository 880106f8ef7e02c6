/**
 * The Slack calls a streamed message needs besides its words: stopping it, replacing its words by
 * a note, removing it, and finding one signoff never learnt of. Each keeps to Slack's limits
 * first (rate-limits.ts) and waits for its slot, up to SLOT_WAIT_MS; a 429 Slack still sends
 * holds that limit for every process, as delivery's do.
 */
import { ErrorCode, type WebAPICallError, type WebClient } from '@slack/web-api';
import type { SlackThread } from '../shared/origin.js';
import type { RateLimits } from '../shared/rate-limits.js';

/** How long a call waits for its slot (stops are Tier 2: 20 a minute per workspace). */
const SLOT_WAIT_MS = 30_000;

/** Slack's answers that say a stream is over already: nothing more to stop. */
const OVER = new Set(['message_not_in_streaming_state', 'stopped_by_user', 'message_not_found']);

export const slackCode = (error: unknown) => (error as { data?: { error?: string } }).data?.error;

/** Slack answered 429: it did not carry the call out. */
export const isRateLimited = (error: unknown) =>
  (error as WebAPICallError).code === ErrorCode.RateLimitedError;

/** Slack's answer says the stream takes nothing more (stopped, sealed, gone). */
export const isOver = (error: unknown) => OVER.has(slackCode(error) ?? '');

export interface StreamCalls {
  /** Calls `method` within its limit, now or never (`waitMs`: 0) or up to `waitMs` from now. */
  call<T>(method: string, channel: string | undefined, waitMs: number, send: () => Promise<T>): Promise<T>;
  /** Calls `method` whose slot the caller took already (a 429 still holds its limit for everyone). */
  send<T>(method: string, channel: string | undefined, send: () => Promise<T>): Promise<T>;
  /**
   * Ends the stream `ts`, `last` its final words: 'stopped', or 'over' when Slack had ended it
   * already (`last` then not shown).
   */
  stop(channel: string, ts: string, last?: string): Promise<'stopped' | 'over'>;
  /** The message shows `note` instead of its words (it is stopped already). */
  note(channel: string, ts: string, note: string): Promise<void>;
  /** The message goes (its words were never said). */
  remove(channel: string, ts: string): Promise<void>;
  /**
   * The thread's streamed messages signoff never learnt of (a run that died between Slack's
   * answer to its start and recording it): the bot's replies without a post's metadata (every
   * post carries its key; a stream cannot) that are none of `known`.
   */
  unrecorded(thread: SlackThread, known: ReadonlySet<string>): Promise<string[]>;
}

export function createStreamCalls(client: WebClient, limits: RateLimits): StreamCalls {
  const send: StreamCalls['send'] = async (method, channel, fn) => {
    try {
      return await fn();
    } catch (error) {
      const e = error as WebAPICallError & { retryAfter?: number };
      if (isRateLimited(e)) await limits.hold(method, channel, (e.retryAfter ?? 1) * 1000);
      throw error;
    }
  };
  const call: StreamCalls['call'] = async (method, channel, waitMs, fn) => {
    await limits.take(method, channel, waitMs);
    return send(method, channel, fn);
  };
  /** The bot's user id, asked of Slack once: a stream is one of the bot's messages. */
  let me: Promise<string | undefined> | undefined;
  const botUser = () =>
    (me ??= client.auth.test().then(
      (a) => a.user_id,
      () => {
        me = undefined;
        return undefined;
      },
    ));
  const stop = async (channel: string, ts: string, last?: string) => {
    try {
      await call('chat.stopStream', channel, SLOT_WAIT_MS, () =>
        client.chat.stopStream({ channel, ts, ...(last && { markdown_text: last }) }),
      );
      return 'stopped' as const;
    } catch (error) {
      if (isOver(error)) return 'over' as const;
      throw error;
    }
  };
  return {
    call,
    send,
    stop,
    async note(channel, ts, note) {
      await call('chat.update', channel, SLOT_WAIT_MS, () =>
        client.chat.update({ channel, ts, text: note, blocks: [] }),
      ).catch((error) => {
        if (slackCode(error) !== 'message_not_found') throw error;
      });
    },
    async remove(channel, ts) {
      await call('chat.delete', channel, SLOT_WAIT_MS, () => client.chat.delete({ channel, ts })).catch(
        (error) => {
          if (slackCode(error) !== 'message_not_found') throw error;
        },
      );
    },
    async unrecorded(thread, known) {
      const bot = await botUser();
      const found: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await call('conversations.replies', thread.channel, SLOT_WAIT_MS, () =>
          client.conversations.replies({
            channel: thread.channel,
            ts: thread.ts,
            include_all_metadata: true,
            limit: 200,
            cursor,
          }),
        );
        for (const m of page.messages ?? [])
          if (m.ts && m.ts !== thread.ts && m.user === bot && !m.metadata && !known.has(m.ts))
            found.push(m.ts);
        cursor = page.response_metadata?.next_cursor || undefined;
      } while (cursor);
      return found;
    },
  };
}
