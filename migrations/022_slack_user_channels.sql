-- The channels Slack last said a person is in (users.conversations with their id: public channels,
-- and private ones the bot shares): what the Home tab and /signoff list show them. Kept a minute
-- (slack/user-channels.ts) and shared here by every replica, so that a person's Home, its pages and
-- their /signoff list ask Slack once (Tier 3, 50 a minute for the workspace), whichever process
-- answers. One row a person, replaced by each newer answer; old rows go with the Slack bookkeeping.
CREATE TABLE signoff.slack_user_channels (
  user_id     text PRIMARY KEY,
  channels    text[] NOT NULL,
  answered_at timestamptz NOT NULL
);
