/**
 * Socket Mode end to end: with SLACK_APP_TOKEN the app opens a connection through
 * apps.connections.open (on SLACK_API_URL), and commands, clicks and events arrive as envelopes
 * that it acks over the socket.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { SlackService } from '../../src/main.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { FakeSlack } from '../helpers/fake-slack.js';
import { click, commandBody, threadMessage } from '../helpers/slack-requests.js';
import { startTestSlack } from '../helpers/slack-service.js';
import { slackThreads, until } from '../helpers/slack-thread.js';

let db: TestDatabase;
const slack = new FakeSlack();
const { cardsIn, rootOf, tsOf, buttons } = slackThreads(slack);
let service: SlackService;

beforeAll(async () => {
  db = await createTestDatabase('slack_socket');
  await slack.start();
  ({ service } = await startTestSlack({
    url: db.url,
    slack,
    yaml: 'workflows:\n  pair:\n    maxIterations: 1\n',
    env: { SLACK_APP_TOKEN: 'xapp-test' },
  }));
});
afterAll(async () => {
  await service?.stop();
  await slack.stop();
  await db?.drop();
});

const form = (body: string) => Object.fromEntries(new URLSearchParams(body));
const interaction = (body: string) => JSON.parse(form(body).payload as string) as object;

it('answers /healthz on PORT though Slack talks to it over the socket', async () => {
  const health = await fetch(`http://127.0.0.1:${service.port}/healthz`);
  expect([health.status, await health.text()]).toEqual([200, 'ok']);
});

it('connects, acks a command, a thread reply and a click, and finishes the task', async () => {
  await slack.socketConnected();
  expect(slack.callsOf('apps.connections.open')).toHaveLength(1);

  const help = await slack.sendEnvelope('slash_commands', form(commandBody('help')));
  expect(JSON.stringify(help)).toContain('/signoff <workflow> <task>');

  await slack.sendEnvelope('slash_commands', form(commandBody('pair over the socket')));
  const thread = tsOf(await until('root message', () => rootOf('over the socket')));
  const first = await until('review card', () => cardsIn(thread)[0]);

  await slack.sendEnvelope(
    'events_api',
    JSON.parse(threadMessage('U0BOB', 'revise: shorter, please', thread)),
  );
  const second = await until('round 2 card', () => cardsIn(thread)[1]);
  expect(JSON.stringify(second.blocks)).toContain('Round 2');
  expect(first).not.toBe(second);

  const approve = buttons(second).find((b) => b.action_id === 'signoff_approve')?.value ?? '';
  await slack.sendEnvelope(
    'interactive',
    interaction(click('U0BOB', 'signoff_approve', approve, tsOf(second), thread)),
  );
  await until('done', async () => {
    const [task] = await service.signoff.engine.listTasks();
    return task?.status === 'done' ? task : undefined;
  });
});
