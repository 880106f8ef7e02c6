/**
 * Workflow `proposal` (seed 004): generate one new search query → dedupe (order kept) → query
 * review (continue, or type a query that overrides it) → search the team's documents with only
 * that query → summaries accumulate → knowledge gap → insight review (continue, refine the gap,
 * or search more) → formulate a plan → novelty and feasibility reviews in parallel → the review
 * chair decides: approved ends it; otherwise a person reviews the draft (feedback goes back to the
 * plan), until `maxRevisions` (default 3) drafts were found wanting, which ends it saying so.
 */
import { HumanMessage, SystemMessage } from '@langchain/core/messages';
import { END, type LangGraphRunnableConfig, START, StateGraph } from '@langchain/langgraph';
import { z } from 'zod';
import { DEFAULT_COLLECTION } from '../../docs/documents.js';
import { LABEL, labelled } from '../../llm/prompt-labels.js';
import { askStructured } from '../../llm/structured.js';
import { BUILT_IN_CHECKPOINTS, BUILT_IN_DESCRIPTIONS } from '../catalog.js';
import { wordsKey } from '../protocol/refused-words.js';
import { type Agent, agentFor } from '../shared/agents.js';
import { goalOf } from '../shared/goal.js';
import { contentOf } from '../shared/messages.js';
import { reviewAsker } from '../shared/review.js';
import { say } from '../shared/say.js';
import type { WorkflowDefinition, WorkflowDeps } from '../shared/types.js';
import { DEFAULT_AGENTS, DEFAULT_MAX_REVISIONS } from './prompts.js';
import { dedupeQueries, ProposalState, type ProposalStateType } from './proposal-state.js';

