/**
 * The HTTP API through its real server (Bolt's receiver on the app's port) and the fake Slack: a
 * review asked by an agent becomes the same card as any task's, a click decides it once, and the
 * client reads the decision by polling, long-polling or a signed callback. Bad input, a wrong
 * token, a channel not the client's and a client over its rate are refused with a JSON sentence,
 * and nothing is half-created. Every answer fits the OpenAPI document the server serves.
 */
import { createHash, verify } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formatsPlugin from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { askCards } from '../helpers/ask-cards.js';
import { postSigned, reviseSubmission } from '../helpers/slack-requests.js';
import { slackPerFile } from '../helpers/slack-service.js';
import { type Post, slackThreads, until } from '../helpers/slack-thread.js';

const TOKEN = 'sk-deploy-bot-0123456789';
const OTHER = 'sk-slow-bot-0123456789';
const sha = (t: string) => createHash('sha256').update(t).digest('hex');

const YAML = `api:
  clients:
    deploy-bot:
      tokenSha256: ${sha(TOKEN)}
      channels: [C0WORK, C0SHUT]
      # The tests poll GET every 20 ms while they wait: 600 a minute was spent within the file, and
      # a later POST met its 429 (the rate itself is slow-bot's test).
      perMinute: 100000
      callbackUrls: ['http://127.0.0.1:', 'https://hooks.example.test', 'https://ci.example.test/signoff/']
    slow-bot:
      tokenSha256: ${sha(OTHER)}
      channels: [C0WORK]
      perMinute: 2
workflows:
  ask:
    checkpoints:
      review: { reviewers: [U0BOB, U0CAT, U0DAN], timeout: 2h }
      tool_call: { reviewers: [anyone] }
`;

const file = slackPerFile('api_doors', { yaml: YAML });
const { slack } = file;
const { posts, tsOf, updatesOf } = slackThreads(slack);

const base = () => file.events.replace('/slack/events', '/api/v1');
type Answer = { status: number; body: Record<string, unknown>; headers: Headers };
/** Every answer the tests saw, to check against the OpenAPI document. */
const seen: { method: string; path: string; answer: Answer }[] = [];

