/** The revise modal's submission: empty feedback is refused inside the modal; otherwise decide. */
import type { AllMiddlewareArgs, SlackViewMiddlewareArgs } from '@slack/bolt';
import { z } from 'zod';
import { invalidEdit } from '../../../engine/standard-interrupts.js';
import { FIELD_BLOCK } from '../../blocks/modals.js';
import { buttonValueSchema, clickedReview, decideFromSlack, NOT_THIS_CARD, safeJson } from '../../decide.js';
import type { ListenerDeps } from '../../deps.js';

const metaSchema = z.object({
  value: z.unknown(),
  channel: z.string().optional(),
  messageTs: z.string().optional(),
  threadTs: z.string().optional(),
});

export function createReviseSubmission(deps: ListenerDeps) {
  return async ({ ack, view, body, client }: SlackViewMiddlewareArgs & AllMiddlewareArgs) => {
    const feedback = (view.state.values.feedback?.value?.value ?? '').trim();
    const values = Object.fromEntries(
      Object.entries(view.state.values)
        .filter(([block]) => block.startsWith(FIELD_BLOCK))
        .map(([block, v]) => [block.slice(FIELD_BLOCK.length), v.value?.value ?? '']),
    );
    if (Object.keys(values).length) {
      // Edited arguments are checked here, so that a mistake is shown in the form itself.
      const meta = metaSchema.safeParse(safeJson(view.private_metadata));
      const named = meta.success ? buttonValueSchema.safeParse(meta.data.value) : undefined;
      const review = named?.success
        ? await deps.engine.review(named.data.review).catch(() => undefined)
        : undefined;
      const errors = review ? invalidEdit(review.request, values) : {};
      if (Object.keys(errors).length) {
        await ack({
          response_action: 'errors',
          errors: Object.fromEntries(Object.entries(errors).map(([id, e]) => [`${FIELD_BLOCK}${id}`, e])),
        });
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
      const meta = metaSchema.safeParse(safeJson(view.private_metadata));
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
        action: 'revise',
        feedback,
        values,
        threadTs: meta.success ? meta.data.threadTs : undefined,
        team: body.user.team_id,
      });
    });
  };
}
