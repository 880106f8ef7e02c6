/** Metrics while the database is unreachable: the scrape still answers, saying so. */
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/engine/metrics.js';

describe('metrics', () => {
  it('a scrape with the database down answers with signoff_database_up 0 and no stale gauges', async () => {
    // Port 1 on this machine: nothing listens, the connection is refused at once.
    const pool = new pg.Pool({
      connectionString: 'postgres://nobody@127.0.0.1:1/none',
      connectionTimeoutMillis: 2000,
    });
    pool.on('error', () => undefined);
    try {
      const text = await createMetrics(pool).text();
      expect(text).toMatch(/^signoff_database_up 0$/m);
      expect(text).not.toMatch(/^signoff_reviews_pending\{/m);
      expect(text).toContain('# TYPE signoff_decisions_total counter');
    } finally {
      await pool.end();
    }
  });
});
