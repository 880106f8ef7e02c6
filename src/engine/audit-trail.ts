/**
 * The audit trail as an auditor reads it: every attempt and decision, with the task, workflow,
 * checkpoint and round it was about, who, when, what, the feedback and the hash of the content
 * decided on; refused attempts with the reason, and automatic decisions with the rule that made
 * them. Read from the audit log with its tasks and reviews (which retention keeps), in pages.
 */

import type pg from 'pg';
import { z } from 'zod';
import { isArgumentsField } from '../workflows/protocol/tool-call-form.js';

export const auditEntrySchema = z.object({
  id: z.number(),
  at: z.string(),
  task: z.string().nullable(),
  workflow: z.string().nullable(),
  checkpoint: z.string().nullable(),
  round: z.number().nullable(),
  review: z.string().nullable(),
  who: z.string(),
  /**
   * approve, edit (approved with edits), revise, reject, escalate, start, cancel, redirect, retry;
   * rule (a config file's rule fired); rule_propose, rule_approve, rule_reject, rule_revoke.
   */
  action: z.string(),
  /** decided, counted (one approval of several), refused, automatic, or done (a control). */
  result: z.enum(['decided', 'counted', 'refused', 'automatic', 'done']),
  /** A revise's words; a refused attempt's text (what was tried). */
  feedback: z.string().nullable(),
  contentHash: z.string().nullable(),
  /**
   * Why: a reject's words (for a tool call, the message its agent got), a refusal's sentence, a
   * cancel's reason. Plain words for a reader; a refusal's machine code is in `code`.
   */
  reason: z.string().nullable(),
  /** A refused attempt's code (`not_allowed`, `stale_review`, `invalid_decision`…), for a filter. */
  code: z.string().nullable(),
  /** The rule that decided for nobody (a timeout's action, an escalation, a rule), or the standing rule an entry is about. */
  rule: z.string().nullable(),
  /** Whom an escalation added as reviewers (space-separated). */
  to: z.string().nullable(),
  /** N of M: "1 of 2" for an approval counted; "2 of 2: U1 U2" for the one that decided. */
  approvals: z.string().nullable(),
  /**
   * An edit (approved with edits): what was approved instead of what was asked, as JSON. For tool
   * calls, each call by its tool's name: `[{"tool": "send_email", "args": {…}}, {"tool": "log",
   * "rejected": true}]`, as recorded when it was decided (entries from before that was kept: the
   * form's fields, as below); else each form field's value. `contentHash` is of what the person saw.
   */
  edited: z.string().nullable(),
});
export type AuditEntry = z.infer<typeof auditEntrySchema>;

export interface AuditFilter {
  taskId?: string;
  since?: Date;
}

const REFUSED_TEXT_LIMIT = 500;

/**
 * What the audit keeps of the text of a refused attempt: anyone may type anything (a stranger's
 * pasted document), so enough to see what was tried (`REFUSED_TEXT_LIMIT` characters), with a
 * note of the length.
 */
export function refusedText(feedback: string | undefined): { feedback?: string; feedbackLength?: number } {
  const text = feedback?.trim();
  if (!text) return {};
  if (text.length <= REFUSED_TEXT_LIMIT) return { feedback: text };
  return {
    feedback: `${text.slice(0, REFUSED_TEXT_LIMIT)}… [${text.length} characters; the first ${REFUSED_TEXT_LIMIT} kept]`,
    feedbackLength: text.length,
  };
}

const DECISIONS = new Set(['approve', 'edit', 'revise', 'reject']);
const PAGE = 500;

type Row = {
  id: string;
  at: Date;
  task_id: string | null;
  workflow: string | null;
  checkpoint: string | null;
  round: number | null;
  review_id: string | null;
  actor: string;
  action: string;
  detail: Record<string, unknown>;
};

const text = (v: unknown) => (typeof v === 'string' && v ? v : null);

