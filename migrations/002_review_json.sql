-- A review as the engine's events carry it (camelCase, as src/engine/types.ts `Review`), so that
-- opening or deciding a review and announcing it is one statement.
CREATE FUNCTION signoff.review_json(r signoff.reviews) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
  SELECT jsonb_build_object(
    'id', r.id, 'taskId', r.task_id, 'checkpoint', r.checkpoint, 'request', r.request,
    'settings', r.settings, 'status', r.status, 'decision', r.decision, 'decidedBy', r.decided_by,
    'decidedAt', r.decided_at, 'dueAt', r.due_at, 'createdAt', r.created_at)
$$;
