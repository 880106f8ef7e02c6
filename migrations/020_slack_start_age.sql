-- The sweep moves created_at on each time it takes an unfinished start (so that two sweepers do
-- not take it at once), which hides how long the start has been waiting. claimed_at keeps when it
-- was asked for: past a response URL's life the sweep gives up and says so.
ALTER TABLE signoff.slack_requests
  ADD COLUMN claimed_at timestamptz NOT NULL DEFAULT now();
