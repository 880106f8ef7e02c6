-- A task that ended without approval because a limit was reached (the proposal's revision limit):
-- final like done, rejected and cancelled, but said in its own words, never a green "Done".
ALTER TABLE signoff.tasks DROP CONSTRAINT tasks_status_check;
ALTER TABLE signoff.tasks ADD CONSTRAINT tasks_status_check
  CHECK (status IN ('working', 'waiting', 'done', 'rejected', 'stopped', 'cancelled', 'failed'));
DROP INDEX signoff.tasks_to_purge;
CREATE INDEX tasks_to_purge ON signoff.tasks (updated_at)
  WHERE purged_at IS NULL AND status IN ('done', 'rejected', 'stopped', 'cancelled');
