/** /healthz and the log read one watcher of the socket: neither says what the other does not. */
import { EventEmitter } from 'node:events';
import { afterEach, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { watchSlackConnection } from '../../src/slack/inbound/connection.js';
import { watchSocket } from '../../src/slack/inbound/socket-watch.js';

afterEach(() => {
  vi.useRealTimers();
});

function connectedSocket() {
  vi.useFakeTimers();
  const lines: string[] = [];
  const socket = watchSocket({
    logger: createLogger('info', { write: (line: string) => lines.push(JSON.parse(line).msg) }),
  });
  const client = new EventEmitter();
  socket.listen(client);
  const connection = watchSlackConnection('https://slack.com/api/', { socket });
  client.emit('connected');
  connection.connected();
  return { socket, client, connection, lines };
}

it('reconnects refused for good: /healthz says so at once, and the log stops saying the socket is still down', () => {
  const { socket, client, connection, lines } = connectedSocket();
  client.emit('close');
  vi.advanceTimersByTime(61_000);
  expect(connection.problem()).toBe(
    "unhealthy: Slack's socket (Socket Mode) has been down for 61 s; reconnecting",
  );
  expect(lines).toEqual([
    "Slack's socket (Socket Mode) dropped; reconnecting (Slack's events wait until it is back)",
    "Slack's socket (Socket Mode) still down after 1 min",
  ]);
  socket.gaveUp('invalid_auth');
  vi.advanceTimersByTime(10 * 60_000);
  expect(connection.problem()).toBe(
    "unhealthy: Slack's socket (Socket Mode) cannot reconnect (invalid_auth); not trying again",
  );
  expect(lines).toHaveLength(2);
});

it('a socket that opens after a stop (its handshake was in flight) is no return, and its close no drop, for either', () => {
  const { socket, client, connection, lines } = connectedSocket();
  client.emit('disconnecting');
  client.emit('close');
  client.emit('connected');
  client.emit('close');
  vi.advanceTimersByTime(5 * 60_000);
  expect(socket.state().stopping).toBe(true);
  expect(connection.problem()).toBeUndefined();
  expect(lines).toEqual([]);
});
