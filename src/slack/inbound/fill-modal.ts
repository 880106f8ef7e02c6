/**
 * Filling a modal that opened saying it reads something ("Reading the call…", "Reading the
 * history…"), so that it never says that for ever: a short 429 is waited out (afterRateLimit);
 * when Slack still does not take the view, the modal is replaced with what happened; and when Slack
 * takes no update of it either (a longer 429, Slack failing), the person is told beside it, through
 * the click's response URL where Slack shows them no ephemeral (tell-clicker.ts). One path for
 * every such modal: Edit's form and History.
 */
import type { types } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../../logger.js';
import { slackErrorCode } from '../shared/final-errors.js';
import { afterRateLimit } from './rate-limited.js';
import { type ClickPlace, tellClicker } from './tell-clicker.js';

/** What is said when the view is not shown; `refused`: Slack refused the view's content itself. */
export interface NotShown {
  /** The modal instead, saying what happened. */
  modal: (refused: boolean) => types.View;
  /** The sentence beside a modal Slack took no update of. */
  sentence: (refused: boolean) => string;
  /** Where the person who clicked is told. */
  place: ClickPlace;
}

export async function fillModal(
  deps: { client: WebClient; logger: Logger },
  view: { id: string; hash?: string },
  shown: types.View,
  notShown: NotShown,
): Promise<void> {
  const { client, logger } = deps;
  // A short Retry-After is waited out: the person is looking at "Reading …".
  const err = await afterRateLimit(() =>
    client.views.update({ view_id: view.id, ...(view.hash ? { hash: view.hash } : {}), view: shown }),
  ).then(
    () => undefined,
    (error: unknown) => error,
  );
  if (!err) return;
  logger.warn({ err }, 'could not show a modal’s content');
  const refused = slackErrorCode(err)?.startsWith('invalid_') ?? false;
  // Left as it is, the modal would read "Reading …" for ever: it says what happened instead
  // (with no hash: this replaces whatever the modal shows, whoever changed it last)…
  const saidInModal = await client.views.update({ view_id: view.id, view: notShown.modal(refused) }).then(
    () => true,
    (error: unknown) => {
      logger.warn({ err: error }, 'could not show in a modal why its content is missing');
      return false;
    },
  );
  if (saidInModal) return;
  // …or, when Slack takes no update of it either, a sentence to the person beside it.
  await tellClicker({ client, logger }, notShown.place)(notShown.sentence(refused));
}
