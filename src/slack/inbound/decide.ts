/**
 * Turning a click or a modal into a decision. The button value is attacker-controlled: it is
 * parsed with zod, and the review it names must have its card in the very message clicked (or,
 * for a reply's private question, the reply it names must be the clicker's, in that task).
 * Refusals and failures become an ephemeral sentence; the card is left as it was.
 */
import type { WebClient } from '@slack/web-api';
import { z } from 'zod';
import type { Action, Actor, AllowRule, Decided, Review, RuleScope, Task } from '../../engine/index.js';
import { approvalsNeeded, contentHash, DecisionRefused } from '../../engine/index.js';
import { isSignoffError, SignoffError } from '../../errors.js';
import { plainActions, reviewCard } from '../blocks/review-card.js';
import type { Directory } from '../shared/directory.js';
import { cardKey, cardText, findPost, recordPost } from '../shared/posts.js';
import { findThreadPost } from '../shared/recent-post.js';
import { COULD_NOT_RECORD, type ListenerDeps } from './deps.js';
import { findReply, type HeardReply } from './replies.js';
import { type ClickPlace, tellClicker } from './tell-clicker.js';

export const buttonValueSchema = z.object({
  review: z.string().min(1).max(100),
  task: z.string().min(1).max(300),
  /** The hash of the content the card showed (cards posted before it existed carry none). */
  h: z.string().max(64).optional(),
  /** Revise's only: what its box asks, where the workflow says (`feedbackLabel`). */
  ask: z.string().max(100).optional(),
});
export type ButtonValue = z.infer<typeof buttonValueSchema>;

export const NOT_THIS_CARD = 'That button does not belong to a review here; nothing was changed.';

/** Said when the card was not yet written down and Slack did not answer whether this is it. */
export const CARD_UNCONFIRMED =
  'Sorry, nothing was decided: this card was posted a moment ago and Slack did not confirm it just now. Please click again.';

/** Slack did not answer whether the clicked message is a card signoff had yet to write down. */
class CardUnconfirmed extends Error {}

/** Said when an approval comes from a card (or a question) that cannot show what it approves. */
export const CANNOT_SHOW =
  "Nothing was approved: this review's card cannot show all of its content, so it cannot be approved here (nobody would see what they approve). It can still be rejected, or sent back where the card offers that.";

/**
 * The review a click names, if it really is the card in the clicked message. A card Slack shows
 * before signoff has written down where it is (Slack answered the post late, or the click came
 * between the answer and the write) is asked of Slack: the clicked message is the card when the
 * thread's message posted under the card's key is that very one; it is then written down, as
 * the deliverer would have.
 */
export async function clickedReview(
  deps: ListenerDeps,
  client: WebClient,
  value: unknown,
  where: { channel?: string; messageTs?: string; threadTs?: string },
): Promise<ButtonValue | undefined> {
  const parsed = buttonValueSchema.safeParse(typeof value === 'string' ? safeJson(value) : value);
  if (!parsed.success) return undefined;
  const key = cardKey(parsed.data.review);
  const card = (await findPost(deps.pool, key)) ?? (await unrecordedCard(deps, client, key, where));
  if (!card || card.channel !== where.channel || card.ts !== where.messageTs) return undefined;
  return parsed.data;
}

/** The card posted as `key` in the clicked message's thread, when Slack says it is the clicked message. */
async function unrecordedCard(
  deps: ListenerDeps,
  client: WebClient,
  key: string,
  where: { channel?: string; messageTs?: string; threadTs?: string },
): Promise<{ channel: string; ts: string } | undefined> {
  const { channel, messageTs, threadTs } = where;
  if (!channel || !messageTs || !threadTs) return undefined;
  const ts = await findThreadPost(client, { channel, ts: threadTs }, key).catch((err: unknown) => {
    deps.logger.warn({ err, key }, 'Slack did not say whether the clicked message is the card');
    throw new CardUnconfirmed();
  });
  if (ts !== messageTs) return undefined;
  await recordPost(deps.pool, key, channel, ts);
  return { channel, ts };
}

/** A button on a reply's private question: the card's value and the reply (its message ts). */
export const questionValueSchema = buttonValueSchema.extend({ reply: z.string().min(1).max(40) });
export type QuestionValue = z.infer<typeof questionValueSchema>;

/**
 * The review and reply a click on a private question names, if they hold together. The question
 * is an ephemeral message (its ts is not the card's), so the check is not the card's: the reply
 * must be one recorded in the clicked channel, by the person clicking, in the task named; and the
 * review's card must be in that channel. The engine then refuses a review not of that task, and
 * a hash that is not the review's content.
 */
