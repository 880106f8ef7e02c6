/**
 * The modals of claim and hand-off: "Hand over…" on a card names the person who takes the review
 * (a people picker), and `/signoff away` says until when, and to whom your reviews go meanwhile.
 */
import type { types } from '@slack/bolt';
import { type ReviseMeta, reviseMetadata } from './revise-meta.js';
import { escapeMrkdwn } from './text.js';

export const HAND_OVER_VIEW = 'signoff_hand_over';
export const AWAY_VIEW = 'signoff_away';
export const PERSON_BLOCK = 'person';
export const UNTIL_BLOCK = 'until';

const plain = (text: string) => ({ type: 'plain_text' as const, text });

export function handOverModal(meta: ReviseMeta): types.View {
  return {
    type: 'modal',
    callback_id: HAND_OVER_VIEW,
    private_metadata: reviseMetadata({ ...meta, action: 'revise' }),
    title: plain('Hand over'),
    submit: plain('Hand over'),
    close: plain('Cancel'),
    blocks: [
      {
        type: 'input',
        block_id: PERSON_BLOCK,
        label: plain('Who takes this review?'),
        element: { type: 'users_select', action_id: 'value', placeholder: plain('Pick a person') },
      },
    ],
  };
}

/**
 * `/signoff away`: back on which day, and who decides your reviews meanwhile; `notes`: what the
 * command said that the form could not take, shown at its top (as typed: escaped here).
 */
export function awayModal(
  today: string,
  meta: { channel: string; responseUrl?: string },
  delegate?: string,
  notes: string[] = [],
): types.View {
  return {
    type: 'modal',
    callback_id: AWAY_VIEW,
    private_metadata: JSON.stringify(meta),
    title: plain('Away'),
    submit: plain('Hand over'),
    close: plain('Cancel'),
    blocks: [
      ...notes.map((text) => ({
        type: 'context' as const,
        elements: [{ type: 'mrkdwn' as const, text: escapeMrkdwn(text) }],
      })),
      {
        type: 'input',
        block_id: UNTIL_BLOCK,
        label: plain('Back on'),
        element: { type: 'datepicker', action_id: 'value', initial_date: today },
      },
      {
        type: 'input',
        block_id: PERSON_BLOCK,
        label: plain('Your reviews go to'),
        element: {
          type: 'users_select',
          action_id: 'value',
          placeholder: plain('Pick a person'),
          ...(delegate ? { initial_user: delegate } : {}),
        },
      },
    ],
  };
}
