/**
 * History on a task's root message: the task's audit trail in a modal. The task is the one whose
 * root message was clicked (Slack's signed payload); whoever can see that message is in its
 * channel. A modal opens at once (the trigger lives 3 s) and is filled once the trail is read;
 * one Slack did not open gets the person a sentence (through the click's response URL where Slack
 * shows them no ephemeral), and so does one Slack takes no update of (fill-modal.ts).
 */
import type { types } from '@slack/bolt';
import type { AuditEntry } from '../../../../engine/index.js';
import { historyFailed, historyLoading, historyModal } from '../../../blocks/history.js';
import { clickedMessage, taskInThread } from '../../../shared/origin.js';
import { type ButtonArgs, type ListenerDeps, notOpened } from '../../deps.js';
import { fillModal } from '../../fill-modal.js';
import { tellClicker } from '../../tell-clicker.js';

/** Slack did not take the history (an error, a timeout, a long 429): trying again may work. */
const HISTORY_NOT_SHOWN =
  'Slack did not take the history just now. Close this and click *History* on the message again.';
/** Slack refused the history's content: clicking again would show the same; the terminal shows it all. */
const historyRefused = (taskId: string | undefined) =>
  `Slack would not show this task's history (it refused its content). Close this; the whole trail is in the terminal: \`signoff audit ${taskId ?? '<task>'}\`.`;
/** The same, said beside a modal that may still read "Reading the history…". */
const HISTORY_NOT_SHOWN_TOLD =
  'Slack did not take the history just now. Close the window that reads “Reading the history…” and click *History* on the message again.';
const historyRefusedTold = (taskId: string | undefined) =>
  `Slack would not show this task's history (it refused its content). Close the window that reads “Reading the history…”; the whole trail is in the terminal: \`signoff audit ${taskId ?? '<task>'}\`.`;

export function createHistoryAction(deps: ListenerDeps) {
  return async ({ ack, body, client }: ButtonArgs) => {
    await ack();
    const root = clickedMessage(body);
    if (!root) return;
    const opened = await client.views
      .open({ trigger_id: body.trigger_id, view: historyLoading() })
      .catch((err) => {
        deps.logger.warn({ err }, 'could not open the history');
        return undefined;
      });
    const viewId = opened?.view?.id;
    if (!viewId) {
      const tell = tellClicker(
        { client, logger: deps.logger },
        { channel: root.channel, user: body.user.id, responseUrl: body.response_url },
      );
      await tell(notOpened('the history', 'Click *History* on the message again.'));
      return;
    }
    await deps.afterAck.run(async () => {
      let shown: types.View;
      let taskId: string | undefined;
      try {
        const task = await taskInThread(deps.engine, root);
        taskId = task?.id;
        if (!task) {
          shown = historyFailed(
            'This message has no signoff task (it never started), so there is no history.',
          );
        } else {
          const entries: AuditEntry[] = [];
          for await (const entry of deps.engine.auditTrail({ taskId: task.id })) entries.push(entry);
          shown = historyModal(task, entries);
        }
      } catch (error) {
        deps.logger.error({ err: error }, 'history failed');
        shown = historyFailed();
      }
      // Never "Reading the history…" for ever: what happened, in the modal or beside it.
      await fillModal({ client, logger: deps.logger }, { id: viewId }, shown, {
        modal: (refused) => historyFailed(refused ? historyRefused(taskId) : HISTORY_NOT_SHOWN),
        sentence: (refused) => (refused ? historyRefusedTold(taskId) : HISTORY_NOT_SHOWN_TOLD),
        place: { channel: root.channel, user: body.user.id, responseUrl: body.response_url },
      });
    });
  };
}
