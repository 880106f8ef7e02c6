/**
 * The changes of a pending review short of its decision, each with its event and audit entry in
 * one statement (like `decideReview` in store.ts): an approval counted towards a quorum, an edit
 * counted towards one, and an escalation at the deadline. Each applies only to a review still pending and not already changed
 * that way, so a retried or raced call changes nothing twice.
 */
import type { Queryable } from '../db/queryable.js';
import { contentHash } from './content-hash.js';
import { approvalsNeeded } from './sign-off-rules.js';
import { withEdit } from './standard-interrupts.js';
import { type Approval, type Decision, type Review, type ReviewRequest, SYSTEM_ACTOR } from './types.js';

/** Counts one person's approval (once: a second one by the same person changes nothing). */
export async function countApproval(
  db: Queryable,
  reviewId: string,
  approval: Approval,
  needed: number,
): Promise<Review | undefined> {
  const r = await db.query<{ review: Review }>(
    `WITH counted AS (
       UPDATE signoff.reviews SET approvals = approvals || jsonb_build_array($2::jsonb)
       WHERE id = $1 AND status = 'pending'
         AND NOT approvals @> jsonb_build_array(jsonb_build_object('by', $3::text))
       RETURNING *),
     announced AS (
       INSERT INTO signoff.events (task_id, key, type, payload)
       SELECT task_id, 'approved:' || id || ':' || $3, 'review_progress',
              jsonb_build_object('type', 'review_progress', 'by', $3::text,
                                 'review', signoff.review_json(counted::signoff.reviews))
       FROM counted ON CONFLICT (task_id, key) DO NOTHING),
     audited AS (
       INSERT INTO signoff.audit (task_id, review_id, actor, action, detail)
       SELECT task_id, id, $3, 'approve',
              jsonb_build_object('contentHash', $4::text, 'counted', jsonb_array_length(approvals), 'needed', $5::int)
       FROM counted)
     SELECT signoff.review_json(counted::signoff.reviews) AS review FROM counted`,
    [reviewId, approval, approval.by, approval.contentHash, needed],
  );
  return r.rows[0]?.review;
}

/**
 * An Edit (decision `d`) counted towards a quorum: the review now asks for the edited call (its
 * card redraws with a new content hash), and the editor's approval of it is the only one counted.
 */
export function countEdit(db: Queryable, current: Review, d: Decision): Promise<Review | undefined> {
  const edit = {
    by: d.by,
    at: d.at,
    n: (current.request.edit?.n ?? 0) + 1,
    values: d.values,
    feedback: d.feedback,
  };
  const request = withEdit(current.request, edit);
  const approval = { by: d.by, at: d.at, contentHash: contentHash(request) };
  return editReview(db, current.id, { request, approval, needed: approvalsNeeded(current.settings) });
}

/**
 * An Edit counted towards a quorum: the review asks for the edited call from now on (`request`,
 * whose `edit` is its n-th), the editor's approval of it is the only one counted (approvals of
 * what it showed before were not approvals of this), and the card redraws. Only from the edit
 * before: a retried call changes nothing.
 */
async function editReview(
  db: Queryable,
  reviewId: string,
  e: { request: ReviewRequest; approval: Approval; needed: number },
): Promise<Review | undefined> {
  const edit = e.request.edit;
  const r = await db.query<{ review: Review }>(
    `WITH edited AS (
       UPDATE signoff.reviews SET request = $2, approvals = jsonb_build_array($3::jsonb)
       WHERE id = $1 AND status = 'pending' AND coalesce((request->'edit'->>'n')::int, 0) = $5 - 1
       RETURNING *),
     announced AS (
       INSERT INTO signoff.events (task_id, key, type, payload)
       SELECT task_id, 'edited:' || id || ':' || $5::int, 'review_progress',
              jsonb_build_object('type', 'review_progress', 'by', $4::text,
                                 'review', signoff.review_json(edited::signoff.reviews))
       FROM edited ON CONFLICT (task_id, key) DO NOTHING),
     audited AS (
       INSERT INTO signoff.audit (task_id, review_id, actor, action, detail)
       SELECT task_id, id, $4, 'edit',
              jsonb_strip_nulls(jsonb_build_object('contentHash', $6::text, 'counted', 1, 'needed', $7::int,
                                                   'feedback', $8::text, 'values', $9::jsonb))
       FROM edited)
     SELECT signoff.review_json(edited::signoff.reviews) AS review FROM edited`,
    [
      reviewId,
      e.request,
      e.approval,
      e.approval.by,
      edit?.n ?? 1,
      e.approval.contentHash,
      e.needed,
      edit?.feedback ?? null,
      JSON.stringify(edit?.values ?? {}),
    ],
  );
  return r.rows[0]?.review;
}

/**
 * Takes escalation step `step` (1 the first) of a pending review at its deadline: `reviewers`
 * become its reviewers (the old ones and the step's), its deadline moves to `dueAt`, and the
 * surfaces are told whom to ping. Only from the step before: a retried deadline changes nothing.
 */
export async function escalateReview(
  db: Queryable,
  reviewId: string,
  e: { step: number; to: string[]; reviewers: string[]; dueAt: Date; reason: string },
): Promise<Review | undefined> {
  const r = await db.query<{ review: Review }>(
    `WITH escalated AS (
       UPDATE signoff.reviews
       SET settings = settings || jsonb_build_object('reviewers', $2::jsonb, 'escalated', $7::int), due_at = $3
       WHERE id = $1 AND status = 'pending' AND coalesce((settings->>'escalated')::int, 0) = $7 - 1
       RETURNING *),
     announced AS (
       INSERT INTO signoff.events (task_id, key, type, payload)
       SELECT task_id, 'escalated:' || id || ':' || $7::int::text, 'review_escalated',
              jsonb_build_object('type', 'review_escalated', 'to', $4::jsonb, 'reason', $5::text,
                                 'review', signoff.review_json(escalated::signoff.reviews))
       FROM escalated ON CONFLICT (task_id, key) DO NOTHING),
     audited AS (
       INSERT INTO signoff.audit (task_id, review_id, actor, action, detail)
       SELECT task_id, id, $6, 'escalate', jsonb_build_object('to', $4::jsonb, 'automatic', $5::text, 'step', $7::int)
       FROM escalated)
     SELECT signoff.review_json(escalated::signoff.reviews) AS review FROM escalated`,
    [reviewId, JSON.stringify(e.reviewers), e.dueAt, JSON.stringify(e.to), e.reason, SYSTEM_ACTOR, e.step],
  );
  return r.rows[0]?.review;
}
