/**
 * Deciding several reviews at once, from the Home tab or `/signoff list`: a checkbox a review
 * whose whole content the list shows (its title and a short body, no form, no tool call: those
 * are decided on their cards, where all of it shows) and whose card calls its choices Approve and
 * Reject as the list does, the first ten of them, and Approve selected
 * / Reject selected. A checkbox's value names the review and the hash of its content as the list
 * showed it, so each is decided on what was listed, or refused on its own when it changed since
 * (decide.ts).
 */
import type { types } from '@slack/bolt';
import { contentHash, type Review, type Task, titleWithRound } from '../../engine/index.js';
import { escapeMrkdwn, truncate } from './text.js';

export const BATCH_ACTION_IDS = {
  pick: 'signoff_batch_pick',
  approve: 'signoff_batch_approve',
  reject: 'signoff_batch_reject',
} as const;
export const BATCH_BLOCK = 'signoff_batch';

/** Slack's checkboxes take at most ten options. */
const MOST = 10;

/** A checkbox's value: `<review>:<content hash>` (within an option value's 150 characters). */
export const batchValue = (review: Review) => `${review.id}:${contentHash(review.request)}`;
export const readBatchValue = (value: string): { review: string; h: string } | undefined => {
  // The hash after the last colon: a review's id may hold colons (a budget review's does).
  const m = /^(.{1,130}):([0-9a-f]{16})$/.exec(value);
  return m ? { review: m[1] as string, h: m[2] as string } : undefined;
};

/** The longest body a list shows whole, under its review's line. */
export const LISTED_BODY_MAX = 300;

/**
 * Whether a list shows all a review asks (so it may be decided from there): no tool call (its
 * arguments show on its card), no form (its values do), a body short enough to show whole (its
 * title, at most 150 characters, is shown whole).
 */
export const listedWhole = (review: Review) =>
  !review.request.origin && !review.request.fields.length && review.request.body.length <= LISTED_BODY_MAX;

/**
 * Why a review is decided on its card and not from a list, in a sentence; undefined when a list may
 * decide it. A list shows a title and a short body under one Approve and one Reject for every box:
 * not a review that asks more than that shows, nor one whose Reject goes on instead of ending the
 * task (a proposal's Search more: "Reject selected", whose confirmation says the tasks end, would
 * record it).
 */
export function decidedOnItsCard(review: Review): string | undefined {
  if (!listedWhole(review))
    return 'it asks more than a list shows; decide it on its card, where all of it shows.';
  if (review.request.rejectGoesOn)
    return `its ${escapeMrkdwn(review.request.labels.reject ?? 'Reject')} does not end the task; decide it on its card.`;
  return undefined;
}

export function batchBlocks(items: { review: Review; task: Task }[]): types.KnownBlock[] {
  const open = items
    .filter(({ review }) => !decidedOnItsCard(review))
    .filter(({ review }) => review.request.actions.some((a) => a === 'approve' || a === 'reject'))
    .slice(0, MOST);
  if (open.length < 2) return [];
  const plain = (text: string) => ({ type: 'plain_text' as const, text });
  return [
    {
      type: 'actions',
      block_id: BATCH_BLOCK,
      elements: [
        {
          type: 'checkboxes',
          action_id: BATCH_ACTION_IDS.pick,
          options: open.map(({ review, task }) => ({
            value: batchValue(review),
            // The task's words tell its line in the list apart (many reviews share a title).
            text: plain(truncate(task.text.replace(/\s+/g, ' '), 75)),
            description: plain(truncate(titleWithRound(review.request), 75)),
          })),
        },
        {
          type: 'button',
          action_id: BATCH_ACTION_IDS.approve,
          style: 'primary',
          text: plain('Approve selected'),
        },
        {
          type: 'button',
          action_id: BATCH_ACTION_IDS.reject,
          style: 'danger',
          text: plain('Reject selected'),
          confirm: {
            title: plain('Reject these?'),
            text: plain('Each review you selected is rejected, which ends its task.'),
            confirm: plain('Reject them'),
            deny: plain('Keep reviewing'),
            style: 'danger',
          },
        },
      ],
    },
  ];
}
