-- N-of-M approvals: the approvals a review has counted while it waits for its quorum. A
-- review's shape (signoff.review_json) gains them; everything reads reviews through it.
ALTER TABLE signoff.reviews ADD COLUMN approvals jsonb NOT NULL DEFAULT '[]';

CREATE OR REPLACE FUNCTION signoff.review_json(r signoff.reviews) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
  SELECT jsonb_build_object(
    'id', r.id, 'taskId', r.task_id, 'checkpoint', r.checkpoint, 'request', r.request,
    'settings', r.settings, 'status', r.status, 'decision', r.decision, 'decidedBy', r.decided_by,
    'decidedAt', signoff.iso(r.decided_at), 'dueAt', signoff.iso(r.due_at),
    'createdAt', signoff.iso(r.created_at), 'approvals', r.approvals)
$$;
