/**
 * signoff's own lines about Socket Mode's connection, from its watcher: one per drop, one per
 * return, none at a stop. A give-up, with /healthz beside the log: socket-watch.test.ts.
 */
import { EventEmitter } from 'node:events';
import { afterEach, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { SOCKET_DOWN_SAY_EVERY_MS, watchSocket } from '../../src/slack/inbound/socket-watch.js';

function watched() {
  const lines: { level: number; msg: string }[] = [];
  const client = new EventEmitter();
  let now = 0;
  watchSocket({
    logger: createLogger('debug', { write: (line: string) => lines.push(JSON.parse(line)) }),
    now: () => now,
  }).listen(client);
  return { client, lines: () => lines.map((l) => [l.level, l.msg]), advance: (ms: number) => (now += ms) };
}

it('a socket that cannot be opened at start is said once, however many attempts fail', () => {
  const { client, lines } = watched();
  for (let i = 0; i < 3; i++) {
    client.emit('error');
    client.emit('close');
  }
  client.emit('connected');
  expect(lines()).toEqual([[40, "Slack's socket (Socket Mode) could not be opened; still trying"]]);
});

it('a drop whose reconnects fail for a while is still one line, and its return one more with how long it took', () => {
  const { client, lines, advance } = watched();
  client.emit('connected');
  client.emit('close');
  for (let i = 0; i < 3; i++) {
    client.emit('error');
    client.emit('close');
  }
  advance(12_345);
  client.emit('connected');
  expect(lines()).toEqual([
    [40, "Slack's socket (Socket Mode) dropped; reconnecting (Slack's events wait until it is back)"],
    [30, "Slack's socket (Socket Mode) is back after 12.3 s"],
  ]);
});

it('a stop is no drop, and a frame that is not a disconnect does not make the next drop routine', () => {
  const { client, lines } = watched();
  client.emit('connected');
  client.emit('ws_message', JSON.stringify({ type: 'events_api', payload: { text: '"disconnect"' } }));
  client.emit('close');
  client.emit('connected');
  client.emit('disconnecting');
  client.emit('close');
  expect(lines().map(([level]) => level)).toEqual([40, 30]);
});

it('a disconnect Slack sends for another reason than moving the connection (link_disabled) is a warning, with its reason', () => {
  const { client, lines } = watched();
  client.emit('connected');
  client.emit('ws_message', JSON.stringify({ type: 'disconnect', reason: 'link_disabled' }));
  client.emit('close');
  expect(lines()).toEqual([[40, 'Slack closed its socket (Socket Mode, link_disabled); reconnecting']]);
});

afterEach(() => {
  vi.useRealTimers();
});

it('a socket that stays down is said again once a minute, with how long; none once it is back, nor after a stop', () => {
  vi.useFakeTimers();
  const lines: { level: number; msg: string }[] = [];
  const client = new EventEmitter();
  const logger = createLogger('info', { write: (line: string) => lines.push(JSON.parse(line)) });
  watchSocket({ logger }).listen(client);
  client.emit('connected');
  client.emit('close');
  expect(SOCKET_DOWN_SAY_EVERY_MS).toBe(60_000);
  vi.advanceTimersByTime(59_000);
  expect(lines).toHaveLength(1);
  vi.advanceTimersByTime(2 * 60_000);
  client.emit('connected');
  vi.advanceTimersByTime(5 * 60_000);
  expect(lines.map((l) => [l.level, l.msg])).toEqual([
    [40, "Slack's socket (Socket Mode) dropped; reconnecting (Slack's events wait until it is back)"],
    [40, "Slack's socket (Socket Mode) still down after 1 min"],
    [40, "Slack's socket (Socket Mode) still down after 2 min"],
    [30, "Slack's socket (Socket Mode) is back after 179.0 s"],
  ]);
  // Down again, then stopped while down: the drop is said, and nothing after the stop.
  client.emit('close');
  client.emit('disconnecting');
  vi.advanceTimersByTime(5 * 60_000);
  expect(lines.slice(4).map((l) => l.msg)).toEqual([
    "Slack's socket (Socket Mode) dropped; reconnecting (Slack's events wait until it is back)",
  ]);
});
