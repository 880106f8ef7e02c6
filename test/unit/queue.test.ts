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
