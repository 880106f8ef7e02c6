import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';

/** A new empty database on the shared test server, named after the test file; returns its URL. */
export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

export async function createTestDatabase(label: string): Promise<TestDatabase> {
  const serverUrl = inject('databaseUrl');
  const name = `t_${label.replace(/\W+/g, '_').toLowerCase()}_${randomUUID().slice(0, 8)}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: serverUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

/** Refuses new connections to the database at `url` and drops the open ones; returns the undo. */
export async function databaseDown(url: string): Promise<() => Promise<void>> {
  const name = new URL(url).pathname.slice(1);
  const outside = new pg.Client({ connectionString: url.replace(/\/[^/]*$/, '/postgres') });
  await outside.connect();
  await outside.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
  await outside.query(
    'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
    [name],
  );
  return async () => {
    await outside.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
    await outside.end();
  };
}

/**
 * The connection that next writes a matching row into `table` dies at that write, once: the row is
 * not stored and the writer sees the connection end, as when the database goes away mid-write.
 * Unlike taking the whole database down for a while, the loss is certain, not a matter of timing.
 * `died()` says whether it happened; `remove()` drops the trap.
 */
export async function connectionDiesOnce(
  url: string,
  table: string,
  when: string,
): Promise<{ died(): Promise<boolean>; remove(): Promise<void> }> {
  const trap = await writeTrap(url, table, when, 1, 'PERFORM pg_terminate_backend(pg_backend_pid());');
  return { died: async () => (await trap.count()) > 0, remove: trap.remove };
}

/**
 * The next `times` writes of a matching row into `table` fail with a database error whose text is
 * `message` (not a lost connection: the statement is refused, as a constraint or a bug would
 * refuse it). `count()` says how many failed; `remove()` drops the trap.
 */
export function writeFails(
  url: string,
  table: string,
  when: string,
  times: number,
  message: string,
): Promise<{ count(): Promise<number>; remove(): Promise<void> }> {
  return writeTrap(url, table, when, times, `RAISE EXCEPTION '%', ${pgString(message)};`);
}

/**
 * A trigger that does `action` (PL/pgSQL) to the next `times` inserts into `table` matching
 * `when`. A sequence counts them: it is not rolled back with the write that failed or died.
 */
async function writeTrap(url: string, table: string, when: string, times: number, action: string) {
  const id = `trap_${randomUUID().slice(0, 8)}`;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const count = `SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS n FROM public.${id}`;
  await client.query(`CREATE SEQUENCE public.${id}`);
  await client.query(`
    CREATE FUNCTION public.${id}() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF (${when}) AND (${count}) < ${times} THEN
        PERFORM nextval('public.${id}');
        ${action}
      END IF;
      RETURN NEW;
    END $$`);
  await client.query(
    `CREATE TRIGGER ${id} BEFORE INSERT ON ${table} FOR EACH ROW EXECUTE FUNCTION public.${id}()`,
  );
  return {
    count: async () => Number((await client.query(count)).rows[0].n),
    remove: async () => {
      await client.query(`DROP TRIGGER IF EXISTS ${id} ON ${table}`);
      await client.query(`DROP FUNCTION IF EXISTS public.${id}()`);
      await client.query(`DROP SEQUENCE IF EXISTS public.${id}`);
      await client.end();
    },
  };
}

/** A SQL string literal. */
const pgString = (text: string) => `'${text.replace(/'/g, "''")}'`;
