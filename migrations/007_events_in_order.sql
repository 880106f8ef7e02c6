-- Events of one task get their ids in the order their transactions commit. The id is drawn under
-- a per-task lock held until commit, so a deliverer reading a task's events in id order never
-- sees a later one before an earlier one that was still being written (a bigserial alone hands
-- out ids in the order inserts start, not the order they commit). Every transaction that writes a
-- task's events and locks its task row locks the row first, so this lock comes second, always.
CREATE FUNCTION signoff.events_in_order() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('signoff:events:' || NEW.task_id, 0));
  NEW.id := nextval(pg_get_serial_sequence('signoff.events', 'id'));
  RETURN NEW;
END
$$;
CREATE TRIGGER events_in_order BEFORE INSERT ON signoff.events
  FOR EACH ROW EXECUTE FUNCTION signoff.events_in_order();
-- The trigger draws every id; a default would draw one more for nothing.
ALTER TABLE signoff.events ALTER COLUMN id DROP DEFAULT;
