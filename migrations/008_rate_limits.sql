-- A task's events go out in two lanes, each in id order: its status while it runs (only the
-- latest matters, and it never holds back the thread) and everything else. A status update that
-- waits for a rate limit does not keep a review card or an agent's words from being posted. A
-- task's end (done, rejected, failed, cancelled) goes in the thread's lane: the root says "Done"
-- after the last words, not before.
ALTER TABLE signoff.events
  ADD COLUMN lane text NOT NULL GENERATED ALWAYS AS
    (CASE WHEN type = 'task_status' AND payload->>'status' IN ('queued', 'working', 'waiting')
          THEN 'status' ELSE 'thread' END) STORED;

-- Slack's rate limits, shared by every process that calls Slack for this workspace: one row per
-- limited thing (a method, or a method in a channel) holding its "theoretical arrival time"
-- (GCRA: the moment the limit is back to empty), and where the queue of callers told to come
-- back later ends.
CREATE TABLE signoff.rate_limits (
  key      text PRIMARY KEY,
  tat      timestamptz NOT NULL,
  queue_at timestamptz
);

-- Takes a slot of `key` (one call each `period_ms`, `burst` calls at once). Returns 0 when the
-- call may go now; else how many milliseconds to wait. A wait of at most `reserve_ms` is
-- reserved (the caller waits, then calls without asking again). A longer one is not taken (a
-- caller that goes away does not leave a hole in the limit): the caller is told when to come
-- back, each one a period after the one before, so 200 callers behind one slow limit come back
-- one at a time as it frees, not all at once each time a slot does.
CREATE FUNCTION signoff.take_slot(k text, period_ms double precision, burst int, reserve_ms double precision)
RETURNS double precision LANGUAGE plpgsql AS $$
DECLARE
  t timestamptz := clock_timestamp();
  cur timestamptz;
  back timestamptz;
  wait_ms double precision;
BEGIN
  INSERT INTO signoff.rate_limits (key, tat) VALUES (k, t) ON CONFLICT (key) DO NOTHING;
  SELECT greatest(tat, t) INTO cur FROM signoff.rate_limits WHERE key = k FOR UPDATE;
  wait_ms := greatest(0, extract(epoch FROM cur - t) * 1000 - period_ms * (burst - 1));
  IF wait_ms > reserve_ms THEN
    SELECT greatest(coalesce(queue_at, t), t + wait_ms * interval '1 millisecond') INTO back
    FROM signoff.rate_limits WHERE key = k;
    UPDATE signoff.rate_limits SET queue_at = back + period_ms * interval '1 millisecond' WHERE key = k;
    RETURN extract(epoch FROM back - t) * 1000;
  END IF;
  UPDATE signoff.rate_limits SET tat = cur + period_ms * interval '1 millisecond' WHERE key = k;
  RETURN wait_ms;
END
$$;

-- Slack said wait (a 429 and its Retry-After): nothing more of `key` before then, from any process.
CREATE FUNCTION signoff.hold_slot(k text, wait_ms double precision, period_ms double precision, burst int)
RETURNS void LANGUAGE sql AS $$
  INSERT INTO signoff.rate_limits (key, tat)
  VALUES (k, clock_timestamp() + (wait_ms + period_ms * (burst - 1)) * interval '1 millisecond')
  ON CONFLICT (key) DO UPDATE SET tat = greatest(signoff.rate_limits.tat, EXCLUDED.tat)
$$;
