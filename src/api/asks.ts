/**
 * Reviews asked by agents that run elsewhere, whatever the door (the HTTP API, the MCP tool):
 * each is a task of the `ask` workflow in a Slack channel, so the card, N of M, escalation,
 * timeouts, the exactly-once decision and the audit are the engine's, as for any task. This
 * checks an ask against the client's channels and the channel's rules, records it once per
 * idempotency key, and reads back what became of it.
 */
import { createHash, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import type { ApiClient } from '../config/api-clients.js';
import { checkpointSettings, type WorkflowsConfig } from '../config/workflows.js';
import { inTransaction } from '../db/queryable.js';
import type { ChannelStarts } from '../engine/index.js';
import {
  type AskInput,
  canonicalJson,
  type Door,
  type Engine,
  FINAL_STATUSES,
  narrowRules,
} from '../engine/index.js';
import { isSignoffError, SignoffError } from '../errors.js';
import type { Logger } from '../logger.js';
import { unreachableReview } from './ask-quorum.js';
import { type AskRow, getAsk, getAskByKey, insertAsk } from './ask-rows.js';
import { type AskView, type CreateAsk, FINAL_ASK_STATUSES } from './ask-shapes.js';
import { askView } from './ask-view.js';
import { allowedCallbackUrl } from './callback-urls.js';

export const ASK_WORKFLOW = 'ask';
/** A cancel waits this long for a start under way to post its card (it usually takes a second). */
const CANCEL_WAIT_MS = 10_000;

/** A long-poll looks again this often; after its first minute (people take hours), less often. */
const POLL_MS = 500;
const SLOW_POLL_MS = 3000;

export interface AsksDeps {
  pool: pg.Pool;
  engine: Engine;
  starts: ChannelStarts;
  workflows: WorkflowsConfig;
  logger: Logger;
}

export type Asks = ReturnType<typeof createAsks>;

export function createAsks(deps: AsksDeps) {
  const { pool, engine, starts } = deps;

  const requester = (door: Door, client: ApiClient) => `${door}:${client.name}`;

  /**
   * The ask checked before anything is recorded, and where to call it back (as it will be
   * fetched); a refusal is a `SignoffError` with its sentence.
   */
  async function check(
    door: Door,
    client: ApiClient,
    body: CreateAsk,
  ): Promise<{ input: AskInput; callbackUrl?: string }> {
    if (!client.channels.includes(body.channel)) {
      throw new SignoffError(
        'not_allowed',
        `Client ${client.name} may not ask in ${body.channel}; its channels are ${client.channels.join(', ')}.`,
      );
    }
    engine.validate({ workflow: ASK_WORKFLOW, text: body.title, channel: body.channel });
    const callbackUrl = body.callbackUrl && allowedCallbackUrl(body.callbackUrl, client.callbackUrls);
    if (body.callbackUrl && !callbackUrl) {
      throw new SignoffError(
        'not_allowed',
        client.callbackUrls.length
          ? `Client ${client.name} may be called back only at ${client.callbackUrls.join(', ')}.`
          : `Client ${client.name} has no callbackUrls in the config file: list where it may be called back (api.clients.${client.name}.callbackUrls), or poll instead.`,
      );
    }
    const { reviewers, approvals, timeoutSeconds } = body;
    const rules =
      reviewers || approvals || timeoutSeconds ? { reviewers, approvals, timeoutSeconds } : undefined;
    const kind = body.toolCall ? 'tool_call' : 'review';
    const { settings, refused } = narrowRules(checkpointSettings(deps.workflows, ASK_WORKFLOW, kind), rules);
    if (refused.length) throw new SignoffError('not_allowed', refused.join(' '));
    const unreachable = unreachableReview(settings, kind);
    if (unreachable) throw new SignoffError('not_allowed', unreachable);
    const limit = await engine.startRefusal({
      surface: 'slack',
      requester: requester(door, client),
      channel: body.channel,
    });
    if (limit) throw new SignoffError('too_many_tasks', limit);
    const input = {
      title: body.title,
      ...(body.content !== undefined ? { content: body.content } : {}),
      ...(body.toolCall ? { toolCall: body.toolCall } : {}),
      ...(rules ? { rules } : {}),
    };
    return { input, ...(callbackUrl ? { callbackUrl } : {}) };
  }

  /**
   * Asks once per key: the same key again returns the first ask (`created` false), unless it
   * asked something else ('idempotency_mismatch'). With no key, every call is a new ask.
   */
  async function create(
    door: Door,
    client: ApiClient,
    body: CreateAsk,
    idempotencyKey?: string,
  ): Promise<{ view: AskView; created: boolean }> {
    const fingerprint = createHash('sha256').update(canonicalJson(body)).digest('hex');
    const id = randomUUID();
    const key = idempotencyKey ?? id;
    const requestKey = `${door}:${client.name}:${id}`;
    // A key used before answers as before, even if the channel's rules changed since.
    const before = idempotencyKey ? await getAskByKey(pool, client.name, idempotencyKey) : undefined;
    if (before) return { view: await replay(before, fingerprint), created: false };
    const { input, callbackUrl } = await check(door, client, body).catch(async (error: unknown) => {
      // Every ask is in the audit, those refused too (with the sentence the agent was given).
      if (isSignoffError(error))
        await engine.auditRefusal({
          actor: requester(door, client),
          action: 'start',
          code: error.code,
          message: error.message,
          detail: { workflow: ASK_WORKFLOW, door, channel: body.channel },
        });
      throw error;
    });
    const start = {
      channel: body.channel,
      user: requester(door, client),
      workflow: ASK_WORKFLOW,
      text: body.title,
      door,
      input,
    };
    // Slack is asked what it must be asked (the workspace) before the transaction, not inside it.
    await starts.ready();
    const result = await inTransaction(pool, async (db) => {
      const inserted = await insertAsk(db, {
        id,
        client: client.name,
        door,
        idempotencyKey: key,
        fingerprint,
        requestKey,
        channel: body.channel,
        title: body.title,
        callbackUrl: callbackUrl ?? null,
      });
      if (inserted.created) await starts.claim(db, requestKey, start);
      return inserted;
    });
    if (!result.created) return { view: await replay(result.ask, fingerprint), created: false };
    // Posted after the answer: the client reads `starting`, then the card's progress.
    void starts
      .finish(requestKey, start)
      .catch((err) => deps.logger.warn({ err, ask: id }, 'the ask was not started yet; the sweep starts it'));
    return { view: await viewOf(result.ask), created: true };
  }

  /** The first ask under this key, as it is now; refused when the key asked something else. */
  async function replay(ask: AskRow, fingerprint: string): Promise<AskView> {
    if (ask.fingerprint !== fingerprint) {
      throw new SignoffError(
        'idempotency_mismatch',
        'This idempotency key was used for a different review; use a new key for a new review.',
      );
    }
    return viewOf(ask);
  }

  /** The ask as it is now, for its own client only. */
  async function view(client: string, id: string): Promise<AskView | undefined> {
    const ask = await getAsk(pool, id, client);
    return ask && viewOf(ask);
  }

  async function viewOf(ask: AskRow): Promise<AskView> {
    const start = await starts.state(ask.requestKey);
    const task = start.taskId ? await engine.getTask(start.taskId) : undefined;
    const reviews = task ? await engine.reviews(task.id) : [];
    return askView(ask, start, task, reviews);
  }

  /**
   * The ask once it has an answer (decided, cancelled, failed), or as it is when `waitMs` is up,
   * or when `signal` aborts (the client went away). `onChange` hears each new state meanwhile.
   */
  async function wait(
    client: ApiClient,
    id: string,
    waitMs: number,
    o: { signal?: AbortSignal; onChange?: (view: AskView) => void } = {},
  ): Promise<AskView | undefined> {
    const began = Date.now();
    const until = began + waitMs;
    let last = '';
    for (;;) {
      const now = await view(client.name, id);
      if (!now) return undefined;
      const seen = JSON.stringify(now);
      if (seen !== last) {
        if (last) o.onChange?.(now);
        last = seen;
      }
      if (FINAL_ASK_STATUSES.includes(now.status) || Date.now() >= until || o.signal?.aborted) return now;
      const every = Date.now() - began < 60_000 ? POLL_MS : SLOW_POLL_MS;
      await sleep(Math.min(every, Math.max(0, until - Date.now())), undefined, { signal: o.signal }).catch(
        () => undefined,
      );
    }
  }

  /** Cancels the ask's review (as its requester: the agent that asked). */
  async function cancel(client: ApiClient, id: string): Promise<AskView | undefined> {
    const ask = await getAsk(pool, id, client.name);
    if (!ask) return undefined;
    let start = await starts.state(ask.requestKey);
    // A start under way is waited for a little: a client that cancels right after asking means it.
    for (const until = Date.now() + CANCEL_WAIT_MS; !start.taskId && !start.refusal && Date.now() < until; ) {
      await sleep(POLL_MS);
      start = await starts.state(ask.requestKey);
    }
    if (!start.taskId) {
      if (start.refusal) return view(client.name, id);
      throw new SignoffError(
        'still_starting',
        'The review is still being posted; cancel it again in a few seconds.',
      );
    }
    const task = await engine.getTask(start.taskId);
    if (task && !FINAL_STATUSES.includes(task.status)) {
      await engine
        .cancel(
          task.id,
          { id: requester(ask.door, client) },
          {
            reason: `cancelled by ${client.name} (${ask.door === 'api' ? 'through the API' : 'through MCP'})`,
          },
        )
        // A decision came first and the task ended meanwhile: the answer is that decision.
        .catch((error: unknown) => {
          if (!isSignoffError(error, 'task_not_waiting')) throw error;
        });
    }
    return view(client.name, id);
  }

  return {
    create,
    view: (client: Pick<ApiClient, 'name'>, id: string) => view(client.name, id),
    wait,
    cancel,
  };
}
