/** Approve and Reject buttons: ack at once, then record the decision (the card updates via the engine). */
import type { AllMiddlewareArgs, BlockButtonAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import type { Action } from '../../../../engine/index.js';
import { clickedReview, decideFromSlack, NOT_THIS_CARD } from '../../decide.js';
import { COULD_NOT_RECORD, type ListenerDeps } from '../../deps.js';
import { tellClicker } from '../../tell-clicker.js';

export function createDecisionAction(deps: ListenerDeps, action: Exclude<Action, 'revise' | 'edit'>) {
  return async ({
    ack,
    body,
    action: button,
    client,
  }: SlackActionMiddlewareArgs<BlockButtonAction> & AllMiddlewareArgs) => {
    await ack();
    const channel = body.channel?.id ?? body.container?.channel_id;
    const messageTs = body.message?.ts ?? body.container?.message_ts;
    if (!channel) return;
    const tell = tellClicker(
      { client, logger: deps.logger },
      { channel, user: body.user.id, threadTs: body.message?.thread_ts, responseUrl: body.response_url },
    );
    await deps.afterAck.run(async () => {
      try {
        const click = await clickedReview(deps, button.value, { channel, messageTs });
        if (!click) {
          await tell(NOT_THIS_CARD);
          return;
        }
        await decideFromSlack(
          deps,
          client,
          {
            click,
            user: body.user.id,
            channel,
            action,
            threadTs: body.message?.thread_ts,
            team: body.user.team_id,
          },
          tell,
        );
      } catch (error) {
        // The database did not answer: say so; the card stays as it was and the click can be repeated.
        deps.logger.error({ err: error }, 'click failed');
        await tell(COULD_NOT_RECORD);
      }
    });
  };
}
