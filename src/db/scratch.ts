/**
 * A database of its own for a run that must leave nothing behind (`signoff test`): made on the
 * same server, dropped afterwards with everything in it. Tasks, reviews, the audit trail,
 * checkpoints and jobs of the run never mix with the team's, and nothing has to know every table
 * to clean up after it.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { SignoffError } from '../errors.js';

export interface ScratchDatabase {
  url: string;
  drop(): Promise<void>;
}

async function onServer<T>(serverUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export async function createScratchDatabase(serverUrl: string, label: string): Promise<ScratchDatabase> {
  const name = `signoff_${label}_${randomBytes(4).toString('hex')}`;
  await onServer(serverUrl, (c) => c.query(`CREATE DATABASE ${name}`)).catch((cause) => {
    if ((cause as { code?: string }).code !== '42501') throw cause;
    throw new SignoffError(
      'config_invalid',
      `signoff test runs in a database of its own, made for the run and dropped after it, and the user in DATABASE_URL may not create databases: grant it CREATEDB, or point DATABASE_URL at a server where it may.`,
      { cause },
    );
  });
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () =>
      onServer(serverUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(
        () => undefined,
      ),
  };
}
