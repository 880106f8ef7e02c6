-- One table for "who runs what, and when": signoff's own runtime (src/engine/runtime/). A row
-- is one job of a task (`run:<task>`, `deliver:<task>`), a review timer or retention. It is both
-- the schedule (`due_at`: run it then; a second ask while one waits moves it earlier, never
-- later, and never makes a second row) and the lease (`holder`, `expires_at`, renewed by a
-- heartbeat): at most one holder per key, so one run per task needs nothing else. A holder that
-- dies leaves its row held until the lease expires, then the job is taken again: a dead holder
-- is recovered without a sweep. It replaces pg-boss and the lease table.
CREATE TABLE signoff.jobs (
  key text PRIMARY KEY,
  queue text NOT NULL,
  data jsonb NOT NULL DEFAULT '{}',
  -- When it should run (again); NULL: nothing asked. A claim clears it: an ask while the job
  -- is held sets it again, and the job runs once more after its holder lets go.
  due_at timestamptz,
  priority int NOT NULL DEFAULT 0,
  holder text,
  expires_at timestamptz,
  -- Claims since the job last finished: a crash, a lost lease or a throw counts as an attempt.
  attempt int NOT NULL DEFAULT 0
);
CREATE INDEX jobs_due ON signoff.jobs (queue, priority DESC, due_at) WHERE holder IS NULL AND due_at IS NOT NULL;
CREATE INDEX jobs_held ON signoff.jobs (queue, expires_at) WHERE holder IS NOT NULL;

-- What waited in pg-boss (versions before this one) moves over, so that an upgrade loses no
-- reminder, deadline, resume or delivery: review timers under their keys (src/engine/timers.ts,
-- timerKey), task runs (with their priority) and deliveries under the task's key
-- (src/engine/job-names.ts). A job that was running (its process stopped for the upgrade) is due
-- at once. Every process of the old version must be stopped first: this drops pg-boss's schema.
DO $$
BEGIN
  IF to_regclass('pgboss.job') IS NOT NULL THEN
    INSERT INTO signoff.jobs (key, queue, data, due_at, priority)
    SELECT DISTINCT ON (key) key, name, data, due_at, priority
    FROM (
      SELECT CASE
               WHEN name LIKE 'signoff-timer-%'
                 THEN 'timer:' || (data->>'reviewId') || ':' || (data->>'kind') || ':' || (data->>'n')
               WHEN name LIKE 'signoff-advance-%' THEN 'run:' || (data->>'taskId')
               ELSE 'deliver:' || (data->>'taskId')
             END AS key,
             name, data, CASE WHEN state = 'active' THEN now() ELSE start_after END AS due_at, priority
      FROM pgboss.job
      WHERE state IN ('created', 'retry', 'active')
        AND (name LIKE 'signoff-timer-%' OR name LIKE 'signoff-advance-%' OR name LIKE 'signoff-deliver-%')
    ) old
    ORDER BY key, due_at
    ON CONFLICT (key) DO NOTHING;
  END IF;
END
$$;
DROP SCHEMA IF EXISTS pgboss CASCADE;

-- The checkpoint fence (migration 010) now reads the run job's lease: 'run:' || task id is the
-- run job's key (src/engine/job-names.ts, runKey), the two must match.
CREATE OR REPLACE FUNCTION signoff.fence_checkpoint() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  lease_holder text := NEW.metadata->>'signoff_lease';
BEGIN
  IF lease_holder IS NULL THEN
    RETURN NEW;
  END IF;
  PERFORM 1 FROM signoff.jobs
  WHERE key = 'run:' || regexp_replace(NEW.thread_id, '#\d+$', '') AND holder = lease_holder
    AND expires_at > now()
  FOR SHARE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'signoff: the run lease % is not held any more; checkpoint refused', lease_holder
      USING ERRCODE = 'lock_not_available';
  END IF;
  RETURN NEW;
END
$$;
DROP TABLE signoff.leases;
