/**
 * The MCP server one client talks to (over stdio or one HTTP session): `request_signoff` asks the
 * team in a Slack channel and waits for the decision, telling the client how it goes while it
 * waits; `get_signoff` reads a review by id, for clients that cannot wait. Both are the same asks
 * as the HTTP API's (api/asks.ts): the same card, rules, idempotency and audit, door `mcp`.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { type AskView, askFields, askViewSchema, FINAL_ASK_STATUSES } from '../api/ask-shapes.js';
import type { Asks } from '../api/asks.js';
import type { ApiClient } from '../config/api-clients.js';
import { oneOfContentOrCall } from '../engine/index.js';
import { isSignoffError } from '../errors.js';
import type { Logger } from '../logger.js';
import { answerWords, waitingWords } from './words.js';

/**
 * How often a waiting call tells the client it still waits, changed or not: well within the 60 s
 * a client waits by default, so that one that resets its timeout on progress waits as long as
 * the review takes.
 */
export const PROGRESS_EVERY_MS = 15_000;
/** The longest `get_signoff` waits: under a client's default 60 s request timeout. */
export const GET_WAIT_MAX_SECONDS = 45;
/** How long a call with no progress token waits before answering pending (clients time out at 60 s). */
const UNHEARD_WAIT_MS = 50_000;
/** A cancelled call whose review is still being posted tries its cancel again this long. */
const CANCEL_RETRY_MS = 30_000;

export interface McpDeps {
  asks: Asks;
  /** Takes one of the client's calls: 0 when it may go, else the milliseconds to wait. */
  take(client: ApiClient): Promise<number>;
  logger: Logger;
  /** The sentence for a call that failed on signoff's side, naming what did not answer (api/unavailable.ts). */
  unavailable(error: unknown): string;
  /** How often a waiting call sends progress (tests shorten it). */
  progressEveryMs?: number;
  /** How long a call that hears no progress waits before answering pending (tests shorten it). */
  unheardWaitMs?: number;
}

const requestInput = z
  .object({
    ...askFields,
    channel: askFields.channel.describe('The Slack channel id (C…) to ask in: one this client may use.'),
    title: askFields.title.describe('What the reviewers are asked, in a line ("Deploy 2.4 to production").'),
    content: askFields.content.describe('What to review, as Markdown. Give this or toolCall.'),
    toolCall: askFields.toolCall.describe(
      'A tool call to approve before running it: {name, arguments, schema?}. Reviewers may edit the arguments (checked against schema).',
    ),
    idempotencyKey: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe(
        'The same key again (e.g. a retry after a timeout) returns the same review instead of asking twice.',
      ),
    waitSeconds: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe(
        'How long to wait for the decision; 0 returns at once with the review id (then call get_signoff). Default: until decided.',
      ),
  })
  .strict()
  .superRefine(oneOfContentOrCall);

const getInput = z
  .object({
    id: z.uuid().describe('The review id request_signoff returned.'),
    waitSeconds: z
      .number()
      .int()
      .min(0)
      .max(GET_WAIT_MAX_SECONDS)
      .optional()
      .describe(`Wait up to this long for a decision (at most ${GET_WAIT_MAX_SECONDS}); default 0.`),
  })
  .strict();

/** The client cancelled on a timeout of its own: the review stays open for a retry with its key. */
const isTimeout = (reason: unknown) => /timed? ?out/i.test(String(reason));

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

const text = (t: string) => [{ type: 'text' as const, text: t }];
const refusal = (t: string): CallToolResult => ({ isError: true, content: text(t) });
const answer = (view: AskView): CallToolResult => ({
  content: text(answerWords(view)),
  structuredContent: view,
});

