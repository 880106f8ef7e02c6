/**
 * The canary: one test that fails on purpose, run like the integration tests (same globalSetup,
 * so the embedded PostgreSQL is loaded in vitest's main process). `.ci/run` requires this run to
 * exit non-zero: a test runner whose failures exit 0 would let every other failure through.
 */
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/canary/*.canary.ts'],
    globalSetup: ['test/global-setup.ts'],
  },
});
