-- A document is stored in parts (src/docs/documents.ts cuts them): one tsvector holds at most
-- 1 MB, so a long document could not be stored whole, and a passage is better cut from a part
-- than from a book. The rows already here are their documents' part 0.
ALTER TABLE signoff.documents ADD COLUMN part int NOT NULL DEFAULT 0;
ALTER TABLE signoff.documents DROP CONSTRAINT documents_pkey;
ALTER TABLE signoff.documents ADD PRIMARY KEY (collection, name, part);
