/**
 * What must hold once a run is quiet, read from the database, what the fake Slack kept and what
 * the processes did:
 * - decided_twice / audit_mismatch: a review is decided at most once, and the audit has exactly
 *   one decision for each decided review (none for the others);
 * - forked_history: no LangGraph checkpoint has two children (every checkpoint ever written is
 *   logged by a trigger, since signoff prunes superseded ones);
 * - lost_decision: no decision left unapplied while its task went on or stopped waiting;
 * - posted_twice: no post key in two Slack messages;
 * - not_shown / bad_end: every task is final (done, rejected, cancelled; failed with a reason) or
 *   waits on reviews whose cards (or their fallbacks) are in its thread;
 * - root_without_task: a command's root message is out but no task stands behind it, and the
 *   message does not say so (it reads "Working" for ever);
 * - words_twice: no model answer (the `[call N]` that opens each, answers.ts) reads in two
 *   replies of a thread, whole or in part, posted or streamed, review cards and the full texts
 *   beside them aside (they quote the agents' words): a stream shows its words once, as they are
 *   written and then as saved, or a note instead;
 * - unsaved_words / stream_left_open: no streamed message still streams once quiet (as Slack has
 *   it), and none shows words that no saved message holds (it shows the saved words, a note, or
 *   is gone);
 * - stream_not_saved: a streamed message that stands for an agent's message (`kept` or `final`)
 *   shows exactly that message's saved words (its `agent_said` event's text, as the sink renders
 *   it), not a part of them, other words, or a note; gone, the saved words read in another reply;
 * - rule_miscounted / rule_unsigned: a standing rule counts exactly the reviews it approved (each
 *   once), and only a rule that was signed off approved any;
 * - crash / alarming_output: no process exited unless the checker killed it, and none printed
 *   an unhandled rejection or an uncaught exception.
 */
import type pg from 'pg';
import { agentMessages } from '../../src/slack/blocks/messages.js';
import { defuse } from '../../src/slack/outbound/live-text.js';
import { callsIn } from './answers.js';
import type { Incident } from './cluster.js';
import { reviewOf, type SlackDriver } from './driver.js';
import type { RunTask, StreamTally } from './scenario.js';

export interface Violation {
  kind: string;
  task?: string;
  detail: string;
}

/** Logs every checkpoint LangGraph writes, so that a fork is seen even after signoff prunes it. */
export async function installCheckpointLog(pool: pg.Pool): Promise<void> {
  await pool.query(`
    CREATE SCHEMA IF NOT EXISTS chaos;
    CREATE TABLE IF NOT EXISTS chaos.checkpoint_log (
      thread_id text NOT NULL, checkpoint_ns text NOT NULL, checkpoint_id text NOT NULL,
      parent_checkpoint_id text, logged_at timestamptz NOT NULL DEFAULT clock_timestamp(),
      PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id));
    CREATE OR REPLACE FUNCTION chaos.log_checkpoint() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO chaos.checkpoint_log (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id)
      VALUES (NEW.thread_id, NEW.checkpoint_ns, NEW.checkpoint_id, NEW.parent_checkpoint_id)
      ON CONFLICT DO NOTHING;
      RETURN NULL;
    END $$;
    CREATE OR REPLACE TRIGGER chaos_log AFTER INSERT OR UPDATE ON langgraph.checkpoints
      FOR EACH ROW EXECUTE FUNCTION chaos.log_checkpoint();`);
}

const FINAL = ['done', 'rejected', 'stopped', 'cancelled'];

