/**
 * The MCP server through the SDK's own client, over streamable HTTP at /mcp on the app's port
 * (stdio: mcp-stdio.int.test.ts), against the fake Slack: request_signoff blocks until a
 * person clicks in the card, telling the client how the review goes while it waits (and again and
 * again when nothing changes, so that a client that resets its timeout on progress keeps waiting);
 * cancelling the call cancels the review, while a client's own timeout leaves it open for a retry
 * with the same idempotency key; get_signoff reads a review by id; a wrong token is refused. The
 * progress names whom the review still waits on, as the engine fills its seats.
 */
import { createHash } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { askCards } from '../helpers/ask-cards.js';
import { postSigned, reviseSubmission } from '../helpers/slack-requests.js';
import { slackPerFile } from '../helpers/slack-service.js';
import { type Post, slackThreads, until } from '../helpers/slack-thread.js';

const TOKEN = 'sk-coding-agent-0123456789';
const sha = (t: string) => createHash('sha256').update(t).digest('hex');

const LOOP = 'sk-loop-bot-0123456789';
const SLOW = 'sk-slow-bot-0123456789';
const YAML = `api:
  clients:
    coding-agent:
      tokenSha256: ${sha(TOKEN)}
      channels: [C0WORK]
      perMinute: 600
    loop-bot:
      tokenSha256: ${sha(LOOP)}
      channels: [C0WORK]
      perMinute: 100000
    slow-bot:
      tokenSha256: ${sha(SLOW)}
      channels: [C0WORK]
      perMinute: 2
workflows:
  ask:
    checkpoints:
      review: { reviewers: [U0BOB, U0CAT, U0DAN], timeout: 2h }
      tool_call: { reviewers: [requester, S0OPS, U0DAN] }
`;

/** Progress every 300 ms here (15 s in production): a test sees several within a short timeout. */
const file = slackPerFile('mcp_doors', {
  yaml: YAML,
  options: { mcpProgressEveryMs: 300, mcpUnheardWaitMs: 2000 },
});
const { slack } = file;
const { posts, tsOf, updatesOf } = slackThreads(slack);

const { cardOf, press } = askCards(file);

