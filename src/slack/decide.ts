/**
 * Turning a click or a modal into a decision. The button value is attacker-controlled: it is
 * parsed with zod, and the review it names must have its card in the very message clicked.
 * Refusals and failures become an ephemeral sentence; the card is left as it was.
 */
import type { WebClient } from '@slack/web-api';
import { z } from 'zod';
import { approvalsNeeded } from '../engine/sign-off-rules.js';
import type { Action, Review } from '../engine/types.js';
import { longerThanCard, reviewCard } from './blocks/review-card.js';
import { COULD_NOT_RECORD, type ListenerDeps } from './deps.js';
import { findPost, redrawnPlain } from './posts.js';

export const buttonValueSchema = z.object({
  review: z.string().min(1).max(100),
  task: z.string().min(1).max(300),
  /** The hash of the content the card showed (cards posted before it existed carry none). */
  h: z.string().max(64).optional(),
});
export type ButtonValue = z.infer<typeof buttonValueSchema>;

export const NOT_THIS_CARD = 'That button does not belong to a review here; nothing was changed.';

/** The review a click names, if it really is the card in the clicked message. */
export async function clickedReview(
  deps: ListenerDeps,
  value: unknown,
  where: { channel?: string; messageTs?: string },
): Promise<ButtonValue | undefined> {
  const parsed = buttonValueSchema.safeParse(typeof value === 'string' ? safeJson(value) : value);
  if (!parsed.success) return undefined;
  const card = await findPost(deps.pool, `card:${parsed.data.review}`);
  if (!card || card.channel !== where.channel || card.ts !== where.messageTs) return undefined;
  return parsed.data;
}

export function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * Which of `groups` the user is in, from Slack (asked only when a checkpoint names groups). Each
 * group is asked once per actor: a list of reviews may name the same group many times.
 */
export const memberOf = (client: WebClient, user: string) => {
  const asked = new Map<string, Promise<boolean>>();
  const isIn = (group: string) => {
    let answer = asked.get(group);
    if (!answer) {
      answer = client.usergroups.users.list({ usergroup: group }).then((r) => (r.users ?? []).includes(user));
      asked.set(group, answer);
    }
    return answer;
  };
  return async (groups: string[]) => {
    const member = await Promise.all(groups.map(isIn));
    return groups.filter((_, i) => member[i]);
  };
};

export interface SlackDecision {
  click: ButtonValue;
  user: string;
  channel: string;
  action: Action;
  feedback?: string;
  values?: Record<string, string>;
  threadTs?: string;
}

/** Records the decision; tells the person in a sentence when it was refused or failed. */
export async function decideFromSlack(
  deps: ListenerDeps,
  client: WebClient,
  d: SlackDecision,
): Promise<void> {
  const tell = (text: string) =>
    client.chat
      .postEphemeral({ channel: d.channel, user: d.user, text, thread_ts: d.threadTs })
      .catch((err) => {
        deps.logger.warn({ err }, 'could not tell the person');
      });
  try {
    const result = await deps.engine.decide({
      reviewId: d.click.review,
      taskId: d.click.task,
      actor: { id: d.user, memberOf: memberOf(client, d.user) },
      action: d.action,
      feedback: d.feedback,
      values: d.values,
      contentHash: d.click.h,
    });
    if (!result.ok) await tell(result.message);
    // An approval counted towards a quorum: the card shows it; the person hears what happens next.
    else if (result.review.status === 'pending') {
      const got = result.review.approvals.length;
      const needed = approvalsNeeded(result.review.settings);
      await tell(
        `Your approval is recorded (${got} of ${needed}). The task goes on once ${needed - got} more ${needed - got === 1 ? 'reviewer approves' : 'reviewers approve'}.`,
      );
    }
    // A stale card is shown again as it is now, so that the next click is on what is decided.
    if (!result.ok && result.code === 'stale_review' && result.review)
      await refreshCard(deps, client, result.review);
  } catch (error) {
    deps.logger.error({ err: error }, 'decision failed');
    await tell(COULD_NOT_RECORD);
  }
}

/** Redraws a review's card from its current content (after a click on a stale one); a plain card stays plain. */
async function refreshCard(deps: ListenerDeps, client: WebClient, review: Review): Promise<void> {
  const card = await findPost(deps.pool, `card:${review.id}`);
  const task = await deps.engine.getTask(review.taskId);
  if (!card || !task) return;
  const plain = (await redrawnPlain(deps.pool, review.id, longerThanCard(review))) ? {} : undefined;
  await client.chat
    .update({ channel: card.channel, ts: card.ts, ...reviewCard(review, task.requester, plain) })
    .catch((err) => deps.logger.warn({ err }, 'could not redraw a stale card'));
}
