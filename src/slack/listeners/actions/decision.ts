/** Approve and Reject buttons: ack at once, then record the decision (the card updates via the engine). */
import type { AllMiddlewareArgs, BlockButtonAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import type { Action } from '../../../engine/types.js';
import { clickedReview, decideFromSlack, NOT_THIS_CARD } from '../../decide.js';
import type { ListenerDeps } from '../../deps.js';

export function createDecisionAction(deps: ListenerDeps, action: Exclude<Action, 'revise'>) {
  return async ({
    ack,
    body,
    action: button,
    client,
  }: SlackActionMiddlewareArgs<BlockButtonAction> & AllMiddlewareArgs) => {
    await ack();
    const channel = body.channel?.id ?? body.container?.channel_id;
    const messageTs = body.message?.ts ?? body.container?.message_ts;
    const click = await clickedReview(deps, button.value, { channel, messageTs });
    if (!click || !channel) {
      if (channel)
        await client.chat
          .postEphemeral({ channel, user: body.user.id, text: NOT_THIS_CARD })
          .catch(() => undefined);
      return;
    }
    await decideFromSlack(deps, client, {
      click,
      user: body.user.id,
      channel,
      action,
      threadTs: body.message?.thread_ts,
    });
  };
}
