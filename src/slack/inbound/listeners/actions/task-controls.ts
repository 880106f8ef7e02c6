/**
 * Cancel and Retry on a task's root message. The task is the one whose root message was clicked
 * (from Slack's signed payload, not the button's value); the engine checks who may do it.
 */
import { isSignoffError } from '../../../../errors.js';
import { clickedMessage, taskInThread } from '../../../shared/origin.js';
import { slackActor } from '../../decide.js';
import { type ButtonArgs, COULD_NOT_RECORD, type ListenerDeps } from '../../deps.js';
import { tellClicker } from '../../tell-clicker.js';

const NOT_A_TASK = 'That message is not a signoff task.';

export function createTaskControl(deps: ListenerDeps, what: 'cancel' | 'retry') {
  return async ({ ack, body, client }: ButtonArgs) => {
    await ack();
    const root = clickedMessage(body);
    if (!root) return;
    const { channel } = root;
    const tell = tellClicker(
      { client, logger: deps.logger },
      { channel, user: body.user.id, responseUrl: body.response_url },
    );
    await deps.afterAck.run(async () => {
      try {
        // Found by the thread, whichever workspace the clicker is in (Grid, Slack Connect).
        const task = await taskInThread(deps.engine, root);
        if (!task) return void (await tell(NOT_A_TASK));
        const actor = await slackActor(deps.directory, body.user.id, body.user.team_id);
        // The root message and the cards are updated by the events this writes.
        if (what === 'cancel') await deps.engine.cancel(task.id, actor);
        else await deps.engine.retry(task.id, actor);
      } catch (error) {
        if (isSignoffError(error, 'unknown_task')) await tell(NOT_A_TASK);
        else if (isSignoffError(error)) await tell(error.message);
        else {
          deps.logger.error({ err: error }, `${what} failed`);
          await tell(COULD_NOT_RECORD);
        }
      }
    });
  };
}
