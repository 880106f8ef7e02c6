/**
 * Starting a task from Slack, after the request was acked: claim the request (a retry of the same
 * command finds it claimed), post the root message (its ts names the thread and the task), start.
 */
import type { WebClient } from '@slack/web-api';
import { rootMessage } from './blocks/messages.js';
import type { ListenerDeps } from './deps.js';
import { slackTaskId } from './origin.js';
import { claimRequest, linkRequest } from './posts.js';

export interface SlackStart {
  requestKey: string;
  team: string;
  channel: string;
  user: string;
  workflow: string;
  text: string;
}

export async function startFromSlack(deps: ListenerDeps, client: WebClient, s: SlackStart): Promise<void> {
  if (!(await claimRequest(deps.pool, s.requestKey))) {
    deps.logger.info({ request: s.requestKey }, 'repeated Slack request; the task was started before');
    return;
  }
  const root = await client.chat.postMessage({
    channel: s.channel,
    ...rootMessage({ requester: s.user, workflow: s.workflow, text: s.text }, 'working'),
    unfurl_links: false,
  });
  const origin = { team: s.team, channel: s.channel, ts: root.ts as string };
  try {
    const { task } = await deps.engine.start({
      id: slackTaskId(origin),
      workflow: s.workflow,
      text: s.text,
      requester: s.user,
      surface: 'slack',
      origin,
      channel: s.channel,
    });
    await linkRequest(deps.pool, s.requestKey, task.id);
  } catch (error) {
    // The root message is out but no task stands behind it: it must not say "Working" forever.
    await client.chat
      .update({
        channel: s.channel,
        ts: origin.ts,
        ...rootMessage(
          { requester: s.user, workflow: s.workflow, text: s.text },
          'failed',
          'it could not be started (the database did not answer); start it again',
          { controls: false },
        ),
      })
      .catch(() => undefined);
    throw error;
  }
}
