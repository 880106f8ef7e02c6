/**
 * The streamed messages' rows (migration 025): which message each stream is, and what it stands
 * for. A state changes only by a conditional update (a claim), so that a run's end, the next run's
 * clean-up and the sink's hand-over never act on one stream twice, whichever process each is in.
 */
import type pg from 'pg';

export type StreamState = 'starting' | 'live' | 'kept' | 'final' | 'closing' | 'closed' | 'dropped';

export interface StreamRow {
  id: string;
  channel: string;
  ts: string | null;
  /** What it showed, all of it, when its run knew (see `kept`). */
  shown: string | null;
  /** The state it was in before the claim that returned it. */
  was: StreamState;
}

export interface StreamRows {
  /**
   * Recorded before Slack is asked, so that a run that dies while asking leaves a trace; false
   * when the stream is spoken for already (its words were handed over as a post first).
   */
  begin(id: string, taskId: string, channel: string): Promise<boolean>;
  /** Slack answered with the stream's message; false when the stream was handed over meanwhile. */
  started(id: string, ts: string): Promise<boolean>;
  /** Its run stopped it and its words are saved; `shown`: all it showed, if all went out. */
  kept(id: string, shown: string | undefined): Promise<void>;
  /** Moves the stream from one of `from` to `to`; its row as it was, or undefined if it was in none. */
  claim(id: string, from: StreamState[], to: StreamState): Promise<StreamRow | undefined>;
  /**
   * The sink takes stream `id` over for its saved words: its row as it was (now `final`), made
   * `final` with no message when the stream was not started yet, so that it never starts.
   */
  handOver(id: string, taskId: string, channel: string): Promise<StreamRow | undefined>;
  /**
   * A message found in the thread that no row named, recorded as being closed (claimed for the
   * caller: false when another has it); one whose closing fails is then retried as any left open.
   */
  foundMessage(id: string, taskId: string, channel: string, ts: string): Promise<boolean>;
  /** Whether the stream is live and its run is stopping it now (a fresh claim of its stop). */
  settling(id: string): Promise<boolean>;
  set(id: string, state: StreamState): Promise<void>;
  /**
   * Claims the stream's stop: true for the one caller that is to ask Slack (false when another
   * stopped it, or is stopping it: a claim older than a stop can take, its process dead, is taken again).
   * `stopped` marks it done; `stopFailed` gives the claim back when Slack did not stop it.
   */
  stopping(id: string): Promise<boolean>;
  stopped(id: string): Promise<void>;
  stopFailed(id: string): Promise<void>;
  /** The messages of a task's streams that signoff knows. */
  messagesOf(taskId: string): Promise<string[]>;
  /** Of these streams, those whose message is in the thread and stands for its words (not closed). */
  showing(ids: string[]): Promise<Set<string>>;
  /** A task's streams that stand for nothing yet and are not being finished. */
  leftOpen(taskId: string): Promise<StreamRow[]>;
  /**
   * Streams still open that started between two minutes and a day ago (and those being closed
   * for ten minutes: their closer died), the newest first, at most `limit`: each with its task.
   */
  openLong(limit: number): Promise<(StreamRow & { taskId: string })[]>;
}

/**
 * Open this long, a stream is its run's own only while its task works (the sweep checks): the age
 * leaves a run's own close (its retries, its waits for a slot) the time to finish first. Past a
 * day, a stream that could not be closed (its channel archived) is left as it is.
 */
const OPEN_LONG = "created_at < now() - interval '2 minutes' AND created_at > now() - interval '1 day'";

/**
 * How long a claim of a stream's stop stands: a stop waits up to 30 s for its slot (Tier 2), and
 * Slack's answer up to 10 s; a claim older than that was left by a process that died.
 */
const STOP_CLAIM_LIFE = "interval '45 seconds'";

const CLAIM = `WITH old AS (SELECT id, state FROM signoff.slack_streams WHERE id = $1 AND state = ANY($2) FOR UPDATE)
  UPDATE signoff.slack_streams s SET state = $3 FROM old WHERE s.id = old.id
  RETURNING s.id, s.channel, s.ts, s.shown, old.state AS was`;

