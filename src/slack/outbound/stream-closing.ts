/**
 * Ending streamed messages: stopping one once (each stop spends one of Slack's Tier 2 twenty a
 * minute), replacing the words of one that stands for nothing by a note, removing one whose words
 * were never said, and closing what a dead run left open. Every clean-up is claimed in its row
 * first (stream-rows.ts) and retried until Slack takes it: a stream that could not be closed is
 * live again for the next closer, and the task's end that could not close one is delivered again.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { FINAL_STATUSES, type RunEnd, type Task } from '../../engine/index.js';
import { DeliveryError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { type SlackOrigin, slackOriginSchema } from '../shared/origin.js';
import { type StreamCalls, slackCode } from './stream-calls.js';
import type { StreamRow, StreamRows, StreamState } from './stream-rows.js';

/** When the task's end comes back to close a stream that could not be closed. */
const CLOSE_AGAIN_MS = 30_000;

/**
 * The most streams one sweep of those left open tries to close (closeAbandoned), of the most it
 * reads (some are of tasks that work: their runs' own).
 */
const SWEEP_CLOSES = 5;
const SWEEP_READ = 50;

/** Waits between tries to close a stream (a note, a removal) that Slack did not take. */
const CLOSE_RETRIES_MS = [5000, 15_000, undefined];

/** What a stream that stands for nothing shows instead of its words. */
export const NOTES: Record<Exclude<RunEnd, 'finished'> | 'interrupted', string> = {
  stopped: '_Stopped before these words were finished: nothing of them was kept._',
  failed: '_This step failed before these words were saved: they were not kept._',
  interrupted: '_Interrupted before these words were saved: nothing of them was kept._',
};

