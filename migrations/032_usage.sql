-- What a task's models used (issue 24): tokens from each answer's `usage`, and their cost at the
-- config file's prices (`prices:`), counted as the answers come (a run that fails or is cut short
-- was still paid for). `budget_usd`: what the task may spend before it pauses with a review (the
-- workflow's `budget`, raised by each "continue"); NULL: no budget.
ALTER TABLE signoff.tasks
  ADD COLUMN tokens_in  bigint NOT NULL DEFAULT 0,
  ADD COLUMN tokens_out bigint NOT NULL DEFAULT 0,
  ADD COLUMN cost_usd   double precision NOT NULL DEFAULT 0,
  ADD COLUMN budget_usd double precision;