export function streamRows(pool: pg.Pool): StreamRows {
  const claim: StreamRows['claim'] = async (id, from, to) =>
    (await pool.query<StreamRow>(CLAIM, [id, from, to])).rows[0];
  return {
    begin: async (id, taskId, channel) =>
      ((
        await pool.query(
          'INSERT INTO signoff.slack_streams (id, task_id, channel) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING',
          [id, taskId, channel],
        )
      ).rowCount ?? 0) > 0,
    started: async (id, ts) =>
      ((
        await pool.query(
          `UPDATE signoff.slack_streams SET ts = $2, state = 'live' WHERE id = $1 AND state = 'starting'`,
          [id, ts],
        )
      ).rowCount ?? 0) > 0,
    claim,
    kept: async (id, shown) => {
      await pool.query(
        `UPDATE signoff.slack_streams SET state = 'kept', shown = $2 WHERE id = $1 AND state = 'live'`,
        [id, shown ?? null],
      );
    },
    async handOver(id, taskId, channel) {
      // Not started yet (its start is still on its way in another process): spoken for now.
      await pool.query(
        `INSERT INTO signoff.slack_streams (id, task_id, channel, state) VALUES ($1, $2, $3, 'final')
         ON CONFLICT (id) DO NOTHING`,
        [id, taskId, channel],
      );
      return claim(id, ['starting', 'live', 'kept', 'final'], 'final');
    },
    foundMessage: async (id, taskId, channel, ts) => {
      await pool.query(
        `INSERT INTO signoff.slack_streams (id, task_id, channel, ts, state) VALUES ($1, $2, $3, $4, 'live')
         ON CONFLICT (id) DO NOTHING`,
        [id, taskId, channel, ts],
      );
      return (await claim(id, ['starting', 'live'], 'closing')) !== undefined;
    },
    settling: async (id) =>
      ((
        await pool.query(
          `SELECT 1 FROM signoff.slack_streams WHERE id = $1 AND state = 'live'
           AND stop_claimed_at > now() - ${STOP_CLAIM_LIFE} AND stop_claimed_at < 'infinity'`,
          [id],
        )
      ).rowCount ?? 0) > 0,
    stopping: async (id) =>
      ((
        await pool.query(
          `UPDATE signoff.slack_streams SET stop_claimed_at = now() WHERE id = $1
           AND (stop_claimed_at IS NULL OR stop_claimed_at < now() - ${STOP_CLAIM_LIFE})`,
          [id],
        )
      ).rowCount ?? 0) > 0,
    stopped: async (id) => {
      await pool.query(`UPDATE signoff.slack_streams SET stop_claimed_at = 'infinity' WHERE id = $1`, [id]);
    },
    stopFailed: async (id) => {
      await pool.query('UPDATE signoff.slack_streams SET stop_claimed_at = NULL WHERE id = $1', [id]);
    },
    set: async (id, state) => {
      await pool.query('UPDATE signoff.slack_streams SET state = $2 WHERE id = $1', [id, state]);
    },
    messagesOf: async (taskId) =>
      (
        await pool.query<{ ts: string }>(
          'SELECT ts FROM signoff.slack_streams WHERE task_id = $1 AND ts IS NOT NULL',
          [taskId],
        )
      ).rows.map((row) => row.ts),
    showing: async (ids) =>
      new Set(
        (
          await pool.query<{ id: string }>(
            `SELECT id FROM signoff.slack_streams WHERE id = ANY($1) AND ts IS NOT NULL
             AND state IN ('live', 'kept', 'final')`,
            [ids],
          )
        ).rows.map((row) => row.id),
      ),
    leftOpen: async (taskId) =>
      (
        await pool.query<StreamRow>(
          `SELECT id, channel, ts, shown, state AS was FROM signoff.slack_streams
           WHERE task_id = $1 AND state IN ('starting', 'live', 'closing') ORDER BY created_at`,
          [taskId],
        )
      ).rows,
    openLong: async (limit) =>
      (
        await pool.query<StreamRow & { taskId: string }>(
          `SELECT id, task_id AS "taskId", channel, ts, shown, state AS was FROM signoff.slack_streams
           WHERE (state IN ('starting', 'live') OR state = 'closing' AND created_at < now() - interval '10 minutes')
           AND ${OPEN_LONG} ORDER BY created_at DESC LIMIT $1`,
          [limit],
        )
      ).rows,
  };
}
