/**
 * A Socket Mode process answers /healthz while Slack cannot be reached: the container's health
 * check sees 503 with what is wrong (starting, or Slack unreachable and why) instead of no
 * answer at all, and 200 once the socket is connected. Same setup as slack-socket.int.test.ts,
 * with Slack's Web API at a port where nothing listens until the test starts the fake there.
 * An HTTP process does the same until Slack has said who the bot is (Bolt's auth.test).
 */
import { createServer } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { afterAll, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { parseWorkflowConfig } from '../../src/config/workflows.js';
import { createLogger } from '../../src/logger.js';
import { type SlackService, startSlack } from '../../src/main.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { FakeSlack } from '../helpers/fake-slack.js';
import { unusedPort } from '../helpers/ports.js';
import { until } from '../helpers/slack-thread.js';

let db: TestDatabase | undefined;
let service: SlackService | undefined;
const slack = new FakeSlack();
let httpDb: TestDatabase | undefined;
let httpService: SlackService | undefined;
const httpSlack = new FakeSlack();
let socketDb: TestDatabase | undefined;
let socketService: Promise<SlackService> | undefined;
const stopping = new AbortController();
// Vitest reports an unhandled rejection too, after the file: this names the test that caused it.
const unhandled: unknown[] = [];
const heard = (reason: unknown) => unhandled.push(reason);
process.on('unhandledRejection', heard);
afterAll(async () => {
  process.off('unhandledRejection', heard);
  stopping.abort();
  await socketService?.catch(() => undefined);
  await socketDb?.drop();
  await service?.stop();
  await slack.stop();
  await db?.drop();
  await httpService?.stop();
  await httpSlack.stop();
  await httpDb?.drop();
});

/** What GET /healthz on `port` answers, or undefined while nothing listens there. */
const healthAt = async (port: number) => {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/healthz`);
    return [res.status, await res.text()] as const;
  } catch {
    return undefined; // not listening yet: the database and its migrations come first
  }
};

/**
 * A service starting on a new database while nothing listens where it looks for Slack's Web API;
 * `env` says how it talks to Slack (Socket Mode or HTTP). Start the fake at `slackPort` later.
 */
async function startBeforeSlack(
  label: string,
  env: Record<string, string>,
  stop?: AbortSignal,
  logger = createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'),
) {
  const testDb = await createTestDatabase(label);
  const [slackPort, port] = [await unusedPort(), await unusedPort()];
  const slackUrl = `http://127.0.0.1:${slackPort}/api/`;
  const config = loadConfig({
    DATABASE_URL: testDb.url,
    SLACK_BOT_TOKEN: 'xoxb-test',
    SLACK_API_URL: slackUrl,
    PORT: String(port),
    ...env,
  });
  const starting = startSlack(
    { ...config, workflows: parseWorkflowConfig('', 'test.yml') },
    { logger, stopping: stop },
  );
  return { db: testDb, slackPort, port, slackUrl, starting };
}

it('answers /healthz before Slack is reached: 503 saying Slack cannot be reached and why, then 200 once connected', async () => {
  const started = await startBeforeSlack('slack_socket_health', { SLACK_APP_TOKEN: 'xapp-test' });
  db = started.db;
  const { slackPort, port, slackUrl, starting } = started;
  const health = () => healthAt(port);
  const first = await until('an answer on /healthz', health, 30_000);
  expect(first[0]).toBe(503);
  expect(first[1]).toMatch(/^(starting: connecting to Slack|unhealthy: Slack cannot be reached)/);
  const failing = await until('a reason', async () => {
    const h = await health();
    return h?.[1].startsWith('unhealthy') ? h : undefined;
  });
  expect(failing).toEqual([
    503,
    `unhealthy: Slack cannot be reached at ${slackUrl} (ECONNREFUSED); still trying`,
  ]);

  // Slack comes back where the app looks for it: the socket connects, and the process is healthy.
  await slack.start(slackPort);
  service = await starting;
  await slack.socketConnected();
  expect(await health()).toEqual([200, 'ok']);
});

it('an HTTP process answers /healthz while Slack cannot be reached: 503 saying why (it was 200 while no request could be authorized), then 200 from Bolt once Slack said who the bot is', async () => {
  const started = await startBeforeSlack('slack_http_health', {
    SLACK_SIGNING_SECRET: 'test-signing-secret',
  });
  httpDb = started.db;
  const { slackPort, port, slackUrl, starting } = started;
  const failing = await until(
    'a reason',
    async () => {
      const h = await healthAt(port);
      return h?.[1].startsWith('unhealthy') ? h : undefined;
    },
    30_000,
  );
  expect(failing).toEqual([
    503,
    `unhealthy: Slack cannot be reached at ${slackUrl} (ECONNREFUSED); still trying`,
  ]);
  await httpSlack.start(slackPort);
  httpService = await starting;
  expect(httpService.port).toBe(port);
  // (Polled: a kept-alive connection to the server that answered meanwhile is closed with it.)
  expect(await until('Bolt answering', () => healthAt(port))).toEqual([200, 'ok']);
  expect(httpSlack.callsOf('auth.test').length).toBeGreaterThan(0);
});

it('says on /healthz when Slack answers but its socket cannot be opened: 503 "unhealthy: Slack\'s socket (Socket Mode) could not be opened", not "starting"; the log says it once, at warn; a stop after its second attempt ends in order', async () => {
  const lines: { level: number; msg: string }[] = [];
  const started = await startBeforeSlack(
    'slack_socket_refused',
    { SLACK_APP_TOKEN: 'xapp-test' },
    stopping.signal,
    createLogger('info', { write: (line: string) => lines.push(JSON.parse(line)) }),
  );
  socketDb = started.db;
  socketService = started.starting;
  // Slack's Web API answers; the socket URL it hands out refuses connections.
  const socketPort = await unusedPort();
  // The socket host hangs up on each connection; counted, since each is one attempt of the client's.
  let attempts = 0;
  const socketHost = createNetServer((socket) => {
    attempts += 1;
    socket.destroy();
  });
  await new Promise<void>((r) => socketHost.listen(socketPort, '127.0.0.1', r));
  const api = createServer((req, res) => {
    const method = (req.url ?? '').replace(/^\/api\//, '').split('?')[0] ?? '';
    const answers: Record<string, object> = {
      'auth.test': { ok: true, user_id: 'U0BOT', bot_id: 'B0BOT', team_id: 'T0TEAM' },
      'apps.connections.open': { ok: true, url: `ws://127.0.0.1:${socketPort}/link` },
    };
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(answers[method] ?? { ok: false, error: 'unknown_method' }));
  });
  await new Promise<void>((r) => api.listen(started.slackPort, '127.0.0.1', r));
  try {
    const failing = await until(
      'the socket said',
      async () => {
        const h = await healthAt(started.port);
        return h?.[1].includes('socket') ? h : undefined;
      },
      30_000,
    );
    expect(failing).toEqual([
      503,
      "unhealthy: Slack's socket (Socket Mode) could not be opened; still trying",
    ]);
    // Said once, in signoff's words; the library's own lines about it (WebSocket error…) at debug.
    expect(lines.filter((l) => l.level >= 40 && /Slack|socket/i.test(l.msg)).map((l) => l.msg)).toEqual([
      "Slack's socket (Socket Mode) could not be opened; still trying",
    ]);
    // The client's second attempt (5 s on) is its own `start()` again, which a stop rejects: that
    // rejection, unhandled, ended the process (vitest reports it as an error of this file).
    await until('a second attempt', async () => attempts >= 2 || undefined, 30_000);
    stopping.abort();
    // Ended by the stop, in order: its own reason, and no rejection left unhandled (heard once
    // the stop's turn of the event loop is over).
    await expect(socketService).rejects.toBe(stopping.signal.reason);
    await new Promise((r) => setImmediate(r));
    expect(unhandled).toEqual([]);
  } finally {
    stopping.abort();
    await socketService.catch(() => undefined);
    await new Promise((r) => api.close(r));
    await new Promise((r) => socketHost.close(r));
  }
});
