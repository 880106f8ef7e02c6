/**
 * What an operator reads when the database stops and comes back under a running worker process
 * (`SIGNOFF_ROLE=worker`, the real entry point): one line when it stops answering, none while its
 * queues keep polling it, one when it answers again. The server is a PostgreSQL of this file's own
 * (the shared one serves the other files), stopped and started again on the same data and port.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, expect, it } from 'vitest';
import { type EmbeddedServer, startEmbeddedPostgres } from '../../src/db/embedded.js';
import { createLogger } from '../../src/logger.js';
import { killedAfterFile, startSlackWorker } from '../helpers/processes.js';

const dir = mkdtempSync(join(tmpdir(), 'signoff-outage-'));
let server: EmbeddedServer | undefined;
afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});
const started = killedAfterFile();

/** The process's log lines from the `from`th on, at warn or above (what an operator is told to look at). */
const warnings = (stderr: string, from: number) =>
  stderr
    .split('\n')
    .filter(Boolean)
    .slice(from)
    .map((l) => JSON.parse(l) as { level: number; msg: string; failures?: Record<string, number> })
    .filter((l) => l.level >= 40);

it('a worker whose database stops logs one line saying so, nothing while its loops fail, and one line with the time when it answers again', {
  timeout: 120_000,
}, async () => {
  const logger = createLogger('silent');
  server = await startEmbeddedPostgres(dir, logger);
  const worker = started(await startSlackWorker(server.url));
  await worker.waitFor(/running Slack tasks/, 60_000, 'stderr');
  const ready = worker.stderr().split('\n').filter(Boolean).length;

  await server.stop();
  await worker.waitFor(/database unavailable/, 15_000, 'stderr');
  // Down for a few seconds: each of the worker's queues looks for jobs twice a second meanwhile.
  await sleep(5000);
  server = await startEmbeddedPostgres(dir, logger);
  const [, seconds] = await worker.waitFor(/database answers again after (\d+) s/, 30_000, 'stderr');
  expect(Number(seconds)).toBeGreaterThanOrEqual(5);

  const lines = warnings(worker.stderr(), ready);
  expect(lines.map((l) => l.msg)).toEqual([
    // What failed first: the abort listener's connection or a queue's look for jobs.
    expect.stringMatching(/^database unavailable: .+; retrying until it answers/),
    expect.stringMatching(/^database answers again after \d+ s \(\d+ more failures since the last line\)$/),
  ]);
  // Not for want of failures: the loops failed many times, and were counted instead of written.
  const failures = Object.values(lines[1]?.failures ?? {}).reduce((a, b) => a + b, 0);
  expect(failures).toBeGreaterThanOrEqual(10);
  expect(worker.stderr()).not.toContain('"stack"');

  worker.child.kill('SIGTERM');
  expect((await worker.exited).code).toBe(143);
});
