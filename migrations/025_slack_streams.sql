-- Agents' words streamed into a task's thread as a model writes them (src/slack/outbound/streams.ts).
-- A stream stands for saved words only once its step is saved (`kept`), and becomes that message
-- (`final`); one that never will (its run stopped, failed or died) is closed with a note.
--   starting: asked of Slack, its message not known yet   live: streaming
--   kept: its words are saved, the message not made them yet   final: it shows the saved words
--   closing / closed: it stands for nothing; its words are being (were) replaced by a note
--   dropped: its step said nothing of it; the message is being (was) removed
CREATE TABLE signoff.slack_streams (
  id text PRIMARY KEY,
  task_id text NOT NULL,
  channel text NOT NULL,
  ts text,
  -- All the words it showed, as sent, once its run stopped it: the saved words, when the same,
  -- need no edit of the message (chat.update is Tier 3, shared with every root and card).
  shown text,
  state text NOT NULL DEFAULT 'starting'
    CHECK (state IN ('starting', 'live', 'kept', 'final', 'closing', 'closed', 'dropped')),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX slack_streams_open ON signoff.slack_streams (task_id)
  WHERE state IN ('starting', 'live', 'closing');
CREATE INDEX slack_streams_created ON signoff.slack_streams (created_at);
