-- A redirect (seed 003) starts the task's workflow again, with the new goal, on a new graph
-- thread: `generation` counts them, and the goals given up are kept, newest last.
ALTER TABLE signoff.tasks
  ADD COLUMN generation int NOT NULL DEFAULT 0,
  ADD COLUMN abandoned_goals jsonb NOT NULL DEFAULT '[]';
