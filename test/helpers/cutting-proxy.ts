/**
 * An HTTP proxy in front of a LangGraph server that ends a run's stream early, cleanly: once the
 * first event has passed, the client's answer is ended as if the stream were over (the last
 * chunk sent, no error), and the server's connection is dropped, so that the server cancels the
 * run (`onDisconnect: cancel`). As a proxy or load balancer with a response time limit may do.
 * Only the first `cuts` run streams are cut; everything else passes as it is.
 */
import { createServer, request } from 'node:http';

export interface CuttingProxy {
  readonly url: string;
  /** How many run streams it cut. */
  cut(): number;
  close(): Promise<void>;
}

export async function cuttingProxy(port: number, upstream: string, cuts = 1): Promise<CuttingProxy> {
  const target = new URL(upstream);
  let done = 0;
  const server = createServer((req, res) => {
    const cutting = /\/runs\/stream$/.test(req.url ?? '') && done < cuts;
    if (cutting) done += 1;
    const up = request(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: target.host },
        agent: false,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        if (!cutting) return void answer.pipe(res);
        answer.once('data', (chunk) => {
          res.end(chunk);
          up.destroy();
        });
      },
    );
    up.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(up);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${port}`,
    cut: () => done,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
