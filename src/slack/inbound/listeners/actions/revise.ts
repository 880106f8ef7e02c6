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
import type { AllMiddlewareArgs, BlockButtonAction, SlackActionMiddlewareArgs, types } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { editLoading, reviseModal } from '../../../blocks/modals.js';
import type { ReviseMeta } from '../../../blocks/revise-meta.js';
import { slackErrorCode } from '../../../shared/final-errors.js';
import { type ButtonValue, buttonValueSchema, safeJson } from '../../decide.js';
import { type ListenerDeps, notOpened } from '../../deps.js';
import { afterRateLimit } from '../../rate-limited.js';
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
  return async ({
    ack,
    body,
    action: button,
    client,
  }: SlackActionMiddlewareArgs<BlockButtonAction> & AllMiddlewareArgs) => {
    await ack();
    const value = buttonValueSchema.safeParse(safeJson(button.value ?? ''));
    const meta: ReviseMeta = {
      value: value.success ? value.data : null,
      action,
      channel: body.channel?.id ?? body.container?.channel_id,
      messageTs: body.message?.ts ?? body.container?.message_ts,
      threadTs: body.message?.thread_ts,
      responseUrl: body.response_url,
    };
    const opened = await client.views
      .open({
        trigger_id: body.trigger_id,
        view: action === 'revise' ? reviseModal(meta, REVISE_TEXT, 3000) : editLoading(),
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
    const review = value ? await deps.engine.review(value.review) : undefined;
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
  // A short Retry-After is waited out: the person is looking at "Reading the call…".
  const err = await afterRateLimit(() =>
    client.views.update({ view_id: view.id, hash: view.hash, view: shown }),
  ).then(
    () => undefined,
    (error: unknown) => error,
  );
  if (!err) return;
  deps.logger.warn({ err }, 'could not show the Edit form');
  // Left as it is, the modal would read "Reading the call…" for ever: it says what happened
  // instead (with no hash: this replaces whatever the modal shows, whoever changed it last)…
  const refused = slackErrorCode(err)?.startsWith('invalid_') ?? false;
  const shownError = await client.views
    .update({ view_id: view.id, view: editLoading(refused ? EDIT_REFUSED : EDIT_NOT_SHOWN) })
    .then(
      () => true,
      (error: unknown) => {
        deps.logger.warn({ err: error }, 'could not show why the Edit form is missing');
        return false;
      },
    );
  if (shownError) return;
  // …or, when Slack takes no update of it either, a sentence to the person beside it.
  await tellClicker(
    { client, logger: deps.logger },
    { channel: meta.channel, user, threadTs: meta.threadTs, responseUrl: meta.responseUrl },
  )(refused ? EDIT_REFUSED_TOLD : EDIT_NOT_SHOWN_TOLD);
}
