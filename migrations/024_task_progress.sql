-- A task's plan (src/engine/progress.ts): its workflow's steps, the graph's nodes in the graph's
-- order, each pending, in progress, complete or error, as its runs move through them. NULL until a
-- run of the task started (tasks from before this version); a finished task keeps its last plan.
-- Written by the run that holds the task's lease, at most about once a second, and by a cancel
-- (the step that was running says who stopped it). Its shape is the engine's (shapes.ts), parsed
-- when read like the rest of the row.
ALTER TABLE signoff.tasks ADD COLUMN progress jsonb;
