-- The team's own documents, for the proposal workflow's literature search: one row per file of
-- a collection (re-adding a file updates it in place), searched with Postgres full-text search.
CREATE TABLE signoff.documents (
  collection text NOT NULL,
  name       text NOT NULL,
  content    text NOT NULL,
  tsv        tsvector GENERATED ALWAYS AS (to_tsvector('english', name || ' ' || content)) STORED,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (collection, name)
);
CREATE INDEX documents_tsv ON signoff.documents USING gin (tsv);
