-- Slack's Tier 2 methods (starting and stopping a stream) promise "at least 20 requests per
-- minute": counted by the minute, not paced. Such a limit keeps the moments of its calls of the
-- last window; its row in rate_limits serialises the callers and carries a hold (a 429's
-- Retry-After, hold_slot) in `tat`.
CREATE TABLE signoff.rate_window_calls (
  key text NOT NULL,
  at  timestamptz NOT NULL
);
CREATE INDEX rate_window_calls_key_at ON signoff.rate_window_calls (key, at);

-- Takes one of `max_calls` in any `window_ms` of `key`. Returns 0 when the call may go now; else
-- how many milliseconds until it may. A wait of at most `reserve_ms` is reserved (the caller
-- waits, then calls without asking again); a longer one is not taken.
CREATE FUNCTION signoff.take_window(k text, max_calls int, window_ms double precision, reserve_ms double precision)
RETURNS double precision LANGUAGE plpgsql AS $$
DECLARE
  t timestamptz := clock_timestamp();
  held timestamptz;
  n int;
  frees timestamptz;
  wait_ms double precision;
BEGIN
  INSERT INTO signoff.rate_limits (key, tat) VALUES (k, t) ON CONFLICT (key) DO NOTHING;
  SELECT tat INTO held FROM signoff.rate_limits WHERE key = k FOR UPDATE;
  DELETE FROM signoff.rate_window_calls WHERE key = k AND at <= t - window_ms * interval '1 millisecond';
  SELECT count(*) INTO n FROM signoff.rate_window_calls WHERE key = k;
  wait_ms := greatest(0, extract(epoch FROM held - t) * 1000);
  IF n >= max_calls THEN
    -- The call that must leave the window first for this one to fit.
    SELECT at INTO frees FROM signoff.rate_window_calls WHERE key = k ORDER BY at OFFSET n - max_calls LIMIT 1;
    wait_ms := greatest(wait_ms, extract(epoch FROM frees - t) * 1000 + window_ms);
  END IF;
  IF wait_ms > reserve_ms THEN
    RETURN wait_ms;
  END IF;
  INSERT INTO signoff.rate_window_calls (key, at) VALUES (k, t + wait_ms * interval '1 millisecond');
  RETURN wait_ms;
END
$$;