export function createMcpServer(deps: McpDeps, client: ApiClient): McpServer {
  const { asks, logger } = deps;
  const every = deps.progressEveryMs ?? PROGRESS_EVERY_MS;
  // The tools' version, as the API's is /api/v1: it changes when a tool's shape does.
  const server = new McpServer({ name: 'signoff', version: '1' });
  // Set when the connection ends: the calls under way stop waiting, and no review is cancelled.
  let closed = false;
  server.server.onclose = () => {
    closed = true;
  };

  /** Within the client's rate; a refusal or a failure is a tool error in a sentence. */
  const guarded =
    <A>(fn: (args: A, extra: Extra) => Promise<CallToolResult>) =>
    async (args: A, extra: Extra): Promise<CallToolResult> => {
      try {
        const waitMs = await deps.take(client);
        if (waitMs > 0)
          return refusal(
            `Too many calls for client ${client.name}; try again in ${Math.ceil(waitMs / 1000)} s.`,
          );
        return await fn(args, extra);
      } catch (error) {
        if (isSignoffError(error)) return refusal(error.message);
        logger.error({ err: error, client: client.name }, 'an MCP call failed');
        return refusal(deps.unavailable(error));
      }
    };

  server.registerTool(
    'request_signoff',
    {
      title: 'Ask the team for sign-off',
      description:
        'Asks people in a Slack channel to approve, revise or reject content or a tool call, and waits until they decide. Returns approved (with the arguments to run a tool call with, maybe edited; decision.approvals names everyone who approved, in order), revised (with feedback) or rejected. Sends progress while waiting ("waiting for U0CAT; 1 of 2 approvals (U0BOB approved)"); cancelling the call cancels the review. People may take hours: pass an idempotencyKey, and if the call times out call again with the same key (the same review, not a second one), or call get_signoff with the id. Without progress notifications it returns after about 50 s with status pending and the id.',
      inputSchema: requestInput,
      outputSchema: askViewSchema,
    },
    guarded(async ({ idempotencyKey, waitSeconds, ...body }, extra) => {
      const { view: created } = await asks.create('mcp', client, body, idempotencyKey);
      const progress = progressOf(extra, created.id);
      let view = created;
      await progress(view);
      // A client that hears no progress would time out on its own (the SDK's default is 60 s,
      // and the agent would learn nothing): it is answered pending, with the id, before that.
      const listening = extra._meta?.progressToken !== undefined;
      const ms =
        waitSeconds !== undefined
          ? waitSeconds * 1000
          : listening
            ? undefined
            : (deps.unheardWaitMs ?? UNHEARD_WAIT_MS);
      const until = ms === undefined ? Number.POSITIVE_INFINITY : Date.now() + ms;
      while (!FINAL_ASK_STATUSES.includes(view.status) && Date.now() < until && !extra.signal.aborted) {
        const next = await asks.wait(client, created.id, Math.min(every, until - Date.now()), {
          signal: extra.signal,
          onChange: (v) => void progress(v),
        });
        if (!next) break;
        view = next;
        // Said again when nothing changed: the client's timeout starts over.
        if (!FINAL_ASK_STATUSES.includes(view.status) && !extra.signal.aborted) await progress(view);
      }
      if (extra.signal.aborted) return await abandoned(created.id, extra.signal.reason);
      return answer(view);
    }),
  );

  server.registerTool(
    'get_signoff',
    {
      title: 'Read a sign-off review',
      description:
        'Reads a review request_signoff asked for, by its id: pending (with who may decide, and approvals.given: who approved so far and when) or its decision. Optionally waits up to waitSeconds for a decision.',
      inputSchema: getInput,
      outputSchema: askViewSchema,
    },
    guarded(async ({ id, waitSeconds }, extra) => {
      const view = waitSeconds
        ? await asks.wait(client, id, waitSeconds * 1000, { signal: extra.signal })
        : await asks.view(client, id);
      if (!view) return refusal(`There is no review ${id} of client ${client.name}.`);
      return answer(view);
    }),
  );

  /** Sends `notifications/progress` when the client asked for it (its request's progressToken). */
  function progressOf(extra: Extra, id: string) {
    const token = extra._meta?.progressToken;
    let n = 0;
    return async (view: AskView) => {
      if (token === undefined || closed || extra.signal.aborted) return;
      n += 1;
      await extra
        .sendNotification({
          method: 'notifications/progress',
          params: { progressToken: token, progress: n, message: `review ${id}: ${waitingWords(view)}` },
        })
        .catch((err) => logger.debug({ err }, 'a progress notification was not sent'));
    };
  }

  /**
   * The call ended before the decision. Cancelled by the client: its review is cancelled too
   * (once posted). The connection gone, or the client's own timeout: the review stays open, for a
   * retry with the same idempotencyKey or get_signoff. Nobody reads this result.
   */
  async function abandoned(id: string, reason: unknown): Promise<CallToolResult> {
    if (closed || isTimeout(reason)) {
      logger.info({ ask: id, client: client.name }, 'an MCP call stopped waiting; its review stays open');
      return refusal('The call ended before a decision; the review stays open.');
    }
    const give = Date.now() + CANCEL_RETRY_MS;
    for (;;) {
      try {
        await asks.cancel(client, id);
        return refusal('Cancelled: the review was cancelled.');
      } catch (error) {
        if (!isSignoffError(error, 'still_starting') || Date.now() > give) throw error;
        await sleep(500);
      }
    }
  }

  return server;
}
