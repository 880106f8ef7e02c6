/**
 * A card's claim buttons: "I'll take it" and Release act at once; "Hand over…" opens a people
 * picker (views/hand-over.ts decides). The button must be the card in the clicked message
 * (decide.ts `clickedReview`); the engine checks who may claim, release or take it.
 */
import { handOverModal } from '../../../blocks/claim-modals.js';
import { clickedAt, type ReviseMeta } from '../../../blocks/revise-meta.js';
import { claimFromSlack, clickedReview, NOT_THIS_CARD } from '../../decide.js';
import { type ButtonArgs, type ListenerDeps, notOpened } from '../../deps.js';
import { tellClicker } from '../../tell-clicker.js';

export function createClaimButton(deps: ListenerDeps, action: 'claim' | 'release' | 'handOver') {
  return async ({ ack, body, action: button, client }: ButtonArgs) => {
    await ack();
    const place = { ...clickedAt(body), user: body.user.id };
    const tell = tellClicker({ client, logger: deps.logger }, place);
    if (action === 'handOver') {
      const meta: ReviseMeta = { ...place, value: button.value, action: 'revise' };
      const opened = await client.views
        .open({ trigger_id: body.trigger_id, view: handOverModal(meta) })
        .catch((err) => deps.logger.warn({ err }, 'Slack did not open the hand-over modal'));
      if (!opened) await tell(notOpened('the form', 'Click *Hand over…* on the card again.'));
      return;
    }
    await deps.afterAck.run(async () => {
      const click = await clickedReview(deps, client, button.value, place).catch(() => undefined);
      if (!click) return void (await tell(NOT_THIS_CARD));
      await claimFromSlack(
        deps,
        tell,
        click.review,
        { user: body.user.id, team: body.user.team_id },
        action === 'claim' ? body.user.id : null,
      );
    });
  };
}
