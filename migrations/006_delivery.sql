-- Per-task leases: who runs a task's graph ('run:<task>'), who delivers its events
-- ('deliver:<task>'). A row with a holder and an expiry, kept alive by the holder's heartbeat;
-- unlike a session advisory lock it needs no connection held open and works through any pooler.
CREATE TABLE signoff.leases (
  key        text PRIMARY KEY,
  holder     text NOT NULL,
  expires_at timestamptz NOT NULL
);

-- Delivery is tracked per event: each attempt counted, the last error kept, a retry scheduled;
-- an event Slack refuses for good is marked failed (and replaced by a short fallback post).
ALTER TABLE signoff.events
  ADD COLUMN attempts        int NOT NULL DEFAULT 0,
  ADD COLUMN last_error      text,
  ADD COLUMN next_attempt_at timestamptz,
  ADD COLUMN failed_at       timestamptz;
DROP INDEX signoff.events_undelivered;
CREATE INDEX events_undelivered ON signoff.events (task_id, id)
  WHERE delivered_at IS NULL AND failed_at IS NULL;
