/**
 * A private sentence to whoever clicked a button on a message. It goes as an ephemeral message in
 * the channel (in the clicked message's thread), and, where Slack refuses that, through the
 * click's response URL, which reaches the clicker anywhere: someone reading a public channel they
 * have not joined can click, but Slack shows them no ephemeral there (`user_not_in_channel`).
 */
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../logger.js';
import { respondPrivately } from './respond.js';

/** Where the click came from: its channel and thread, who clicked, and the response URL it carried. */
export interface ClickPlace {
  channel: string;
  user: string;
  threadTs?: string;
  responseUrl?: string;
}

export function tellClicker(
  deps: { client: WebClient; logger: Logger },
  place: ClickPlace,
): (text: string) => Promise<void> {
  return async (text) => {
    try {
      await deps.client.chat.postEphemeral({
        channel: place.channel,
        user: place.user,
        text,
        ...(place.threadTs ? { thread_ts: place.threadTs } : {}),
      });
    } catch (err) {
      if (!place.responseUrl) {
        deps.logger.warn({ err }, 'could not tell the person who clicked');
        return;
      }
      await respondPrivately(place.responseUrl, text, deps.logger);
    }
  };
}