export async function questionReview(
  deps: ListenerDeps,
  value: unknown,
  where: { channel?: string; user: string },
): Promise<{ click: QuestionValue; reply: HeardReply } | undefined> {
  const parsed = questionValueSchema.safeParse(typeof value === 'string' ? safeJson(value) : value);
  if (!parsed.success || !where.channel) return undefined;
  const click = parsed.data;
  const reply = await findReply(deps.pool, where.channel, click.reply);
  if (!reply || reply.user !== where.user || reply.taskId !== click.task) return undefined;
  const card = await findPost(deps.pool, cardKey(click.review));
  if (!card || card.channel !== where.channel) return undefined;
  return { click, reply };
}

export function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * The person acting in Slack as the engine checks them: whether they come from outside this
 * workspace's organization or are a guest (`team`: the `user.team_id` of their request, kept as
 * their `workspace` for the user groups the engine asks Slack's directory about: groups.ts). Not
 * asked when `reviewers` (of every review they may act on here) names their user id: the team's
 * config vouches for them (authorize.ts), so a `users.info` outage stops no named reviewer.
 */
export async function slackActor(
  directory: Directory,
  user: string,
  team?: string,
  reviewers?: readonly (readonly string[])[],
): Promise<Actor> {
  const actor: Actor = team ? { id: user, workspace: team } : { id: user };
  const named = reviewers !== undefined && reviewers.length > 0 && reviewers.every((r) => r.includes(user));
  if (named) return actor;
  const standing = await directory.standing(user, team);
  return {
    ...actor,
    ...(standing === 'member' ? {} : { external: standing === 'external' ? true : ('unknown' as const) }),
  };
}

export interface SlackDecision {
  click: ButtonValue;
  user: string;
  channel: string;
  action: Action;
  feedback?: string;
  values?: Record<string, string>;
  threadTs?: string;
  /** The `user.team_id` the request carried (another workspace's, for someone from Slack Connect). */
  team?: string;
  /** "Always allow…": approve, and propose a rule of this scope with it (refused together). */
  scope?: RuleScope['kind'];
}

/**
 * Records the decision; tells the person in a sentence (privately in the channel, unless `tell`
 * says otherwise) when it was refused, counted towards a quorum, or failed. Returns what was
 * recorded, or undefined when nothing was (refused, or failed).
 */
export async function decideFromSlack(
  deps: ListenerDeps,
  client: WebClient,
  d: SlackDecision,
  tell: (text: string) => Promise<unknown> = tellClicker(
    { client, logger: deps.logger },
    { channel: d.channel, user: d.user, threadTs: d.threadTs },
  ),
): Promise<Decided | undefined> {
  try {
    const found = await deps.engine.review(d.click.review);
    const review = found?.review;
    const unseen = await approvesUnseen(deps, d, review);
    if (unseen && found) {
      await tell(CANNOT_SHOW);
      // The card may still show buttons it should not (a redraw Slack refused): redrawn plain.
      await refreshCard(deps, client, unseen, found.task);
      return undefined;
    }
    const input = {
      reviewId: d.click.review,
      taskId: d.click.task,
      actor: await slackActor(
        deps.directory,
        d.user,
        d.team,
        review ? [review.settings.reviewers] : undefined,
      ),
      contentHash: d.click.h,
    };
    const result = await (d.scope
      ? deps.engine.rules.propose({ ...input, scope: d.scope })
      : deps.engine.decide({ ...input, action: d.action, feedback: d.feedback, values: d.values })
    )
      // A refusal is said here, like the rest; anything else is a failure (below).
      .catch((error: unknown) => {
        if (error instanceof DecisionRefused || isSignoffError(error, 'rules_off'))
          return error as SignoffError;
        throw error;
      });
    if (result instanceof SignoffError) {
      await tell(result.message);
      // A stale card is shown again as it is now, so that the next click is on what is decided.
      if (result instanceof DecisionRefused && result.code === 'stale_review' && result.review && found)
        await refreshCard(deps, client, result.review, found.task);
      return undefined;
    }
    if ('rule' in result && result.rule)
      await tell(
        `Approved, and rule #${(result.rule as AllowRule).id} is proposed: it applies once it is signed off, on its message in this thread.`,
      );
    // An approval counted towards a quorum: the card shows it; the person hears what happens next.
    if (result.review.status === 'pending') {
      const got = result.review.approvals.length;
      const needed = approvalsNeeded(result.review.settings);
      const more = `${needed - got} more ${needed - got === 1 ? 'reviewer approves' : 'reviewers approve'}`;
      await tell(
        d.action === 'edit' && result.review.request.edit?.by === d.user
          ? `Your edit is recorded as your approval (${got} of ${needed}). The card now shows the edited call; it goes ahead once ${more} it.`
          : `Your approval is recorded (${got} of ${needed}). The task goes on once ${more}.`,
      );
    }
    return result;
  } catch (error) {
    deps.logger.error({ err: error }, 'decision failed');
    await tell(COULD_NOT_RECORD);
    return undefined;
  }
}

