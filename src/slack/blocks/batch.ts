/**
 * Deciding several reviews at once, from the Home tab or `/signoff list`: a checkbox a review
 * (the first ten of the list that take Approve or Reject, tool calls aside: those are decided on
 * their cards, where their arguments show), and Approve selected / Reject selected.
 * A checkbox's value names the review and the hash of its content as the list showed it, so each
 * is decided on what was listed, or refused on its own when it changed since (decide.ts).
 */
import type { types } from '@slack/bolt';
import { contentHash, type Review, type Task } from '../../engine/index.js';
import { truncate } from './text.js';

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

export function batchBlocks(items: { review: Review; task: Task }[]): types.KnownBlock[] {
  // A tool call is decided on its card, where its arguments show: a list shows only its title.
  const open = items
    .filter(({ review }) => !review.request.origin)
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
            text: plain(truncate(review.request.title, 75)),
            description: plain(truncate(`${task.workflow} · round ${review.request.round}`, 75)),
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
