/**
 * The team's documents: `signoff docs add <folder>` ingests its text and Markdown files into a
 * collection (`docs` unless given, the one `proposal` searches unless configured otherwise), and
 * workflows search a collection with Postgres full-text search. Re-adding a folder updates each
 * file in place. A folder goes in as one transaction, whole or not at all; each file is stored in
 * parts (parts.ts), since one tsvector holds at most 1 MB.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import type pg from 'pg';
import { inTransaction } from '../db/queryable.js';
import { SignoffError } from '../errors.js';
import { partsOf } from './parts.js';

/** One default for `docs add` and the workflows that search: what was added is what is searched. */
export const DEFAULT_COLLECTION = 'docs';

const TEXT_FILE = /\.(md|markdown|txt|text)$/i;
const UTF8 = new TextDecoder('utf-8', { fatal: true });
/** A passage is cut around the matches; whole documents would not fit a prompt. */
const PASSAGE_WORDS = 60;

export interface Passage {
  name: string;
  text: string;
  rank: number;
}

export type SearchDocuments = (collection: string, query: string, limit?: number) => Promise<Passage[]>;

export function createDocuments(pool: pg.Pool) {
  /** The passages of `collection` that best match `query` (any of its words), best first. */
  const search: SearchDocuments = async (collection, query, limit = 5) => {
    const r = await pool.query<{ name: string; text: string; rank: number }>(
      `WITH q AS (
         SELECT to_tsquery('english', string_agg(quote_literal(lexeme), ' | ')) AS tsq
         FROM unnest(tsvector_to_array(to_tsvector('english', $2))) AS lexeme)
       SELECT d.name, ts_headline('english', d.content, q.tsq,
                'MaxFragments=2, MaxWords=${PASSAGE_WORDS}, MinWords=20, StartSel="", StopSel=""') AS text,
              ts_rank(d.tsv, q.tsq) AS rank
       FROM signoff.documents d, q
       WHERE d.collection = $1 AND q.tsq IS NOT NULL AND d.tsv @@ q.tsq
       ORDER BY rank DESC, d.name, d.part LIMIT $3`,
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
      .map((e) => join(e.parentPath, e.name))
      .sort();
    await inTransaction(pool, async (db) => {
      // Two ingests of one collection take turns rather than trip over each other's parts.
      await db.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`signoff:docs:${collection}`]);
      for (const file of files) {
        const name = relative(folder, file);
        // Strictly: Node's 'utf8' would turn bytes of another encoding (Latin-1's é) into U+FFFD
        // and store the text mangled, found by no search for the word it was.
        const bytes = await readFile(file);
        let content: string;
        try {
          content = UTF8.decode(bytes);
        } catch (error) {
          throw new SignoffError(
            'unusable_file',
            `"${name}" is not UTF-8 text; save it as UTF-8 and add it again. Nothing was added: the collection "${collection}" is as it was.`,
            { cause: error },
          );
        }
        // Postgres's text cannot hold NUL: a binary file named .txt.
        if (content.includes('\u0000')) {
          throw new SignoffError(
            'unusable_file',
            `"${name}" is not text (it holds NUL bytes); nothing was added, the collection "${collection}" is as it was.`,
          );
        }
        await db.query('DELETE FROM signoff.documents WHERE collection = $1 AND name = $2', [
          collection,
          name,
        ]);
        await db.query(
          `INSERT INTO signoff.documents (collection, name, part, content)
           SELECT $1, $2, n - 1, text FROM unnest($3::text[]) WITH ORDINALITY AS p(text, n)`,
          [collection, name, partsOf(content)],
        );
      }
    });
    return { collection, files: files.length };
  }

  const count = async (collection: string) =>
    Number(
      (
        await pool.query<{ n: string }>(
          'SELECT count(DISTINCT name) AS n FROM signoff.documents WHERE collection = $1',
          [collection],
        )
      ).rows[0]?.n ?? 0,
    );

  return { search, addFolder, count };
}

export type Documents = ReturnType<typeof createDocuments>;
