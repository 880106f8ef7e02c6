/**
 * The revise or edit modal's submission: empty feedback, words the review will not take (too
 * short or long, a query searched before), or an Edit form that cannot be read, is refused inside
 * the modal, where the person still has their words to change; otherwise decide. What happened is said to the person as a click's is
 * (tell-clicker.ts): Slack sends a submission with no response URL, so the modal carries the one of
 * the click that opened it (revise-meta.ts), which reaches someone Slack shows no ephemeral there.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { AllMiddlewareArgs, SlackViewMiddlewareArgs } from '@slack/bolt';
import { FORM, invalidDecision, invalidEdit } from '../../../../engine/index.js';
import { FIELD_BLOCK } from '../../../blocks/modals.js';
import { placeOfMeta, readReviseMeta } from '../../../blocks/revise-meta.js';
import { buttonValueSchema, decideClick } from '../../decide.js';
import type { ListenerDeps } from '../../deps.js';

/** How long the form waits for the review before its ack (Slack's limit is 3 s). */
const FORM_READ_MS = 1_500;

type State = SlackViewMiddlewareArgs['view']['state']['values'][string][string];
/** A text input's value, or the value of the option chosen in a menu (nothing chosen: absent). */
const answerOf = (v: State | undefined): string | undefined =>
  v?.type === 'static_select' ? (v.selected_option?.value ?? undefined) : (v?.value ?? '');

export function createReviseSubmission(deps: ListenerDeps) {
  return async ({ ack, view, body, client }: SlackViewMiddlewareArgs & AllMiddlewareArgs) => {
    const feedback = (view.state.values.feedback?.value?.value ?? '').trim();
    const values = Object.fromEntries(
      Object.entries(view.state.values)
        .filter(([block]) => block.startsWith(FIELD_BLOCK))
        .flatMap(([block, v]) => {
          const answer = answerOf(v.value);
          return answer === undefined ? [] : [[block.slice(FIELD_BLOCK.length), answer]];
        }),
    ) as Record<string, string>;
    const meta = readReviseMeta(view.private_metadata);
    const action = meta?.action === 'edit' ? 'edit' : 'revise';
    // The review is read before the ack, so that a mistake is shown in the form itself. When it
    // cannot be read in time (the database down or slow: Slack waits 3 s for the ack), the
    // decision says what happened, as a click's does; the engine checks the words again anyway.
    const named = meta ? buttonValueSchema.safeParse(meta.value) : undefined;
    const reviewNamed = async () => {
      if (!named?.success) return undefined;
      // The wait is cut short once the review is read: no timer left behind each submission.
      const read = new AbortController();
      const late = sleep(FORM_READ_MS, undefined, { signal: read.signal }).then(
        () => undefined,
        () => undefined,
      );
      const review = deps.engine.review(named.data.review).then(
        (found) => found?.review,
        () => undefined,
      );
      const found = await Promise.race([review, late]);
      read.abort();
      return found;
    };
    if (action === 'edit') {
      const review = await reviewNamed();
      const errors = review ? invalidEdit(review.request, values) : {};
      if (Object.keys(errors).length) {
        const fields = new Set(review?.request.fields.map((f) => f.id));
        const blockOf = (id: string) => (id !== FORM && fields.has(id) ? `${FIELD_BLOCK}${id}` : 'feedback');
        const shown: Record<string, string> = {};
        for (const [id, e] of Object.entries(errors))
          shown[blockOf(id)] = `${shown[blockOf(id)] ?? ''} ${e}`.trim();
        await ack({ response_action: 'errors', errors: shown });
        return;
      }
    } else {
      const review = feedback ? await reviewNamed() : undefined;
      // Only on a review still waiting: one decided or cancelled gets that refusal after the ack,
      // not a note about the words first.
      const refused = feedback
        ? review?.status === 'pending' && invalidDecision(review, { action, feedback })
        : 'Say what should change: the feedback is empty.';
      if (refused) {
        await ack({ response_action: 'errors', errors: { feedback: refused } });
        return;
      }
    }
    await ack();
    await decideClick(deps, client, {
      value: meta?.value,
      place: placeOfMeta(meta, body.user.id),
      action,
      feedback,
      values: action === 'edit' ? values : undefined,
      team: body.user.team_id,
    });
  };
}
