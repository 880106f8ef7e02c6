/**
 * The app's Messages tab, opened by a person: its suggested prompts are the workflows they may
 * start there (`assistant.threads.setSuggestedPrompts`, with no thread: an agent app's prompts are
 * the tab's, and Slack drops a call that names a thread). Prompts are a convenience: when Slack
 * does not take them the tab shows the manifest's, and the failure is only logged.
 */
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../../logger.js';
import { startPrompts } from '../blocks/agent-view.js';
import type { ListenerDeps } from './deps.js';
import { afterRateLimit } from './rate-limited.js';

/**
 * An answer to a person's message in the Messages tab, in its thread: a reply anyone in the DM
 * sees (the DM is theirs alone), not an ephemeral one, which Slack does not show in a thread with
 * no reply yet ("only shown if there is already an active thread", chat.postEphemeral) while
 * answering ok. One Slack does not take is logged.
 */
export function answerInThread(
  client: WebClient,
  logger: Logger,
  at: { channel: string; ts: string },
  text: string,
): Promise<unknown> {
  return afterRateLimit(() =>
    client.chat.postMessage({ channel: at.channel, thread_ts: at.ts, text, unfurl_links: false }),
  ).catch((err) => logger.warn({ err }, 'could not answer a message in the Messages tab'));
}

export async function showStartPrompts(
  deps: Pick<ListenerDeps, 'engine' | 'logger'>,
  client: WebClient,
  at: { user: string; channel: string },
): Promise<void> {
  try {
    await client.assistant.threads.setSuggestedPrompts({
      channel_id: at.channel,
      ...startPrompts(deps.engine.available(at.channel)),
    });
  } catch (error) {
    deps.logger.warn(
      { err: error, user: at.user, slack: (error as { data?: { error?: string } }).data?.error },
      'could not set the Messages tab’s suggested prompts; it shows the manifest’s',
    );
  }
}
