/**
 * History on a task's root message: the task's audit trail in a modal. The task is the one whose
 * root message was clicked (Slack's signed payload); whoever can see that message is in its
 * channel. A modal opens at once (the trigger lives 3 s) and is filled once the trail is read;
 * one Slack did not open gets the person a sentence (through the click's response URL where Slack
 * shows them no ephemeral).
 */
import type { AllMiddlewareArgs, BlockButtonAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import type { AuditEntry } from '../../../../engine/index.js';
import { historyFailed, historyLoading, historyModal } from '../../../blocks/history.js';
import { clickedMessage, taskInThread } from '../../../shared/origin.js';
import { type ListenerDeps, notOpened } from '../../deps.js';
import { tellClicker } from '../../tell-clicker.js';

export function createHistoryAction(deps: ListenerDeps) {
  return async ({ ack, body, client }: SlackActionMiddlewareArgs<BlockButtonAction> & AllMiddlewareArgs) => {
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
      try {
        const task = await taskInThread(deps.engine, root);
        if (!task) {
          const view = historyFailed(
            'This message has no signoff task (it never started), so there is no history.',
          );
          return void (await client.views.update({ view_id: viewId, view }));
        }
        const entries: AuditEntry[] = [];
        for await (const entry of deps.engine.auditTrail({ taskId: task.id })) entries.push(entry);
        await client.views.update({ view_id: viewId, view: historyModal(task, entries) });
      } catch (error) {
        deps.logger.error({ err: error }, 'history failed');
        await client.views.update({ view_id: viewId, view: historyFailed() }).catch(() => undefined);
      }
    });
  };
}
