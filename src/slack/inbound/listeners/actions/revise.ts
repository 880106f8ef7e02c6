/**
 * Revise and Edit: the modal opens first, before anything is read (the click's trigger_id lives
 * 3 s from Slack's request, once, and a slow database must not use it up), with the review and
 * the action named in private_metadata; the check of the click happens when the form comes back.
 * Revise asks what should change; Edit opens saying it reads the call, then shows the review's
 * form (a tool call's decisions and arguments). A modal Slack did not open gets the person a
 * sentence, through the click's response URL where Slack shows them no ephemeral; the modal
 * carries that URL along for the same reason (revise-meta.ts). So does an Edit form Slack did not
 * take: the modal says so instead of "Reading the call…", or, when Slack takes no update of it
 * either, a sentence beside it does.
 */
import type { types } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { editLoading, reviseModal } from '../../../blocks/modals.js';
import { clickedAt, type ReviseMeta } from '../../../blocks/revise-meta.js';
import { type ButtonValue, buttonValueSchema, safeJson } from '../../decide.js';
import { type ButtonArgs, type ListenerDeps, notOpened } from '../../deps.js';
import { fillModal } from '../../fill-modal.js';
import { tellClicker } from '../../tell-clicker.js';

const REVISE_TEXT = 'Tell the agents what to change.';

/** Slack did not take the Edit form (an error, a timeout, a long 429): trying again may work. */
const EDIT_NOT_SHOWN =
  'Slack did not take the form for this call just now, so nothing changed. Close this and click Edit on the card again.';
/** Slack refused the form itself (its blocks): clicking Edit again would show the same. */
const EDIT_REFUSED =
  "Slack would not show this call's form (it refused the form's content), so nothing changed. Close this and approve or reject the call on the card instead, or tell whoever runs signoff.";
/** The same, said beside a modal that may still read "Reading the call…". */
const EDIT_NOT_SHOWN_TOLD =
  'Slack did not take the Edit form for this call just now, so nothing changed. Close the form that reads “Reading the call…” and click *Edit* on the card again.';
const EDIT_REFUSED_TOLD =
  "Slack would not show this call's Edit form (it refused the form's content), so nothing changed. Close the form that reads “Reading the call…” and approve or reject the call on the card instead, or tell whoever runs signoff.";

export function createReviseAction(deps: ListenerDeps, action: 'revise' | 'edit' = 'revise') {
  return async ({ ack, body, action: button, client }: ButtonArgs) => {
    await ack();
    const value = buttonValueSchema.safeParse(safeJson(button.value ?? ''));
    const meta: ReviseMeta = {
      value: value.success ? value.data : null,
      action,
      ...clickedAt(body),
    };
    const opened = await client.views
      .open({
        trigger_id: body.trigger_id,
        view:
          action === 'revise'
            ? reviseModal(meta, REVISE_TEXT, 3000, [], asked(value.data?.ask, button))
            : editLoading(),
      })
      .catch((err) => {
        deps.logger.warn({ err, action }, 'Slack did not open the revise modal');
        return undefined;
      });
    const view = opened?.view;
    if (!view?.id) {
      const label = action === 'revise' ? 'Revise' : 'Edit';
      const tell = tellClicker(
        { client, logger: deps.logger },
        { channel: meta.channel, user: body.user.id, threadTs: meta.threadTs, responseUrl: meta.responseUrl },
      );
      await tell(notOpened('the form', `Click *${label}* on the card again.`));
      return;
    }
    if (action === 'edit') {
      const shown = { id: view.id, hash: view.hash };
      await deps.afterAck.run(() =>
        fillEdit(deps, client, shown, meta, value.success ? value.data : undefined, body.user.id),
      );
    }
  };
}

/** What the Revise box asks where the card's button says (a proposal's query), with the button's name. */
function asked(ask: string | undefined, button: ButtonArgs['action']) {
  if (!ask) return undefined;
  const text = (button as { text?: { text?: unknown } }).text?.text;
  return { ask, ...(typeof text === 'string' && text ? { button: text } : {}) };
}

/**
 * Edit's form, once the review is read: its fields when the button names a review of its task,
 * else the empty form (the engine refuses it with the reason when it comes back).
 */
async function fillEdit(
  deps: ListenerDeps,
  client: WebClient,
  view: { id: string; hash?: string },
  meta: ReviseMeta,
  value: ButtonValue | undefined,
  user: string,
): Promise<void> {
  let shown: types.View;
  try {
    const review = value ? (await deps.engine.review(value.review))?.review : undefined;
    const fields = review && review.taskId === value?.task ? review.request.fields : [];
    shown = reviseModal(
      meta,
      fields.some((f) => f.choices)
        ? 'Decide each call: approve it (with the arguments shown, which you may change) or reject it. Sending approves what you chose.'
        : 'Change the arguments, then send: that approves the call with them.',
      3000,
      fields,
    );
  } catch (err) {
    deps.logger.error({ err }, 'could not read the review for its Edit form');
    shown = editLoading(
      'I could not read this call just now (the database did not answer). Close this and click Edit on the card again.',
    );
  }
  await fillModal({ client, logger: deps.logger }, view, shown, {
    modal: (refused) => editLoading(refused ? EDIT_REFUSED : EDIT_NOT_SHOWN),
    sentence: (refused) => (refused ? EDIT_REFUSED_TOLD : EDIT_NOT_SHOWN_TOLD),
    place: { channel: meta.channel, user, threadTs: meta.threadTs, responseUrl: meta.responseUrl },
  });
}
