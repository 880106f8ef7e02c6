/**
 * Answers a person through the response URL Slack hands out with a slash command or a click. It
 * reaches them in any channel, the ones the bot has not joined included, where the bot's own
 * posts and ephemerals are refused. Slack takes up to 5 answers a URL within 30 minutes, then
 * answers 404 (`expired_url`, `used_url`): the caller learns whether it got through, to say it
 * another way when not.
 */
import type { KnownBlock } from '@slack/web-api';
import type { Logger } from '../../logger.js';

/** What is said: a sentence, or a message with blocks (`text` is then its notification text). */
export type Said = string | { text: string; blocks?: KnownBlock[] };

/** How long a response URL may take before the answer is given up (it is a courtesy, not state). */
const RESPOND_TIMEOUT_MS = 5_000;

/**
 * Resolves true once Slack took the answer; false (logged) when it did not. The answer is a
 * sentence, or a message with blocks (whose buttons work there as on any message).
 */
export async function respondPrivately(url: string, said: Said, logger: Logger): Promise<boolean> {
  const message = typeof said === 'string' ? { text: said } : said;
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      // Said outright: a new private message, never a replacement of the message clicked (a card).
      body: JSON.stringify({ response_type: 'ephemeral', replace_original: false, ...message }),
      signal: AbortSignal.timeout(RESPOND_TIMEOUT_MS),
    });
    if (!res.ok)
      logger.warn(
        { status: res.status, slack: await res.text().catch(() => '') },
        'Slack refused an answer through a response URL',
      );
    return res.ok;
  } catch (err) {
    logger.warn({ err }, 'could not answer through a response URL');
    return false;
  }
}
