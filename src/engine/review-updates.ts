/**
 * The changes of a pending review, each with its audit entry (same statement) and its event (same
 * transaction, built from the row the change returned): its decision, an approval counted towards
 * a quorum, an edit counted towards one, and an escalation at the deadline. Each applies only to
 * a review still pending and not already changed that way, so a retried or raced call changes
 * nothing twice.
 */
import { atomically, type Queryable } from '../db/queryable.js';
import { contentHash } from '../workflows/protocol/content-hash.js';
import { decidedCalls, withEdit } from '../workflows/protocol/standard-interrupts.js';
import { eventKey } from './event-keys.js';
import { recordAll } from './event-store.js';
import { reviewFromRow } from './rows.js';
import { approvalsNeeded } from './sign-off-rules.js';
import { type Approval, type Decision, type EngineEvent, type Review, SYSTEM_ACTOR } from './types.js';

/**
 * Runs `sql`, which changes one review and returns its row (and writes its audit entry), and records
 * the events `events` builds from that row, in one transaction; nothing when no row changed.
 */
async function changeReview(
  db: Queryable,
  sql: string,
  values: unknown[],
  events: (review: Review, row: Record<string, unknown>) => { key: string; event: EngineEvent }[],
): Promise<Review | undefined> {
  return atomically(db, async (db) => {
    const row = (await db.query(sql, values)).rows[0];
    if (!row) return undefined;
    const review = reviewFromRow(row);
    await recordAll(db, review.taskId, events(review, row));
    return review;
  });
}

const WORKING = { type: 'task_status', status: 'working', reason: null } as const;

/**
 * The exactly-once step: only a pending review becomes decided; a second caller gets nothing.
 * `shown`: the request the decision was read against, whose calls an edit's audit entry names.
 */
export function decideReview(
  db: Queryable,
  id: string,
  decision: Decision,
  shown?: Review['request'],
): Promise<Review | undefined> {
  const edited = decision.action === 'edit' && shown ? decidedCalls(shown, decision.values ?? {}) : undefined;
  return changeReview(
    db,
    `WITH decided AS (
       UPDATE signoff.reviews SET status = 'decided', decision = $2, decided_by = $3, decided_at = now()
       WHERE id = $1 AND status = 'pending' RETURNING *),
     audited AS (
       INSERT INTO signoff.audit (task_id, review_id, actor, action, detail)
       SELECT task_id, id, $3, $4, $5 FROM decided),
     -- The last open question answered: the task is working again from this moment, as its
     -- status shows, and its run has one write fewer to make.
     working AS (
       UPDATE signoff.tasks t SET status = 'working', status_reason = NULL, version = version + 1, updated_at = now()
       FROM decided d
       WHERE t.id = d.task_id AND t.status = 'waiting'
         AND NOT EXISTS (SELECT 1 FROM signoff.reviews o
                         WHERE o.task_id = d.task_id AND o.status = 'pending' AND o.id <> d.id)
       RETURNING t.version)
     SELECT decided.*, (SELECT version FROM working) AS reopened FROM decided`,
    [
      id,
      decision,
      decision.by,
      decision.action,
      {
        feedback: decision.feedback,
        automatic: decision.automatic,
        contentHash: decision.contentHash,
        approvals: decision.approvals,
        // What an edit ran instead of what was asked: as typed, and each call as decided.
        values: decision.action === 'edit' ? decision.values : undefined,
        calls: edited,
      },
    ],
    (review, row) => [
      { key: eventKey.decided(review.id), event: { type: 'review_decided', review } },
      ...(row.reopened === null ? [] : [{ key: eventKey.status(row.reopened as number), event: WORKING }]),
    ],
  );
}

