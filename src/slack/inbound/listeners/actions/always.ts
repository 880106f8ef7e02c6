/**
 * "Always allow…" on a card: the modal opens first, saying it reads the review (the click's
 * trigger_id lives 3 s), then shows the scopes the review offers. The click itself is checked when
 * the modal comes back (views/always.ts), as a Revise is: the card in the clicked message, the
 * content it showed, the person's right to approve.
 */
import type { WebClient } from '@slack/web-api';
import { alwaysLoading, alwaysModal } from '../../../blocks/always-modal.js';
import { clickedAt, type ReviseMeta } from '../../../blocks/revise-meta.js';
import { buttonValueSchema, safeJson } from '../../decide.js';
import { type ButtonArgs, type ListenerDeps, notOpened } from '../../deps.js';
import { fillModal } from '../../fill-modal.js';
import { tellClicker } from '../../tell-clicker.js';

const NOT_SHOWN =
  'Slack did not take this form just now, so nothing changed. Close this and click Always allow… again.';
const NOT_OFFERED =
  'This review cannot be always allowed (it is closed, or the config file no longer names who signs off a rule). Close this; the card still takes Approve.';

export function createAlwaysAction(deps: ListenerDeps) {
  return async ({ ack, body, action: button, client }: ButtonArgs) => {
    await ack();
    const value = buttonValueSchema.safeParse(safeJson(button.value ?? ''));
    const meta: ReviseMeta = {
      value: value.success ? value.data : null,
      action: 'always',
      ...clickedAt(body),
    };
    const opened = await client.views
      .open({ trigger_id: body.trigger_id, view: alwaysLoading() })
      .catch((err) => {
        deps.logger.warn({ err }, 'Slack did not open the always-allow modal');
        return undefined;
      });
    const view = opened?.view;
    const place = { ...clickedAt(body), user: body.user.id };
    if (!view?.id) {
      await tellClicker(
        { client, logger: deps.logger },
        place,
      )(notOpened('the form', 'Click *Always allow…* on the card again.'));
      return;
    }
    const shown = { id: view.id, hash: view.hash };
    await deps.afterAck.run(() => fill(deps, client, shown, meta, place));
  };
}

async function fill(
  deps: ListenerDeps,
  client: WebClient,
  view: { id: string; hash?: string },
  meta: ReviseMeta,
  place: Parameters<typeof tellClicker>[1],
): Promise<void> {
  const named = buttonValueSchema.safeParse(meta.value);
  let modal = alwaysLoading(NOT_OFFERED);
  try {
    const found = named.success ? await deps.engine.review(named.data.review) : undefined;
    const review = found?.review;
    const task = review && review.taskId === named.data?.task ? found.task : undefined;
    const scopes = review?.status === 'pending' && task ? deps.engine.rules.scopes(review, task) : [];
    const signers = deps.engine.rules.signers();
    if (scopes.length && signers) modal = alwaysModal(meta, scopes, signers);
  } catch (err) {
    deps.logger.error({ err }, 'could not read the review for always allow');
    modal = alwaysLoading(
      'I could not read this review just now (the database did not answer). Close this and click Always allow… again.',
    );
  }
  await fillModal({ client, logger: deps.logger }, view, modal, {
    modal: () => alwaysLoading(NOT_SHOWN),
    sentence: () =>
      'Slack did not take the Always allow form just now, so nothing changed. Close it and click *Always allow…* on the card again.',
    place,
  });
}
