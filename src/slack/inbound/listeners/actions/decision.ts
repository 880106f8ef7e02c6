/** Approve and Reject buttons: ack at once, then record the decision (the card updates via the engine). */
import type { Action } from '../../../../engine/index.js';
import { decideClick } from '../../decide.js';
import type { ButtonArgs, ListenerDeps } from '../../deps.js';

export function createDecisionAction(deps: ListenerDeps, action: Exclude<Action, 'revise' | 'edit'>) {
  return async ({ ack, body, action: button, client }: ButtonArgs) => {
    await ack();
    await decideClick(deps, client, {
      value: button.value,
      place: {
        channel: body.channel?.id ?? body.container?.channel_id,
        messageTs: body.message?.ts ?? body.container?.message_ts,
        threadTs: body.message?.thread_ts,
        user: body.user.id,
        responseUrl: body.response_url,
      },
      action,
      team: body.user.team_id,
    });
  };
}