/** A collection's name as one word of a shell command (quoted when it has spaces or symbols). */
const shellWord = (word: string) => (/^[\w.-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`);

/** Tries for a query no earlier one repeats, before the person is asked for one. */
const QUERY_ATTEMPTS = 3;
/** Whether `query` repeats one of `earlier` (ignoring case and spacing, as dedupe does). */
const repeats = (query: string, earlier: string[]) =>
  dedupeQueries([...earlier, query]).length === dedupeQueries(earlier).length;

const querySchema = z.object({ query: z.string().min(1).max(300).describe('One focused search query') });
/** The review chair's decision on a draft. */
const verdictSchema = z.object({
  verdict: z.enum(['revise', 'approved']).describe('approved only when the plan needs no further work'),
});

export const afterInsight = (s: Pick<ProposalStateType, 'next'>) =>
  s.next === 'search' ? 'generate_query' : 'formulate_plan';

export const afterChair = (s: Pick<ProposalStateType, 'isApproved' | 'revisions'>, maxRevisions: number) =>
  s.isApproved ? END : s.revisions >= maxRevisions ? END : 'human_review';

export const afterHumanReview = (s: Pick<ProposalStateType, 'outcome'>) =>
  s.outcome ? END : 'formulate_plan';

export function buildProposalGraph(deps: WorkflowDeps) {
  const askReview = reviewAsker(deps);
  const maxRevisions = deps.settings.maxRevisions ?? DEFAULT_MAX_REVISIONS;
  const collection = deps.settings.collection ?? DEFAULT_COLLECTION;
  const agents = Object.fromEntries(
    Object.entries(DEFAULT_AGENTS).map(([k, defaults]) => [k, agentFor(deps, k, defaults)]),
  ) as Record<keyof typeof DEFAULT_AGENTS, Agent>;

  const ask = async (who: Agent, parts: string[], config: LangGraphRunnableConfig) =>
    contentOf(
      await who.model.invoke(
        [new SystemMessage(who.prompt), new HumanMessage(parts.filter(Boolean).join('\n\n'))],
        {
          signal: config.signal,
        },
      ),
    );

  /**
   * One new query (seed 004: never repeat one). A model that repeats an earlier query is asked
   * again, naming it, up to QUERY_ATTEMPTS times; after that this cycle has no new query, and the
   * query review says so and asks the person for one.
   */
  const generateQuery = async (s: ProposalStateType, config: LangGraphRunnableConfig) => {
    const earlier = s.searchQueries.length
      ? `${LABEL.earlierQueries}:\n${s.searchQueries.map((q) => `- ${q}`).join('\n')}`
      : '';
    const messages = [
      new SystemMessage(agents.query.prompt),
      new HumanMessage(
        [
          labelled(LABEL.topic, s.topic),
          earlier,
          s.knowledgeGap ? `Knowledge gap: ${s.knowledgeGap}` : '',
          s.searchFor ? `What the person wants searched next: ${s.searchFor}` : '',
        ]
          .filter(Boolean)
          .join('\n\n'),
      ),
    ];
    for (let attempt = 1; attempt <= QUERY_ATTEMPTS; attempt++) {
      const query = (
        await askStructured(agents.query.model, querySchema, messages, config.signal)
      ).query.trim();
      if (!repeats(query, s.searchQueries)) {
        say(config, { agent: agents.query.name, text: `**Next search:** ${query}` });
        return {
          searchQueries: [...s.searchQueries, query],
          currentQuery: query,
          cycle: s.cycle + 1,
          searchFor: null,
        };
      }
      messages.push(
        new HumanMessage(
          `"${query}" was searched before. Write a query that differs from every earlier one.`,
        ),
      );
    }
    say(config, {
      agent: agents.query.name,
      text: 'I could only come up with queries already searched. Type a new one on the card, or continue with what was found.',
    });
    return { currentQuery: null, cycle: s.cycle + 1, searchFor: null };
  };

  const dedupe = (s: ProposalStateType) => ({ searchQueries: dedupeQueries(s.searchQueries) });

  /**
   * The person sees the query this cycle searches (or that there is none) and may type another.
   * A typed query that was searched before would find nothing new, and one of punctuation alone
   * finds nothing: the review lists the first and refuses the second (`refusedWords`), so that the
   * engine refuses either before it is recorded as a decision. Should one come back all the same
   * (a review asked before requests carried the list), it is refused here and asked for again.
   */
  const queryReview = (s: ProposalStateType) => {
    const earlier = s.searchQueries.filter((q) => q !== s.currentQuery);
    let note = '';
    for (;;) {
      const next = s.currentQuery
        ? `**Next search:** ${s.currentQuery}`
        : '**No new query:** the query generator only repeated earlier ones. Type a new query, or continue with what was found.';
      const d = askReview({
        kind: 'query_review',
        title: `Search for this? (cycle ${s.cycle})`,
        body: `${note}${next}${earlier.length ? `\n\n**Earlier:** ${earlier.join('; ')}` : ''}\n\nContinue, or type the query to search instead.`,
        round: s.cycle,
        actions: ['approve', 'revise'],
        labels: { approve: 'Continue', revise: 'Use my query' },
        feedbackLabel: 'The query to search instead',
        refusedWords: {
          words: earlier,
          because: 'was searched before, so it would find nothing new; type another query, or continue',
          wordless: 'has no words to search for; type a query with words, or continue',
        },
      });
      const typed = d.action === 'revise' ? (d.feedback?.trim() ?? '') : '';
      if (!typed) return {};
      // Only punctuation: the search would read no word of it (and it is no repeat of anything).
      if (!wordsKey(typed)) note = `_"${typed}" has no words to search for._\n\n`;
      // A typed query overrides the generated one: it becomes the query searched, and the history.
      else if (!repeats(typed, earlier)) return { searchQueries: [...earlier, typed], currentQuery: typed };
      else note = `_"${typed}" was searched before; it would find nothing new._\n\n`;
    }
  };

  const literatureSearch = async (s: ProposalStateType, config: LangGraphRunnableConfig) => {
    const query = s.currentQuery;
    // No new query this cycle (the model only repeated itself and the person typed none).
    if (!query) return {};
    let summary: string;
    if ((await deps.documents.count(collection)) === 0) {
      summary = `No documents in the collection "${collection}", so there is no literature for "${query}". Add some with: npx signoff docs add <folder> ${shellWord(collection)}`;
    } else {
      const passages = await deps.documents.search(collection, query);
      if (passages.length === 0) {
        summary = `Nothing in the collection "${collection}" matched "${query}".`;
      } else {
        const text = await ask(
          agents.librarian,
          [`Query: ${query}`, ...passages.map((p) => `[${p.name}]\n${p.text}`)],
          config,
        );
        summary = `${text}\n\nSources: ${[...new Set(passages.map((p) => `[${p.name}]`))].join(', ')}`;
      }
    }
    say(config, { agent: agents.librarian.name, text: `**Search:** "${query}"\n\n${summary}` });
    return { literatureSummaries: [summary] };
  };

  const synthesizeLiterature = async (s: ProposalStateType, config: LangGraphRunnableConfig) => {
    const gap = await ask(
      agents.synthesizer,
      [labelled(LABEL.topic, s.topic), ...s.literatureSummaries.map((x, i) => `Summary ${i + 1}:\n${x}`)],
      config,
    );
    say(config, { agent: agents.synthesizer.name, text: `**Knowledge gap:** ${gap}` });
    return { knowledgeGap: gap };
  };

  const insightReview = (s: ProposalStateType) => {
    const d = askReview({
      kind: 'insight_review',
      title: `Is this the gap to work on? (cycle ${s.cycle})`,
      body: `**Knowledge gap:** ${s.knowledgeGap}\n\n${s.literatureSummaries.length} search summar${s.literatureSummaries.length === 1 ? 'y' : 'ies'} so far.\n\nContinue, type a refined gap, or search more.`,
      round: s.cycle,
      actions: ['approve', 'revise', 'reject'],
      labels: { approve: 'Continue', revise: 'Refine the gap', reject: 'Search more' },
      rejectGoesOn: 'The agents search again (for what you write, if anything); the task goes on.',
    });
    // "Search more, saying why": the words go to the next query, not only to the audit.
    if (d.action === 'reject') return { next: 'search' as const, searchFor: d.feedback?.trim() || null };
    const refined = d.feedback?.trim();
    return { next: 'plan' as const, ...(d.action === 'revise' && refined ? { knowledgeGap: refined } : {}) };
  };

  const formulatePlan = async (s: ProposalStateType, config: LangGraphRunnableConfig) => {
    const draft = await ask(
      agents.writer,
      [
        labelled(LABEL.topic, s.topic),
        `Knowledge gap: ${s.knowledgeGap}`,
        `Literature:\n${s.literatureSummaries.join('\n\n')}`,
        s.proposalDraft ? `Earlier draft:\n${s.proposalDraft}` : '',
        s.humanFeedback ? labelled(LABEL.feedback, s.humanFeedback) : '',
      ],
      config,
    );
    say(config, { agent: agents.writer.name, text: draft });
    return { proposalDraft: draft, isApproved: null };
  };

  const reviewer =
    (key: 'novelty' | 'feasibility') => async (s: ProposalStateType, config: LangGraphRunnableConfig) => {
      const review = await ask(
        agents[key],
        [
          labelled(LABEL.topic, s.topic),
          `Plan:\n${s.proposalDraft}`,
          `Literature:\n${s.literatureSummaries.join('\n\n')}`,
        ],
        config,
      );
      say(config, { agent: agents[key].name, text: review });
      return { aiReviews: { [key]: review } };
    };

  const synthesizeReview = async (s: ProposalStateType, config: LangGraphRunnableConfig) => {
    // A verdict from an enum, not a word found in free text: a passage quoted in the plan or the
    // reviews cannot approve it.
    const { verdict } = await askStructured(
      agents.chair.model,
      verdictSchema,
      [
        new SystemMessage(agents.chair.prompt),
        new HumanMessage(
          `Plan:\n${s.proposalDraft}\n\nNovelty review:\n${s.aiReviews.novelty}\n\nFeasibility review:\n${s.aiReviews.feasibility}`,
        ),
        new HumanMessage(
          s.humanFeedback ? labelled(LABEL.humanFeedback, s.humanFeedback) : 'No human feedback yet.',
        ),
      ],
      config.signal,
    );
    const approved = verdict === 'approved';
    const revisions = approved ? s.revisions : s.revisions + 1;
    const outcome = approved
      ? ('approved' as const)
      : revisions >= maxRevisions
        ? ('max_revisions' as const)
        : null;
    const said = approved
      ? 'Approved: the plan stands.'
      : outcome === 'max_revisions'
        ? `Not approved, and ${revisions} drafts have now been found wanting (the limit is ${maxRevisions}): stopping here with the latest draft.`
        : `Not approved yet (draft ${revisions} of at most ${maxRevisions}): a person reviews it next.`;
    say(config, { agent: agents.chair.name, text: said });
    return { isApproved: approved, revisions, outcome };
  };

  const humanReview = (s: ProposalStateType) => {
    const d = askReview({
      kind: 'final_review',
      title: `Review the proposal (draft ${s.revisions})`,
      body: `${s.proposalDraft}\n\n**Novelty review:** ${s.aiReviews.novelty}\n\n**Feasibility review:** ${s.aiReviews.feasibility}`,
      round: s.revisions,
      labels: { approve: 'Accept as is', revise: 'Revise', reject: 'Reject' },
    });
    if (d.action === 'approve') return { outcome: 'approved' as const, isApproved: true };
    if (d.action === 'reject') return { outcome: 'rejected' as const };
    return { humanFeedback: d.feedback?.trim() || null };
  };

  return (
    new StateGraph(ProposalState)
      .addNode('generate_query', generateQuery)
      .addNode('dedupe_queries', dedupe)
      .addNode('query_review', queryReview)
      .addNode('literature_search', literatureSearch)
      .addNode('synthesize_literature', synthesizeLiterature)
      .addNode('insight_review', insightReview)
      .addNode('formulate_plan', formulatePlan)
      .addNode('review_novelty', reviewer('novelty'))
      .addNode('review_feasibility', reviewer('feasibility'))
      .addNode('synthesize_review', synthesizeReview)
      .addNode('human_review', humanReview)
      .addEdge(START, 'generate_query')
      .addEdge('generate_query', 'dedupe_queries')
      .addEdge('dedupe_queries', 'query_review')
      .addEdge('query_review', 'literature_search')
      .addEdge('literature_search', 'synthesize_literature')
      .addEdge('synthesize_literature', 'insight_review')
      .addConditionalEdges('insight_review', afterInsight, ['generate_query', 'formulate_plan'])
      // The two reviews run in the same step, side by side; the chair waits for both.
      .addEdge('formulate_plan', 'review_novelty')
      .addEdge('formulate_plan', 'review_feasibility')
      .addEdge(['review_novelty', 'review_feasibility'], 'synthesize_review')
      .addConditionalEdges('synthesize_review', (s) => afterChair(s, maxRevisions), ['human_review', END])
      .addConditionalEdges('human_review', afterHumanReview, ['formulate_plan', END])
      .compile({ checkpointer: deps.checkpointer })
  );
}

export const proposalWorkflow: WorkflowDefinition = {
  name: 'proposal',
  description: BUILT_IN_DESCRIPTIONS.proposal,
  build: buildProposalGraph,
  durability: 'sync',
  checkpoints: () => BUILT_IN_CHECKPOINTS.proposal,
  input: (task) => ({ topic: goalOf(task) }),
  outcome: (values) => {
    if (values.outcome === 'rejected') return { status: 'rejected', reason: 'the proposal was rejected' };
    if (values.outcome === 'max_revisions') {
      return {
        status: 'stopped',
        reason: `revision limit reached: ${values.revisions} drafts`,
      };
    }
    return { status: 'done', reason: 'approved' };
  },
};
