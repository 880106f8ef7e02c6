/**
 * A private sentence to whoever clicked a button on a message (or sent a form a click opened, or
 * wrote in a thread). It goes as an ephemeral message in the channel (in the clicked message's
 * thread), and, where Slack refuses that, through the click's response URL, which reaches the
 * clicker anywhere: someone reading a public channel they have not joined can click, but Slack
 * shows them no ephemeral there (`user_not_in_channel`), nor anyone an ephemeral from a bot that
 * is not in the channel (`not_in_channel`).
 *
 * A 429 is not the end of it either: Slack did not carry the call out, so the sentence goes
 * through the response URL, or, with none that works, again after the Retry-After Slack gave (up
 * to `maxWaitMs` in all; past that it is logged). That wait happens after the tell has returned,
 * so that it holds no slot of the work after acks (after-ack.ts): the person's sentence waits,
 * nobody's decision does.
 *
 * What is said may carry blocks (a reply's question, with its buttons): the same path, so that a
 * 429 does not drop a question either.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../../logger.js';
import { rateLimitWaitMs } from './rate-limited.js';
import { respondPrivately, type Said } from './respond.js';

/** Where the click came from: its channel and thread, who clicked, and the response URL it carried. */
export interface ClickPlace {
  /** Absent when Slack named none (the person can then be told only through the response URL). */
  channel?: string;
  user: string;
  threadTs?: string;
  responseUrl?: string;
}

/**
 * How long a sentence waits out Slack's 429s, in all. Slack's Retry-After for chat.postEphemeral
 * (Tier 4) is a few seconds; a sentence later than this would answer a click long forgotten.
 */
export const TELL_MAX_WAIT_MS = 30_000;

type Message = Exclude<Said, string>;

export function tellClicker(
  deps: { client: WebClient; logger: Logger; maxWaitMs?: number },
  place: ClickPlace,
): (said: Said) => Promise<void> {
  const maxWaitMs = deps.maxWaitMs ?? TELL_MAX_WAIT_MS;
  const post = async (message: Message): Promise<unknown> => {
    if (!place.channel) return new Error('Slack named no channel for this person');
    try {
      await deps.client.chat.postEphemeral({
        channel: place.channel,
        user: place.user,
        ...message,
        ...(place.threadTs ? { thread_ts: place.threadTs } : {}),
      });
      return undefined;
    } catch (error) {
      return error;
    }
  };
  /** Posts again after each Retry-After while Slack answers 429, up to `maxWaitMs` in all. */
  const later = async (message: Message, first: { err: unknown; waitMs: number }): Promise<void> => {
    let waited = 0;
    let { err, waitMs }: { err: unknown; waitMs: number | undefined } = first;
    while (waitMs !== undefined && waited + waitMs <= maxWaitMs) {
      waited += waitMs;
      // Not keeping a stopping process alive for a courtesy.
      await sleep(waitMs, undefined, { ref: false });
      err = await post(message);
      if (!err) return;
      waitMs = rateLimitWaitMs(err);
    }
    deps.logger.warn({ err, waitedMs: waited }, 'could not tell the person (Slack kept answering 429)');
  };
  return async (said) => {
    const message: Message = typeof said === 'string' ? { text: said } : said;
    const err = await post(message);
    if (!err) return;
    // Slack's answer URL works wherever the person is, and is limited apart from the Web API.
    if (place.responseUrl && (await respondPrivately(place.responseUrl, message, deps.logger))) return;
    const waitMs = place.channel ? rateLimitWaitMs(err) : undefined;
    if (waitMs === undefined) {
      deps.logger.warn({ err }, 'could not tell the person');
      return;
    }
    void later(message, { err, waitMs });
  };
}
