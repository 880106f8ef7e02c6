/**
 * Approve selected / Reject selected, from the Home tab or `/signoff list`: each review ticked is
 * decided as a click on its card would be (decide.ts), one by one: its own transaction, its own
 * audit entry, refused on its own (changed since the list was drawn, decided meanwhile, not the
 * person's to decide, in a channel they have left since). What became of each is said at once: in a modal from the Home tab (which
 * is then drawn again; home-notice.ts), through the list's response URL from `/signoff list`.
 */
import type { AllMiddlewareArgs, BlockAction, SlackActionMiddlewareArgs } from '@slack/bolt';
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
  code: 'not_allowed' | 'directory_unavailable' | 'database_unavailable';
}

/** What to do when signoff could not read what it needs: the same box, the same button, later. */
const couldNotRead = (what: string, button: string) =>
  `I could not read ${what} just now (the database did not answer), so it was not decided. Tick it and click ${button} again in a minute.`;

/**
 * Why `user` may not decide `review` from a list now: its channel is not one they are in (the list
 * was drawn before they left it, and nobody sees a review from a channel they are not in), Slack
 * did not say just now (asked as the list was drawn, audience.ts, kept a minute), or its task
 * could not be read (the database, not Slack's directory: the audit says which).
 */
async function notInChannel(
  deps: ListenerDeps,
  user: string,
  review: Review,
  button: string,
): Promise<Refusal | undefined> {
  let task: Task | undefined;
  try {
    task = await deps.engine.getTask(review.taskId);
  } catch (err) {
    deps.logger.warn({ err, review: review.id }, 'a decision from a list could not read its task');
    return { said: couldNotRead('its task', button), code: 'database_unavailable' };
  }
  const channel = slackOriginSchema.safeParse(task?.origin).data?.channel;
  const where = channel ? await deps.audience.among(user, [channel]) : { seen: [], unchecked: [] };
  if (channel && where.seen.includes(channel)) return undefined;
  if (channel && where.unchecked.includes(channel))
    return {
      said: 'Slack did not say just now whether you are in its channel; try again in a minute.',
      code: 'directory_unavailable',
    };
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
        // null: it could not be read (the database); undefined: there is no such review.
        const review = await deps.engine.review(id).catch((err) => {
          deps.logger.warn({ err, review: id }, 'a decision from a list could not read its review');
          return null;
        });
        const title = review ? escapeMrkdwn(truncate(review.request.title, 80)) : id;
        if (!review) {
          refused.push(
            `• ${title}: ${review === null ? couldNotRead('it', button) : 'it is no longer there; nothing was decided.'}`,
          );
          continue;
        }
        const onCard = decidedOnItsCard(review);
        if (onCard) {
          refused.push(`• ${title}: ${onCard}`);
          continue;
        }
        const away = await notInChannel(deps, body.user.id, review, button);
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
