/**
 * Applies `migrations/NNN_name.sql` in order, each in its own transaction, recording what ran in
 * `signoff.migrations`. A transaction-scoped advisory lock makes two processes starting at once
 * take turns: the second sees the first's work and applies nothing twice.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type pg from 'pg';

const MIGRATION_FILE = /^(\d+)_[\w-]+\.sql$/;
const LOCK_KEY = 'signoff:migrations';

export interface Migration {
  id: number;
  name: string;
  sql: string;
}

export function readMigrations(dir: string): Migration[] {
  const migrations = readdirSync(dir)
    .filter((f) => MIGRATION_FILE.test(f))
    .map((name) => ({
      id: Number(MIGRATION_FILE.exec(name)?.[1]),
      name,
      sql: readFileSync(join(dir, name), 'utf8'),
    }))
    .sort((a, b) => a.id - b.id || a.name.localeCompare(b.name));
  // Migrations are recorded by number: of two with one number, the second would never run.
  const twice = migrations.filter((m, i) => migrations[i - 1]?.id === m.id);
  if (twice.length)
    throw new Error(
      `two migrations share a number: ${twice.map((m) => `${migrations.find((x) => x.id === m.id)?.name} and ${m.name}`).join('; ')}; renumber one`,
    );
  return migrations;
}

/** Returns the names of the migrations this call applied. */
export async function migrate(pool: pg.Pool, migrations: Migration[]): Promise<string[]> {
  const applied: string[] = [];
  const client = await pool.connect();
  try {
    // IF NOT EXISTS alone races between processes (duplicate pg_type rows), hence the lock.
    await client.query('BEGIN');
    try {
      await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [LOCK_KEY]);
      await client.query('CREATE SCHEMA IF NOT EXISTS signoff');
      await client.query(
        'CREATE TABLE IF NOT EXISTS signoff.migrations (id int PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())',
      );
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK');
      throw error;
    }
    for (const m of migrations) {
      await client.query('BEGIN');
      try {
        await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [LOCK_KEY]);
        const done = await client.query('SELECT 1 FROM signoff.migrations WHERE id = $1', [m.id]);
        if (done.rowCount === 0) {
          await client.query(m.sql);
          await client.query('INSERT INTO signoff.migrations (id, name) VALUES ($1, $2)', [m.id, m.name]);
          applied.push(m.name);
        }
        await client.query('COMMIT');
      } catch (cause) {
        await client.query('ROLLBACK');
        throw new Error(`migration ${m.name} failed: ${(cause as Error).message}`, { cause });
      }
    }
  } finally {
    client.release();
  }
  return applied;
}

/**
 * The migrations recorded in the database that this version does not have: a newer version
 * migrated it (this one was rolled back, or is an old replica still starting during an upgrade).
 */
export async function newerMigrations(pool: pg.Pool, migrations: Migration[]): Promise<string[]> {
  const known = migrations.map((m) => m.id);
  const r = await pool.query<{ name: string }>(
    'SELECT name FROM signoff.migrations WHERE NOT (id = ANY($1::int[])) ORDER BY id',
    [known],
  );
  return r.rows.map((row) => row.name);
}
