-- Claim and hand-off (issue 24): a reviewer says "I'll take it" on a card (`claimed_by`), hands
-- it to a named person, or releases it; reminders then go to whoever claimed it. A checkpoint
-- with `exclusiveClaims` lets only the claimer decide while it is claimed.
ALTER TABLE signoff.reviews ADD COLUMN claimed_by text, ADD COLUMN claimed_at timestamptz;

-- Someone away (`/signoff away`) until a time: their reviews (claimed by them, or naming them)
-- go to their delegate, and so do reviews opened while they are away.
CREATE TABLE signoff.away (
  person   text PRIMARY KEY,
  until    timestamptz NOT NULL,
  delegate text,
  set_at   timestamptz NOT NULL DEFAULT now()
);
