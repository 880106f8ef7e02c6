-- Retention: a finished task's bulky leftovers (checkpoints, delivered events, surface
-- bookkeeping) are deleted once it is older than the configured age; the task, its reviews and
-- the audit log stay. purged_at marks a task done with, so each daily run reads only new ones.
ALTER TABLE signoff.tasks ADD COLUMN purged_at timestamptz;
CREATE INDEX tasks_to_purge ON signoff.tasks (updated_at)
  WHERE purged_at IS NULL AND status IN ('done', 'rejected', 'cancelled');
CREATE INDEX audit_at ON signoff.audit (at);
