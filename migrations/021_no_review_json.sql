-- A review's shape is defined once, in zod (src/engine/shapes.ts): rows are read with `SELECT *`
-- or `to_jsonb` and parsed when read, and events are built in TS from the rows a change returns.
-- The SQL copy of that shape, and the timestamp format it alone used, go.
DROP FUNCTION signoff.review_json(signoff.reviews);
DROP FUNCTION signoff.iso(timestamptz);