function toEntry(row: Row): AuditEntry {
  const d = row.detail ?? {};
  const refused = row.action.startsWith('refused:');
  const action = refused ? row.action.slice('refused:'.length) : row.action;
  const rejected = action === 'reject' && !refused;
  const automatic = text(d.automatic);
  // A standing rule's own entries (proposed, approved, revoked) name it by number.
  const rule = automatic ?? (typeof d.rule === 'number' ? `rule #${d.rule}` : null);
  const result = refused
    ? 'refused'
    : automatic
      ? 'automatic'
      : typeof d.counted === 'number'
        ? 'counted'
        : DECISIONS.has(action)
          ? 'decided'
          : 'done';
  return auditEntrySchema.parse({
    id: Number(row.id),
    at: row.at.toISOString(),
    task: row.task_id,
    workflow: row.workflow,
    checkpoint: row.checkpoint,
    round: row.round,
    review: row.review_id,
    who: row.actor,
    action,
    result,
    // A reject's words are its reason, where a reader looks for why; the row keeps them as
    // `feedback` (older rows too), so the move is made here, on read.
    feedback: rejected ? null : text(d.feedback),
    contentHash: text(d.contentHash),
    reason: refused
      ? (text(d.message) ?? text(d.code))
      : (text(d.reason) ?? (rejected ? text(d.feedback) : null)),
    code: refused ? text(d.code) : null,
    rule,
    to: Array.isArray(d.to) ? d.to.join(' ') : null,
    approvals: approvalsOf(d),
    edited:
      action !== 'edit'
        ? null
        : Array.isArray(d.calls)
          ? JSON.stringify(d.calls)
          : d.values && typeof d.values === 'object'
            ? editedOf(d.values)
            : null,
  });
}

/**
 * The form as approved, one JSON: a call's arguments (typed as a line of JSON) as the object they
 * are, not a string of JSON inside it; any other field's value as typed.
 */
function editedOf(values: object): string {
  const asTyped = (field: string, value: unknown) => {
    if (!isArgumentsField(field) || typeof value !== 'string') return value;
    try {
      return JSON.parse(value) as unknown;
    } catch {
      return value;
    }
  };
  return JSON.stringify(Object.fromEntries(Object.entries(values).map(([k, v]) => [k, asTyped(k, v)])));
}

function approvalsOf(d: Record<string, unknown>): string | null {
  if (typeof d.counted === 'number') return `${d.counted} of ${d.needed}`;
  if (!Array.isArray(d.approvals)) return null;
  const by = (d.approvals as { by: string }[]).map((a) => a.by);
  return `${by.length} of ${by.length}: ${by.join(' ')}`;
}

/**
 * The trail, oldest first, a page at a time (an export of years stays in constant memory). All
 * pages are read in one snapshot: an entry committed while the export runs, under an id lower
 * than a page already read, can never fall between two pages.
 */
export async function* auditTrail(pool: pg.Pool, filter: AuditFilter = {}): AsyncGenerator<AuditEntry> {
  const client = await pool.connect();
  let done = false;
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    let after = 0;
    for (;;) {
      const r = await client.query<Row>(
        `SELECT a.id, a.at, a.task_id, t.workflow, r.checkpoint, (r.request->>'round')::int AS round,
                a.review_id, a.actor, a.action, a.detail
         FROM signoff.audit a
         LEFT JOIN signoff.tasks t ON t.id = a.task_id
         LEFT JOIN signoff.reviews r ON r.id = a.review_id
         WHERE a.id > $1 AND ($2::text IS NULL OR a.task_id = $2) AND ($3::timestamptz IS NULL OR a.at >= $3)
         ORDER BY a.id LIMIT ${PAGE}`,
        [after, filter.taskId ?? null, filter.since ?? null],
      );
      for (const row of r.rows) yield toEntry(row);
      if (r.rows.length < PAGE) break;
      after = Number(r.rows.at(-1)?.id);
    }
    await client.query('COMMIT');
    done = true;
  } finally {
    // A reader that stopped early (or failed) leaves the transaction open: it is ended here.
    if (!done) await client.query('ROLLBACK').catch(() => undefined);
    client.release();
  }
}
