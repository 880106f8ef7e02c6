/**
 * A button's words where the workflow gives none, and what a Reject button asks before it is sent.
 */
import type { Action, ReviewRequest } from '../../engine/index.js';
import { neutralizePlain, truncate } from './text.js';

export const DEFAULT_LABELS: Record<Action, string> = {
  approve: 'Approve',
  edit: 'Edit',
  revise: 'Revise',
  reject: 'Reject',
};

/**
 * A Reject's confirm dialog, saying what that reject does before it is sent (`confirm`: its
 * button's words; `reply`: a reply's words go with it as its message). A tool call's reject keeps
 * the call from running, and its agent goes on; a reject the workflow says goes on (a proposal's
 * Search more: `rejectGoesOn`) says how; any other ends the task, whatever its button's words
 * (a failed specialist's Give up).
 */
export function rejectConfirm(r: ReviewRequest, confirm: string, reply = false) {
  const title = neutralizePlain(r.title);
  const text = r.origin
    ? r.origin.format === 'hitl'
      ? `The agent is told no${reply ? ', with your reply as the reason' : ''}; the call does not run.`
      : 'The call does not run.'
    : r.rejectGoesOn
      ? r.rejectGoesOn
      : `This ends the task: ${title}`;
  const named = r.labels.reject !== undefined && r.labels.reject !== DEFAULT_LABELS.reject;
  return {
    title: { type: 'plain_text' as const, text: named ? `${r.labels.reject}?` : 'Reject this?' },
    text: { type: 'plain_text' as const, text: truncate(text, 300) },
    confirm: { type: 'plain_text' as const, text: truncate(confirm, 30) },
    deny: { type: 'plain_text' as const, text: 'Keep reviewing' },
    style: 'danger' as const,
  };
}
