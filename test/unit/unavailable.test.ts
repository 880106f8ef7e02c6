/**
 * What a door's caller is told when a call fails on signoff's side: which service did not answer,
 * from the error the real client made (Slack's Web API client against a port nothing listens on,
 * and against a server answering as Slack refuses; node-postgres against a closed port), and no
 * service blamed for an error of signoff's own.
 */
import { createServer } from 'node:http';
import { WebClient } from '@slack/web-api';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createUnavailable } from '../../src/api/unavailable.js';
import { unusedPort } from '../helpers/ports.js';

const closed = await unusedPort();
const pool = new pg.Pool({ connectionString: `postgres://u:p@127.0.0.1:${closed}/db` });
const unavailable = createUnavailable(pool);
// Answers every call as Slack answers a revoked token: 200, ok false.
const refusing = createServer((_, res) => {
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify({ ok: false, error: 'invalid_auth' }));
});
await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
const refusingPort = (refusing.address() as { port: number }).port;
afterAll(async () => {
  await pool.end();
  await new Promise((resolve) => refusing.close(resolve));
});

const failureOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );
const slackAt = (port: number) =>
  new WebClient('xoxb-test', { slackApiUrl: `http://127.0.0.1:${port}/api/`, retryConfig: { retries: 0 } });

describe('a failed call in the words of the door', () => {
  it('names Slack when its Web API could not be reached', async () => {
    const error = await failureOf(slackAt(closed).auth.test());
    expect(unavailable(error)).toBe(
      'signoff could not do that just now (Slack did not answer); try again in a few seconds.',
    );
  });

  it("names Slack's refusal, with its error, when Slack answered with one", async () => {
    const error = await failureOf(slackAt(refusingPort).auth.test());
    expect(unavailable(error)).toBe(
      'signoff could not do that just now (Slack refused it: invalid_auth); try again in a few seconds.',
    );
  });

  it('names the database when its connection was refused', async () => {
    const error = await failureOf(pool.query('SELECT 1'));
    expect(unavailable(error)).toBe(
      'signoff could not do that just now (the database did not answer); try again in a few seconds.',
    );
  });

  it("blames no service for an error of signoff's own", () => {
    const said = unavailable(new TypeError("Cannot read properties of undefined (reading 'id')"));
    expect(said).toBe(
      'signoff could not do that just now (an error on its side, logged for whoever runs it); try again in a few seconds. If it keeps failing, tell them.',
    );
    expect(said).not.toMatch(/Slack|database/);
  });
});
