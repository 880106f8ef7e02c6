-- A task started from Slack is two steps, a root message and then the task (the message's ts
-- names the task), and a web process can die between them. The request keeps what was asked and
-- the root once it is known, so that another process finishes the start: the root message never
-- says "Working" with no task behind it.
ALTER TABLE signoff.slack_requests
  ADD COLUMN start   jsonb,
  ADD COLUMN root_ts text;
CREATE INDEX slack_requests_unfinished ON signoff.slack_requests (created_at)
  WHERE start IS NOT NULL AND task_id IS NULL;
