/**
 * What Slack's Web API takes and refuses, for the fake and the benchmarks: request bodies as it
 * reads them, its limits on a message's text and blocks, and its published rate limits.
 */
import type { IncomingMessage } from 'node:http';
import { blocksRefusal } from './slack-blocks.js';

function parseOr(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A request body as the Web API reads it: JSON, or a form whose objects are JSON strings. */
export async function readBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks).toString('utf8');
  if ((req.headers['content-type'] ?? '').includes('application/json')) return raw ? JSON.parse(raw) : {};
  const out: Record<string, unknown> = {};
  for (const [k, v] of new URLSearchParams(raw)) {
    // The Web API client sends objects and arrays as JSON strings inside a form.
    out[k] = /^[[{]/.test(v) ? parseOr(v) : v;
  }
  return out;
}

/**
 * All the text a message's blocks carry, counted the plain way: every `text` string anywhere in
 * them (block text, text objects, button labels, confirm dialogs).
 */
export function blockText(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((n: number, v) => n + blockText(v), 0);
  if (!value || typeof value !== 'object') return 0;
  let n = 0;
  for (const [k, v] of Object.entries(value))
    n += k === 'text' && typeof v === 'string' ? v.length : blockText(v);
  return n;
}

/**
 * Slack refuses a message whose blocks carry too much together (`msg_blocks_too_long`). It does not
 * publish the rule; what is known (bolt-js #2509, #2867): it counts the blocks' text and "a buffer
 * for block containers" against about 12,000, so the more blocks, the less text: a few markdown
 * blocks passed with 13,297 characters, adding a divider lowered that, and a message of rich_text,
 * section, header and divider blocks (four at least) was refused at 11,341 characters counted as
 * here. The fake charges each block `BLOCK_OVERHEAD` (about what a section block's container takes
 * as JSON: `{"type":"section","text":{"type":"mrkdwn","text":""}}` is 52 characters) and refuses
 * from the weight that refused message had with four blocks: never more lenient than what was
 * seen refused, stricter than what was seen taken.
 */
export const BLOCK_OVERHEAD = 50;
export const BLOCK_WEIGHT_REFUSED_FROM = 11_341 + 4 * BLOCK_OVERHEAD;

/** What Slack counts of a message's blocks against `msg_blocks_too_long`: their text and containers. */
export const blockWeight = (blocks: unknown[]): number => blockText(blocks) + BLOCK_OVERHEAD * blocks.length;

/**
 * `chat.update` refuses a long `text` with `msg_too_long` (its documented errors), where
 * `chat.postMessage` takes 40,000 characters. Slack does not publish the number: edits are reported
 * refused past 4,000, counted in UTF-8 bytes by one report, so the fake counts bytes (the stricter).
 */
export const UPDATE_TEXT_BYTES = 4000;

/**
 * What Slack says about a message's blocks and text, or undefined when it would accept them;
 * `method` is the call that carries it (`chat.update` takes a shorter text).
 */
export function slackRefusal(args: Record<string, unknown>, method = 'chat.postMessage'): string | undefined {
  const text = typeof args.text === 'string' ? args.text : '';
  if (text.length > 40_000) return 'msg_too_long';
  if (method === 'chat.update' && Buffer.byteLength(text, 'utf8') > UPDATE_TEXT_BYTES) return 'msg_too_long';
  const blocks = args.blocks ?? [];
  if (!Array.isArray(blocks) || blocks.length > 50) return 'invalid_blocks';
  if (blocksRefusal(blocks)) return 'invalid_blocks';
  if (blockWeight(blocks) >= BLOCK_WEIGHT_REFUSED_FROM) return 'msg_blocks_too_long';
  if (!text && blocks.length === 0) return 'no_text';
  return undefined;
}

/**
 * A limit Slack enforces: calls a minute, calls at once, and whether it is counted per channel.
 * `window`: counted as Tier 2's page words it, "at least 20 requests per minute": at most
 * `perMinute` calls in any minute, however close together (`burst` is then unused).
 */
export interface SlackLimit {
  perMinute: number;
  burst: number;
  perChannel?: boolean;
  window?: boolean;
}

/**
 * Slack's published limits (docs.slack.dev, "Rate limits"), which a FakeSlack enforces unless made
 * with `NO_LIMITS`: posts about one a second per channel with short bursts; chat.update and the other
 * Tier 3 methods 50 a minute per workspace; Tier 2, 20; Tier 4, 100.
 */
export const PUBLISHED_LIMITS: Record<string, SlackLimit> = {
  'chat.postMessage': { perMinute: 60, burst: 4, perChannel: true },
  'chat.update': { perMinute: 50, burst: 4 },
  'conversations.replies': { perMinute: 50, burst: 4 },
  'conversations.open': { perMinute: 50, burst: 4 },
  'chat.getPermalink': { perMinute: 100, burst: 6 },
  'usergroups.users.list': { perMinute: 20, burst: 3 },
  // Streams: starting and stopping one are Tier 2 each, per workspace (20 in any minute); appending is Tier 4.
  'chat.startStream': { perMinute: 20, burst: 20, window: true },
  'chat.stopStream': { perMinute: 20, burst: 20, window: true },
  'chat.appendStream': { perMinute: 100, burst: 6 },
  'conversations.members': { perMinute: 100, burst: 6 },
  // The rest of what the product calls: Tier 3 (50) and Tier 4 (100) per its method's page.
  'chat.delete': { perMinute: 50, burst: 4 },
  'conversations.history': { perMinute: 50, burst: 4 },
  'conversations.info': { perMinute: 50, burst: 4 },
  'users.conversations': { perMinute: 50, burst: 4 },
  'chat.postEphemeral': { perMinute: 100, burst: 6 },
  'users.info': { perMinute: 100, burst: 6 },
  'views.open': { perMinute: 100, burst: 6 },
  'views.push': { perMinute: 100, burst: 6 },
  'views.update': { perMinute: 100, burst: 6 },
  'views.publish': { perMinute: 100, burst: 6 },
  // The Messages tab: prompts are Tier 4; the thinking status has "special rate limits" (not
  // published), kept here as Tier 4.
  'assistant.threads.setSuggestedPrompts': { perMinute: 100, burst: 6 },
  'assistant.threads.setStatus': { perMinute: 100, burst: 6 },
  // Socket Mode's handshake (app-level token): Tier 3 on its method's page.
  'apps.connections.open': { perMinute: 50, burst: 4 },
};

/**
 * No limits at all: more lenient than Slack. Only for a test whose own setup bursts past Slack's
 * limits on purpose (seeding hundreds of messages, say), with a comment saying so.
 */
export const NO_LIMITS: Record<string, SlackLimit> = {};
