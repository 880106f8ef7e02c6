import { EventEmitter } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { watchSlackConnection } from '../../src/slack/inbound/connection.js';
import { watchSocket } from '../../src/slack/inbound/socket-watch.js';

// Slack's Web API, answering apps.connections.open as it does while its socket host refuses.
const api = createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ ok: true, url: 'ws://127.0.0.1:1/link' }));
});
let url = '';
beforeAll(async () => {
  await new Promise<void>((r) => api.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(api.address() as AddressInfo).port}/api/`;
});
afterAll(() => new Promise((r) => api.close(r)));

it("a socket that cannot be opened stays said on /healthz through each reconnect's answered apps.connections.open, until it connects", async () => {
  const socket = new EventEmitter();
  const watcher = watchSocket({ logger: createLogger('silent') });
  watcher.listen(socket);
  const watch = watchSlackConnection(url, { socket: watcher });
  expect(watch.problem()).toBe('starting: connecting to Slack');
  await watch.fetch(`${url}apps.connections.open`, { method: 'POST' });
  socket.emit('error', new Error('refused'));
  const said = "unhealthy: Slack's socket (Socket Mode) could not be opened; still trying";
  expect(watch.problem()).toBe(said);
  // The next try: Slack answers the API call again, then the socket is refused again.
  await watch.fetch(`${url}apps.connections.open`, { method: 'POST' });
  expect(watch.problem()).toBe(said);
  watch.connected();
  expect(watch.problem()).toBeUndefined();
});
