/**
 * GET /healthz for every role: 200 once the process is ready and its database answers, 503
 * otherwise with what is wrong (a Socket Mode process answers while it connects to Slack); and GET /metrics, Prometheus's scrape. In HTTP mode Bolt's own server answers them
 * (app.ts); a Socket Mode process or a worker has no HTTP server of its own, so this small one
 * answers on PORT, for the container's HEALTHCHECK, the orchestrator's probes and Prometheus.
 */
import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CustomRoute } from '@slack/bolt';
import type { Metrics } from '../../engine/index.js';

/** True when ready and the database answers; else what is wrong, in a line ("starting: …", "unhealthy: …"). */
export type Healthy = () => Promise<true | string>;

/** Answers a health request (also Bolt's custom route): 200 `ok`, or 503 saying what is wrong. */
export function answerHealth(healthy: Healthy, res: ServerResponse): void {
  void healthy().then((state) => {
    res.writeHead(state === true ? 200 : 503, { 'content-type': 'text/plain' });
    res.end(state === true ? 'ok' : state);
  });
}

/** What answers GET /metrics: the metrics, and the token a scrape must show (when set). */
export interface MetricsRoute {
  metrics: Pick<Metrics, 'text' | 'contentType'>;
  token?: string;
}

/** Answers a scrape (also Bolt's custom route); a failure is a 500 with a line, never a crash. */
export function answerMetrics(route: MetricsRoute, req: IncomingMessage, res: ServerResponse): void {
  if (route.token && !sameSecret(req.headers.authorization ?? '', `Bearer ${route.token}`)) {
    res.writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': 'Bearer' });
    res.end('a bearer token is needed (SIGNOFF_METRICS_TOKEN)');
    return;
  }
  void route.metrics.text().then(
    (text) => {
      res.writeHead(200, { 'content-type': route.metrics.contentType });
      res.end(text);
    },
    () => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('metrics could not be read');
    },
  );
}

/** Compares in constant time, so that the token cannot be guessed a byte at a time. */
function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export async function startHealthServer(
  port: number,
  healthy: Healthy,
  metrics: MetricsRoute,
  routes: CustomRoute[] = [],
): Promise<{ port: number; stop(): Promise<void> }> {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '').split('?')[0] ?? '';
    if (req.method === 'GET' && path === '/healthz') return answerHealth(healthy, res);
    if (req.method === 'GET' && path === '/metrics') return answerMetrics(metrics, req, res);
    // The other doors (a Socket Mode process has no Bolt server to serve them).
    for (const route of routes) {
      const params = matchPath(route.path, path);
      const methods = ([] as string[]).concat(route.method);
      if (params && methods.includes(req.method ?? ''))
        return route.handler(Object.assign(req, { params }), res);
    }
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

/** `/a/:id/b` against a path: its parameters when it matches (as Bolt's custom routes read them). */
export function matchPath(pattern: string, path: string): Record<string, string> | undefined {
  const want = pattern.split('/');
  const got = path.split('/');
  if (want.length !== got.length) return undefined;
  const params: Record<string, string> = {};
  for (const [i, part] of want.entries()) {
    const given = got[i] ?? '';
    if (part.startsWith(':')) {
      if (!given) return undefined;
      // A malformed escape (%E0) is no match, never a throw in the server's request handler.
      try {
        params[part.slice(1)] = decodeURIComponent(given);
      } catch {
        return undefined;
      }
    } else if (part !== given) return undefined;
  }
  return params;
}
