/**
 * Approve selected / Reject selected, from the Home tab or `/signoff list`: each review ticked is
 * decided as a click on its card would be (decide.ts), one by one: its own transaction, its own
 * audit entry, refused on its own (changed since the list was drawn, decided meanwhile, not the
 * person's to decide, in a channel they have left since). What became of each is said at once: in a modal from the Home tab (which
 * is then drawn again; home-notice.ts), through the list's response URL from `/signoff list`.
 */
import type { AllMiddlewareArgs, BlockAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import { isConnectionError } from '../../../../db/queryable.js';
import type { Review, Task } from '../../../../engine/index.js';
import { BATCH_ACTION_IDS, BATCH_BLOCK, decidedOnItsCard, readBatchValue } from '../../../blocks/batch.js';
import { escapeMrkdwn, truncate } from '../../../blocks/text.js';
import { slackOriginSchema } from '../../../shared/origin.js';
import { decideFromSlack } from '../../decide.js';
import type { ButtonArgs, ListenerDeps } from '../../deps.js';
import { homeNotice } from '../../home-notice.js';
import type { HomeRefresh } from '../../home-refresh.js';
import { respondPrivately } from '../../respond.js';

/** Ticking a box is Slack's action too: acknowledged, nothing to do until a button is clicked. */
export const createBatchPick =
  () =>
  async ({ ack }: SlackActionMiddlewareArgs<BlockAction> & AllMiddlewareArgs) => {
    await ack();
  };

type Values = Record<string, Record<string, { selected_options?: { value: string }[] }>>;

/** A refusal from a list: the words for the person, and the audit's code. */
interface Refusal {
  said: string;
  code: 'not_allowed' | 'directory_unavailable';
}

/**
 * Why a ticked review could not be read: the database did not answer (the same box, the same
 * button, later), or something else, which is not called the database's doing.
 */
const couldNotRead = (deps: ListenerDeps, err: unknown, button: string) =>
  isConnectionError(err, deps.pool)
    ? `I could not read it just now (the database did not answer), so it was not decided. Tick it and click ${button} again in a minute.`
    : 'I could not read it (an error, logged for whoever runs signoff), so it was not decided; decide it on its card.';

/**
 * Why `user` may not decide the review from a list now: its channel is not one they are in (the
 * list was drawn before they left it, and nobody sees a review from a channel they are not in), or
 * Slack did not say just now (asked as the list was drawn, audience.ts, kept a minute). The task
 * is the one read with the review: no second read.
 */
async function notInChannel(deps: ListenerDeps, user: string, task: Task): Promise<Refusal | undefined> {
  const unsure: Refusal = {
    said: 'Slack did not say just now whether you are in its channel; try again in a minute.',
    code: 'directory_unavailable',
  };
  const channel = slackOriginSchema.safeParse(task.origin).data?.channel;
  let where = { seen: [] as string[], unchecked: [] as string[] };
  try {
    if (channel) where = await deps.audience.among(user, [channel]);
  } catch (err) {
    // Its own refusal: the reviews after it are still decided, and the person still told.
    deps.logger.warn({ err, task: task.id }, "a decision from a list could not ask Slack's directory");
    return unsure;
  }
  if (channel && where.seen.includes(channel)) return undefined;
  if (channel && where.unchecked.includes(channel)) return unsure;
  return {
    said: 'you are not in its channel now, so it is not yours to decide from a list.',
    code: 'not_allowed',
  };
}

export function createBatchDecision(deps: ListenerDeps, action: 'approve' | 'reject', home: HomeRefresh) {
  return async ({ ack, body, client }: ButtonArgs) => {
    await ack();
    const values = (body.view?.state?.values ?? body.state?.values ?? {}) as Values;
    const ticked = values[BATCH_BLOCK]?.[BATCH_ACTION_IDS.pick]?.selected_options ?? [];
    const picked = ticked.flatMap((o) => {
      const v = readBatchValue(o.value);
      return v ? [v] : [];
    });
    // A box this version cannot read (drawn by another) is said, never dropped in silence.
    const unread = ticked.length - picked.length;
    const fromHome = body.view?.type === 'home';
    // From the Home tab, the outcome's notice opens at once and is filled in once every review is
    // decided.
    const button = action === 'approve' ? 'Approve selected' : 'Reject selected';
    const notice =
      fromHome &&
      homeNotice(
        { client, logger: deps.logger },
        { triggerId: body.trigger_id, user: body.user.id },
        button,
        `Deciding ${picked.length} reviews…`,
      );
    const say = async (text: string) => {
      if (notice) {
        await notice(text);
        await home.refresh({ client, user: body.user.id });
      } else if (body.response_url) await respondPrivately(body.response_url, text, deps.logger);
    };
    await deps.afterAck.run(async () => {
      if (!ticked.length) return say('Tick the reviews to decide first; nothing was decided.');
      const done: string[] = [];
      const refused: string[] = [];
      if (unread)
        refused.push(
          `• ${unread} of the ticked reviews: their boxes are out of date. Open the list again and tick them there.`,
        );
      for (const { review: id, h } of picked) {
        // A review that could not be read has no task to audit it under: it is said, not audited.
        let found: { review: Review; task: Task } | undefined;
        try {
          found = await deps.engine.review(id);
        } catch (err) {
          deps.logger.warn({ err, review: id }, 'a decision from a list could not read its review');
          refused.push(`• ${id}: ${couldNotRead(deps, err, button)}`);
          continue;
        }
        if (!found) {
          refused.push(`• ${id}: it is no longer there; nothing was decided.`);
          continue;
        }
        const { review, task } = found;
        const title = escapeMrkdwn(truncate(review.request.title, 80));
        const onCard = decidedOnItsCard(review);
        if (onCard) {
          refused.push(`• ${title}: ${onCard}`);
          continue;
        }
        const away = await notInChannel(deps, body.user.id, task);
        if (away) {
          // In the audit as a refused click on the card is: who tried what, and why.
          await deps.engine
            .auditRefusal({
              actor: body.user.id,
              action,
              taskId: review.taskId,
              reviewId: review.id,
              code: away.code,
              message: away.said,
              detail: { from: 'list' },
            })
            .catch((err) => deps.logger.warn({ err }, 'a refused decision from a list was not audited'));
          refused.push(`• ${title}: ${away.said}`);
          continue;
        }
        let why: string | undefined;
        const decided = await decideFromSlack(
          deps,
          client,
          {
            click: { review: id, task: review.taskId, h },
            user: body.user.id,
            channel: '',
            action,
            team: body.user.team_id,
          },
          async (said: string) => {
            why = said;
          },
        );
        if (decided?.review.status === 'decided') done.push(`• ${title}`);
        else if (decided) done.push(`• ${title} (${why ?? 'your approval is counted'})`);
        else refused.push(`• ${title}: ${why ?? 'nothing was decided.'}`);
      }
      const verb = action === 'approve' ? 'Approved' : 'Rejected';
      await say(
        [
          done.length
            ? `*${verb} ${done.length} of ${ticked.length}:*\n${done.join('\n')}`
            : `*None of the ${ticked.length} was ${verb.toLowerCase()}.*`,
          refused.length ? `*Not decided* (each on its own):\n${refused.join('\n')}` : '',
        ]
          .filter(Boolean)
          .join('\n\n'),
      );
    });
  };
}
