/**
 * Socket Mode end to end: with SLACK_APP_TOKEN the app opens a connection through
 * apps.connections.open (on SLACK_API_URL), and commands, clicks and events arrive as envelopes
 * that it acks over the socket.
 */
import { createHash } from 'node:crypto';
import { expect, it } from 'vitest';
import { click, commandBody, threadMessage } from '../helpers/slack-requests.js';
import { slackPerFile } from '../helpers/slack-service.js';
import { slackThreads, until } from '../helpers/slack-thread.js';

const TOKEN = 'sk-socket-bot-0123456789';
const file = slackPerFile('slack_socket', {
  yaml: `workflows:\n  pair:\n    maxIterations: 1\napi:\n  clients:\n    socket-bot:\n      tokenSha256: ${createHash('sha256').update(TOKEN).digest('hex')}\n      channels: [C0WORK]\n`,
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

it('serves the HTTP API on PORT too: a review asked there is posted in the channel', async () => {
  const api = `http://127.0.0.1:${file.service.port}/api/v1`;
  expect((await fetch(`${api}/openapi.json`)).status).toBe(200);
  const created = await fetch(`${api}/reviews`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ channel: 'C0WORK', title: 'Asked over a socket app', content: 'ok?' }),
  });
  expect(created.status).toBe(201);
  const { id } = (await created.json()) as { id: string };
  await until('the card', () => rootOf('Asked over a socket app'));
  const read = await fetch(`${api}/reviews/${id}`, { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(read.status).toBe(200);
  // A malformed escape in the path is no route (it threw in the server's handler and killed it).
  expect((await fetch(`${api}/reviews/%E0`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(
    404,
  );
  expect((await fetch(`http://127.0.0.1:${file.service.port}/healthz`)).status).toBe(200);
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
  expect(JSON.stringify(second.blocks)).toContain("Review the agents' work (cycle 2)");
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
