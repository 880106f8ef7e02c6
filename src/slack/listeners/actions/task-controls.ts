/**
 * Cancel and Retry on a task's root message. The task is the one whose root message was clicked
 * (from Slack's signed payload, not the button's value); the engine checks who may do it.
 */
import type { AllMiddlewareArgs, BlockButtonAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import { isSignoffError } from '../../../errors.js';
import { slackActor } from '../../decide.js';
import { COULD_NOT_RECORD, type ListenerDeps } from '../../deps.js';
import { clickedMessage, slackTaskId } from '../../origin.js';
import { tellClicker } from '../../tell-clicker.js';

export function createTaskControl(deps: ListenerDeps, what: 'cancel' | 'retry') {
  return async ({ ack, body, client }: SlackActionMiddlewareArgs<BlockButtonAction> & AllMiddlewareArgs) => {
    await ack();
    const root = clickedMessage(body);
    if (!root) return;
    const { channel } = root;
    const tell = tellClicker(
      { client, logger: deps.logger },
      { channel, user: body.user.id, responseUrl: body.response_url },
    );
    await deps.afterAck.run(async () => {
      const taskId = slackTaskId(root);
      try {
        const actor = await slackActor(deps.directory, body.user.id, body.user.team_id);
        // The root message and the cards are updated by the events this writes.
        if (what === 'cancel') await deps.engine.cancel(taskId, actor);
        else await deps.engine.retry(taskId, actor);
      } catch (error) {
        if (isSignoffError(error, 'unknown_task')) await tell('That message is not a signoff task.');
        else if (isSignoffError(error)) await tell(error.message);
        else {
          deps.logger.error({ err: error }, `${what} failed`);
          await tell(COULD_NOT_RECORD);
        }
      }
    });
  };
}
