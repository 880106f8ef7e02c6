/**
 * A review's title with its round, in the one form every surface shows it: at the end, in
 * parentheses. A workflow whose rounds have a name of their own says it in the title ("Review the
 * agents' work (cycle 2)", "Review the proposal (draft 2)"); any other title gets "(round N)", so
 * nobody reads "cycle 2" and "round 2" for the same review.
 */
import type { ReviewRequest } from './requests.js';

/**
 * Whether the title ends with its round already, "(round N)", "(cycle N)" or "(draft N)": only
 * there, so that "Sign off draft 1 of the Q3 budget" still gets its "(round 1)".
 */
export const titleNamesRound = (r: Pick<ReviewRequest, 'title' | 'round'>): boolean =>
  new RegExp(`\\((round|cycle|draft) ${r.round}\\)\\s*$`, 'i').test(r.title);

/** "Approve the plan? (round 2)"; a title that names its round as it is. */
export const titleWithRound = (r: Pick<ReviewRequest, 'title' | 'round'>): string =>
  titleNamesRound(r) ? r.title : `${r.title} (round ${r.round})`;
