/**
 * The app's Messages tab, opened by a person: its suggested prompts are the workflows they may
 * start there (`assistant.threads.setSuggestedPrompts`, with no thread: an agent app's prompts are
 * the tab's, and Slack drops a call that names a thread). Prompts are a convenience: when Slack
 * does not take them the tab shows the manifest's, and the failure is only logged.
 */
import type { WebClient } from '@slack/web-api';
import { startPrompts } from '../blocks/agent-view.js';
import type { ListenerDeps } from './deps.js';

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
