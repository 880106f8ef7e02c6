/**
 * What /healthz says of a Socket Mode socket once it had connected: nothing through a routine move
 * (Slack moves a socket every few hours; the client is back in about 5 s), 503 once it has been
 * down longer than the grace, and at once when its reconnects were refused for good.
 */
import { EventEmitter } from 'node:events';
import { expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { SOCKET_DOWN_GRACE_MS, watchSlackConnection } from '../../src/slack/inbound/connection.js';
import { watchSocket } from '../../src/slack/inbound/socket-watch.js';

function connectedSocket() {
  let now = 0;
  const client = new EventEmitter();
  const socket = watchSocket({ logger: createLogger('silent'), now: () => now });
  socket.listen(client);
  const connection = watchSlackConnection('https://slack.com/api/', { socket });
  client.emit('connected');
  connection.connected();
  return { connection, socket, client, advance: (ms: number) => (now += ms) };
}

it('a socket down for up to the grace (30 s) says nothing; longer, 503 with how long; back, nothing again', () => {
  const { connection, client, advance } = connectedSocket();
  expect(SOCKET_DOWN_GRACE_MS).toBe(30_000);
  client.emit('close');
  advance(5_000);
  expect(connection.problem()).toBeUndefined();
  advance(25_000);
  expect(connection.problem()).toBeUndefined();
  advance(15_000);
  expect(connection.problem()).toBe(
    "unhealthy: Slack's socket (Socket Mode) has been down for 45 s; reconnecting",
  );
  // Its failed reconnects (a socket refused: error, then close) do not restart the count.
  client.emit('error');
  client.emit('close');
  expect(connection.problem()).toMatch(/down for 45 s/);
  client.emit('connected');
  expect(connection.problem()).toBeUndefined();
});

it('a stop is no drop; reconnects refused for good are said at once', () => {
  const { connection, socket, client, advance } = connectedSocket();
  client.emit('disconnecting');
  client.emit('close');
  advance(60_000);
  expect(connection.problem()).toBeUndefined();
  socket.gaveUp('invalid_auth');
  expect(connection.problem()).toBe(
    "unhealthy: Slack's socket (Socket Mode) cannot reconnect (invalid_auth); not trying again",
  );
});
