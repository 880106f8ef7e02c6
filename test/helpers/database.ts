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
