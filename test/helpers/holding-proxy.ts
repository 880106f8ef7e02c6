/**
 * An HTTP proxy in front of a server that does not pass a client's hang-up on: when the client
 * goes, it keeps its own connection to the server open and reads what comes (as a proxy or load
 * balancer that pools or buffers upstream connections may). A server that cancels a run when its
 * stream's client disconnects never hears of it through this proxy, so only an explicit cancel
 * stops the run.
 */
import { createServer, request } from 'node:http';

export interface HoldingProxy {
  readonly url: string;
  close(): Promise<void>;
}

export async function holdingProxy(port: number, upstream: string): Promise<HoldingProxy> {
  const target = new URL(upstream);
  const held = new Set<import('node:http').ClientRequest>();
  const server = createServer((req, res) => {
    const up = request(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: target.host },
        // A connection of its own each time: none left over from a server that was restarted.
        agent: false,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        // The client hung up: the proxy keeps reading the server's answer to its end.
        res.on('close', () => answer.resume());
        answer.on('end', () => held.delete(up));
      },
    );
    held.add(up);
    up.on('error', () => {
      held.delete(up);
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(up);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${port}`,
    async close() {
      for (const up of held) up.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
