/**
 * SIGTERM to a server (the real entry point, as a deploy sends it): it says it is stopping, and
 * once it has stopped (its runs handed back, its database closed) it says that too, with how long
 * it took, as its last line; then it exits 143.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { unusedPort } from '../helpers/ports.js';
import { killedAfterFile, type Running, startSignoff, startSlackWorker } from '../helpers/processes.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase('server_stop');
});
afterAll(async () => {
  await db?.drop();
});
const started = killedAfterFile();

/** A process that was sent `signal`: its exit code and its log lines, once it has exited. */
async function stopped(r: Running, signal: NodeJS.Signals) {
  r.child.kill(signal);
  const { code, stderr } = await r.exited;
  const lines = stderr
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { msg: string; signal?: string; ms?: number; err?: unknown });
  return { code, lines };
}

it('a worker sent SIGTERM logs "stopping", then, as its last line, that it stopped and how long that took; exit 143', async () => {
  const worker = started(await startSlackWorker(db.url));
  await worker.waitFor(/running Slack tasks/, 60_000, 'stderr');
  const { code, lines } = await stopped(worker, 'SIGTERM');
  expect(code).toBe(143);
  const last = lines.at(-1);
  expect(lines.at(-2)).toMatchObject({ msg: 'stopping', signal: 'SIGTERM' });
  expect(last?.msg).toMatch(/^stopped after \d+(\.\d)? m?s: runs handed back, database closed$/);
  expect(last).toMatchObject({ signal: 'SIGTERM', ms: expect.any(Number) });
});

it('a web process that cannot reach Slack (auth.test) says so in one line a try, no stack, and one Ctrl-C stops it: "stopped after …", exit 130', async () => {
  const slack = `http://127.0.0.1:${await unusedPort()}/api/`;
  const web = started(
    startSignoff([], {
      SIGNOFF_ROLE: 'web',
      SLACK_BOT_TOKEN: 'xoxb-test',
      SLACK_SIGNING_SECRET: 'test-secret',
      SLACK_API_URL: slack,
      PORT: '0',
      DATABASE_URL: db.url,
    }),
  );
  await web.waitFor(/asking again in 2 s/, 60_000, 'stderr');
  const { code, lines } = await stopped(web, 'SIGINT');
  expect(code).toBe(130);
  const tries = lines.filter((l) => l.msg.startsWith('Slack did not say who the bot is'));
  expect(tries[0]?.msg).toMatch(
    /^Slack did not say who the bot is \(auth\.test: .*ECONNREFUSED.*\); asking again in 1 s$/,
  );
  expect(tries.every((l) => l.err === undefined)).toBe(true);
  expect(lines.at(-1)?.msg).toMatch(/^stopped after \d+(\.\d)? m?s: runs handed back, database closed$/);
});
