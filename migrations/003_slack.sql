-- What the Slack surface posted, keyed per event (and part), so a retried delivery finds the
-- message it already posted instead of posting it again; and Slack requests already handled.
CREATE TABLE signoff.slack_posts (
  key        text PRIMARY KEY,
  channel    text NOT NULL,
  ts         text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- A slash command's trigger_id (one per invocation; Slack's retries repeat it) → its task.
CREATE TABLE signoff.slack_requests (
  key        text PRIMARY KEY,
  task_id    text,
  created_at timestamptz NOT NULL DEFAULT now()
);