export async function checkRun(
  pool: pg.Pool,
  driver: SlackDriver,
  tasks: RunTask[],
  incidents: Incident[],
  tally?: StreamTally,
): Promise<Violation[]> {
  const out: Violation[] = [];
  const ids = tasks.flatMap((t) => (t.taskId ? [t.taskId] : []));

  const reviews = await pool.query<{
    id: string;
    task_id: string;
    status: string;
    decided_at: Date | null;
    applied_at: Date | null;
    decisions: number;
    task_status: string;
    redirected_after: boolean;
  }>(
    `SELECT r.id, r.task_id, r.status, r.decided_at, r.applied_at, t.status AS task_status,
            (SELECT count(*)::int FROM signoff.audit a
             WHERE a.review_id = r.id AND a.action IN ('approve', 'edit', 'revise', 'reject')
               AND NOT a.detail ? 'counted') AS decisions,
            EXISTS (SELECT 1 FROM signoff.audit a WHERE a.task_id = r.task_id AND a.action = 'redirect'
                    AND a.at >= r.decided_at) AS redirected_after
     FROM signoff.reviews r JOIN signoff.tasks t ON t.id = r.task_id WHERE r.task_id = ANY($1)`,
    [ids],
  );
  for (const r of reviews.rows) {
    const expected = r.status === 'decided' ? 1 : 0;
    if (r.decisions > 1)
      out.push({
        kind: 'decided_twice',
        task: r.task_id,
        detail: `review ${r.id}: ${r.decisions} decisions audited`,
      });
    else if (r.decisions !== expected)
      out.push({
        kind: 'audit_mismatch',
        task: r.task_id,
        detail: `review ${r.id} is ${r.status} with ${r.decisions} decisions audited`,
      });
    // A decision its task never took in, although the task went on, finished or waits again.
    if (
      r.status === 'decided' &&
      !r.applied_at &&
      ['waiting', 'done', 'rejected', 'stopped'].includes(r.task_status) &&
      !r.redirected_after
    )
      out.push({
        kind: 'lost_decision',
        task: r.task_id,
        detail: `review ${r.id} decided, never applied; task ${r.task_status}`,
      });
  }

  // Standing rules (of every run so far: an earlier run's may approve this one's reviews): each
  // review a rule approved is counted on it once, and only signed-off rules approve.
  const rules = await pool.query<{
    id: number;
    status: string;
    applied: number;
    approved: number;
    signed: boolean;
  }>(
    `SELECT a.id, a.status, a.applied, a.decided_by IS NOT NULL AND jsonb_array_length(a.approvals) > 0 AS signed,
            (SELECT count(*)::int FROM signoff.reviews r WHERE (r.decision->'rule'->>'id')::int = a.id) AS approved
     FROM signoff.allow_rules a`,
  );
  for (const r of rules.rows) {
    if (r.applied !== r.approved)
      out.push({
        kind: 'rule_miscounted',
        detail: `rule #${r.id}: counts ${r.applied}, approved ${r.approved}`,
      });
    if (r.approved > 0 && (!r.signed || r.status === 'refused' || r.status === 'proposed'))
      out.push({
        kind: 'rule_unsigned',
        detail: `rule #${r.id} (${r.status}) approved ${r.approved} reviews`,
      });
  }

  // N of M: a review approved by a quorum names that many different people, each counted once
  // (one audited approval each), and a review still open counts fewer than it needs.
  const quorums = await pool.query<{ id: string; task_id: string; problem: string }>(
    `SELECT r.id, r.task_id,
            CASE
              WHEN (SELECT count(DISTINCT x->>'by') FROM jsonb_array_elements(r.approvals) x) <> jsonb_array_length(r.approvals)
                THEN 'a person counted twice'
              WHEN r.status = 'pending' AND jsonb_array_length(r.approvals) >= (r.settings->>'approvals')::int
                THEN 'quorum reached but still pending'
              WHEN r.status = 'decided' AND r.decision->>'action' = 'approve' AND r.decision->>'automatic' IS NULL
                   AND (SELECT count(DISTINCT x->>'by') FROM jsonb_array_elements(r.decision->'approvals') x)
                       <> (r.settings->>'approvals')::int
                THEN 'approved by ' || coalesce(jsonb_array_length(r.decision->'approvals'), 0) || ' of ' || (r.settings->>'approvals')
              WHEN (SELECT count(*) FROM signoff.audit a WHERE a.review_id = r.id AND a.detail ? 'counted')
                   <> jsonb_array_length(r.approvals)
                THEN 'approvals counted and audited differ'
            END AS problem
     FROM signoff.reviews r
     WHERE r.task_id = ANY($1) AND coalesce((r.settings->>'approvals')::int, 1) > 1`,
    [ids],
  );
  for (const q of quorums.rows)
    if (q.problem) out.push({ kind: 'quorum', task: q.task_id, detail: `review ${q.id}: ${q.problem}` });

  const forks = await pool.query<{
    thread_id: string;
    checkpoint_ns: string;
    parent: string;
    children: string[];
  }>(
    `SELECT thread_id, checkpoint_ns, parent_checkpoint_id AS parent, array_agg(checkpoint_id ORDER BY logged_at) AS children
     FROM chaos.checkpoint_log
     WHERE regexp_replace(thread_id, '#\\d+$', '') = ANY($1) AND parent_checkpoint_id IS NOT NULL
     GROUP BY thread_id, checkpoint_ns, parent_checkpoint_id HAVING count(*) > 1`,
    [ids],
  );
  for (const f of forks.rows)
    out.push({
      kind: 'forked_history',
      task: f.thread_id.replace(/#\d+$/, ''),
      detail: `thread ${f.thread_id} ns '${f.checkpoint_ns}': checkpoint ${f.parent} has children ${f.children.join(', ')}`,
    });

  await driver.refresh();
  const threads = new Map(tasks.filter((t) => t.rootTs).map((t) => [`${t.channel}:${t.rootTs}`, t]));
  const mine = driver.all().filter((p) => p.thread_ts && threads.has(`${p.channel}:${p.thread_ts}`));
  const byKey = new Map<string, number>();
  for (const p of mine) if (p.key) byKey.set(p.key, (byKey.get(p.key) ?? 0) + 1);
  for (const [key, n] of byKey)
    if (n > 1) {
      const p = mine.find((m) => m.key === key);
      const task = p && threads.get(`${p.channel}:${p.thread_ts}`);
      out.push({ kind: 'posted_twice', task: task?.taskId, detail: `post key ${key} is in ${n} messages` });
    }

  const states = await pool.query<{
    id: string;
    status: string;
    status_reason: string | null;
    pending: string[];
  }>(
    `SELECT t.id, t.status, t.status_reason,
            coalesce(array_agg(r.id) FILTER (WHERE r.id IS NOT NULL), '{}') AS pending
     FROM signoff.tasks t LEFT JOIN signoff.reviews r ON r.task_id = t.id AND r.status = 'pending'
     WHERE t.id = ANY($1) GROUP BY t.id`,
    [ids],
  );
  const known = new Set(states.rows.map((t) => t.id));
  for (const t of tasks) {
    if (!t.taskId || !t.rootTs || known.has(t.taskId)) continue;
    // The web process saw the start fail (its database down) and said so on the root message.
    const text = await driver.textOf(t.channel, t.rootTs);
    if (!text?.includes('could not be started'))
      out.push({
        kind: 'root_without_task',
        task: t.taskId,
        detail: `root message ${t.channel} ${t.rootTs} has no task; it reads: ${text?.slice(0, 120)}`,
      });
  }
  const shown = new Set(mine.map(reviewOf).filter(Boolean));
  for (const t of states.rows) {
    if (FINAL.includes(t.status)) continue;
    if (t.status === 'failed') {
      if (!t.status_reason) out.push({ kind: 'bad_end', task: t.id, detail: 'failed without a reason' });
      continue;
    }
    if (t.status !== 'waiting') {
      out.push({ kind: 'bad_end', task: t.id, detail: `still ${t.status} once quiet` });
      continue;
    }
    if (t.pending.length === 0)
      out.push({ kind: 'bad_end', task: t.id, detail: 'waiting on no pending review' });
    for (const review of t.pending)
      if (!shown.has(review))
        out.push({
          kind: 'not_shown',
          task: t.id,
          detail: `pending review ${review} has no card in its thread`,
        });
  }

  out.push(...(await checkWords(pool, driver, tasks, tally)));
  for (const i of incidents) out.push({ kind: i.what, detail: `${i.process}: ${i.detail}` });
  return out;
}

/** What a stream that stands for nothing reads instead of its words (slack/outbound/streams.ts). */
const NOTE = /before these words were (finished|saved)/;

/** Words compared as a person reads them: runs of whitespace alike, zero-width spaces unseen. */
const normal = (text: string) =>
  text
    .replace(/\u200b/g, '')
    .replace(/\s+/g, ' ')
    .trim();

/**
 * How a stream that stands for `text` may read: the first part of the saved message as the sink
 * posts it (blocks/messages.ts), or, when the message is one part, the streamed words left as
 * they were (the sink does not edit a stream that showed all of them: sink.ts `showStreamed`).
 */
function savedReadings(text: string): string[] {
  const parts = agentMessages(text);
  const first = (parts[0]?.blocks[0] as { text?: string } | undefined)?.text ?? '';
  return parts.length === 1 ? [normal(first), normal(defuse(text))] : [normal(first)];
}

async function checkWords(
  pool: pg.Pool,
  driver: SlackDriver,
  tasks: RunTask[],
  tally?: StreamTally,
): Promise<Violation[]> {
  const out: Violation[] = [];
  for (const t of tasks) {
    if (!t.rootTs) continue;
    const replies = await driver.thread(t.channel, t.rootTs);
    const seen = new Map<string, string[]>();
    for (const r of replies) {
      if (r.key?.startsWith('card:')) continue;
      // Which reply it is, for whoever reads the violation: its key or its stream, and its start.
      const what = `${r.ts} ${r.key ?? (r.stream ? `stream ${r.stream}` : 'no key')} "${r.content.slice(0, 50)}"`;
      for (const call of callsIn(r.content)) seen.set(call, [...(seen.get(call) ?? []), what]);
    }
    const rows = await pool.query<{ id: string; ts: string | null; state: string }>(
      'SELECT id, ts, state FROM signoff.slack_streams WHERE task_id = $1',
      [t.taskId],
    );
    const rowsSaid = rows.rows.map((r) => `${r.id.slice(-12)} ${r.ts ?? '-'} ${r.state}`).join(', ');
    for (const [call, where] of seen)
      if (where.length > 1)
        out.push({
          kind: 'words_twice',
          task: t.taskId,
          detail: `the model's call ${call} reads in ${where.length} replies: ${where.join('; ')} (stream rows: ${rowsSaid || 'none'})`,
        });
    const streams = replies.filter((r) => r.stream);
    const state = new Map(rows.rows.flatMap((r) => (r.ts ? [[r.ts, r.state] as const] : [])));
    for (const s of streams) {
      if (s.stream === 'streaming')
        out.push({ kind: 'stream_left_open', task: t.taskId, detail: `stream ${s.ts} still streams` });
      if (NOTE.test(s.content) && tally) tally.noted++;
      // Words that were never saved stay only as a note; the saved ones read as the saved message.
      const saved = ['kept', 'final'].includes(state.get(s.ts) ?? '');
      if (!saved && s.content.trim() && !NOTE.test(s.content))
        out.push({
          kind: 'unsaved_words',
          task: t.taskId,
          detail: `stream ${s.ts} (${state.get(s.ts) ?? 'no row'}) reads: ${s.content.slice(0, 120)}`,
        });
    }
    out.push(...(await checkSavedStreams(pool, t, rows.rows, replies, tally)));
  }
  return out;
}

/**
 * Each stream that stands for an agent's message shows that message's saved words (kept: its run
 * saved them, the sink has yet to take it; final: the sink took it). Its `agent_said` event names
 * it (`streamed`); one that has no such event stands for nothing, whatever its state says.
 */
async function checkSavedStreams(
  pool: pg.Pool,
  t: RunTask,
  rows: { id: string; ts: string | null; state: string }[],
  replies: Awaited<ReturnType<SlackDriver['thread']>>,
  tally?: StreamTally,
): Promise<Violation[]> {
  const out: Violation[] = [];
  const standing = rows.filter((r) => r.ts && ['kept', 'final'].includes(r.state));
  if (!standing.length) return out;
  const events = await pool.query<{ streamed: string; text: string; failed: boolean }>(
    `SELECT payload->>'streamed' AS streamed, payload->>'text' AS text, failed_at IS NOT NULL AS failed
     FROM signoff.events WHERE task_id = $1 AND type = 'agent_said' AND payload->>'streamed' = ANY($2)
     ORDER BY id`,
    [t.taskId, standing.map((r) => r.id)],
  );
  for (const row of standing) {
    const said = events.rows.filter((e) => e.streamed === row.id);
    const message = replies.find((r) => r.ts === row.ts);
    const what = `stream ${row.ts} (${row.state})`;
    if (!said.length) {
      // Its words were never said: the message should have gone or read as a note.
      if (message?.words.trim() && !NOTE.test(message.words))
        out.push({
          kind: 'stream_not_saved',
          task: t.taskId,
          detail: `${what} has no agent_said event naming it, yet reads: ${message.words.slice(0, 160)}`,
        });
      continue;
    }
    const event = said[0] as (typeof said)[number];
    const calls = [...callsIn(event.text)];
    const failed = event.failed ? ' (its event failed for good)' : '';
    if (!message) {
      // Gone (the sink deleted it to post the saved words instead): those words read elsewhere.
      const elsewhere = replies.some((r) => calls.some((c) => callsIn(r.content).has(c)));
      if (calls.length && !elsewhere && !event.failed)
        out.push({
          kind: 'stream_not_saved',
          task: t.taskId,
          detail: `${what} is gone and the saved words of call ${calls.join(', ')} read in no reply`,
        });
      continue;
    }
    if (said.length > 1 && new Set(said.map((e) => e.text)).size > 1)
      out.push({
        kind: 'stream_not_saved',
        task: t.taskId,
        detail: `${what} is named by ${said.length} agent_said events with different words`,
      });
    const shown = normal(message.words);
    if (savedReadings(event.text).includes(shown)) {
      if (tally) tally.shownSaved++;
      continue;
    }
    out.push({
      kind: 'stream_not_saved',
      task: t.taskId,
      detail:
        `${what}${failed} reads ${shown.length} chars: "${shown.slice(0, 140)}${shown.length > 140 ? '…' : ''}"; ` +
        `saved (${normal(event.text).length} chars): "${normal(event.text).slice(0, 140)}…"`,
    });
  }
  return out;
}
