-- A reply in a task's thread that got its author a private question (replies: ask): what Slack
-- delivered, kept so that the question's buttons act on those words and not on anything a
-- client sends back. Keyed by the reply message; deleted with the task's Slack bookkeeping.
CREATE TABLE signoff.slack_replies (
  channel    text NOT NULL,
  ts         text NOT NULL,
  task_id    text NOT NULL,
  user_id    text NOT NULL,
  text       text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (channel, ts)
);
CREATE INDEX slack_replies_task ON signoff.slack_replies (task_id);
