/**
 * Agents' words streamed into a task's thread while a model writes them (chat.startStream,
 * appendStream, stopStream): each model call a message under its agent's name, which becomes the
 * agent's message once its step is saved (sink.ts finishes it with the saved words). Nothing here
 * is durable: a run that dies leaves its streams to the task's next run, which closes them with a
 * note before it streams anything, so no word is shown twice.
 *
 * Within Slack's limits: starting and stopping a stream are Tier 2 (20 a minute per workspace),
 * so a call that finds no start slot free at once is not streamed: its words come as a post when
 * the step is saved, as without streaming (never a 429 storm, never a missing message). Appends
 * go out every FLUSH_MS with all that came meanwhile, and wait their turn (a busy workspace gets
 * fewer, larger appends).
 */
import type { WebClient } from '@slack/web-api';
import type pg from 'pg';
import type { LiveRun, LiveView, RunEnd, Task } from '../../engine/index.js';
import type { Logger } from '../../logger.js';
import { type SlackThread, slackOriginSchema } from '../shared/origin.js';
import type { RateLimits } from '../shared/rate-limits.js';
import { defuse, ripe } from './live-text.js';
import { streamRows } from './stream-rows.js';

/** How often a stream's new words go out (Slack draws each append as it comes). */
const FLUSH_MS = 250;
/**
 * The most a streamed message shows as it is written (UTF-8 bytes): Slack refuses more than about
 * 10 KB in one streamed message; the saved words, split as every post is, replace it.
 */
const LIVE_BYTES = 8000;
/** How long a stop waits for its Tier 2 slot before it is left to the message's finish. */
const STOP_WAIT_MS = 30_000;

/** What a stream that stands for nothing shows instead of its words. */
const NOTES: Record<Exclude<RunEnd, 'finished'> | 'interrupted', string> = {
  stopped: '_Stopped before these words were finished: nothing of them was kept._',
  failed: '_This step failed before these words were saved: they were not kept._',
  interrupted: '_Interrupted before these words were saved: the step starts again below._',
};

/** Slack's answers that say a stream is over already: nothing more to stop. */
const OVER = new Set(['message_not_in_streaming_state', 'stopped_by_user', 'message_not_found']);

const slackCode = (error: unknown) => (error as { data?: { error?: string } }).data?.error;

interface Stream {
  id: string;
  agent?: string;
  /**
   * Its first piece only (not started: words that come whole are posted when saved); streaming;
   * not streamed at all (no slot, or Slack refused); over (stopped, sealed, full).
   */
  state: 'first' | 'starting' | 'live' | 'off' | 'over';
  ts?: string;
  pending: string;
  bytes: number;
  /** Every Slack call of the stream, one after another. */
  chain: Promise<void>;
  timer?: NodeJS.Timeout;
}

export interface SlackLive extends LiveView {
  /**
   * The stream `id` showed an agent's saved words: hands over its message (stopped, never
   * written to again) for the sink to show the saved words in, or undefined when it cannot (not
   * streamed, closed with a note): then they are posted.
   */
  handOver(id: string): Promise<{ channel: string; ts: string } | undefined>;
}

