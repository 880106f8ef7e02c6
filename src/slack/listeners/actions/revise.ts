/**
 * Revise: the modal opens first (trigger_id lives 3 s, once), with the review named in
 * private_metadata; the check of the click happens when the feedback comes back.
 */
import type { AllMiddlewareArgs, BlockButtonAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import { reviseModal } from '../../blocks/modals.js';
import { buttonValueSchema, safeJson } from '../../decide.js';
import type { ListenerDeps } from '../../deps.js';

export function createReviseAction(_deps: ListenerDeps) {
  return async ({
    ack,
    body,
    action,
    client,
  }: SlackActionMiddlewareArgs<BlockButtonAction> & AllMiddlewareArgs) => {
    await ack();
    const value = buttonValueSchema.safeParse(safeJson(action.value ?? ''));
    const meta = {
      value: value.success ? value.data : null,
      channel: body.channel?.id ?? body.container?.channel_id,
      messageTs: body.message?.ts ?? body.container?.message_ts,
      threadTs: body.message?.thread_ts,
    };
    await client.views.open({
      trigger_id: body.trigger_id,
      view: reviseModal(meta, 'Tell the agents what to change.', 3000),
    });
  };
}