async function call(
  method: string,
  path: string,
  o: { body?: unknown; raw?: string; token?: string | null; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const token = o.token === undefined ? TOKEN : o.token;
  const res = await fetch(`${base()}${path}`, {
    method,
    headers: {
      'content-type': 'application/json',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...o.headers,
    },
    body: o.raw ?? (o.body === undefined ? undefined : JSON.stringify(o.body)),
  });
  const answer = {
    status: res.status,
    body: (await res.json()) as Record<string, unknown>,
    headers: res.headers,
  };
  seen.push({ method, path, answer });
  return answer;
}

let n = 0;
const ask = (over: Record<string, unknown> = {}) => ({
  channel: 'C0WORK',
  title: `Ship release 2.${++n}`,
  content: `The changelog for 2.${n}: **faster** starts.`,
  ...over,
});

const { cardOf, press } = askCards(file);

describe('the HTTP API', () => {
  it('asks in the channel as a card naming the agent, and a reviewer’s Approve answers a long-poll with who decided', async () => {
    const body = ask();
    const created = await call('POST', '/reviews', { body });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ status: 'starting', channel: 'C0WORK', title: body.title });
    const id = created.body.id as string;
    const { card, thread, root } = await cardOf(body.title);
    expect(JSON.stringify(root.blocks)).toContain('*deploy-bot* (through the API)');
    expect(JSON.stringify(card.blocks)).toContain('faster');
    // Pending, with who may decide.
    const pending = await until('pending', async () => {
      const r = await call('GET', `/reviews/${id}`);
      return r.body.status === 'pending' ? r : undefined;
    });
    expect(pending.body).toMatchObject({
      reviewers: ['U0BOB', 'U0CAT', 'U0DAN'],
      approvals: { count: 0, needed: 1 },
    });
    expect(pending.body.slack).toEqual({ channel: 'C0WORK', ts: thread });
    const waiting = call('GET', `/reviews/${id}?wait=20`);
    await press('U0BOB', card, thread, 'Approve');
    const answered = await waiting;
    expect(answered.status).toBe(200);
    expect(answered.body).toMatchObject({ status: 'approved', decision: { by: 'U0BOB' } });
    // A single approval is a list of one.
    expect((answered.body.decision as { approvals: unknown }).approvals).toEqual([
      { by: 'U0BOB', at: (answered.body.decision as { at: string }).at },
    ]);
    // The start and the decision are in the audit, the start with its door and client.
    const trail = [];
    for await (const e of file.service.signoff.engine.auditTrail({})) trail.push(e);
    expect(trail.some((e) => e.who === 'api:deploy-bot' && e.action === 'start')).toBe(true);
  });

  it('rules asked make the review stricter: only the reviewers named decide, and two of them must approve (the answer lists both, in order)', async () => {
    const body = ask({ reviewers: ['U0BOB', 'U0CAT'], approvals: 2, timeoutSeconds: 3600 });
    const created = await call('POST', '/reviews', { body });
    const { card, thread } = await cardOf(body.title);
    const pending = await until('pending', async () => {
      const r = await call('GET', `/reviews/${created.body.id}`);
      return r.body.status === 'pending' ? r : undefined;
    });
    expect(pending.body).toMatchObject({
      reviewers: ['U0BOB', 'U0CAT'],
      approvals: { count: 0, needed: 2, given: [] },
    });
    // Due in an hour, not the channel's two.
    const due = Date.parse(String(pending.body.dueAt)) - Date.now();
    expect(due).toBeGreaterThan(3500_000);
    expect(due).toBeLessThan(3700_000);
    // A reviewer of the channel the ask did not name is refused; nothing is counted.
    await press('U0DAN', card, thread, 'Approve');
    await press('U0BOB', card, thread, 'Approve');
    const one = await until('one approval', async () => {
      const r = await call('GET', `/reviews/${created.body.id}`);
      return (r.body.approvals as { count: number } | undefined)?.count === 1 ? r : undefined;
    });
    expect(one.body.status).toBe('pending');
    await press('U0CAT', card, thread, 'Approve');
    const answered = await call('GET', `/reviews/${created.body.id}?wait=20`);
    expect(answered.body).toMatchObject({ status: 'approved', decision: { by: 'U0CAT' } });
    // `by` names the last approver only: the list says two people approved, and who first.
    const approvals = (answered.body.decision as { approvals: { by: string; at: string }[] }).approvals;
    expect(approvals).toEqual([
      { by: 'U0BOB', at: expect.any(String) },
      { by: 'U0CAT', at: (answered.body.decision as { at: string }).at },
    ]);
    expect(Date.parse(approvals[0]?.at ?? '')).toBeLessThanOrEqual(Date.parse(approvals[1]?.at ?? ''));
  });

  it('after the first of two approvals (a click in the card) the review is still pending, and its answer says who approved and when', async () => {
    const body = ask({ approvals: 2 });
    const created = await call('POST', '/reviews', { body });
    const id = created.body.id as string;
    const { card, thread } = await cardOf(body.title);
    await until('pending', async () => {
      const r = await call('GET', `/reviews/${id}`);
      return r.body.status === 'pending' ? r : undefined;
    });
    const before = Date.now();
    await press('U0BOB', card, thread, 'Approve');
    const one = await until('one approval', async () => {
      const r = await call('GET', `/reviews/${id}`);
      return (r.body.approvals as { count: number } | undefined)?.count === 1 ? r : undefined;
    });
    expect(one.body).toMatchObject({
      status: 'pending',
      // Who may decide still names U0BOB: one Reject from anyone of them ends the review.
      reviewers: ['U0BOB', 'U0CAT', 'U0DAN'],
      approvals: { count: 1, needed: 2, given: [{ by: 'U0BOB', at: expect.any(String) }] },
    });
    expect(one.body.decision).toBeUndefined();
    const given = (one.body.approvals as { given: { by: string; at: string }[] }).given;
    expect(given).toHaveLength(1);
    // When: the click's time, not the review's.
    const at = Date.parse(given[0]?.at ?? '');
    expect(at).toBeGreaterThanOrEqual(before - 1000);
    expect(at).toBeLessThanOrEqual(Date.now());
    expect(at).toBeGreaterThan(Date.parse(String(created.body.createdAt)));
    // Still pending: a long-poll is not answered by one approval of two.
    const polled = await call('GET', `/reviews/${id}?wait=1`);
    expect(polled.body).toMatchObject({ status: 'pending', approvals: { count: 1, given } });
    // The second decides it, and the decision lists the first as the pending answer did.
    await press('U0DAN', card, thread, 'Approve');
    const answered = await call('GET', `/reviews/${id}?wait=20`);
    expect(answered.body).toMatchObject({ status: 'approved', decision: { by: 'U0DAN' } });
    expect((answered.body.decision as { approvals: unknown[] }).approvals[0]).toEqual(given[0]);
    expect(answered.body.approvals).toBeUndefined();
  });

  it('two of two where one reviewer is away: the answer says their delegate approved in their place', async () => {
    const body = ask({ reviewers: ['U0BOB', 'U0CAT'], approvals: 2 });
    const created = await call('POST', '/reviews', { body });
    const { card, thread } = await cardOf(body.title);
    await until('pending', async () => {
      const r = await call('GET', `/reviews/${created.body.id}`);
      return r.body.status === 'pending' ? r : undefined;
    });
    const claims = file.service.signoff.engine.claims;
    await claims.away('U0CAT', new Date(Date.now() + 86_400_000), 'U0EVE');
    try {
      await press('U0BOB', card, thread, 'Approve');
      await until('one approval', async () => {
        const r = await call('GET', `/reviews/${created.body.id}`);
        return (r.body.approvals as { count: number } | undefined)?.count === 1 ? r : undefined;
      });
      await press('U0EVE', card, thread, 'Approve');
      const answered = await call('GET', `/reviews/${created.body.id}?wait=20`);
      expect(answered.body).toMatchObject({
        status: 'approved',
        decision: {
          by: 'U0EVE',
          approvals: [
            { by: 'U0BOB', at: expect.any(String) },
            { by: 'U0EVE', at: expect.any(String), for: 'U0CAT' },
          ],
        },
      });
      expect((answered.body.decision as { approvals: unknown[] }).approvals).toHaveLength(2);
    } finally {
      await claims.away('U0CAT', null);
    }
  });

  it('counts its tasks and decisions by door in /metrics', async () => {
    const text = await fetch(file.events.replace('/slack/events', '/metrics')).then((r) => r.text());
    expect(text).toMatch(/signoff_tasks\{workflow="ask",door="api",status="done"\} [1-9]/);
    expect(text).toMatch(
      /signoff_decisions_total\{workflow="ask",checkpoint="review",door="api",action="approve",automatic="false"\} [1-9]/,
    );
  });

  it('a channel that will not take the card: the client reads failed, with what to do, and the refusal is audited', async () => {
    slack.notJoined.C0SHUT = 'public';
    const created = await call('POST', '/reviews', { body: ask({ channel: 'C0SHUT' }) });
    expect(created.status).toBe(201);
    const failed = await until('failed', async () => {
      const r = await call('GET', `/reviews/${created.body.id}`);
      return r.body.status === 'failed' ? r : undefined;
    });
    expect(String(failed.body.reason)).toMatch(/invite/i);
    const trail = [];
    for await (const e of file.service.signoff.engine.auditTrail({})) trail.push(e);
    expect(
      trail.some(
        (e) => e.who === 'api:deploy-bot' && e.result === 'refused' && /invite/i.test(e.reason ?? ''),
      ),
    ).toBe(true);
  });

  it('creates one review per idempotency key, and refuses the key reused for something else', async () => {
    const body = ask();
    const headers = { 'idempotency-key': `deploy-${n}` };
    const first = await call('POST', '/reviews', { body, headers });
    const again = await call('POST', '/reviews', { body, headers });
    expect(first.status).toBe(201);
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
    const other = await call('POST', '/reviews', { body: { ...body, content: 'something else' }, headers });
    expect(other.status).toBe(409);
    expect(other.body).toMatchObject({ error: { code: 'idempotency_mismatch' } });
    await cardOf(body.title);
    expect(posts().filter((p) => !p.thread_ts && p.text.includes(body.title))).toHaveLength(1);
  });

  it('a tool call is approved with the arguments a reviewer edited (checked against its schema), or rejected', async () => {
    const schema = { type: 'object', properties: { to: { type: 'string' } }, required: ['to'] };
    const toolCall = { name: 'send_mail', arguments: { to: 'all@x.test' }, schema };
    const body = ask({ content: undefined, toolCall });
    const created = await call('POST', '/reviews', { body });
    const { card, thread } = await cardOf(body.title);
    expect(JSON.stringify(card.blocks)).toContain('send_mail');
    const before = slack.callsOf('views.update').length;
    await press('U0CAT', card, thread, 'Edit');
    const view = (await until('the form', () => slack.callsOf('views.update')[before])).view as {
      private_metadata: string;
    };
    const submit = (args: string) =>
      postSigned(file.events, reviseSubmission('U0CAT', view.private_metadata, '', { field_args_0: args }));
    // Arguments that do not fit the schema are refused in the form; nothing is decided.
    const wrong = await submit(JSON.stringify({ subject: 'no recipient' }));
    expect(JSON.parse(wrong.body)).toMatchObject({
      response_action: 'errors',
      errors: { field_args_0: expect.stringContaining('to') },
    });
    expect((await call('GET', `/reviews/${created.body.id}`)).body.status).toBe('pending');
    const ok = await submit(JSON.stringify({ to: 'team@x.test' }));
    expect(ok.body).toBe('');
    const answered = await call('GET', `/reviews/${created.body.id}?wait=20`);
    expect(answered.body).toMatchObject({
      status: 'approved',
      decision: { by: 'U0CAT', arguments: { to: 'team@x.test' }, edited: true },
    });

    const second = ask({ content: undefined, toolCall });
    const other = await call('POST', '/reviews', { body: second });
    const shown = await cardOf(second.title);
    await press('U0DAN', shown.card, shown.thread, 'Reject');
    const rejected = await call('GET', `/reviews/${other.body.id}?wait=20`);
    expect(rejected.body).toMatchObject({ status: 'rejected', decision: { by: 'U0DAN' } });
    expect(rejected.body.decision).not.toHaveProperty('arguments');
  });

  it('each tool call is edited against its own schema, even when two schemas share an $id, and a form may be sent again after a refusal', async () => {
    const $id = 'https://schemas.example.test/mail.json';
    const mail = { $id, type: 'object', properties: { to: { type: 'string' } }, required: ['to'] };
    const memo = { $id, type: 'object', properties: { subject: { type: 'string' } }, required: ['subject'] };
    /** Asks for a call with `schema`, opens its Edit form, and sends `args` in it. */
    const edit = async (schema: object, tries: object[]) => {
      const body = ask({
        content: undefined,
        toolCall: { name: 'send', arguments: { to: 'a@x.test' }, schema },
      });
      const created = await call('POST', '/reviews', { body });
      const { card, thread } = await cardOf(body.title);
      const before = slack.callsOf('views.update').length;
      await press('U0CAT', card, thread, 'Edit');
      const view = (await until('the form', () => slack.callsOf('views.update')[before])).view as {
        private_metadata: string;
      };
      const answers = [];
      for (const args of tries)
        answers.push(
          await postSigned(
            file.events,
            reviseSubmission('U0CAT', view.private_metadata, '', { field_args_0: JSON.stringify(args) }),
          ),
        );
      return { id: created.body.id as string, answers };
    };
    const first = await edit(mail, [{ subject: 'no recipient' }, { to: 'team@x.test' }]);
    expect(JSON.parse(first.answers[0]?.body ?? '')).toMatchObject({
      response_action: 'errors',
      errors: { field_args_0: expect.stringContaining('to') },
    });
    expect(first.answers[1]?.body).toBe('');
    expect((await call('GET', `/reviews/${first.id}?wait=20`)).body).toMatchObject({
      status: 'approved',
      decision: { arguments: { to: 'team@x.test' }, edited: true },
    });
    // The same $id, another schema: checked against this one, not the first one seen.
    const second = await edit(memo, [{ to: 'team@x.test' }, { subject: 'Notes' }]);
    expect(JSON.parse(second.answers[0]?.body ?? '')).toMatchObject({
      response_action: 'errors',
      errors: { field_args_0: expect.stringContaining('subject') },
    });
    expect(second.answers[1]?.body).toBe('');
    expect((await call('GET', `/reviews/${second.id}?wait=20`)).body).toMatchObject({
      status: 'approved',
      decision: { arguments: { subject: 'Notes' }, edited: true },
    });
  });

  it('cancels a review: the card loses its buttons and the client reads cancelled', async () => {
    const body = ask();
    const created = await call('POST', '/reviews', { body });
    const { card } = await cardOf(body.title);
    await until('pending', async () =>
      (await call('GET', `/reviews/${created.body.id}`)).body.status === 'pending' ? true : undefined,
    );
    const cancelled = await call('POST', `/reviews/${created.body.id}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ status: 'cancelled' });
    expect(String(cancelled.body.reason)).toContain('deploy-bot');
    // Behind the file's earlier cards and roots: chat.update goes out at Slack's pace (Tier 3,
    // about one a second here), so by now a dozen updates may be ahead of this one.
    await until(
      'the card updated',
      () =>
        updatesOf(tsOf(card)).find((u) => !(u.blocks as Post['blocks'])?.some((b) => b.type === 'actions')),
      60_000,
    );
  });

  it('a cancel overtaken by a decision (the task ended before it could be cancelled) answers with that decision, not a refusal', async () => {
    const body = ask();
    const created = await call('POST', '/reviews', { body });
    const { card, thread } = await cardOf(body.title);
    await until('pending', async () =>
      (await call('GET', `/reviews/${created.body.id}`)).body.status === 'pending' ? true : undefined,
    );
    const engine = file.service.signoff.engine;
    const cancel = engine.cancel;
    // The reviewer's Approve lands, and its task ends, after the cancel read the task and before it cancels.
    engine.cancel = async (taskId, ...rest) => {
      engine.cancel = cancel;
      await press('U0BOB', card, thread, 'Approve');
      await until('the task done', async () =>
        (await engine.getTask(taskId))?.status === 'done' ? true : undefined,
      );
      return cancel(taskId, ...rest);
    };
    try {
      const cancelled = await call('POST', `/reviews/${created.body.id}/cancel`);
      expect(cancelled.status).toBe(200);
      expect(cancelled.body).toMatchObject({ status: 'approved', decision: { by: 'U0BOB' } });
    } finally {
      engine.cancel = cancel;
    }
  });

  it('refuses bad input, a wrong token, a channel not the client’s and looser rules, with a sentence and nothing created', async () => {
    const before = (await file.service.signoff.engine.listTasks({ limit: 1000 })).length;
    const notJson = await call('POST', '/reviews', { raw: '{"title": ' });
    expect(notJson).toMatchObject({ status: 400, body: { error: { code: 'invalid_json' } } });
    const noTitle = await call('POST', '/reviews', { body: { channel: 'C0WORK', content: 'x' } });
    expect(noTitle.status).toBe(400);
    expect((noTitle.body.error as { fields: Record<string, string> }).fields).toHaveProperty('title');
    const both = await call('POST', '/reviews', { body: ask({ toolCall: { name: 'x', arguments: {} } }) });
    expect(both.status).toBe(400);
    expect(JSON.stringify(both.body)).toContain('content or a toolCall, not both');
    const neither = await call('POST', '/reviews', { body: ask({ content: undefined }) });
    expect(JSON.stringify(neither.body)).toContain('give what to review');
    const badSchema = await call('POST', '/reviews', {
      body: ask({ content: undefined, toolCall: { name: 'x', arguments: {}, schema: { type: 'nonsense' } } }),
    });
    expect(badSchema.status).toBe(400);
    // An async schema's check is a Promise (truthy for any arguments): it checks no edit.
    const asyncSchema = await call('POST', '/reviews', {
      body: ask({ content: undefined, toolCall: { name: 'x', arguments: {}, schema: { $async: true } } }),
    });
    expect(asyncSchema.status).toBe(400);
    expect(JSON.stringify(asyncSchema.body)).toContain(
      'an async schema ($async) is not one signoff can check',
    );
    const huge = await call('POST', '/reviews', { body: ask({ content: 'x'.repeat(300_000) }) });
    expect(huge).toMatchObject({ status: 413, body: { error: { code: 'too_large' } } });
    const wrongToken = await call('POST', '/reviews', { body: ask(), token: 'sk-nobody' });
    expect(wrongToken).toMatchObject({ status: 401, body: { error: { code: 'unauthorized' } } });
    const elsewhere = await call('POST', '/reviews', { body: ask({ channel: 'C0OTHER' }) });
    expect(elsewhere).toMatchObject({ status: 403, body: { error: { code: 'not_allowed' } } });
    const looser = await call('POST', '/reviews', {
      body: ask({ reviewers: ['U0EVE'], timeoutSeconds: 86_400 }),
    });
    expect(looser.status).toBe(403);
    expect(String((looser.body.error as { message: string }).message)).toMatch(
      /U0EVE is not a reviewer.*at most 7200 seconds/,
    );
    // The server calls back only where the config file lets this client be called back.
    const metadata = await call('POST', '/reviews', {
      body: ask({ callbackUrl: 'http://169.254.169.254/latest' }),
    });
    expect(metadata).toMatchObject({ status: 403, body: { error: { code: 'not_allowed' } } });
    expect(String((metadata.body.error as { message: string }).message)).toContain('http://127.0.0.1:');
    const unknown = await call('GET', '/reviews/00000000-0000-4000-8000-000000000000');
    expect(unknown.status).toBe(404);
    const badWait = await call('GET', `/reviews/00000000-0000-4000-8000-000000000000?wait=99`);
    expect(badWait.status).toBe(400);
    expect((await file.service.signoff.engine.listTasks({ limit: 1000 })).length).toBe(before);
    // The refused asks are in the audit, with the client and the sentence it was given.
    const refused = [];
    for await (const e of file.service.signoff.engine.auditTrail({}))
      if (e.who === 'api:deploy-bot' && e.result === 'refused') refused.push(e.reason ?? '');
    expect(refused.some((r) => r.includes('C0OTHER'))).toBe(true);
    expect(refused.some((r) => r.includes('U0EVE is not a reviewer'))).toBe(true);
  });

  it('calls back only where the config file says, read as the URL is fetched: no user name in front of another host, no longer host name, no ../ out of the path', async () => {
    const before = (await file.service.signoff.engine.listTasks({ limit: 1000 })).length;
    for (const callbackUrl of [
      // "127.0.0.1:" is a user name and an empty password here: the host is the metadata service.
      'http://127.0.0.1:@169.254.169.254/latest',
      'https://hooks.example.test@evil.test/hook',
      'https://hooks.example.test.evil.test/hook',
      'https://ci.example.test/signoff/../admin',
      'https://ci.example.test/signoff/%2e%2e/admin',
    ]) {
      const refused = await call('POST', '/reviews', { body: ask({ callbackUrl }) });
      expect(refused.status, callbackUrl).toBe(403);
      expect(refused.body, callbackUrl).toMatchObject({ error: { code: 'not_allowed' } });
    }
    expect((await file.service.signoff.engine.listTasks({ limit: 1000 })).length).toBe(before);
  });

  it('holds a client to its rate (kept in Postgres), with a Retry-After that refusals do not push back', async () => {
    const answers = [];
    for (let i = 0; i < 3; i++)
      answers.push(await call('GET', '/reviews/00000000-0000-4000-8000-000000000000', { token: OTHER }));
    expect(answers.map((a) => a.status)).toEqual([404, 429, 429]);
    expect(Number(answers[1]?.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(answers[1]?.body).toMatchObject({ error: { code: 'rate_limited' } });
    // Two a minute: the next call may go in about 30 s, whatever was refused meanwhile.
    const after = answers.slice(1).map((a) => Number(a.headers.get('retry-after')));
    for (const seconds of after) expect(seconds).toBeGreaterThan(25);
    for (const seconds of after) expect(seconds).toBeLessThanOrEqual(30);
  });

  describe('callbacks', () => {
    const received: { body: string; signature: string; review: string }[] = [];
    let failFirst = 0;
    let server: ReturnType<typeof createServer>;
    let url = '';
    beforeAll(async () => {
      server = createServer((req: IncomingMessage, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c) => chunks.push(c));
        req.on('end', () => {
          if (failFirst-- > 0) {
            res.writeHead(500).end();
            return;
          }
          received.push({
            body: Buffer.concat(chunks).toString(),
            signature: String(req.headers['signoff-signature']),
            review: String(req.headers['signoff-review']),
          });
          res.writeHead(204).end();
        });
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    });
    afterAll(() => new Promise<void>((r) => server.close(() => r())));

    it('calls back once with the decision, signed with the key /callback-key serves, after a failed try', async () => {
      failFirst = 1;
      const body = ask({ callbackUrl: url });
      const created = await call('POST', '/reviews', { body });
      const { card, thread } = await cardOf(body.title);
      await press('U0DAN', card, thread, 'Approve');
      const got = await until(
        'the callback',
        () => received.find((r) => r.review === created.body.id),
        20_000,
      );
      const [, t, signed] = got.signature.match(/^t=(\d+),ed25519=([A-Za-z0-9+/=]+)$/) ?? [];
      const key = (await call('GET', '/callback-key', { token: null })).body as { publicKey: string };
      expect(
        verify(null, Buffer.from(`${t}.${got.body}`), key.publicKey, Buffer.from(String(signed), 'base64')),
      ).toBe(true);
      // Not over another body.
      expect(
        verify(null, Buffer.from(`${t}.${got.body} `), key.publicKey, Buffer.from(String(signed), 'base64')),
      ).toBe(false);
      expect(Math.abs(Date.now() / 1000 - Number(t))).toBeLessThan(60);
      expect(JSON.parse(got.body)).toMatchObject({
        id: created.body.id,
        status: 'approved',
        decision: { by: 'U0DAN', approvals: [{ by: 'U0DAN', at: expect.any(String) }] },
      });
      // Recorded once the receiver has answered: after it saw the call.
      const row = await until('the callback recorded as delivered', async () => {
        const r = await file.service.signoff.db.pool.query(
          'SELECT attempts, delivered_at FROM signoff.ask_callbacks WHERE ask_id = $1',
          [created.body.id],
        );
        return r.rows[0]?.delivered_at ? r.rows[0] : undefined;
      });
      expect(row).toMatchObject({ attempts: 2 });
      expect(received.filter((r) => r.review === created.body.id)).toHaveLength(1);
    });
  });

  it('serves an OpenAPI document that every answer above fits, and serves every operation it lists', async () => {
    const doc = (await fetch(`${base()}/openapi.json`).then((r) => r.json())) as {
      paths: Record<
        string,
        Record<
          string,
          { responses: Record<string, { content: { 'application/json': { schema: { $ref: string } } } }> }
        >
      >;
      components: { schemas: Record<string, object> };
    };
    const ajv = new Ajv2020({ strict: false });
    // ajv-formats is CommonJS: under NodeNext its default export arrives wrapped (uuid, uri checked).
    (formatsPlugin as unknown as { default: (a: Ajv2020) => void }).default(ajv);
    const schemas = Object.fromEntries(
      Object.entries(doc.components.schemas).map(([k, s]) => [k, ajv.compile(s)]),
    );
    const route = (method: string, path: string) => {
      const bare = path.split('?')[0] ?? '';
      return Object.entries(doc.paths).find(([p]) =>
        new RegExp(`^${p.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(bare),
      )?.[1]?.[method.toLowerCase()];
    };
    expect(seen.length).toBeGreaterThan(20);
    // A decision says who approved, each approval with who, when and for whom (a delegate's).
    const decision = (
      doc.components.schemas.Review as {
        properties: { decision: { properties: Record<string, unknown>; required: string[] } };
      }
    ).properties.decision;
    expect(decision.required).toContain('approvals');
    expect(decision.properties.approvals).toMatchObject({
      type: 'array',
      description: expect.stringContaining('N of M'),
      items: {
        properties: { by: { type: 'string' }, at: { type: 'string' }, for: { type: 'string' } },
        required: ['by', 'at'],
      },
    });
    // While pending, the same: who approved so far, each with who, when and for whom.
    const pending = (
      doc.components.schemas.Review as {
        properties: { approvals: { properties: Record<string, unknown>; required: string[] } };
      }
    ).properties.approvals;
    expect(pending.required).toEqual(['count', 'needed', 'given']);
    expect(pending.properties.given).toMatchObject({
      type: 'array',
      items: {
        properties: { by: { type: 'string' }, at: { type: 'string' }, for: { type: 'string' } },
        required: ['by', 'at'],
      },
    });
    // The request side: what the server takes, the document takes; what it refuses field by field, so does the document.
    const request = ajv.compile(doc.components.schemas.CreateReview as object);
    expect(request(ask())).toBe(true);
    expect(request({ channel: 'C0WORK', content: 'x' })).toBe(false);
    expect(request(ask({ approvals: 0 }))).toBe(false);
    expect(request(ask({ callbackUrl: 'ftp://x' }))).toBe(false);
    // Content or a tool call, exactly one; a title of blanks is no title; a key of no characters is none.
    expect(request(ask({ content: undefined }))).toBe(false);
    expect(request(ask({ toolCall: { name: 'x', arguments: {} } }))).toBe(false);
    expect(request(ask({ content: undefined, toolCall: { name: 'x', arguments: {} } }))).toBe(true);
    expect(request(ask({ title: '   ' }))).toBe(false);
    const create = (
      doc.paths['/api/v1/reviews'] as unknown as { post: { parameters: { name: string; schema: object }[] } }
    ).post;
    const key = ajv.compile(create.parameters.find((p) => p.name === 'Idempotency-Key')?.schema ?? {});
    expect(key('')).toBe(false);
    expect(key('deploy-1')).toBe(true);
    for (const s of seen) {
      const op = route(s.method, `/api/v1${s.path}`);
      expect(op, `${s.method} ${s.path} is in the document`).toBeDefined();
      const response = op?.responses[String(s.answer.status)];
      expect(
        response,
        `${s.method} ${s.path} answers ${s.answer.status}, which the document lists`,
      ).toBeDefined();
      const name = response?.content['application/json'].schema.$ref.split('/').pop() as string;
      const valid = schemas[name] as ReturnType<Ajv2020['compile']>;
      expect(
        valid(s.answer.body),
        `${s.method} ${s.path} ${s.answer.status}: ${JSON.stringify(valid.errors)}`,
      ).toBe(true);
    }
    // Each operation the document lists is served (an unknown route would not answer JSON).
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const method of Object.keys(ops)) {
        const res = await fetch(
          `${base().replace('/api/v1', '')}${path.replace('{id}', '00000000-0000-4000-8000-000000000000')}`,
          {
            method: method.toUpperCase(),
            headers: { authorization: `Bearer ${TOKEN}` },
          },
        );
        expect(res.headers.get('content-type'), `${method} ${path}`).toContain('application/json');
      }
    }
  });
});
