/** "Hand over…" sent back: the review goes to the person picked, who is pinged in the thread. */
import type { AllMiddlewareArgs, SlackViewMiddlewareArgs } from '@slack/bolt';
import { PERSON_BLOCK } from '../../../blocks/claim-modals.js';
import { placeOfMeta, readReviseMeta } from '../../../blocks/revise-meta.js';
import { claimFromSlack, clickedReview, NOT_THIS_CARD } from '../../decide.js';
import type { ListenerDeps } from '../../deps.js';
import { tellClicker } from '../../tell-clicker.js';

export function createHandOverSubmission(deps: ListenerDeps) {
  return async ({ ack, view, body, client }: SlackViewMiddlewareArgs & AllMiddlewareArgs) => {
    const to = view.state.values[PERSON_BLOCK]?.value?.selected_user;
    if (!to) {
      await ack({ response_action: 'errors', errors: { [PERSON_BLOCK]: 'Pick who takes this review.' } });
      return;
    }
    await ack();
    const meta = readReviseMeta(view.private_metadata);
    const place = placeOfMeta(meta, body.user.id);
    const tell = tellClicker({ client, logger: deps.logger }, place);
    await deps.afterAck.run(async () => {
      const click = await clickedReview(deps, client, meta?.value, place).catch(() => undefined);
      if (!click) return void (await tell(NOT_THIS_CARD));
      await claimFromSlack(deps, tell, click.review, { user: body.user.id, team: body.user.team_id }, to);
    });
  };
}
