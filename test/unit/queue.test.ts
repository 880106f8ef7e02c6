import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { UNAWAITED } from '../../src/engine/queue.js';

// pg-boss's own SQL, from the installed version: if an upgrade changes it, this says so.
const plans = createRequire(import.meta.url)('pg-boss/src/plans.js') as Record<
  string,
  (s: string) => unknown
>;

describe('the statements pg-boss runs without awaiting', () => {
  it('are recognised, and nothing else is', () => {
    expect(UNAWAITED.test(String(plans.completeJobs?.('pgboss')))).toBe(true);
    expect(UNAWAITED.test(String(plans.failJobsById?.('pgboss')))).toBe(true);
    expect(UNAWAITED.test(String(plans.insertJob?.('pgboss')))).toBe(false);
    expect(UNAWAITED.test(String(plans.failJobsByTimeout?.('pgboss')))).toBe(false);
  });
});

describe('the order workers take jobs in', () => {
  it('is the highest priority first, then the oldest (resumes before starts rely on it)', () => {
    const fetch = plans.fetchNextJob?.('pgboss') as (o: object) => string;
    expect(fetch({ includeMetadata: true })).toMatch(/ORDER BY priority desc, created_on, id/);
  });
});
