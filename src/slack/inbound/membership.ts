/**
 * Whether the bot is out of a channel, as Slack says (`conversations.info`): Slack takes a command
 * in a channel the bot has not joined, and then refuses its posts there.
 */
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../../logger.js';
import { slackErrorCode } from '../shared/final-errors.js';

/**
 * True when the bot is not a member: `is_member: false`, or `channel_not_found` (a private channel
 * it is not in does not exist for it). False when it is, and when Slack does not say (a DM has no
 * `is_member`; a failed call is not a reason to tell someone to invite the bot).
 */
export async function botIsOut(client: WebClient, channel: string, logger: Logger): Promise<boolean> {
  try {
    const info = await client.conversations.info({ channel });
    return info.channel?.is_member === false;
  } catch (err) {
    if (slackErrorCode(err) === 'channel_not_found') return true;
    logger.warn({ err, channel }, 'could not tell whether signoff is in the channel');
    return false;
  }
}
