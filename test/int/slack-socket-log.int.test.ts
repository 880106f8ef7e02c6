/**
 * What a Socket Mode process's log says when its socket drops and comes back: one line of
 * signoff's each way, and Socket Mode's own client (its socket, its retries) only at debug.
 * Before, a drop was two error lines of the library's with no reason (`WebSocket error occurred: `,
 * `WebSocket error! SMWebsocketError`) and nothing said it was back.
 */
import { expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { slackPerFile } from '../helpers/slack-service.js';
import { until } from '../helpers/slack-thread.js';

interface Line {
  level: number;
  component?: string;
  msg: string;
}
const lines: Line[] = [];
const logger = createLogger('debug', { write: (line: string) => lines.push(JSON.parse(line) as Line) });
const file = slackPerFile('slack_socket_log', {
  env: { SLACK_APP_TOKEN: 'xapp-test' },
  options: { logger },
});
const { slack } = file;

const [DEBUG, INFO, WARN] = [20, 30, 40];
const opens = () => slack.callsOf('apps.connections.open').length;
const said = (from: number) => lines.slice(from).filter((l) => /Socket Mode/.test(l.msg) && l.level > DEBUG);
/** Lines at info or above, from `from` on, of anything but signoff's own socket lines. */
const loudOthers = (from: number) =>
  lines.slice(from).filter((l) => l.level >= INFO && !/Socket Mode/.test(l.msg));

/** Resolves once the client has opened a new socket (the handshake asked again, and connected). */
async function reconnected(before: number, from: number) {
  await until('a new socket', async () => (opens() > before && slack.socketCount > 0) || undefined, 30_000);
  // The line comes with Slack's hello, a moment after the socket opens (1 s without it).
  await until(
    'the line saying it is back',
    async () => lines.slice(from).some((l) => /is back after/.test(l.msg)) || undefined,
    1000,
  ).catch(() => undefined);
}

it('a dropped socket is one warn line when it drops and one info line when it is back; the library says its part at debug', async () => {
  await slack.socketConnected();
  const from = lines.length;
  const before = opens();
  slack.dropSocket();
  await reconnected(before, from);
  const mine = said(from);
  expect(mine.map((l) => [l.level, l.component, l.msg.replace(/\d+\.\d s/, 'N s')])).toEqual([
    [
      WARN,
      'socket-mode',
      "Slack's socket (Socket Mode) dropped; reconnecting (Slack's events wait until it is back)",
    ],
    [INFO, 'socket-mode', "Slack's socket (Socket Mode) is back after N s"],
  ]);
  expect(loudOthers(from)).toEqual([]);
  // Socket Mode's own account of the drop is still there for whoever runs at LOG_LEVEL=debug.
  const chatter = lines.slice(from).filter((l) => l.component === 'socket-mode' && l.level === DEBUG);
  expect(chatter.map((l) => l.msg)).toContain('WebSocket error! SMWebsocketError');
});

it('a socket Slack moves (a disconnect frame, refresh_requested) is said at info: a routine move is no warning', async () => {
  await slack.socketConnected();
  const from = lines.length;
  const before = opens();
  slack.askSocketToReconnect('refresh_requested');
  await reconnected(before, from);
  expect(said(from).map((l) => [l.level, l.msg.replace(/\d+\.\d s/, 'N s')])).toEqual([
    [INFO, 'Slack moved its socket (Socket Mode, refresh_requested); reconnecting'],
    [INFO, "Slack's socket (Socket Mode) is back after N s"],
  ]);
  expect(loudOthers(from)).toEqual([]);
});

it('a stop closes the socket without a line saying it dropped', async () => {
  await slack.socketConnected();
  const from = lines.length;
  await file.restart();
  await slack.socketConnected();
  expect(said(from)).toEqual([]);
});
