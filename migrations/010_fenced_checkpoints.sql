-- A run's checkpoints are written behind its lease, like its results: a checkpoint that names
-- the run lease it was written under (metadata `signoff_lease`) is refused unless that lease is
-- still held and alive, inside the checkpoint's own transaction. A process that stalled past its
-- lease (a long GC pause, a frozen VM) and wakes up mid-run cannot add a checkpoint beside the
-- new holder's: the history cannot fork. FOR SHARE keeps the lease from being taken over until
-- the checkpoint commits. (Attached to LangGraph's table once it exists: src/engine/checkpointer.ts.)
CREATE FUNCTION signoff.fence_checkpoint() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  lease_holder text := NEW.metadata->>'signoff_lease';
BEGIN
  IF lease_holder IS NULL THEN
    RETURN NEW;
  END IF;
  PERFORM 1 FROM signoff.leases
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
