-- The last answer Slack gave (users.info) about where a person belongs: a member of this
-- workspace's organization, or not (another organization's, or a guest). While Slack does not
-- answer, it stands for up to a day (slack/directory.ts): kept here, not in one process's
-- memory, so that it holds in every replica and after a deploy or a restart. One row a person,
-- replaced by each newer answer; rows older than retention's cutoff are deleted with the Slack
-- bookkeeping.
CREATE TABLE signoff.slack_standing (
  user_id     text PRIMARY KEY,
  standing    text NOT NULL CHECK (standing IN ('member', 'external')),
  answered_at timestamptz NOT NULL
);
