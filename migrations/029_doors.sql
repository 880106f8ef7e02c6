-- The doors a task may come through besides a person's command: the HTTP API and the MCP server
-- ask a team for sign-off on what an agent elsewhere wants to do (issue 23). `door` says which
-- (NULL: the surface's own, a person's command); `input` is what such a task's workflow starts
-- from besides its text (the review asked: content or a tool call, and its rules).
ALTER TABLE signoff.tasks ADD COLUMN door text, ADD COLUMN input jsonb;

-- Why a start was given up (a sentence): a person is told it at once; a client of the API reads it.
ALTER TABLE signoff.slack_requests ADD COLUMN refusal text;

-- A review asked through the API or MCP: the client's id for it, its idempotency key, and the
-- Slack start (slack_requests) that posts its root and starts its task. The same key from the same
-- client is the same review; `fingerprint` tells a key reused for something else.
CREATE TABLE signoff.asks (
  id              uuid PRIMARY KEY,
  client          text NOT NULL,
  door            text NOT NULL,
  idempotency_key text NOT NULL,
  fingerprint     text NOT NULL,
  request_key     text NOT NULL UNIQUE,
  channel         text NOT NULL,
  title           text NOT NULL,
  callback_url    text,
  created_at      timestamptz NOT NULL DEFAULT now(),
  UNIQUE (client, idempotency_key)
);

-- A callback (webhook) owed once an ask is decided: tried with backoff until the client's server
-- answers 2xx or the attempts run out.
CREATE TABLE signoff.ask_callbacks (
  ask_id          uuid PRIMARY KEY REFERENCES signoff.asks (id) ON DELETE CASCADE,
  attempts        int NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  delivered_at    timestamptz,
  last_error      text
);
CREATE INDEX ask_callbacks_due ON signoff.ask_callbacks (next_attempt_at) WHERE delivered_at IS NULL;

-- The key callbacks are signed with (Ed25519): made once, by whichever process signs first. Its
-- public half is served at /api/v1/callback-key; the config file holds nothing that could sign.
CREATE TABLE signoff.signing_keys (
  name        text PRIMARY KEY,
  private_pem text NOT NULL,
  public_pem  text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);

-- A door's client's rate (GCRA): `burst` calls at once, then one each `period_ms`. Returns 0 when
-- the call may go (and counts it), else the milliseconds until one may. Unlike take_slot (Slack's,
-- which spaces the callers it sends back so that they return one at a time), a refused call
-- changes nothing: a client told to wait is told the truth, and one that obeys is not overtaken.
CREATE FUNCTION signoff.take_rate(k text, period_ms double precision, burst int)
RETURNS double precision LANGUAGE plpgsql AS $$
DECLARE
  t timestamptz;
  cur timestamptz;
  wait_ms double precision;
BEGIN
  INSERT INTO signoff.rate_limits (key, tat) VALUES (k, 'epoch') ON CONFLICT (key) DO NOTHING;
  SELECT tat INTO cur FROM signoff.rate_limits WHERE key = k FOR UPDATE;
  t := clock_timestamp();
  cur := greatest(cur, t);
  wait_ms := extract(epoch FROM cur - t) * 1000 - period_ms * (burst - 1);
  IF wait_ms > 0 THEN
    RETURN wait_ms;
  END IF;
  UPDATE signoff.rate_limits SET tat = cur + period_ms * interval '1 millisecond' WHERE key = k;
  RETURN 0;
END
$$;