async function overHttp(token = TOKEN): Promise<Client> {
  const client = new Client({ name: 'test-agent', version: '1.0.0' });
  const url = new URL(file.events.replace('/slack/events', '/mcp'));
  await client.connect(
    new StreamableHTTPClientTransport(url, {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

let n = 0;
const ask = (over: Record<string, unknown> = {}) => ({
  channel: 'C0WORK',
  title: `Merge PR #${++n}`,
  content: `Refactor the parser (PR ${n}): **no behaviour change**.`,
  ...over,
});

/** A call under way: what progress it heard, and whether it has answered yet. */
function calling(
  client: Client,
  args: Record<string, unknown>,
  o: { signal?: AbortSignal; timeout?: number; reset?: boolean } = {},
) {
  const heard: Progress[] = [];
  let answered = false;
  const result = client
    .callTool({ name: 'request_signoff', arguments: args }, undefined, {
      onprogress: (p) => heard.push(p),
      signal: o.signal,
      timeout: o.timeout ?? 60_000,
      resetTimeoutOnProgress: o.reset ?? false,
    })
    .finally(() => {
      answered = true;
    }) as Promise<CallToolResult>;
  return { heard, result, answered: () => answered };
}

const heardSaying = (heard: Progress[], words: string) =>
  until(`progress saying "${words}"`, () => heard.find((p) => p.message?.includes(words)));

describe('MCP over streamable HTTP', () => {
  it('request_signoff blocks until the reviewers click, with progress that names who approved so far (get_signoff reads the same while pending), and returns the decision naming both approvers, in order', async () => {
    const client = await overHttp();
    const body = ask({ approvals: 2 });
    const call = calling(client, body);
    const { card, thread, root } = await cardOf(body.title);
    expect(JSON.stringify(root.blocks)).toContain('*coding-agent* (through MCP)');
    await heardSaying(call.heard, 'waiting for U0BOB, U0CAT, U0DAN; 0 of 2 approvals');
    expect(call.answered()).toBe(false);
    await press('U0BOB', card, thread, 'Approve');
    // Who approved so far, and no longer among those it waits for.
    const one = await heardSaying(call.heard, 'waiting for U0CAT, U0DAN; 1 of 2 approvals (U0BOB approved)');
    expect(call.answered()).toBe(false);
    // get_signoff, meanwhile, reads it pending with the same: who approved, and when.
    const pendingId = one.message?.match(/^review ([0-9a-f-]{36}):/)?.[1] as string;
    const pending = (await client.callTool({
      name: 'get_signoff',
      arguments: { id: pendingId },
    })) as CallToolResult;
    expect(pending.structuredContent).toMatchObject({
      status: 'pending',
      approvals: { count: 1, needed: 2, given: [{ by: 'U0BOB', at: expect.any(String) }] },
    });
    expect((pending.content as { text: string }[])[0]?.text).toContain(
      'is waiting for U0CAT, U0DAN; 1 of 2 approvals (U0BOB approved).',
    );
    await press('U0CAT', card, thread, 'Approve');
    const result = await call.result;
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({
      status: 'approved',
      title: body.title,
      decision: {
        by: 'U0CAT',
        approvals: [
          { by: 'U0BOB', at: expect.any(String) },
          { by: 'U0CAT', at: expect.any(String) },
        ],
      },
    });
    // The words a model reads name both, not only the last to click.
    expect((result.content as { text: string }[])[0]?.text).toMatch(
      /^Approved by U0BOB and U0CAT \(2 approvals\)\./,
    );
    // get_signoff reads the same review by its id.
    const id = (result.structuredContent as { id: string }).id;
    const read = (await client.callTool({ name: 'get_signoff', arguments: { id } })) as CallToolResult;
    expect(read.structuredContent).toMatchObject({ id, status: 'approved' });
    await client.close();
  });

  it('names only whom the review still waits on: never `requester` (at a door, the agent asking), and a user group until the end, since each of its members counts as one approval', async () => {
    slack.groups = { ...slack.groups, S0OPS: ['U0EVE', 'U0ANN'] };
    const client = await overHttp();
    const toolCall = { name: 'restart_service', arguments: { service: 'billing' } };
    const body = ask({ content: undefined, toolCall, approvals: 2 });
    const call = calling(client, body);
    const { card, thread } = await cardOf(body.title);
    await heardSaying(call.heard, 'waiting for S0OPS, U0DAN; 0 of 2 approvals');
    await press('U0EVE', card, thread, 'Approve');
    const one = await heardSaying(call.heard, 'waiting for S0OPS, U0DAN; 1 of 2 approvals (U0EVE approved)');
    // The view still names every reviewer as the checkpoint does; only the words leave seats out.
    const id = one.message?.match(/^review ([0-9a-f-]{36}):/)?.[1] as string;
    const pending = (await client.callTool({ name: 'get_signoff', arguments: { id } })) as CallToolResult;
    expect(pending.structuredContent).toMatchObject({
      status: 'pending',
      reviewers: ['requester', 'S0OPS', 'U0DAN'],
      approvals: { count: 1, needed: 2, given: [{ by: 'U0EVE' }] },
    });
    expect((pending.content as { text: string }[])[0]?.text).toContain(
      'is waiting for S0OPS, U0DAN; 1 of 2 approvals (U0EVE approved).',
    );
    // Another member of the group makes the quorum: one member's approval did not fill the group's seat.
    await press('U0ANN', card, thread, 'Approve');
    const result = await call.result;
    expect(result.structuredContent).toMatchObject({
      status: 'approved',
      decision: { approvals: [{ by: 'U0EVE' }, { by: 'U0ANN' }] },
    });
    await client.close();
  });

  it('keeps a client that resets its timeout on progress waiting past that timeout, and returns the arguments a reviewer edited', async () => {
    const client = await overHttp();
    const schema = { type: 'object', properties: { table: { type: 'string' } }, required: ['table'] };
    const toolCall = { name: 'drop_table', arguments: { table: 'users' }, schema };
    const body = ask({ content: undefined, toolCall });
    // A 1.5 s timeout, reset by each progress: the review takes longer than that.
    const call = calling(client, body, { timeout: 1500, reset: true });
    const { card, thread } = await cardOf(body.title);
    await until('progress for over 2 s', () => (call.heard.length >= 8 ? true : undefined), 20_000);
    expect(call.answered()).toBe(false);
    const before = slack.callsOf('views.update').length;
    await press('U0DAN', card, thread, 'Edit');
    const view = (await until('the form', () => slack.callsOf('views.update')[before])).view as {
      private_metadata: string;
    };
    await postSigned(
      file.events,
      reviseSubmission('U0DAN', view.private_metadata, '', {
        field_args_0: JSON.stringify({ table: 'users_old' }),
      }),
    );
    const result = await call.result;
    expect(result.structuredContent).toMatchObject({
      status: 'approved',
      decision: { by: 'U0DAN', arguments: { table: 'users_old' }, edited: true },
    });
    expect((result.content as { text: string }[])[0]?.text).toContain('"table": "users_old"');
    await client.close();
  });

  it('a cancelled call cancels its review: the card loses its buttons and get_signoff reads cancelled', async () => {
    const client = await overHttp();
    const body = ask();
    const abort = new AbortController();
    const call = calling(client, body, { signal: abort.signal });
    const { card } = await cardOf(body.title);
    const pending = await heardSaying(call.heard, 'waiting for');
    const id = pending.message?.match(/^review ([0-9a-f-]{36}):/)?.[1] as string;
    abort.abort('the user pressed Esc');
    await expect(call.result).rejects.toThrow();
    await until('the card without buttons', () =>
      updatesOf(tsOf(card)).find((u) => !(u.blocks as Post['blocks'])?.some((b) => b.type === 'actions')),
    );
    const read = (await client.callTool({ name: 'get_signoff', arguments: { id } })) as CallToolResult;
    expect(read.structuredContent).toMatchObject({ id, status: 'cancelled' });
    expect(String((read.structuredContent as { reason: string }).reason)).toContain('coding-agent');
    await client.close();
  });

  it('a client’s own timeout leaves the review open: a retry with the same idempotency key waits for the same review', async () => {
    const client = await overHttp();
    const body = ask({ idempotencyKey: `merge-${n + 1}` });
    const first = calling(client, body, { timeout: 1500 });
    const { card, thread } = await cardOf(body.title);
    await expect(first.result).rejects.toThrow(/timed out/i);
    const again = calling(client, body);
    const pending = await heardSaying(again.heard, 'waiting for');
    expect(card.blocks.some((b) => b.type === 'actions')).toBe(true);
    expect(
      updatesOf(tsOf(card)).filter((u) => !(u.blocks as Post['blocks'])?.some((b) => b.type === 'actions')),
    ).toEqual([]);
    await press('U0BOB', card, thread, 'Approve');
    const result = await again.result;
    expect(result.structuredContent).toMatchObject({ status: 'approved' });
    expect(pending.message).toContain((result.structuredContent as { id: string }).id);
    expect(posts().filter((p) => !p.thread_ts && p.text.includes(body.title as string))).toHaveLength(1);
    await client.close();
  });

  it('a call that hears no progress answers pending with the review id before a client would time out, and the review stays open', async () => {
    const client = await overHttp();
    const body = ask();
    // No onprogress: the client sends no progress token, so it would hear nothing for minutes.
    const result = (await client.callTool({ name: 'request_signoff', arguments: body })) as CallToolResult;
    expect(result.structuredContent).toMatchObject({ status: 'pending' });
    const { id } = result.structuredContent as { id: string };
    const { card, thread } = await cardOf(body.title);
    await press('U0BOB', card, thread, 'Approve');
    const read = (await client.callTool({
      name: 'get_signoff',
      arguments: { id, waitSeconds: 20 },
    })) as CallToolResult;
    expect(read.structuredContent).toMatchObject({ id, status: 'approved' });
    await client.close();
  });

  it('one client cannot take every session: past its own cap, or its rate, an initialize is refused with why', async () => {
    const initialize = (token: string) =>
      fetch(file.events.replace('/slack/events', '/mcp'), {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: {
            protocolVersion: '2025-06-18',
            capabilities: {},
            clientInfo: { name: 'loop', version: '1' },
          },
        }),
      });
    const statuses: number[] = [];
    for (let i = 0; i < 51; i++) {
      const res = await initialize(LOOP);
      statuses.push(res.status);
      if (res.status !== 200) expect(await res.text()).toContain('sessions open');
      else await res.body?.cancel();
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(50);
    expect(statuses.at(-1)).toBe(429);
    // Another client still gets in.
    const other = await overHttp();
    await other.close();
    // A client over its rate is told when to come back.
    const slow = [await initialize(SLOW), await initialize(SLOW)];
    expect(slow[1]?.status).toBe(429);
    expect(Number(slow[1]?.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('refuses a wrong token, and says why a review is refused (a channel not the client’s)', async () => {
    await expect(overHttp('sk-nobody-0123456789')).rejects.toThrow(/401|valid token/);
    const client = await overHttp();
    const refused = (await client.callTool({
      name: 'request_signoff',
      arguments: ask({ channel: 'C0OTHER' }),
    })) as CallToolResult;
    expect(refused.isError).toBe(true);
    expect((refused.content as { text: string }[])[0]?.text).toContain('may not ask in C0OTHER');
    await client.close();
  });
});
