/**
 * A Socket Mode process whose socket dropped after it had connected: /healthz says so once it has
 * been down longer than a routine move takes (it said 200 for good once connected); while its
 * reconnects cannot open a socket (Slack's socket host out of reach), a stop ends in order; and a
 * reconnect Slack refuses for good is said, not a crash. Socket Mode's client reconnects by
 * calling its own `start()` again and never handles that promise: its rejection (a stop
 * meanwhile, a refused handshake) was an unhandled rejection, which ends a Node process.
 */
import { afterAll, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { slackPerFile } from '../helpers/slack-service.js';
import { until } from '../helpers/slack-thread.js';

interface Line {
  level: number;
  msg: string;
}
const lines: Line[] = [];
const logger = createLogger('debug', { write: (line: string) => lines.push(JSON.parse(line) as Line) });
const file = slackPerFile('slack_socket_reconnect', {
  env: { SLACK_APP_TOKEN: 'xapp-test' },
  // A grace of 200 ms, not 30 s: the test waits for the client's own 5 s before it reconnects.
  options: { logger, socketDownGraceMs: 200 },
});
const { slack } = file;

// Vitest reports an unhandled rejection too, after the file: this names the test that caused it.
const unhandled: unknown[] = [];
const heard = (reason: unknown) => unhandled.push(reason);
process.on('unhandledRejection', heard);
afterAll(() => {
  process.off('unhandledRejection', heard);
});

const opens = () => slack.callsOf('apps.connections.open').length;
const health = async () => {
  const res = await fetch(`http://127.0.0.1:${file.service.port}/healthz`);
  return [res.status, await res.text()] as const;
};

/** Resolves once a reconnect after `before` handshakes has had its socket refused. */
async function aReconnectRefused(before: number, from: number) {
  await until('a reconnect', async () => opens() > before || undefined, 30_000);
  await until(
    'its socket refused',
    async () => lines.slice(from).some((l) => /WebSocket error!/.test(l.msg)) || undefined,
    10_000,
  );
}

it('/healthz says 503 once the socket has been down longer than the grace (reconnects refused), and 200 once it is back', async () => {
  await slack.socketConnected();
  expect(await health()).toEqual([200, 'ok']);
  const [before, from] = [opens(), lines.length];
  slack.refuseSockets(true);
  slack.dropSocket();
  const down = await until('/healthz saying the socket is down', async () => {
    const h = await health();
    return h[0] === 503 ? h : undefined;
  });
  expect(down[1]).toMatch(
    /^unhealthy: Slack's socket \(Socket Mode\) has been down for \d+ s; reconnecting$/,
  );
  // Still down while its reconnects are refused, and back once the socket host is.
  await aReconnectRefused(before, from);
  expect((await health())[0]).toBe(503);
  slack.refuseSockets(false);
  await slack.socketConnected(30_000);
  expect(await until('200', async () => ((await health())[0] === 200 ? 'ok' : undefined))).toBe('ok');
});

it('a stop while a dropped socket is reconnecting (its socket refused) ends in order: no unhandled rejection', async () => {
  await slack.socketConnected();
  const [before, from] = [opens(), lines.length];
  slack.refuseSockets(true);
  slack.dropSocket();
  await aReconnectRefused(before, from);
  await file.restart({ whileDown: () => slack.refuseSockets(false) });
  // The rejection, if any, is heard once the stop's own turn of the event loop is over.
  await new Promise((r) => setImmediate(r));
  expect(unhandled).toEqual([]);
  expect(lines.slice(from).map((l) => l.msg)).toContain(
    "Slack's socket (Socket Mode): the reconnect under way was given up for the stop",
  );
  await slack.socketConnected();
});

it('a reconnect whose handshake Slack refuses for good (the app-level token revoked) is said at error, and /healthz says it cannot reconnect: no unhandled rejection', async () => {
  await slack.socketConnected();
  const [before, from] = [opens(), lines.length];
  const undo = slack.refuse('apps.connections.open', () => true, 'invalid_auth');
  try {
    slack.dropSocket();
    await until('the reconnect refused', async () => opens() > before || undefined, 30_000);
    const said = await until('the line', async () =>
      lines.slice(from).find((l) => l.level >= 50 && /cannot reconnect/.test(l.msg)),
    );
    expect(said.msg).toBe(
      "Slack's socket (Socket Mode) cannot reconnect (invalid_auth); not trying again: /healthz says so, and a restart tries afresh",
    );
    expect(await health()).toEqual([
      503,
      "unhealthy: Slack's socket (Socket Mode) cannot reconnect (invalid_auth); not trying again",
    ]);
    expect(unhandled).toEqual([]);
  } finally {
    undo();
  }
  // A restart (what an orchestrator does on that 503) connects again.
  await file.restart();
  await slack.socketConnected();
  expect(await health()).toEqual([200, 'ok']);
});

it('a handshake Slack answers only after the stop (the reconnect was waiting for it) leaves no socket open', async () => {
  await slack.socketConnected();
  const [opened, from] = [slack.socketsOpened, lines.length];
  const held = slack.holdNext('apps.connections.open');
  slack.dropSocket();
  await held.reached;
  await file.restart({ whileDown: held.release });
  // Both sockets opened: the stopped process's, late, and the new process's; only the latter stays.
  await until('both opened', async () => slack.socketsOpened >= opened + 2 || undefined);
  await until('the late one closed', async () => slack.socketCount === 1 || undefined);
  expect(unhandled).toEqual([]);
  expect(lines.slice(from).filter((l) => l.level >= 50)).toEqual([]);
});

it("the first start's refusal is still Bolt's to see: a process whose app-level token Slack refuses does not start", async () => {
  const undo = slack.refuse('apps.connections.open', () => true, 'invalid_auth');
  try {
    await expect(file.startService({ env: { SLACK_APP_TOKEN: 'xapp-test' } })).rejects.toThrow(
      /invalid_auth/,
    );
  } finally {
    undo();
  }
});

it('a first socket that cannot be opened, then a reconnect Slack refuses for good (invalid_auth): the start fails with its sentence instead of waiting for ever', async () => {
  const [refusedBefore, from] = [slack.socketsRefused, lines.length];
  slack.refuseSockets(true);
  let undo: () => void = () => undefined;
  try {
    const starting = file.startService({ env: { SLACK_APP_TOKEN: 'xapp-test' }, options: { logger } });
    let ended: unknown;
    starting.then(
      () => {
        ended = 'started';
      },
      (error: unknown) => {
        ended = error;
      },
    );
    // Its first socket refused, Slack refuses the reconnect's handshake (the token revoked meanwhile).
    await until('its first socket refused', async () => slack.socketsRefused > refusedBefore || undefined);
    undo = slack.refuse('apps.connections.open', () => true, 'invalid_auth');
    const error = await until('the start ended', async () => ended, 30_000);
    expect((error as Error).message).toBe(
      "Slack's socket (Socket Mode) never connected: its first socket could not be opened, and its reconnect was refused for good (invalid_auth); not trying again",
    );
    expect(
      lines
        .slice(from)
        .filter((l) => l.level >= 50)
        .map((l) => l.msg),
    ).toEqual([
      "Slack's socket (Socket Mode) cannot reconnect (invalid_auth); not trying again: /healthz says so, and a restart tries afresh",
    ]);
    await new Promise((r) => setImmediate(r));
    expect(unhandled).toEqual([]);
  } finally {
    undo();
    slack.refuseSockets(false);
  }
});
