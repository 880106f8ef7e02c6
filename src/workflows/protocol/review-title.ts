/**
 * A review's title with its round, in the one form every surface shows it: at the end, in
 * parentheses. A workflow whose rounds have a name of their own says it in the title ("Review the
 * agents' work (cycle 2)", "Review the proposal (draft 2)"); any other title gets "(round N)", so
 * nobody reads "cycle 2" and "round 2" for the same review.
 */
import type { ReviewRequest } from './requests.js';

/** Whether the title names its round already, as "round N", "cycle N" or "draft N". */
export const titleNamesRound = (r: Pick<ReviewRequest, 'title' | 'round'>): boolean =>
  new RegExp(`\\b(round|cycle|draft) ${r.round}\\b`, 'i').test(r.title);

/** "Approve the plan? (round 2)"; a title that names its round as it is. */
export const titleWithRound = (r: Pick<ReviewRequest, 'title' | 'round'>): string =>
  titleNamesRound(r) ? r.title : `${r.title} (round ${r.round})`;
