-- When a streamed message's stop was claimed ('infinity' once Slack stopped it): chat.stopStream is
-- Tier 2 (20 a minute per workspace, as many as streams start), so the run's end, the hand-over
-- and a note each claim the stop and only one of them asks Slack (stream-rows.ts `stopping`). A
-- claim left by a process that died while asking is taken again once older than a stop can take.
ALTER TABLE signoff.slack_streams ADD COLUMN stop_claimed_at timestamptz;
