/**
 * The streamed messages' rows (migration 025): which message each stream is, and what it stands
 * for. A state changes only by `claim`, one conditional update, so that a run's end, the next run's
 * clean-up and the sink's hand-over never act on one stream twice.
 */
import type pg from 'pg';

export type StreamState = 'starting' | 'live' | 'kept' | 'final' | 'closing' | 'closed' | 'dropped';

export interface StreamRow {
  id: string;
  channel: string;
  ts: string | null;
  /** The state it was in before the claim that returned it. */
  was: StreamState;
}

export function streamRows(pool: pg.Pool) {
  return {
    /** Recorded before Slack is asked, so that a run that dies while asking leaves a trace. */
    begin: async (id: string, taskId: string, channel: string) => {
      await pool.query(
        'INSERT INTO signoff.slack_streams (id, task_id, channel) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING',
        [id, taskId, channel],
      );
    },
    /** Slack answered: the stream's message. */
    started: async (id: string, ts: string) => {
      await pool.query(
        `UPDATE signoff.slack_streams SET ts = $2, state = 'live' WHERE id = $1 AND state = 'starting'`,
        [id, ts],
      );
    },
    /** Moves the stream from one of `from` to `to`; its row as it was, or undefined if it was in none. */
    claim: async (id: string, from: StreamState[], to: StreamState): Promise<StreamRow | undefined> => {
      const r = await pool.query<StreamRow>(
        `WITH old AS (SELECT id, state FROM signoff.slack_streams WHERE id = $1 AND state = ANY($2) FOR UPDATE)
         UPDATE signoff.slack_streams s SET state = $3 FROM old WHERE s.id = old.id
         RETURNING s.id, s.channel, s.ts, old.state AS was`,
        [id, from, to],
      );
      return r.rows[0];
    },
    set: async (id: string, state: StreamState) => {
      await pool.query('UPDATE signoff.slack_streams SET state = $2 WHERE id = $1', [id, state]);
    },
    /** The messages of a task's streams that signoff knows. */
    messagesOf: async (taskId: string): Promise<string[]> => {
      const r = await pool.query<{ ts: string }>(
        'SELECT ts FROM signoff.slack_streams WHERE task_id = $1 AND ts IS NOT NULL',
        [taskId],
      );
      return r.rows.map((row) => row.ts);
    },
    /** A task's streams that stand for nothing yet and are not being finished. */
    leftOpen: async (taskId: string): Promise<StreamRow[]> => {
      const r = await pool.query<StreamRow>(
        `SELECT id, channel, ts, state AS was FROM signoff.slack_streams
         WHERE task_id = $1 AND state IN ('starting', 'live', 'closing') ORDER BY created_at`,
        [taskId],
      );
      return r.rows;
    },
  };
}
