/**
 * One PostgreSQL for the integration tests: DATABASE_URL when set, else an embedded server in a
 * fresh temporary directory. Each test file then creates its own database in it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres } from '../src/db/embedded.js';
import { createLogger } from '../src/logger.js';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
  }
}

export default async function setup(project: TestProject) {
  const given = process.env.DATABASE_URL;
  if (given) {
    project.provide('databaseUrl', given);
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'signoff-test-pg-'));
  const server = await startEmbeddedPostgres(dir, createLogger('silent'));
  project.provide('databaseUrl', server.url);
  return async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  };
}