export function createSlackLive(deps: {
  client: WebClient;
  pool: pg.Pool;
  limits: RateLimits;
  logger: Logger;
}): SlackLive {
  const { client, limits, logger } = deps;
  const rows = streamRows(deps.pool);
  /** Streams of this process's runs, by id: a hand-over waits for their calls under way. */
  const here = new Map<string, Stream>();

  /** Ends the stream `ts`; one Slack ended already (sealed, stopped by a person, deleted) is fine. */
  const stop = async (channel: string, ts: string) => {
    try {
      await limits.take('chat.stopStream', channel, STOP_WAIT_MS);
      await client.chat.stopStream({ channel, ts });
    } catch (error) {
      if (!OVER.has(slackCode(error) ?? '')) throw error;
    }
  };

  /** A stream that stands for nothing shows a note instead of its words. */
  const closeWithNote = async (id: string, channel: string, ts: string | undefined, note: string) => {
    if (ts) {
      await stop(channel, ts);
      await limits.take('chat.update', channel, STOP_WAIT_MS);
      await client.chat.update({ channel, ts, text: note, blocks: [] }).catch((error) => {
        if (slackCode(error) !== 'message_not_found') throw error;
      });
    }
    await rows.set(id, 'closed');
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

  /**
   * The thread's streamed messages signoff never learnt of (a run that died between Slack's answer
   * to its start and recording it): the bot's replies without a post's metadata (every post
   * carries its key; a stream cannot) that are no known stream's.
   */
  const unrecorded = async (thread: SlackThread, known: Set<string>): Promise<string[]> => {
    const bot = await botUser();
    const found: string[] = [];
    let cursor: string | undefined;
    do {
      await limits.take('conversations.replies', thread.channel, STOP_WAIT_MS);
      const page = await client.conversations.replies({
        channel: thread.channel,
        ts: thread.ts,
        include_all_metadata: true,
        limit: 200,
        cursor,
      });
      for (const m of page.messages ?? [])
        if (m.ts && m.ts !== thread.ts && m.user === bot && !m.metadata && !known.has(m.ts)) found.push(m.ts);
      cursor = page.response_metadata?.next_cursor || undefined;
    } while (cursor);
    return found;
  };

  /** Streams an earlier run of the task left open (it died, or lost the task): closed with a note. */
  const closeLeftOpen = async (task: Task, thread: SlackThread | undefined) => {
    const left = await rows.leftOpen(task.id);
    for (const row of left) {
      if (!(await rows.claim(row.id, ['starting', 'live', 'closing'], 'closing'))) continue;
      if (row.ts) await closeWithNote(row.id, row.channel, row.ts, NOTES.interrupted);
    }
    const lost = left.filter((row) => !row.ts);
    if (!lost.length || !thread) return;
    // Asked but never recorded: the message may still be in the thread, streaming the dead
    // run's words; every such one is closed the same way.
    for (const ts of await unrecorded(thread, new Set(await rows.messagesOf(task.id))))
      await closeWithNote(`${lost[0]?.id}`, thread.channel, ts, NOTES.interrupted);
    for (const row of lost) await rows.set(row.id, 'closed');
  };

  const open = (task: Task, run: { id: string; held: () => boolean }): LiveRun => {
    const origin = slackOriginSchema.safeParse(task.origin).data;
    // Slack streams only to a named person in a workspace it is told (required in channels).
    const streamable = !!origin?.team && /^[UW]/.test(task.requester);
    const mine = new Map<string, Stream>();
    const ready = closeLeftOpen(task, origin).catch((err) =>
      logger.warn({ err, task: task.id }, 'could not close the streams an earlier run left open'),
    );
    /**
     * Runs `call` after the stream's calls before it; a failure is logged, never the run's. A run
     * that lost the task writes no more words (`words`); it still closes its own streams, each by
     * a claim that no other run can also win.
     */
    const then = (s: Stream, call: () => Promise<void>, words = false) => {
      s.chain = s.chain.then(async () => {
        if (words && !run.held()) return;
        await call().catch((err) => {
          logger.warn({ err, task: task.id, slack: slackCode(err) }, 'a streamed message failed');
          if (s.state === 'starting' || s.state === 'live') s.state = 'over';
        });
      });
      return s.chain;
    };

    const start = (s: Stream) =>
      then(
        s,
        async () => {
          await ready;
          if (!origin?.team) return;
          try {
            // Not waited for: a call that finds no slot now is posted when saved, as before streaming.
            await limits.take('chat.startStream', undefined, 0);
          } catch {
            s.state = 'off';
            return;
          }
          await rows.begin(s.id, task.id, origin.channel);
          const { now, later } = ripe(s.pending);
          s.pending = later;
          s.bytes = Buffer.byteLength(now);
          const answer = await client.chat.startStream({
            channel: origin.channel,
            thread_ts: origin.ts,
            recipient_user_id: task.requester,
            recipient_team_id: origin.team,
            ...(now && { markdown_text: defuse(now) }),
            ...(s.agent && { username: s.agent.slice(0, 80), icon_emoji: ':robot_face:' }),
          });
          s.ts = answer.ts as string;
          s.state = 'live';
          await rows.started(s.id, s.ts);
        },
        true,
      );

    const flush = (s: Stream, all = false) =>
      then(
        s,
        async () => {
          s.timer = undefined;
          if (s.state !== 'live' || !origin || !s.ts) return;
          const { now, later } = ripe(s.pending, all);
          if (!now) return;
          if (s.bytes + Buffer.byteLength(now) > LIVE_BYTES) {
            // Full: the rest shows when the step is saved (its words split as every post is).
            s.state = 'over';
            return;
          }
          try {
            await limits.take('chat.appendStream', undefined, 0);
          } catch {
            // The workspace's appends are busy: these words go with the next flush.
            if (!all) schedule(s);
            return;
          }
          s.pending = later;
          s.bytes += Buffer.byteLength(now);
          try {
            await client.chat.appendStream({ channel: origin.channel, ts: s.ts, markdown_text: defuse(now) });
          } catch (error) {
            if (!OVER.has(slackCode(error) ?? '')) throw error;
            s.state = 'over';
          }
        },
        true,
      );

    const schedule = (s: Stream) => {
      s.timer ??= setTimeout(() => void flush(s), FLUSH_MS);
    };

    /** The stream's words so far go out and it stops (its message then waits for the saved words). */
    const end = (s: Stream) => {
      clearTimeout(s.timer);
      void flush(s, true);
      return then(s, async () => {
        if (origin && s.ts && (s.state === 'live' || s.state === 'over')) await stop(origin.channel, s.ts);
        if (s.state === 'live') s.state = 'over';
      });
    };

    const settle = async (ids: string[], how: 'kept' | 'dropped' | Exclude<RunEnd, 'finished'>) => {
      const streams = ids.flatMap((id) => mine.get(id) ?? []);
      // Every call is queued now, in order, so that a hand-over that waits for the stream's calls
      // finds it stopped and marked.
      const done = streams.map((s) => {
        mine.delete(s.id);
        void end(s);
        return then(s, async () => {
          if (!origin || s.state === 'off' || s.state === 'first') return;
          if (how === 'kept') {
            await rows.claim(s.id, ['starting', 'live'], 'kept');
          } else if (how === 'dropped') {
            // Its words were never said: the message goes.
            if (!(await rows.claim(s.id, ['starting', 'live'], 'dropped')) || !s.ts) return;
            await limits.take('chat.delete', origin.channel, STOP_WAIT_MS);
            await client.chat.delete({ channel: origin.channel, ts: s.ts }).catch((error) => {
              if (slackCode(error) !== 'message_not_found') throw error;
            });
          } else if (await rows.claim(s.id, ['starting', 'live'], 'closing')) {
            await closeWithNote(s.id, origin.channel, s.ts, NOTES[how]);
          }
        }).finally(() => here.delete(s.id));
      });
      await Promise.all(done);
    };

    return {
      words(id, agent, delta) {
        if (!streamable || !run.held()) return;
        const s = mine.get(id);
        if (!s) {
          mine.set(id, { id, agent, state: 'first', pending: delta, bytes: 0, chain: Promise.resolve() });
          return;
        }
        if (s.state === 'off' || s.state === 'over') return;
        s.pending += delta;
        if (s.state === 'first') {
          // A second piece: this model writes as it goes, so its words are streamed.
          s.state = 'starting';
          here.set(id, s);
          void start(s);
        } else schedule(s);
      },
      kept: (ids) => void settle(ids, 'kept'),
      dropped: (ids) => void settle(ids, 'dropped'),
      close: async (how) => {
        // Streams still open: with the run finished, no word of theirs was said.
        await settle([...mine.keys()], how === 'finished' ? 'dropped' : how);
      },
    };
  };

  return {
    open,
    async handOver(id) {
      await here.get(id)?.chain;
      const row = await rows.claim(id, ['starting', 'live', 'kept', 'final'], 'final');
      if (!row?.ts) return undefined;
      // Its run stopped it when it was kept; one left streaming (its run died, or an earlier hand-over
      // did before stopping it) is stopped here.
      if (row.was !== 'kept') await stop(row.channel, row.ts);
      return { channel: row.channel, ts: row.ts };
    },
  };
}
