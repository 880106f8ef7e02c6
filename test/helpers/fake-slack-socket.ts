/**
 * The fake Slack's Socket Mode side: the WebSocket that apps.connections.open hands out, on which
 * envelopes are sent (after `hello`) and acked.
 */
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import { type WebSocket, WebSocketServer } from 'ws';

export class FakeSocketMode {
  private sockets = new Set<WebSocket>();
  private acks = new Map<string, (payload: unknown) => void>();
  /** Slack's socket host is out of reach: each new socket is refused at its handshake. */
  refusing = false;
  /** How many sockets have been opened in all (closed ones too), and how many were refused. */
  opened = 0;
  refused = 0;

  /** Serves the socket on `server` at `/link`. */
  attach(server: Server): void {
    const wss = new WebSocketServer({
      server,
      path: '/link',
      // Refused as a socket host that is down behind a proxy answers: 503, no socket.
      verifyClient: (_info, done) => {
        if (this.refusing) this.refused += 1;
        done(!this.refusing, 503);
      },
    });
    wss.on('connection', (socket) => {
      this.opened += 1;
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
      socket.on('message', (data) => {
        const { envelope_id, payload } = JSON.parse(String(data)) as {
          envelope_id: string;
          payload: unknown;
        };
        this.acks.get(envelope_id)?.(payload);
        this.acks.delete(envelope_id);
      });
      socket.send(
        JSON.stringify({
          type: 'hello',
          num_connections: 1,
          debug_info: { host: 'fake', approximate_connection_time: 3600 },
          connection_info: { app_id: 'A0APP' },
        }),
      );
    });
  }

  /** How many clients are connected now. */
  get count(): number {
    return this.sockets.size;
  }

  /** Resolves once a client is connected (and has been sent `hello`). */
  async connected(ms = 10_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (this.sockets.size === 0) {
      if (Date.now() > deadline) throw new Error('no Socket Mode connection');
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /** Sends an envelope; resolves with the payload of the app's ack. */
  async send(type: 'slash_commands' | 'interactive' | 'events_api', payload: object): Promise<unknown> {
    const envelope_id = randomUUID();
    const acked = new Promise<unknown>((resolve) => this.acks.set(envelope_id, resolve));
    const message = JSON.stringify({
      envelope_id,
      type,
      payload,
      accepts_response_payload: type !== 'events_api',
    });
    for (const socket of this.sockets) socket.send(message);
    return acked;
  }

  /**
   * Slack's own way of moving a connection (`refresh_requested`, `warning`…): a `disconnect`
   * message, after which the client closes the socket and opens another.
   */
  askToReconnect(reason: string): void {
    for (const socket of this.sockets) socket.send(JSON.stringify({ type: 'disconnect', reason }));
  }

  /** Cuts every connection without a close frame (a network drop, Slack's host gone). */
  close(): void {
    for (const socket of this.sockets) socket.terminate();
  }
}
