-- Rules a team signed off (issue 24, "Approve and always allow…"): proposed by a reviewer from a
-- review they approved, signed off by the people the config file's `alwaysAllow` names (counted
-- in `approvals`, N of M), then applied to every matching review opened after: approved at once,
-- by the rule. `scope` says which reviews (this task's, a workflow's in a channel, a tool's, a
-- tool's with these arguments); a revoked, refused or expired rule approves nothing more.
CREATE TABLE signoff.allow_rules (
  id           integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  status       text NOT NULL DEFAULT 'proposed'
               CHECK (status IN ('proposed', 'active', 'refused', 'revoked')),
  scope        jsonb NOT NULL,
  -- The task and review it was proposed from: its card and thread show what becomes of it.
  task_id      text NOT NULL REFERENCES signoff.tasks (id),
  review_id    text NOT NULL,
  proposed_by  text NOT NULL,
  proposed_at  timestamptz NOT NULL DEFAULT now(),
  approvals    jsonb NOT NULL DEFAULT '[]',
  decided_by   text,
  decided_at   timestamptz,
  expires_at   timestamptz,
  revoked_by   text,
  revoked_at   timestamptz,
  -- How many reviews it approved.
  applied      integer NOT NULL DEFAULT 0
);
-- A review opening looks up the active rules of its workflow.
CREATE INDEX allow_rules_active ON signoff.allow_rules ((scope->>'workflow')) WHERE status = 'active';
