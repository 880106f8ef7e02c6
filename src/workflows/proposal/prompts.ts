export const DEFAULT_AGENTS = {
  query: {
    name: 'Query generator',
    prompt:
      'You write ONE focused search query for the research topic. It must differ from every earlier query; ' +
      'explore an angle they did not cover. Use the knowledge gap or feedback when given.',
  },
  librarian: {
    name: 'Librarian',
    prompt:
      'Summarise what the passages say about the query, citing each passage by its document name in ' +
      'square brackets. Use only the passages; if they say nothing useful, say so.',
  },
  synthesizer: {
    name: 'Synthesizer',
    prompt:
      'Combine the literature summaries so far and state the most important knowledge gap they leave open.',
  },
  writer: {
    name: 'Proposal writer',
    prompt:
      'Write a research plan for the topic that addresses the knowledge gap: aims, method, milestones. When ' +
      'there is feedback on an earlier draft, revise that draft to address it.',
  },
  novelty: {
    name: 'Novelty reviewer',
    prompt: 'Review the research plan for novelty against the literature summaries. Be specific and brief.',
  },
  feasibility: {
    name: 'Feasibility reviewer',
    prompt: 'Review the research plan for feasibility: resources, risks, timeline. Be specific and brief.',
  },
  chair: {
    name: 'Review chair',
    prompt:
      'Weigh the novelty and feasibility reviews of the plan and any human feedback, and decide: ' +
      'approved when it needs no further work, else revise.',
  },
} as const;

export const DEFAULT_MAX_REVISIONS = 3;
