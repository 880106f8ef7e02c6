/**
 * GET /healthz for every role: 200 once the process is ready and its database answers, 503
 * otherwise. In HTTP mode Bolt's own server answers it (app.ts); a Socket Mode process or a
 * worker has no HTTP server of its own, so this small one answers on PORT, for the container's
 * HEALTHCHECK and the orchestrator's probes.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Healthy = () => Promise<boolean>;

/** Answers a health request (also Bolt's custom route). */
export function answerHealth(healthy: Healthy, res: ServerResponse): void {
  void healthy().then((ok) => {
    res.writeHead(ok ? 200 : 503, { 'content-type': 'text/plain' });
    res.end(ok ? 'ok' : 'not ready');
  });
}

export async function startHealthServer(
  port: number,
  healthy: Healthy,
): Promise<{ port: number; stop(): Promise<void> }> {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (req.method === 'GET' && (req.url ?? '').split('?')[0] === '/healthz')
      return answerHealth(healthy, res);
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not found');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, resolve);
  });
  return {
    port: (server.address() as AddressInfo).port,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
