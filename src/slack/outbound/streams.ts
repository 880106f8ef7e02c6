/**
 * Agents' words streamed into a task's thread while a model writes them (chat.startStream,
 * appendStream, stopStream): each model call a message under its agent's name, which becomes the
 * agent's message once its step is saved (the sink hands it over and shows the saved words in
 * it). Nothing here is durable: a run that dies leaves its streams to the task's next run (or its
 * end), which closes them with a note before anything else, so no word is shown twice.
 *
 * Within Slack's limits: starting and stopping a stream are Tier 2 (20 a minute per workspace),
 * so a call that finds no start slot free at once is not streamed: its words come as a post when
 * the step is saved, as without streaming (never a 429 storm, never a missing message). Appends
 * go out every FLUSH_MS with all that came meanwhile, and wait their turn (a busy workspace gets
 * fewer, larger appends).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { WebClient } from '@slack/web-api';
import type pg from 'pg';
import type { LiveRun, LiveRunInfo, LiveView, RunEnd, Task } from '../../engine/index.js';
import { DeliveryError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { isPerson } from '../blocks/people.js';
import { type SlackOrigin, slackOriginSchema } from '../shared/origin.js';
import type { RateLimits } from '../shared/rate-limits.js';
import { defuse, ripe } from './live-text.js';
import { createStreamCalls, isOver, isRateLimited, slackCode } from './stream-calls.js';
import { createStreamClosing, NOTES } from './stream-closing.js';
import { streamRows } from './stream-rows.js';

/**
 * How often a stream's new words go out (Slack draws each append as it comes). Appends are Tier 4
 * for the whole workspace (about 100 a minute): one a second per stream leaves room for a few.
 */
const FLUSH_MS = 1000;
/**
 * The most a streamed message shows as it is written (UTF-8 bytes, as sent): Slack refuses more
 * than about 10 KB in one streamed message; the saved words, split as every post is, replace it.
 */
const LIVE_BYTES = 8000;

/** How long a hand-over waits for the run in this process to settle the stream it takes over. */
const SETTLE_WAIT_MS = 10_000;

/** A promise `settled` and what resolves it. */
function latch(): { settled: Promise<void>; settle: () => void } {
  let settle = () => {};
  const settled = new Promise<void>((resolve) => {
    settle = resolve;
  });
  return { settled, settle };
}

/** When a hand-over comes back to a stream its run (in another process) is stopping. */
const SETTLING_RETRY_MS = 2000;

interface Stream {
  id: string;
  agent?: string;
  /**
   * Its first piece only (not started: words that come whole are posted when saved); starting;
   * streaming; not streamed at all (no slot, earlier words not shown yet, handed over first, or
   * Slack refused); over (stopped, sealed, full).
   */
  state: 'first' | 'starting' | 'live' | 'off' | 'over';
  ts?: string;
  pending: string;
  /** What went out, as sent. */
  sent: string;
  /** Full before all its words went out: the rest shows only once saved. */
  cut: boolean;
  bytes: number;
  /** Stopped by this run (or found over): a hand-over need not stop it again. */
  stopped: boolean;
  /** Every Slack call of the stream, one after another. */
  chain: Promise<void>;
  /** Resolves once its run has settled it (kept, dropped or closed): what a hand-over waits for. */
  settled: Promise<void>;
  settle: () => void;
  timer?: NodeJS.Timeout;
}

export interface SlackLive extends LiveView {
  /**
   * The stream `id` showed an agent's saved words: hands over its message (stopped, never
   * written to again) for the sink to show the saved words in, or undefined when there is none
   * (not streamed, not started yet, closed with a note): then they are posted, and it never starts.
   */
  handOver(
    id: string,
    task: Task,
    origin: SlackOrigin,
  ): Promise<{ channel: string; ts: string; shown?: string } | undefined>;
  /** The task is over: streams a dead run of it left open close with a note (no run of it comes). */
  closeLeftOpen(task: Task, origin: SlackOrigin): Promise<void>;
  /**
   * Streams long open of tasks no run works on (`taskOf`: the engine's): closed with a note, until
   * `stop` (the process stopping).
   */
  closeAbandoned(taskOf: (id: string) => Promise<Task | undefined>, stop?: AbortSignal): Promise<void>;
}

