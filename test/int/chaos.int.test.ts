/**
 * The chaos checker's smoke (bench/chaos): a few randomized runs with a web process, two workers,
 * kill -9, dropped database connections and Slack and model failures, and every invariant held.
 * `npm run chaos -- --runs 200` is the real thing; this keeps it working in CI.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runChaos } from '../../bench/chaos/chaos.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase('chaos');
});
afterAll(async () => {
  await db?.drop();
});

it('three chaos runs: faults injected, no invariant broken', { timeout: 150_000 }, async () => {
  const lines: string[] = [];
  const f = await runChaos({ runs: 3, seed: 8, databaseUrl: db.url, log: (l) => lines.push(l) });
  expect(f.runs).toBe(3);
  expect(f.tasks).toBeGreaterThan(0);
  // Reviews asked through the HTTP API are among them.
  expect(f.asks, lines.join('\n')).toBeGreaterThan(0);
  expect(
    Object.values(f.faults).reduce((a, b) => a + b, 0),
    lines.join('\n'),
  ).toBeGreaterThan(0);
  expect(f.violations, lines.join('\n')).toEqual([]);
});
