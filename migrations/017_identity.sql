-- A Slack task is found by its thread (channel + root ts), not by an id rebuilt from a payload.
-- Ids used to name the workspace a payload named (slack-<team>-<channel>-<ts>); in an Enterprise
-- Grid organization or a Slack Connect channel another workspace's click or reply names another
-- team and missed the task. New ids are slack-<channel>-<ts> (a channel id is the same in every
-- workspace it is shared with). Tasks keep the ids they have: cards' buttons, graph threads, jobs
-- and audit entries carry them, so rewriting them would break what is already out; every lookup
-- from Slack goes through this index instead, and finds old and new tasks alike.
CREATE INDEX tasks_thread ON signoff.tasks (surface, (origin->>'channel'), (origin->>'ts'));
