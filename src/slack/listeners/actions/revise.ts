/**
 * Revise: the modal opens first (trigger_id lives 3 s, once), with the review named in
 * private_metadata; the check of the click happens when the feedback comes back.
 */
import type { AllMiddlewareArgs, BlockButtonAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import { reviseModal } from '../../blocks/modals.js';
import { buttonValueSchema, safeJson } from '../../decide.js';
import type { ListenerDeps } from '../../deps.js';

export function createReviseAction(deps: ListenerDeps) {
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
    // A tool call's review carries a form (its arguments): one quick read, still well inside the
    // trigger's 3 s. If it fails the plain modal opens and the decision reports the failure.
    const review = value.success
      ? await deps.engine.review(value.data.review).catch(() => undefined)
      : undefined;
    const fields =
      review?.taskId === (value.success ? value.data.task : '') ? (review?.request.fields ?? []) : [];
    await client.views.open({
      trigger_id: body.trigger_id,
      view: reviseModal(
        meta,
        fields.length ? 'Change the arguments, then send.' : 'Tell the agents what to change.',
        3000,
        fields,
      ),
    });
  };
}
