/**
 * The revise or edit modal's submission: empty feedback, or an Edit form that cannot be read, is
 * refused inside the modal; otherwise decide.
 */
import type { AllMiddlewareArgs, SlackViewMiddlewareArgs } from '@slack/bolt';
import { z } from 'zod';
import { FORM, invalidEdit } from '../../../engine/review-form.js';
import { FIELD_BLOCK } from '../../blocks/modals.js';
import { buttonValueSchema, clickedReview, decideFromSlack, NOT_THIS_CARD, safeJson } from '../../decide.js';
import type { ListenerDeps } from '../../deps.js';

const metaSchema = z.object({
  value: z.unknown(),
  /** Absent on modals opened before Edit had its own button: those were Revise. */
  action: z.enum(['revise', 'edit']).default('revise'),
  channel: z.string().optional(),
  messageTs: z.string().optional(),
  threadTs: z.string().optional(),
});

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
    const meta = metaSchema.safeParse(safeJson(view.private_metadata));
    const action = meta.success ? meta.data.action : 'revise';
    if (action === 'edit') {
      // The form is checked here, so that a mistake is shown in the form itself.
      const named = meta.success ? buttonValueSchema.safeParse(meta.data.value) : undefined;
      const review = named?.success
        ? await deps.engine.review(named.data.review).catch(() => undefined)
        : undefined;
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
    } else if (!feedback) {
      await ack({
        response_action: 'errors',
        errors: { feedback: 'Say what should change; the feedback is empty.' },
      });
      return;
    }
    await ack();
    await deps.afterAck.run(async () => {
      const channel = meta.success ? meta.data.channel : undefined;
      const click = meta.success
        ? await clickedReview(deps, meta.data.value, { channel, messageTs: meta.data.messageTs })
        : undefined;
      if (!click || !channel) {
        if (channel)
          await client.chat
            .postEphemeral({ channel, user: body.user.id, text: NOT_THIS_CARD })
            .catch(() => undefined);
        return;
      }
      await decideFromSlack(deps, client, {
        click,
        user: body.user.id,
        channel,
        action,
        feedback,
        values: action === 'edit' ? values : undefined,
        threadTs: meta.success ? meta.data.threadTs : undefined,
        team: body.user.team_id,
      });
    });
  };
}