export function createSlackLive(deps: {
  client: WebClient;
  pool: pg.Pool;
  limits: RateLimits;
  logger: Logger;
}): SlackLive {
  const { client, logger } = deps;
  const rows = streamRows(deps.pool);
  const slack = createStreamCalls(client, deps.limits);
  const { stopOnce, noted, removed, closeLeftOpen, removeUnanswered, closeAbandoned } = createStreamClosing({
    rows,
    slack,
    logger,
  });
  /** Streams of this process's runs, by id: a hand-over waits for their calls under way. */
  const here = new Map<string, Stream>();

  /** Whether an agent's message saved before is still to be posted (no stream shows it). */
  const postedLater = async (run: LiveRunInfo) => {
    const unshown = await run.unshown();
    if (unshown.includes(null)) return true;
    const showing = await rows.showing(unshown as string[]);
    return unshown.some((id) => !showing.has(id as string));
  };

  const open = (task: Task, run: LiveRunInfo): LiveRun => {
    const origin = slackOriginSchema.safeParse(task.origin).data;
    // Slack streams only to a named person in a workspace it is told (required in channels).
    const streamable = !!origin?.team && isPerson(task.requester);
    const mine = new Map<string, Stream>();
    /** Settles of kept and dropped streams under way (close waits for them). */
    const settling = new Set<Promise<void>>();
    const ready = (origin ? closeLeftOpen(task, origin) : Promise.resolve()).catch((err) =>
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

    /** Starts the stream's message: 'live', or 'off' when its words are to be posted once saved. */
    const begin = async (s: Stream): Promise<Stream['state']> => {
      await ready;
      if (!origin?.team) return 'off';
      // A stream started while earlier words wait to be posted would show above them (those that
      // streamed are in the thread already, above it).
      if (await postedLater(run)) return 'off';
      const { now } = ripe(s.pending);
      const text = defuse(now);
      try {
        // Not waited for: a call that finds no slot now is posted when saved, as before streaming.
        await deps.limits.take('chat.startStream', undefined, 0);
      } catch {
        return 'off';
      }
      if (!(await rows.begin(s.id, task.id, origin.channel))) return 'off';
      // Words came meanwhile (the awaits above): only what goes out leaves what waits.
      s.pending = s.pending.slice(now.length);
      s.sent = text;
      s.bytes = Buffer.byteLength(text);
      const answer = await slack.send('chat.startStream', undefined, () =>
        client.chat.startStream({
          channel: origin.channel,
          thread_ts: origin.ts,
          recipient_user_id: task.requester,
          recipient_team_id: origin.team as string,
          ...(text && { markdown_text: text }),
          ...(s.agent && { username: s.agent.slice(0, 80), icon_emoji: ':robot_face:' }),
        }),
      );
      s.ts = answer.ts as string;
      if (await rows.started(s.id, s.ts)) return 'live';
      // Handed over meanwhile (its words posted, from another process): it shows nothing. Kept
      // as a row of its own, so that a removal that fails is retried as any stream left open.
      const found = `${s.id}:${s.ts}`;
      if (await rows.foundMessage(found, task.id, origin.channel, s.ts))
        await removed(found, origin.channel, s.ts);
      return 'off';
    };

    const start = (s: Stream) =>
      then(
        s,
        async () => {
          s.state = await begin(s);
        },
        true,
      );

    const flush = (s: Stream) =>
      then(
        s,
        async () => {
          s.timer = undefined;
          if (s.state !== 'live' || !origin || !s.ts) return;
          const { now } = ripe(s.pending);
          const text = defuse(now);
          if (!text) return;
          if (s.bytes + Buffer.byteLength(text) > LIVE_BYTES) {
            // Full: the rest shows when the step is saved (its words split as every post is).
            s.state = 'over';
            s.cut = true;
            return;
          }
          try {
            await deps.limits.take('chat.appendStream', undefined, 0);
          } catch {
            // The workspace's appends are busy: these words go with the next flush (or the stop).
            schedule(s);
            return;
          }
          // Words came meanwhile (the awaits above): only what goes out leaves what waits.
          s.pending = s.pending.slice(now.length);
          try {
            await slack.send('chat.appendStream', undefined, () =>
              client.chat.appendStream({ channel: origin.channel, ts: s.ts as string, markdown_text: text }),
            );
          } catch (error) {
            if (isRateLimited(error)) {
              // Slack did not take them (its limit now holds every append): they go with the next.
              s.pending = now + s.pending;
              schedule(s);
              return;
            }
            // Whether Slack showed them is not known: the message is edited to the saved words.
            s.cut = true;
            if (!isOver(error)) throw error;
            s.state = 'over';
            return;
          }
          // Counted as shown only once Slack said so.
          s.bytes += Buffer.byteLength(text);
          s.sent += text;
        },
        true,
      );

    const schedule = (s: Stream) => {
      s.timer ??= setTimeout(() => void flush(s), FLUSH_MS);
    };

    /**
     * The stream stops (its message then waits for the saved words). `carry`: its words not sent
     * yet go with the stop, which is made anyway, so that no append's turn is waited for and the
     * message shows all the words, needing no edit once saved.
     */
    const end = (s: Stream, carry: boolean) => {
      clearTimeout(s.timer);
      s.timer = undefined;
      return then(s, async () => {
        if (!origin || !s.ts || (s.state !== 'live' && s.state !== 'over')) return;
        let rest = carry && s.state === 'live' ? defuse(s.pending) : '';
        if (rest && s.bytes + Buffer.byteLength(rest) > LIVE_BYTES) {
          s.cut = true;
          rest = '';
        }
        s.pending = '';
        const how = await stopOnce(s.id, origin.channel, s.ts, rest || undefined);
        s.stopped = true;
        if (how === 'stopped') s.sent += rest;
        // Stopped by another (without these words), or over already (sealed, or deleted): what
        // it shows is not known to be all of them.
        else s.cut = true;
        s.state = 'over';
      });
    };

    const settle = async (ids: string[], how: 'kept' | 'dropped' | Exclude<RunEnd, 'finished'>) => {
      const streams = ids.flatMap((id) => mine.get(id) ?? []);
      // Every call is queued now, in order, so that a hand-over that waits for the stream's calls
      // finds it stopped and marked.
      const done = streams.map((s) => {
        mine.delete(s.id);
        void end(s, how === 'kept');
        return then(s, async () => {
          if (!origin || !s.ts || s.state === 'off' || s.state === 'first') return;
          if (how === 'kept') {
            // Its words are saved, whether or not its stop went through (the hand-over stops one
            // that is still streaming): no closer of what was left open takes it for unsaved.
            const whole = s.stopped && !s.cut && !s.pending;
            await rows.kept(s.id, whole ? s.sent : undefined);
          } else if (how === 'dropped') {
            // Its words were never said: the message goes.
            if (await rows.claim(s.id, ['live'], 'dropped')) await removed(s.id, origin.channel, s.ts);
          } else if (await rows.claim(s.id, ['live'], 'closing')) {
            await noted(s.id, origin.channel, s.ts, NOTES[how]);
          }
        }).finally(() => {
          here.delete(s.id);
          s.settle();
        });
      });
      await Promise.all(done);
    };

    return {
      words(id, agent, delta) {
        if (!streamable || !run.held()) return;
        const s = mine.get(id);
        if (!s) {
          const first = {
            ...{ id, agent, pending: delta, sent: '', cut: false, bytes: 0 },
            ...{ stopped: false, chain: Promise.resolve(), ...latch() },
          };
          mine.set(id, { ...first, state: 'first' });
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
      kept: (ids) => void settling.add(settle(ids, 'kept')),
      dropped: (ids) => void settling.add(settle(ids, 'dropped')),
      close: async (how) => {
        // What an earlier run left open is closed by the time this one is over.
        await ready;
        // Streams still open: with the run finished, no word of theirs was said.
        await settle([...mine.keys()], how === 'finished' ? 'dropped' : how);
        // The run ends once its streams are settled: a next run of the task, which closes what
        // was left open, must not take a stream this one is still handing over for saved words.
        await Promise.all(settling);
      },
    };
  };

  return {
    open,
    closeLeftOpen: (task, origin) => closeLeftOpen(task, origin, true),
    closeAbandoned,
    async handOver(id, task, origin) {
      // A stream of a run in this process: its run stops it, with its last words, and says what
      // it showed; the hand-over waits for that (the saved words' event can come first).
      const mine = here.get(id);
      if (mine) await Promise.race([mine.settled, sleep(SETTLE_WAIT_MS, undefined, { ref: false })]);
      await mine?.chain;
      // Its run, in another process, is stopping it now (with its last words): the hand-over comes
      // back once it has (an edit of a message still streaming is refused).
      if (await rows.settling(id))
        throw new DeliveryError('limited', 'stream_settling', { retryAfterMs: SETTLING_RETRY_MS });
      const row = await rows.handOver(id, task.id, origin.channel);
      if (!row?.ts) {
        // Its start was asked of Slack and never answered (a timeout, a 5xx, a run that died
        // meanwhile): Slack may have made the message, streaming its first words. Whatever the
        // thread holds of it goes, before the saved words are posted.
        if (row?.was === 'starting') await removeUnanswered(id, task, origin);
        return undefined;
      }
      // Its run stopped it, unless that failed or the run died: then it is stopped here.
      await stopOnce(id, row.channel, row.ts);
      return { channel: row.channel, ts: row.ts, shown: row.shown ?? undefined };
    },
  };
}
