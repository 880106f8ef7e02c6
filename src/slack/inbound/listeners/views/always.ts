/**
 * The "Always allow…" modal sent back: the scope chosen, then the click decided as an Approve is
 * (decide.ts), with the rule proposed in the same transaction; refused together.
 */
import type { AllMiddlewareArgs, SlackViewMiddlewareArgs } from '@slack/bolt';
import { RULE_SCOPES } from '../../../../engine/index.js';
import { SCOPE_BLOCK } from '../../../blocks/always-modal.js';
import { placeOfMeta, readReviseMeta } from '../../../blocks/revise-meta.js';
import { decideClick } from '../../decide.js';
import type { ListenerDeps } from '../../deps.js';

export function createAlwaysSubmission(deps: ListenerDeps) {
  return async ({ ack, view, body, client }: SlackViewMiddlewareArgs & AllMiddlewareArgs) => {
    const chosen = view.state.values[SCOPE_BLOCK]?.value?.selected_option?.value;
    const scope = RULE_SCOPES.find((s) => s === chosen);
    if (!scope) {
      await ack({
        response_action: 'errors',
        errors: { [SCOPE_BLOCK]: 'Choose what the rule should always allow.' },
      });
      return;
    }
    await ack();
    const meta = readReviseMeta(view.private_metadata);
    await decideClick(deps, client, {
      value: meta?.value,
      place: placeOfMeta(meta, body.user.id),
      action: 'approve',
      scope,
      team: body.user.team_id,
    });
  };
}