/**
 * The review, when `d` would approve content its card cannot show (see cardText): checked at the click, so
 * that a button drawn before the card went plain (a reply's private question, a form left open)
 * approves nothing unseen either. A click on other content than the review's is left to the
 * engine, which refuses it as out of date.
 */
async function approvesUnseen(
  deps: ListenerDeps,
  d: SlackDecision,
  review: Review | undefined,
): Promise<Review | undefined> {
  if (!review || review.taskId !== d.click.task || plainActions(review.request).includes(d.action)) return;
  if (d.click.h !== undefined && d.click.h !== contentHash(review.request)) return;
  return (await cardText(deps.pool, review.id, review.request)).plain ? review : undefined;
}

/**
 * Redraws a review's card from its current content (after a click it refused); a plain card stays
 * plain. `task` is the one read with the review at the click: the card takes only its requester,
 * which a task keeps for good, so it is not read again.
 */
async function refreshCard(deps: ListenerDeps, client: WebClient, review: Review, task: Task): Promise<void> {
  const card = await findPost(deps.pool, cardKey(review.id));
  if (!card) return;
  const text = await cardText(deps.pool, review.id, review.request);
  await client.chat
    .update({
      channel: card.channel,
      ts: card.ts,
      ...reviewCard(review, task.requester, text.plain ? {} : undefined, text.below),
    })
    .catch((err) => deps.logger.warn({ err }, 'could not redraw a stale card'));
}

/** A click on a card's button, or the form such a click opened, as its listener got it after the ack. */
export interface CardClick extends Omit<SlackDecision, 'click' | 'channel' | 'user' | 'threadTs'> {
  /** The button's value as Slack sent it (attacker-controlled: checked by clickedReview). */
  value: unknown;
  /** Where the click came from and who clicked; `messageTs` is the clicked message (the card it must be). */
  place: ClickPlace & { messageTs?: string };
}

/**
 * Decides a click on a card (Approve, Reject, or a Revise/Edit form sent back), off the ack's path
 * (after-ack.ts): a button that is not the card in the clicked message changes nothing, and
 * whatever happens is said to the person (tell-clicker.ts).
 */
export function decideClick(deps: ListenerDeps, client: WebClient, c: CardClick): Promise<void> {
  const { value, place, ...decision } = c;
  const tell = tellClicker({ client, logger: deps.logger }, place);
  return deps.afterAck.run(async () => {
    try {
      const click = await clickedReview(deps, client, value, place);
      if (!click || !place.channel) return void (await tell(NOT_THIS_CARD));
      const { channel, user, threadTs } = place;
      await decideFromSlack(deps, client, { ...decision, click, channel, user, threadTs }, tell);
    } catch (error) {
      if (error instanceof CardUnconfirmed) return void (await tell(CARD_UNCONFIRMED));
      // The database did not answer: the card stays as it was, and the click (or form) can be sent again.
      deps.logger.error({ err: error }, 'click failed');
      await tell(COULD_NOT_RECORD);
    }
  });
}

/**
 * Claims, hands over (`to`: who takes it) or releases (`to` null) a review for a Slack user, and
 * says what happened (the card is redrawn from the event).
 */
export async function claimFromSlack(
  deps: ListenerDeps,
  tell: (text: string) => Promise<unknown>,
  reviewId: string,
  who: { user: string; team?: string },
  to: string | null,
): Promise<void> {
  try {
    const actor = await slackActor(deps.directory, who.user, who.team);
    const review =
      to === null
        ? await deps.engine.claims.release(reviewId, actor)
        : await deps.engine.claims.claim(
            reviewId,
            actor,
            // Whom it is handed to, with their standing: a guest is not handed what they may not decide.
            // (asked of their own workspace: the clicker's may be another organization's).
            to === who.user ? actor : await slackActor(deps.directory, to),
          );
    await tell(
      to === null
        ? 'Released: nobody has this review now.'
        : to === who.user
          ? `It is yours: reminders about it come to you${review.settings.exclusiveClaims ? ', and only you decide it while it is yours' : ''}.`
          : `Handed to <@${to}>, who is pinged in the thread.`,
    );
  } catch (error) {
    if (isSignoffError(error) && error.code !== 'database_unavailable')
      return void (await tell(error.message));
    deps.logger.error({ err: error }, 'claim failed');
    await tell(COULD_NOT_RECORD);
  }
}
