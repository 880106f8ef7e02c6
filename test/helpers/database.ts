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
  const id = randomUUID().slice(0, 8);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  // A sequence is not rolled back with the dying transaction, so it records that the trap fired.
  await client.query(`CREATE SEQUENCE public.trap_${id}`);
  await client.query(`
    CREATE FUNCTION public.trap_${id}() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF (${when}) AND NOT (SELECT is_called FROM public.trap_${id}) THEN
        PERFORM nextval('public.trap_${id}');
        PERFORM pg_terminate_backend(pg_backend_pid());
      END IF;
      RETURN NEW;
    END $$`);
  await client.query(
    `CREATE TRIGGER trap_${id} BEFORE INSERT ON ${table} FOR EACH ROW EXECUTE FUNCTION public.trap_${id}()`,
  );
  return {
    died: async () => (await client.query(`SELECT is_called FROM public.trap_${id}`)).rows[0].is_called,
    remove: async () => {
      await client.query(`DROP TRIGGER IF EXISTS trap_${id} ON ${table}`);
      await client.query(`DROP FUNCTION IF EXISTS public.trap_${id}()`);
      await client.query(`DROP SEQUENCE IF EXISTS public.trap_${id}`);
      await client.end();
    },
  };
}

/**
 * The next `times` writes of a matching row into `table` fail with a database error whose text is
 * `message` (not a lost connection: the statement is refused, as a constraint or a bug would
 * refuse it). `count()` says how many failed; `remove()` drops the trap.
 */
export async function writeFails(
  url: string,
  table: string,
  when: string,
  times: number,
  message: string,
): Promise<{ count(): Promise<number>; remove(): Promise<void> }> {
  const id = randomUUID().slice(0, 8);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  // A sequence is not rolled back with the failing statement, so it counts the failures.
  await client.query(`CREATE SEQUENCE public.fails_${id}`);
  await client.query(`
    CREATE FUNCTION public.fails_${id}() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF (${when}) AND (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM public.fails_${id}) < ${times} THEN
        PERFORM nextval('public.fails_${id}');
        RAISE EXCEPTION '%', ${pgString(message)};
      END IF;
      RETURN NEW;
    END $$`);
  await client.query(
    `CREATE TRIGGER fails_${id} BEFORE INSERT ON ${table} FOR EACH ROW EXECUTE FUNCTION public.fails_${id}()`,
  );
  return {
    count: async () =>
      Number(
        (
          await client.query(
            `SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS n FROM public.fails_${id}`,
          )
        ).rows[0].n,
      ),
    remove: async () => {
      await client.query(`DROP TRIGGER IF EXISTS fails_${id} ON ${table}`);
      await client.query(`DROP FUNCTION IF EXISTS public.fails_${id}()`);
      await client.query(`DROP SEQUENCE IF EXISTS public.fails_${id}`);
      await client.end();
    },
  };
}

/** A SQL string literal. */
const pgString = (text: string) => `'${text.replace(/'/g, "''")}'`;
