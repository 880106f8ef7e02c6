-- take_window read the clock before it waited for the key's row lock, and a new key's row was
-- made "held until now": a caller that queued behind another saw the other's later moment as a
-- hold of a few ms and, unwilling to wait, was sent back for nothing (CI: three of a burst of
-- three, one told to come back later). The clock is read once the lock is held, and a new key
-- holds nothing.
CREATE OR REPLACE FUNCTION signoff.take_window(k text, max_calls int, window_ms double precision, reserve_ms double precision)
RETURNS double precision LANGUAGE plpgsql AS $$
DECLARE
  t timestamptz;
  held timestamptz;
  n int;
  frees timestamptz;
  wait_ms double precision;
BEGIN
  INSERT INTO signoff.rate_limits (key, tat) VALUES (k, 'epoch') ON CONFLICT (key) DO NOTHING;
  SELECT tat INTO held FROM signoff.rate_limits WHERE key = k FOR UPDATE;
  t := clock_timestamp();
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