/** Counts one person's approval (once: a second one by the same person changes nothing). */
export function countApproval(
  db: Queryable,
  reviewId: string,
  approval: Approval,
  needed: number,
): Promise<Review | undefined> {
  return changeReview(
    db,
    `WITH counted AS (
       UPDATE signoff.reviews SET approvals = approvals || jsonb_build_array($2::jsonb)
       WHERE id = $1 AND status = 'pending'
         AND NOT approvals @> jsonb_build_array(jsonb_build_object('by', $3::text))
       RETURNING *),
     audited AS (
       INSERT INTO signoff.audit (task_id, review_id, actor, action, detail)
       SELECT task_id, id, $3, 'approve',
              jsonb_build_object('contentHash', $4::text, 'counted', jsonb_array_length(approvals), 'needed', $5::int)
       FROM counted)
     SELECT * FROM counted`,
    [reviewId, approval, approval.by, approval.contentHash, needed],
    (review) => [
      {
        key: eventKey.approved(review.id, approval.by),
        event: { type: 'review_progress', by: approval.by, review },
      },
    ],
  );
}

/**
 * An Edit (decision `d`) counted towards a quorum: the review asks for the edited call from now on
 * (its n-th edit; its card redraws with a new content hash), and the editor's approval of it is
 * the only one counted (approvals of what it showed before were not approvals of this). Only from
 * the edit before: a retried call changes nothing.
 */
export function countEdit(db: Queryable, current: Review, d: Decision): Promise<Review | undefined> {
  const n = (current.request.edit?.n ?? 0) + 1;
  const request = withEdit(current.request, {
    by: d.by,
    at: d.at,
    n,
    values: d.values,
    feedback: d.feedback,
  });
  const approval: Approval = { by: d.by, at: d.at, contentHash: contentHash(request) };
  // Each call as this editor decided it, read against the review they saw (not as a later edit
  // leaves it: the audit must never credit them with another's arguments).
  const calls = decidedCalls(current.request, d.values ?? {});
  return changeReview(
    db,
    `WITH edited AS (
       UPDATE signoff.reviews SET request = $2, approvals = jsonb_build_array($3::jsonb)
       WHERE id = $1 AND status = 'pending' AND coalesce((request->'edit'->>'n')::int, 0) = $5 - 1
       RETURNING *),
     audited AS (
       INSERT INTO signoff.audit (task_id, review_id, actor, action, detail)
       SELECT task_id, id, $4, 'edit',
              jsonb_strip_nulls(jsonb_build_object('contentHash', $6::text, 'counted', 1, 'needed', $7::int,
                                                   'feedback', $8::text, 'values', $9::jsonb, 'calls', $10::jsonb))
       FROM edited)
     SELECT * FROM edited`,
    [
      current.id,
      request,
      approval,
      d.by,
      n,
      approval.contentHash,
      approvalsNeeded(current.settings),
      // As the review now keeps them (a tool call's, one explicit decision per call).
      request.edit?.feedback ?? null,
      JSON.stringify(request.edit?.values ?? {}),
      calls ? JSON.stringify(calls) : null,
    ],
    (review) => [
      { key: eventKey.edited(review.id, n), event: { type: 'review_progress', by: d.by, review } },
    ],
  );
}

/**
 * Takes escalation step `step` (1 the first) of a pending review at its deadline: `reviewers`
 * become its reviewers (the old ones and the step's), its deadline moves to `dueAt`, and the
 * surfaces are told whom to ping. Only from the step before: a retried deadline changes nothing.
 */
export function escalateReview(
  db: Queryable,
  reviewId: string,
  e: { step: number; to: string[]; reviewers: string[]; dueAt: Date; reason: string },
): Promise<Review | undefined> {
  return changeReview(
    db,
    `WITH escalated AS (
       UPDATE signoff.reviews
       SET settings = settings || jsonb_build_object('reviewers', $2::jsonb, 'escalated', $7::int), due_at = $3
       WHERE id = $1 AND status = 'pending' AND coalesce((settings->>'escalated')::int, 0) = $7 - 1
       RETURNING *),
     audited AS (
       INSERT INTO signoff.audit (task_id, review_id, actor, action, detail)
       SELECT task_id, id, $6, 'escalate', jsonb_build_object('to', $4::jsonb, 'automatic', $5::text, 'step', $7::int)
       FROM escalated)
     SELECT * FROM escalated`,
    [reviewId, JSON.stringify(e.reviewers), e.dueAt, JSON.stringify(e.to), e.reason, SYSTEM_ACTOR, e.step],
    (review) => [
      {
        key: eventKey.escalated(review.id, e.step),
        event: { type: 'review_escalated', to: e.to, reason: e.reason, review },
      },
    ],
  );
}
