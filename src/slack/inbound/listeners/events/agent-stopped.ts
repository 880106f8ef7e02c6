/**
 * A person's Stop on a task's thinking status in the Messages tab (Slack's agent session, sent as
 * `agent_session_stopped`): the thread's task is cancelled, as the root's Cancel does, by the same
 * rules (the requester or a reviewer). A thread that is no task, or a task already ended, has
 * nothing to stop; a Stop refused is said to the person in the thread.
 */
import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import { isSignoffError } from '../../../../errors.js';
import { taskInThread } from '../../../shared/origin.js';
import { slackActor } from '../../decide.js';
import { COULD_NOT_RECORD, type ListenerDeps } from '../../deps.js';
import { tellClicker } from '../../tell-clicker.js';

export function createAgentStopped(deps: ListenerDeps) {
  return async ({
    event,
    body,
    client,
  }: SlackEventMiddlewareArgs<'agent_session_stopped'> & AllMiddlewareArgs) => {
    const place = { channel: event.channel, user: event.user, threadTs: event.thread_ts };
    const tell = tellClicker({ client, logger: deps.logger }, place);
    await deps.afterAck.run(async () => {
      try {
        const task = await taskInThread(deps.engine, { channel: event.channel, ts: event.thread_ts });
        if (task?.status !== 'working' && task?.status !== 'waiting') return;
        const actor = await slackActor(deps.directory, event.user, body.team_id);
        // The root, the cards and the thinking status follow from the events this writes.
        await deps.engine.cancel(task.id, actor);
      } catch (error) {
        if (isSignoffError(error)) await tell(error.message);
        else {
          deps.logger.error({ err: error }, 'stop failed');
          await tell(COULD_NOT_RECORD);
        }
      }
    });
  };
}
