-- A review as the engine, its events and its surfaces see it (src/engine/types.ts `Review`):
-- this function is the one place that shape is made. Every statement that reads a review reads
-- it through here, and timestamps come out as JavaScript writes them (Date#toISOString), so a
-- review reads the same whichever statement produced it.
CREATE FUNCTION signoff.iso(t timestamptz) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
$$;

CREATE OR REPLACE FUNCTION signoff.review_json(r signoff.reviews) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
  SELECT jsonb_build_object(
    'id', r.id, 'taskId', r.task_id, 'checkpoint', r.checkpoint, 'request', r.request,
    'settings', r.settings, 'status', r.status, 'decision', r.decision, 'decidedBy', r.decided_by,
    'decidedAt', signoff.iso(r.decided_at), 'dueAt', signoff.iso(r.due_at),
    'createdAt', signoff.iso(r.created_at))
$$;
