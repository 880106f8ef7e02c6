/**
 * SIGNOFF_ROLE: a web process answers Slack and never runs a graph; a worker runs graphs and
 * posts their results and never listens to Slack. Together, on one database, they do the job.
 */
import pg from 'pg';
import { expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { click, commandBody, postSigned } from '../helpers/slack-requests.js';
import { slackPerFile } from '../helpers/slack-service.js';
import { slackThreads, until } from '../helpers/slack-thread.js';

const file = slackPerFile('slack_roles', { service: false });
const { slack } = file;
const { cardsIn, rootOf, tsOf, buttons } = slackThreads(slack);

const startRole = (role: 'web' | 'worker') =>
  file.startService({ yaml: 'workflows:\n  pair:\n    maxIterations: 1\n', env: { SIGNOFF_ROLE: role } });

it('a web process queues the run; a worker process runs it; the click on the web finishes it', async () => {
  const web = await startRole('web');
  const events = `http://127.0.0.1:${web.port}/slack/events`;
  await postSigned(events, commandBody('pair split the roles'));
  const root = await until('root message', () => rootOf('split the roles'));
  const thread = tsOf(root);
  const jobs = new pg.Pool({ connectionString: file.db.url });
  try {
    const states = async () =>
      (
        await jobs.query<{ state: string }>(
          `SELECT CASE WHEN holder IS NULL THEN 'waiting' ELSE 'held' END AS state FROM signoff.jobs
           WHERE queue = 'signoff-advance-slack'`,
        )
      ).rows.map((r) => r.state);
    await until('the queued run', async () => ((await states()).length ? true : undefined), 5000);
    await new Promise((r) => setTimeout(r, 500));
    // Nobody took the run: the web process does not run graphs.
    expect(await states()).toEqual(['waiting']);
    expect(cardsIn(thread)).toEqual([]);

    const worker = await startRole('worker');
    // A worker takes no Slack requests, but answers the container's health check on its port.
    expect(worker.port).not.toBe(web.port);
    const health = await fetch(`http://127.0.0.1:${worker.port}/healthz`);
    expect([health.status, await health.text()]).toEqual([200, 'ok']);
    expect((await fetch(`http://127.0.0.1:${worker.port}/slack/events`, { method: 'POST' })).status).toBe(
      404,
    );
    const card = await until('review card', () => cardsIn(thread)[0]);
    const approve = buttons(card).find((b) => b.action_id === 'signoff_approve')?.value ?? '';
    expect((await postSigned(events, click('U0BOB', 'signoff_approve', approve, tsOf(card)))).status).toBe(
      200,
    );
    await until('the task done', async () => {
      const [task] = await web.signoff.engine.listTasks();
      return task?.status === 'done' ? task : undefined;
    });
    // Each role is scraped on its own port: the click was counted where it was decided (the web
    // process); what the database holds reads the same from the worker.
    const scrape = async (port?: number) => (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    const [webMetrics, workerMetrics] = await Promise.all([scrape(web.port), scrape(worker.port)]);
    expect(webMetrics).toMatch(/^signoff_decisions_total\{[^}]*action="approve",automatic="false"\} 1$/m);
    expect(workerMetrics).not.toMatch(/^signoff_decisions_total\{/m);
    for (const text of [webMetrics, workerMetrics])
      expect(text).toMatch(/^signoff_tasks\{workflow="[^"]+",door="slack",status="done"\} 1$/m);
  } finally {
    await jobs.end();
  }
});

it('Slack on the offline model warns at start-up, in one line, where tasks run; with a key, or on a web process (it runs no model), it does not', async () => {
  const lines: string[] = [];
  const logger = createLogger('warn', { write: (line: string) => lines.push(line) });
  const start = async (env: Record<string, string>) => {
    await file.startService({ env: { SIGNOFF_ROLE: 'worker', ...env }, options: { logger } });
  };
  await start({ SIGNOFF_ROLE: 'web' });
  expect(lines.filter((l) => l.includes('offline scripted model'))).toEqual([]);
  await start({});
  const offline = lines.filter((l) => l.includes('offline scripted model'));
  expect(offline).toHaveLength(1);
  expect(JSON.parse(offline[0] as string).msg).toMatch(
    /^no OPENAI_API_KEY or OPENAI_BASE_URL: .*set OPENAI_API_KEY/,
  );
  lines.length = 0;
  await start({ OPENAI_API_KEY: 'sk-test-key' });
  expect(lines.filter((l) => l.includes('offline scripted model'))).toEqual([]);
});
