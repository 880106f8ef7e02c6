/**
 * `/signoff away`'s form sent back: until the day picked, the person's reviews (claimed by them,
 * or naming them) go to the one picked, and so do reviews opened meanwhile; each card says so.
 * `/signoff away off` (signoff.ts) ends it.
 */
import type { AllMiddlewareArgs, SlackViewMiddlewareArgs } from '@slack/bolt';
import { z } from 'zod';
import { isSignoffError } from '../../../../errors.js';
import { PERSON_BLOCK, UNTIL_BLOCK } from '../../../blocks/claim-modals.js';
import { COULD_NOT_RECORD, type ListenerDeps } from '../../deps.js';
import { tell } from '../../start-task.js';

const metaSchema = z.object({
  channel: z.string().max(40),
  responseUrl: z.string().url().max(1000).optional(),
});

export function createAwaySubmission(deps: ListenerDeps) {
  return async ({ ack, view, body, client }: SlackViewMiddlewareArgs & AllMiddlewareArgs) => {
    const day = view.state.values[UNTIL_BLOCK]?.value?.selected_date ?? '';
    const to = view.state.values[PERSON_BLOCK]?.value?.selected_user ?? undefined;
    const until = /^\d{4}-\d{2}-\d{2}$/.test(day) ? new Date(`${day}T00:00:00Z`) : undefined;
    if (!until || until.getTime() <= Date.now()) {
      await ack({
        response_action: 'errors',
        errors: { [UNTIL_BLOCK]: 'Pick a day after today for when you are back.' },
      });
      return;
    }
    if (!to || to === body.user.id) {
      await ack({
        response_action: 'errors',
        errors: { [PERSON_BLOCK]: 'Pick someone else to take your reviews.' },
      });
      return;
    }
    await ack();
    const meta = metaSchema.safeParse(
      (() => {
        try {
          return JSON.parse(view.private_metadata);
        } catch {
          return undefined;
        }
      })(),
    );
    const where = {
      channel: meta.data?.channel ?? '',
      user: body.user.id,
      responseUrl: meta.data?.responseUrl,
    };
    await deps.afterAck.run(async () => {
      try {
        const { handedOver } = await deps.engine.claims.away(body.user.id, until, to);
        await tell(
          deps,
          client,
          where,
          `Away until ${day}: <@${to}> decides your reviews meanwhile (${handedOver} handed over now, and those opened while you are away); each card says so. \`/signoff away off\` ends it sooner.`,
        );
      } catch (error) {
        const text =
          isSignoffError(error) && error.code !== 'database_unavailable' ? error.message : COULD_NOT_RECORD;
        if (text === COULD_NOT_RECORD) deps.logger.error({ err: error }, 'away failed');
        await tell(deps, client, where, text);
      }
    });
  };
}