export function createStreamClosing({
  rows,
  slack,
  logger,
}: {
  rows: StreamRows;
  slack: StreamCalls;
  logger: Logger;
}) {
  /**
   * Stops the stream `id`'s message (showing `last` at its end), unless another (its run's end,
   * the hand-over, a note) has claimed its stop: each stop spends one of Slack's twenty a minute.
   * 'stopped' by this call, 'over' already (Slack said so), or stopped by an'other'.
   */
  const stopOnce = async (id: string, channel: string, ts: string, last?: string) => {
    if (!(await rows.stopping(id))) return 'other' as const;
    let how: 'stopped' | 'over';
    try {
      how = await slack.stop(channel, ts, last);
    } catch (error) {
      await rows.stopFailed(id);
      throw error;
    }
    await rows.stopped(id);
    return how;
  };

  /**
   * Closes the stream `id` (claimed for it already): `close` (a note, or removing it) is tried a
   * few times, as Slack's limits allow; if it still fails, the stream is live again, for whoever
   * closes what was left open next (the task's next run, or its end). True once closed.
   */
  const closing = async (
    id: string,
    close: () => Promise<void>,
    done: StreamState = 'closed',
    waits: readonly (number | undefined)[] = CLOSE_RETRIES_MS,
  ) => {
    for (const wait of waits) {
      try {
        await close();
        await rows.claim(id, ['closing', 'dropped'], done);
        return true;
      } catch (error) {
        logger.warn({ err: error, stream: id, slack: slackCode(error) }, 'a stream could not be closed yet');
        if (wait === undefined) break;
        await sleep(wait);
      }
    }
    await rows.claim(id, ['closing', 'dropped'], 'live');
    return false;
  };

  /**
   * Stops the message `ts` of the stream row `id` (claimed) and replaces its words by `note`;
   * `once`: one try (a sweep's: the next sweep is its retry).
   */
  const noted = (id: string, channel: string, ts: string, note: string, once = false) =>
    closing(
      id,
      async () => {
        await stopOnce(id, channel, ts);
        await slack.note(channel, ts, note);
      },
      'closed',
      once ? [undefined] : CLOSE_RETRIES_MS,
    );

  /** Stops and removes the message `ts` of the stream row `id` (claimed): its words were never said. */
  const removed = (id: string, channel: string, ts: string) =>
    closing(
      id,
      async () => {
        await stopOnce(id, channel, ts);
        await slack.remove(channel, ts);
      },
      'dropped',
    );

  /**
   * Streams an earlier run of the task left open (it died, or lost the task): closed with a note.
   * `over`: the task ended (no run of it comes). One its run is closing is closed here too (a
   * second note is the same words), lest a run that fails at it leave it showing unsaved words.
   * Throws when one could not be closed, so that the task's end is delivered again later.
   */
  const closeLeftOpen = async (task: Task, thread: SlackOrigin, over = false) => {
    const note = over ? NOTES.stopped : NOTES.interrupted;
    const left = await rows.leftOpen(task.id);
    const closed: boolean[] = [];
    for (const row of left) {
      if (!(await rows.claim(row.id, ['starting', 'live', 'closing'], 'closing'))) continue;
      if (!row.ts) await rows.set(row.id, 'closed');
      else closed.push(await noted(row.id, row.channel, row.ts, note));
    }
    const lost = left.filter((row) => !row.ts);
    // Asked of Slack but never recorded: the message may be in the thread, streaming the dead
    // run's words; each one found is recorded, then closed the same way.
    if (lost.length)
      for (const ts of await slack.unrecorded(thread, new Set(await rows.messagesOf(task.id)))) {
        const id = `${lost[0]?.id}:${ts}`;
        if (await rows.foundMessage(id, task.id, thread.channel, ts))
          closed.push(await noted(id, thread.channel, ts, note));
      }
    if (closed.includes(false))
      throw new DeliveryError('temporary', 'stream_not_closed', { retryAfterMs: CLOSE_AGAIN_MS });
  };

  /**
   * Streams open for minutes, of tasks no run works on now, closed with a note, a few a sweep
   * (each stop spends one of Slack's twenty a minute), one try each (the next sweep tries again).
   * Their run's own close failed and nothing else was to come back to them: the task's end was
   * shown before they started (a run that had not heard of its cancel yet), or the task waits
   * for a review (its next run would close them, days later maybe). Only the streams found are
   * closed, and only those whose message is known: one never recorded is looked for in the
   * thread only by the task's next run or its end, lest a new run's stream be taken for it.
   */
  const closeAbandoned = async (taskOf: (id: string) => Promise<Task | undefined>, stop?: AbortSignal) => {
    const tasks = new Map<string, StreamRow[]>();
    for (const row of await rows.openLong(SWEEP_READ))
      if (row.ts) tasks.set(row.taskId, [...(tasks.get(row.taskId) ?? []), row]);
    let closes = SWEEP_CLOSES;
    for (const [id, left] of tasks) {
      if (stop?.aborted || closes <= 0) return;
      try {
        const task = await taskOf(id);
        const origin = slackOriginSchema.safeParse(task?.origin).data;
        if (!task || !origin || task.status === 'working') continue;
        const note = FINAL_STATUSES.includes(task.status) ? NOTES.stopped : NOTES.interrupted;
        for (const row of left.slice(0, closes)) {
          closes--;
          if (await rows.claim(row.id, [row.was], 'closing'))
            await noted(row.id, row.channel, row.ts as string, note, true);
        }
      } catch (err) {
        logger.warn(
          { err, task: id },
          'could not close the streams a run left open; a later sweep tries again',
        );
      }
    }
  };

  /** Streams in the thread that signoff never learnt of, for stream `id` whose start had no answer: removed. */
  const removeUnanswered = async (id: string, task: Task, thread: SlackOrigin) => {
    for (const ts of await slack.unrecorded(thread, new Set(await rows.messagesOf(task.id)))) {
      const found = `${id}:${ts}`;
      if (await rows.foundMessage(found, task.id, thread.channel, ts))
        await removed(found, thread.channel, ts);
    }
  };

  return { stopOnce, noted, removed, closeLeftOpen, removeUnanswered, closeAbandoned };
}
