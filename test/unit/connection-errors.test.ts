/**
 * Which failures are the database's (retried: not the task's fault) and which are another
 * service's (the step fails with a sentence). Each error here is made by the real client, against
 * a port nothing listens on.
 */
import { readFile } from 'node:fs/promises';
import { createServer, request } from 'node:http';
import { ChatOpenAI } from '@langchain/openai';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { isConnectionError } from '../../src/db/queryable.js';
import { unusedPort } from '../helpers/ports.js';

const [dbPort, modelPort] = [await unusedPort(), await unusedPort()];
const pools: pg.Pool[] = [];
const poolAt = (url: string) => {
  const pool = new pg.Pool({ connectionString: url });
  pools.push(pool);
  return pool;
};
afterAll(async () => {
  await Promise.all(pools.map((p) => p.end()));
});
const failureOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

describe('isConnectionError', () => {
  const database = poolAt(`postgres://u:p@127.0.0.1:${dbPort}/db`);

  it("is the database's when its own server refuses the connection", async () => {
    const refused = await failureOf(database.query('SELECT 1'));
    expect((refused as { code?: string }).code).toBe('ECONNREFUSED');
    expect(isConnectionError(refused, database)).toBe(true);
    // Refused somewhere else, it is not this database's.
    expect(isConnectionError(refused, poolAt(`postgres://u:p@127.0.0.1:${modelPort}/db`))).toBe(false);
  });

  it("is not the database's when the model's server refuses, though ECONNREFUSED is in its causes", async () => {
    const model = new ChatOpenAI({
      apiKey: 'sk-test',
      model: 'gpt-4o-mini',
      maxRetries: 0,
      configuration: { baseURL: `http://127.0.0.1:${modelPort}/v1` },
    });
    const unreachable = await failureOf(model.invoke('hello'));
    expect(isConnectionError(unreachable, database)).toBe(false);
    // Even when the model sits on the database's port: the HTTP client's error says whose it is.
    expect(isConnectionError(unreachable, poolAt(`postgres://u:p@127.0.0.1:${modelPort}/db`))).toBe(false);
  });

  it("is the database's when its Unix socket is missing (the embedded server is down)", async () => {
    const socket = poolAt(
      `postgres://u:p@127.0.0.1:${dbPort}/db?host=${encodeURIComponent('/nonexistent/dir')}`,
    );
    const missing = await failureOf(socket.query('SELECT 1'));
    expect((missing as { code?: string }).code).toBe('ENOENT');
    expect(isConnectionError(missing, socket)).toBe(true);
    expect(isConnectionError(missing, database)).toBe(false);
  });

  it("is the database's for Postgres's shutdown and connection codes, and for an error that wraps one", () => {
    const shutdown = Object.assign(
      new pg.DatabaseError('terminating connection due to administrator command', 0, 'error'),
      {
        severity: 'FATAL',
        code: '57P01',
      },
    );
    expect(isConnectionError(shutdown, database)).toBe(true);
    expect(isConnectionError(new Error('run failed', { cause: shutdown }), database)).toBe(true);
    const constraint = Object.assign(new pg.DatabaseError('duplicate key', 0, 'error'), {
      severity: 'ERROR',
      code: '23505',
    });
    expect(isConnectionError(constraint, database)).toBe(false);
    expect(isConnectionError(new Error('Connection terminated unexpectedly'), database)).toBe(true);
  });
  it("is not the database's when a step reads a file that is not there (ENOENT from open, not from a socket)", async () => {
    const missing = await failureOf(readFile('/nonexistent/notes.md'));
    expect((missing as { code?: string }).code).toBe('ENOENT');
    expect(isConnectionError(missing, database)).toBe(false);
    expect(isConnectionError(new Error('step failed', { cause: missing }), database)).toBe(false);
  });

  it("is not the database's when another service's connection is reset and its client's error carries the reset", async () => {
    // A server that takes the request and resets the connection: the client's read meets ECONNRESET.
    const server = createServer((req) => req.socket.resetAndDestroy());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    const reset = await new Promise<unknown>((resolve) => {
      request({ host: '127.0.0.1', port }, () => resolve(undefined))
        .on('error', resolve)
        .end();
    });
    server.close();
    expect(reset).toMatchObject({ code: 'ECONNRESET', syscall: 'read' });
    // As an HTTP library wraps it (its own error, with the code it met, the socket's as cause).
    const wrapped = Object.assign(new Error('the notes service hung up'), {
      code: 'ECONNRESET',
      cause: reset,
    });
    expect(isConnectionError(wrapped, database)).toBe(false);
  });
});
