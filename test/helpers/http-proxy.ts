/**
 * An HTTP proxy in front of a server, for tests of what proxies and load balancers do to a
 * client's connection: each request goes to the server on a connection of its own (none left over
 * from a server that was restarted), and `answer` decides what the client gets of the server's
 * answer. A connection the server refuses answers 502.
 */
import {
  type ClientRequest,
  createServer,
  type IncomingMessage,
  request,
  type ServerResponse,
} from 'node:http';

export interface TestProxy {
  readonly url: string;
  close(): Promise<void>;
}

/** What the proxy does with one answer: its request (to the server), the server's answer, the client's response. */
export type Answer = (
  req: IncomingMessage,
  up: ClientRequest,
  answer: IncomingMessage,
  res: ServerResponse,
) => void;

export async function httpProxy(port: number, upstream: string, answer: Answer): Promise<TestProxy> {
  const target = new URL(upstream);
  const open = new Set<ClientRequest>();
  const server = createServer((req, res) => {
    const up = request(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: target.host },
        agent: false,
      },
      (got) => {
        res.writeHead(got.statusCode ?? 502, got.headers);
        got.on('end', () => open.delete(up));
        answer(req, up, got, res);
      },
    );
    open.add(up);
    up.on('error', () => {
      open.delete(up);
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(up);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${port}`,
    async close() {
      for (const up of open) up.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
