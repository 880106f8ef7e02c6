/**
 * Socket Mode end to end: with SLACK_APP_TOKEN the app opens a connection through
 * apps.connections.open (on SLACK_API_URL), and commands, clicks and events arrive as envelopes
 * that it acks over the socket.
 */
import { expect, it } from 'vitest';
import { click, commandBody, threadMessage } from '../helpers/slack-requests.js';
import { slackPerFile } from '../helpers/slack-service.js';
import { slackThreads, until } from '../helpers/slack-thread.js';

const file = slackPerFile('slack_socket', {
  yaml: 'workflows:\n  pair:\n    maxIterations: 1\n',
  env: { SLACK_APP_TOKEN: 'xapp-test' },
});
const { slack } = file;
const { cardsIn, rootOf, tsOf, buttons } = slackThreads(slack);

const form = (body: string) => Object.fromEntries(new URLSearchParams(body));
const interaction = (body: string) => JSON.parse(form(body).payload as string) as object;

it('answers /healthz on PORT though Slack talks to it over the socket', async () => {
  const health = await fetch(`http://127.0.0.1:${file.service.port}/healthz`);
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
    const [task] = await file.service.signoff.engine.listTasks();
    return task?.status === 'done' ? task : undefined;
  });
});
