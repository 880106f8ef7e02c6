/**
 * Revise and Edit: the modal opens first (trigger_id lives 3 s, once), with the review and the
 * action named in private_metadata; the check of the click happens when the form comes back.
 * Revise asks what should change; Edit shows the review's form (a tool call's decisions and
 * arguments).
 */
import type { AllMiddlewareArgs, BlockButtonAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import { reviseModal } from '../../blocks/modals.js';
import { buttonValueSchema, safeJson } from '../../decide.js';
import type { ListenerDeps } from '../../deps.js';

export function createReviseAction(deps: ListenerDeps, action: 'revise' | 'edit' = 'revise') {
  return async ({
    ack,
    body,
    action: button,
    client,
  }: SlackActionMiddlewareArgs<BlockButtonAction> & AllMiddlewareArgs) => {
    await ack();
    const value = buttonValueSchema.safeParse(safeJson(button.value ?? ''));
    const meta = {
      value: value.success ? value.data : null,
      action,
      channel: body.channel?.id ?? body.container?.channel_id,
      messageTs: body.message?.ts ?? body.container?.message_ts,
      threadTs: body.message?.thread_ts,
    };
    // Edit's form is the review's: one quick read, still well inside the trigger's 3 s. If it
    // fails the form opens empty, and the engine refuses it with the reason.
    const review =
      action === 'edit' && value.success
        ? await deps.engine.review(value.data.review).catch(() => undefined)
        : undefined;
    const fields =
      review?.taskId === (value.success ? value.data.task : '') ? (review?.request.fields ?? []) : [];
    const deciding = fields.some((f) => f.choices);
    await client.views.open({
      trigger_id: body.trigger_id,
      view: reviseModal(
        meta,
        action === 'revise'
          ? 'Tell the agents what to change.'
          : deciding
            ? 'Decide each call: approve it (with the arguments shown, which you may change) or reject it. Sending approves what you chose.'
            : 'Change the arguments, then send: that approves the call with them.',
        3000,
        fields,
      ),
    });
  };
}
