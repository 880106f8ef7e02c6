/**
 * SIGTERM to a server (the real entry point, as a deploy sends it): it says it is stopping, and
 * once it has stopped (its runs handed back, its database closed) it says that too, with how long
 * it took, as its last line; then it exits 143.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { FakeSlack } from '../helpers/fake-slack.js';
import { unusedPort } from '../helpers/ports.js';
import { killedAfterFile, type Running, startSignoff, startSlackWorker } from '../helpers/processes.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase('server_stop');
});
afterAll(async () => {
  await db?.drop();
});
const started = killedAfterFile();

/** A process that was sent `signal`: its exit code and its log lines, once it has exited. */
async function stopped(r: Running, signal: NodeJS.Signals) {
  r.child.kill(signal);
  const { code, stderr } = await r.exited;
  const lines = stderr
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { msg: string; signal?: string; ms?: number; err?: unknown });
  return { code, lines };
}

it('a worker sent SIGTERM logs "stopping", then, as its last line, that it stopped and how long that took; exit 143', async () => {
  const worker = started(await startSlackWorker(db.url));
  await worker.waitFor(/running Slack tasks/, 60_000, 'stderr');
  const { code, lines } = await stopped(worker, 'SIGTERM');
  expect(code).toBe(143);
  const last = lines.at(-1);
  expect(lines.at(-2)).toMatchObject({ msg: 'stopping', signal: 'SIGTERM' });
  expect(last?.msg).toMatch(/^stopped after \d+(\.\d)? m?s: runs handed back, database closed$/);
  expect(last).toMatchObject({ signal: 'SIGTERM', ms: expect.any(Number) });
});

it('a web process that cannot reach Slack (auth.test) says so in one line a try, no stack, and one Ctrl-C stops it: "stopped after …", exit 130', async () => {
  const slack = `http://127.0.0.1:${await unusedPort()}/api/`;
  const web = started(
    startSignoff([], {
      SIGNOFF_ROLE: 'web',
      SLACK_BOT_TOKEN: 'xoxb-test',
      SLACK_SIGNING_SECRET: 'test-secret',
      SLACK_API_URL: slack,
      PORT: '0',
      DATABASE_URL: db.url,
    }),
  );
  await web.waitFor(/asking again in 2 s/, 60_000, 'stderr');
  const { code, lines } = await stopped(web, 'SIGINT');
  expect(code).toBe(130);
  const tries = lines.filter((l) => l.msg.startsWith('Slack did not say who the bot is'));
  expect(tries[0]?.msg).toMatch(
    /^Slack did not say who the bot is \(auth\.test: .*ECONNREFUSED.*\); asking again in 1 s$/,
  );
  expect(tries.every((l) => l.err === undefined)).toBe(true);
  expect(lines.at(-1)?.msg).toMatch(/^stopped after \d+(\.\d)? m?s: runs handed back, database closed$/);
});

it('a Socket Mode process whose socket cannot connect (Slack said who the bot is, the socket host refuses) stops on SIGTERM at once: "stopped after …", exit 143', async () => {
  // Slack's Web API answers; the WebSocket URL it hands out refuses connections, so Bolt's
  // app.start() keeps reconnecting (for hours, with growing waits) and would hold the stop.
  const socketPort = await unusedPort();
  const opens: number[] = [];
  const api = createServer((req, res) => {
    const method = (req.url ?? '').replace(/^\/api\//, '').split('?')[0];
    res.writeHead(200, { 'content-type': 'application/json' });
    if (method === 'apps.connections.open') opens.push(Date.now());
    const answers: Record<string, object> = {
      'auth.test': { ok: true, user_id: 'U0BOT', bot_id: 'B0BOT', team_id: 'T0TEAM' },
      'apps.connections.open': { ok: true, url: `ws://127.0.0.1:${socketPort}/link` },
    };
    res.end(JSON.stringify(answers[method ?? ''] ?? { ok: false, error: 'unknown_method' }));
  });
  await new Promise<void>((r) => api.listen(0, '127.0.0.1', r));
  try {
    const web = started(
      startSignoff([], {
        SIGNOFF_ROLE: 'web',
        SLACK_BOT_TOKEN: 'xoxb-test',
        SLACK_APP_TOKEN: 'xapp-test',
        SLACK_API_URL: `http://127.0.0.1:${(api.address() as AddressInfo).port}/api/`,
        PORT: '0',
        DATABASE_URL: db.url,
      }),
    );
    // Two opens: the first socket was refused, and the client is in its reconnect loop.
    const deadline = Date.now() + 30_000;
    while (opens.length < 2) {
      if (Date.now() > deadline) throw new Error(`opens: ${opens.length}; ${web.stderr()}`);
      if (web.child.exitCode !== null) throw new Error(`signoff exited: ${web.stderr()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const began = Date.now();
    const { code, lines } = await stopped(web, 'SIGTERM');
    expect(code).toBe(143);
    expect(Date.now() - began).toBeLessThan(5000);
    expect(lines.at(-1)?.msg).toMatch(/^stopped after \d+(\.\d)? m?s: runs handed back, database closed$/);
  } finally {
    await new Promise((r) => api.close(r));
  }
}, 60_000);

it('a Socket Mode process whose socket dropped and cannot come back (the socket host refuses its reconnects) stops on SIGTERM in order: "stopped after …", exit 143, not an unhandled rejection and exit 1', async () => {
  const slack = new FakeSlack();
  await slack.start();
  try {
    // The default role (`npm start`): its stop waits on its workers, and the rejection ended the
    // process meanwhile (a web process's stop was over before Node got to it).
    const server = started(
      startSignoff([], {
        SLACK_BOT_TOKEN: 'xoxb-test',
        SLACK_APP_TOKEN: 'xapp-test',
        SLACK_API_URL: slack.url,
        PORT: '0',
        DATABASE_URL: db.url,
        LOG_LEVEL: 'debug',
      }),
    );
    await server.waitFor(/listening to Slack/, 60_000, 'stderr');
    await slack.socketConnected();
    slack.refuseSockets(true);
    slack.dropSocket();
    // The client's reconnect (its own start() again, 5 s on) has had its socket refused, and waits
    // for a socket until the stop rejects it: its client says each failure at debug (the drop's
    // own, then the reconnect's).
    const failures = () => server.stderr().match(/WebSocket error!/g)?.length ?? 0;
    const deadline = Date.now() + 30_000;
    while (failures() < 2) {
      if (Date.now() > deadline) throw new Error(`no reconnect: ${server.stderr()}`);
      if (server.child.exitCode !== null) throw new Error(`signoff exited: ${server.stderr()}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    server.child.kill('SIGTERM');
    const { code, stderr } = await server.exited;
    // The last line as written (a crash's is Node's, not JSON: UnhandledPromiseRejection).
    const last = stderr.trim().split('\n').at(-1) ?? '';
    expect({ code, last: last.startsWith('{') ? (JSON.parse(last) as { msg: string }).msg : last }).toEqual({
      code: 143,
      last: expect.stringMatching(/^stopped after \d+(\.\d)? m?s: runs handed back, database closed$/),
    });
  } finally {
    await slack.stop();
  }
}, 60_000);
