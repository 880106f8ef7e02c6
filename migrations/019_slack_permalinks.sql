-- Links to messages as Slack gave them (chat.getPermalink): a message's link never changes, so it
-- is asked once, for every process. Deleted by age with the rest of the Slack bookkeeping.
CREATE TABLE signoff.slack_permalinks (
  channel    text NOT NULL,
  ts         text NOT NULL,
  permalink  text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (channel, ts)
);
CREATE INDEX slack_permalinks_age ON signoff.slack_permalinks (created_at);
