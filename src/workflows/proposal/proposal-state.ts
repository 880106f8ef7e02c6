import { Annotation } from '@langchain/langgraph';
import { wordsKey } from '../protocol/refused-words.js';
import { last } from '../shared/annotations.js';

/** Seed 004's state: query cycles over the team's documents, then a plan reviewed until approved. */
export const ProposalState = Annotation.Root({
  /** The research topic as the person wrote it (the task text). */
  topic: last(() => ''),
  /** Every query so far, in order, without repeats. */
  searchQueries: last<string[]>(() => []),
  /** This cycle's query, the one searched; null when no new one was found (none is searched). */
  currentQuery: last<string | null>(() => null),
  /** Which query cycle this is (1 the first); the query and insight cards show it. */
  cycle: last(() => 0),
  /** One summary per search, accumulated across cycles. */
  literatureSummaries: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
  /** The gap the summaries leave open (the synthesizer's), or the one the person typed instead. */
  knowledgeGap: last<string | null>(() => null),
  /** The current draft of the plan; each revision replaces it. */
  proposalDraft: last<string | null>(() => null),
  /** The AI reviewers' verdicts on the current draft, written by the two parallel branches. */
  aiReviews: Annotation<Record<string, string>>({ reducer: (a, b) => ({ ...a, ...b }), default: () => ({}) }),
  /** The chair's verdict on the current draft; null until it has judged one. */
  isApproved: last<boolean | null>(() => null),
  /** Drafts found wanting so far (seed 004's proposal_revision_cycles). */
  revisions: last(() => 0),
  /** The person's latest feedback on a draft, for the next one (and weighed by the chair). */
  humanFeedback: last<string | null>(() => null),
  /** Why the person asked to search more ("Search more" with words): the next query looks for it. */
  searchFor: last<string | null>(() => null),
  /** Where the insight review sent the work: on to the plan, or another search cycle. */
  next: last<'plan' | 'search'>(() => 'plan'),
  /** How it ended: approved by the chair, stopped at the revision limit, or rejected by a person. */
  outcome: last<'approved' | 'max_revisions' | 'rejected' | null>(() => null),
});
export type ProposalStateType = typeof ProposalState.State;

/** Order kept, repeats (ignoring case, spacing and punctuation) dropped. */
export function dedupeQueries(queries: string[]): string[] {
  const seen = new Set<string>();
  return queries.filter((q) => {
    const key = wordsKey(q);
    if (!key || seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
