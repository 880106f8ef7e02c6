-- Tasks, reviews, the event outbox and the audit log. LangGraph's checkpoints live in their
-- own schema (langgraph) and pg-boss in its own (pgboss).

-- task: one piece of work, one LangGraph thread (thread_id = id), one Slack thread or terminal run.
CREATE TABLE signoff.tasks (
  id            text PRIMARY KEY,
  workflow      text NOT NULL,
  surface       text NOT NULL CHECK (surface IN ('cli', 'slack')),
  text          text NOT NULL,
  requester     text NOT NULL,
  origin        jsonb NOT NULL DEFAULT '{}',
  status        text NOT NULL DEFAULT 'working'
                CHECK (status IN ('working', 'waiting', 'done', 'rejected', 'cancelled', 'failed')),
  status_reason text,
  -- bumped on every status change; names the status event so that it is announced once
  version       int NOT NULL DEFAULT 0,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX tasks_status ON signoff.tasks (status, updated_at DESC);

-- review: one pending LangGraph interrupt, keyed by its interrupt id.
CREATE TABLE signoff.reviews (
  id          text PRIMARY KEY,
  task_id     text NOT NULL REFERENCES signoff.tasks (id) ON DELETE CASCADE,
  checkpoint  text NOT NULL,
  request     jsonb NOT NULL,
  settings    jsonb NOT NULL,
  status      text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'decided', 'cancelled')),
  decision    jsonb,
  decided_by  text,
  decided_at  timestamptz,
  -- set once the graph has consumed the decision (resume done)
  applied_at  timestamptz,
  due_at      timestamptz,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX reviews_task ON signoff.reviews (task_id, created_at);
CREATE INDEX reviews_pending ON signoff.reviews (status) WHERE status = 'pending';

-- event: something a surface must show, exactly once per (task, key), delivered in id order.
CREATE TABLE signoff.events (
  id           bigserial PRIMARY KEY,
  task_id      text NOT NULL REFERENCES signoff.tasks (id) ON DELETE CASCADE,
  key          text NOT NULL,
  type         text NOT NULL,
  payload      jsonb NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  delivered_at timestamptz,
  UNIQUE (task_id, key)
);
CREATE INDEX events_undelivered ON signoff.events (task_id, id) WHERE delivered_at IS NULL;

-- audit: who did what, when (including refused attempts, with the reason).
CREATE TABLE signoff.audit (
  id        bigserial PRIMARY KEY,
  task_id   text,
  review_id text,
  actor     text NOT NULL,
  action    text NOT NULL,
  detail    jsonb NOT NULL DEFAULT '{}',
  at        timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX audit_task ON signoff.audit (task_id, at);
