/**
 * The thinking status of a task started in the app's Messages tab (a DM with the app): while its
 * agents work, the thread shows "signoff is working on it…" with rotating loading messages
 * (`assistant.threads.setStatus`); when the task waits for a review or ends, the status is cleared
 * (an empty status, as Slack's reference says). Slack clears it by itself too, two minutes after
 * it was set without a message, or when the app posts in the thread: the sink sets it again after
 * each post, and a run keeps it up meanwhile (thinking-keeper.ts).
 *
 * It is a courtesy: a status Slack does not take (its rate limit, a thread gone, Slack down) is
 * logged and left, never a reason to deliver the event again nor to fail it (only a lost delivery
 * lease stops the delivery, as it does at any call).
 */
import type { WebClient } from '@slack/web-api';
import type { Task } from '../../engine/index.js';
import { isSignoffError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { isDirectMessage, type SlackOrigin, type SlackThread } from '../shared/origin.js';

/** What Slack shows after the app's name while agents work ("signoff is working on it…"). */
export const WORKING_STATUS = 'is working on it…';

/** What Slack rotates through meanwhile (at most 10, its limit). */
export const LOADING_MESSAGES = [
  'The agents are working on your task…',
  'A review card comes here when they need you…',
];

/** assistant.threads.setStatus's arguments: the thread shows the agents working, or nothing. */
export const threadStatus = (thread: SlackThread, working: boolean) => ({
  channel_id: thread.channel,
  thread_ts: thread.ts,
  status: working ? WORKING_STATUS : '',
  ...(working ? { loading_messages: LOADING_MESSAGES } : {}),
});

/**
 * Shows the task's thread as thinking while the task is `working`, and clears it otherwise. Only
 * a task whose thread is in a DM with the app: a channel's threads show the root's status line.
 */
export function createThinking(deps: { client: WebClient; logger: Logger }) {
  return async (origin: SlackOrigin, task: Pick<Task, 'id' | 'status'>): Promise<void> => {
    if (!isDirectMessage(origin.channel)) return;
    try {
      await deps.client.assistant.threads.setStatus(threadStatus(origin, task.status === 'working'));
    } catch (error) {
      // A deliverer that lost its lease stops there, as for any other call.
      if (isSignoffError(error, 'lease_lost')) throw error;
      deps.logger.warn(
        { err: error, task: task.id, slack: (error as { data?: { error?: string } }).data?.error },
        'could not show the thread’s thinking status; the task goes on without it',
      );
    }
  };
}
