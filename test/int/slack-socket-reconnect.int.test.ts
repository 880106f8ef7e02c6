/**
 * A Socket Mode process whose socket dropped after it had connected: /healthz says so once it has
 * been down longer than a routine move takes (it said 200 for good once connected).
 */
import { expect, it } from 'vitest';
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
