/**
 * The team's documents: `signoff docs add <folder>` ingests its text and Markdown files into a
 * collection (`docs` unless given, the one `proposal` searches unless configured otherwise), and
 * workflows search a collection with Postgres full-text search. Re-adding a folder updates each
 * file in place.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import type { Queryable } from '../db/queryable.js';

/** One default for `docs add` and the workflows that search: what was added is what is searched. */
export const DEFAULT_COLLECTION = 'docs';

const TEXT_FILE = /\.(md|markdown|txt|text)$/i;
/** A passage is cut around the matches; whole documents would not fit a prompt. */
const PASSAGE_WORDS = 60;

export interface Passage {
  name: string;
  text: string;
  rank: number;
}

export type SearchDocuments = (collection: string, query: string, limit?: number) => Promise<Passage[]>;

export function createDocuments(db: Queryable) {
  /** The passages of `collection` that best match `query` (any of its words), best first. */
  const search: SearchDocuments = async (collection, query, limit = 5) => {
    const r = await db.query<{ name: string; text: string; rank: number }>(
      `WITH q AS (
         SELECT to_tsquery('english', string_agg(quote_literal(lexeme), ' | ')) AS tsq
         FROM unnest(tsvector_to_array(to_tsvector('english', $2))) AS lexeme)
       SELECT d.name, ts_headline('english', d.content, q.tsq,
                'MaxFragments=2, MaxWords=${PASSAGE_WORDS}, MinWords=20, StartSel="", StopSel=""') AS text,
              ts_rank(d.tsv, q.tsq) AS rank
       FROM signoff.documents d, q
       WHERE d.collection = $1 AND q.tsq IS NOT NULL AND d.tsv @@ q.tsq
       ORDER BY rank DESC, d.name LIMIT $3`,
      [collection, query, limit],
    );
    return r.rows;
  };

  /** Ingests every text or Markdown file under `folder`; returns how many were added or updated. */
  async function addFolder(
    folder: string,
    collection = DEFAULT_COLLECTION,
  ): Promise<{ collection: string; files: number }> {
    const files = (await readdir(folder, { recursive: true, withFileTypes: true }))
      .filter((e) => e.isFile() && TEXT_FILE.test(e.name))
      .map((e) => join(e.parentPath, e.name));
    for (const file of files) {
      await db.query(
        `INSERT INTO signoff.documents (collection, name, content) VALUES ($1, $2, $3)
         ON CONFLICT (collection, name) DO UPDATE SET content = EXCLUDED.content, updated_at = now()`,
        [collection, relative(folder, file), await readFile(file, 'utf8')],
      );
    }
    return { collection, files: files.length };
  }

  const count = async (collection: string) =>
    Number(
      (
        await db.query<{ n: string }>('SELECT count(*) AS n FROM signoff.documents WHERE collection = $1', [
          collection,
        ])
      ).rows[0]?.n ?? 0,
    );

  return { search, addFolder, count };
}

export type Documents = ReturnType<typeof createDocuments>;
