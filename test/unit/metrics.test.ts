/** Metrics while the database is unreachable, and a token that guards the scrape. */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/engine/metrics.js';
import { startHealthServer } from '../../src/slack/inbound/health.js';

// Port 1 on this machine: nothing listens, the connection is refused at once.
let pool: pg.Pool;
beforeAll(() => {
  pool = new pg.Pool({
    connectionString: 'postgres://nobody@127.0.0.1:1/none',
    connectionTimeoutMillis: 2000,
  });
  pool.on('error', () => undefined);
});
afterAll(() => pool.end());

describe('metrics', () => {
  it('a scrape with the database down answers with signoff_database_up 0 and no stale gauges', async () => {
    const text = await createMetrics(pool, { depth: async () => [] }).text();
    expect(text).toMatch(/^signoff_database_up 0$/m);
    expect(text).not.toMatch(/^signoff_reviews_pending\{/m);
    expect(text).toContain('# TYPE signoff_decisions_total counter');
  });

  it('with SIGNOFF_METRICS_TOKEN set, a scrape without the bearer token is refused (401), with it answered', async () => {
    const token = 'a-long-enough-secret-token';
    const server = await startHealthServer(0, async () => true, {
      metrics: createMetrics(pool, { depth: async () => [] }),
      token,
    });
    try {
      const url = `http://127.0.0.1:${server.port}/metrics`;
      expect((await fetch(url)).status).toBe(401);
      expect(
        (await fetch(url, { headers: { authorization: 'Bearer wrong-token-of-some-length' } })).status,
      ).toBe(401);
      const ok = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
      expect(ok.status).toBe(200);
      expect(await ok.text()).toMatch(/^signoff_database_up 0$/m);
      // The health check stays open: the orchestrator's probe carries no token.
      expect((await fetch(`http://127.0.0.1:${server.port}/healthz`)).status).toBe(200);
    } finally {
      await server.stop();
    }
  });
});
