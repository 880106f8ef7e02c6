/**
 * What the built-in workflows are called and say of themselves, without loading a graph:
 * `signoff help` lists them before anything starts, and the config file is checked against
 * their names when it loads. Each workflow's definition takes its description from here.
 */
export const BUILT_IN_DESCRIPTIONS = {
  pair: 'Two agents take turns on the task, then you review; feedback starts another cycle.',
  specialist:
    'A planner routes the task to a specialist (invoice, closing, audit); you approve or ask for revisions.',
  'goal-plan': 'Agree the goal, then the plan, with the agents; then they carry the plan out on their own.',
  proposal:
    "Research the team's documents, agree the gap, and write a plan reviewed for novelty and feasibility.",
  ask: 'One review of what you write (or what an agent asks through the API or MCP): approve, revise or reject.',
} as const;

export const BUILT_IN_NAMES = Object.keys(BUILT_IN_DESCRIPTIONS) as (keyof typeof BUILT_IN_DESCRIPTIONS)[];

/**
 * The checkpoints each built-in's reviews use (`checkpoints.<name>` in the config file): the
 * definitions name theirs from here, and the config file is checked against them when it loads
 * (a misspelt `reveiw:` would configure nothing, silently).
 */
export const BUILT_IN_CHECKPOINTS: Record<(typeof BUILT_IN_NAMES)[number], string[]> = {
  pair: ['review'],
  specialist: ['review', 'retry'],
  'goal-plan': ['goal', 'plan'],
  proposal: ['query_review', 'insight_review', 'final_review'],
  ask: ['review', 'tool_call'],
};

/** The specialists the specialist workflow's planner routes to, unless `specialists` lists others. */
export const DEFAULT_SPECIALISTS = ['invoice', 'closing', 'audit'];

/**
 * The agents each built-in makes (`agents.<key>` in the config file), checked like checkpoints:
 * a misspelt `agent3:` or `Writer:` would configure nothing, silently. The specialist workflow's,
 * besides its planner, are its `specialists` (as written in the file, which may be wrong too).
 */
export function builtInAgents(name: string, specialists?: unknown): string[] | undefined {
  switch (name) {
    case 'pair':
      return ['agent1', 'agent2'];
    case 'specialist': {
      const listed = Array.isArray(specialists) ? specialists.filter((s) => typeof s === 'string') : [];
      return ['planner', ...(listed.length ? listed : DEFAULT_SPECIALISTS)];
    }
    case 'goal-plan':
      return ['evaluator', 'planner', 'executor'];
    case 'proposal':
      return ['query', 'librarian', 'synthesizer', 'writer', 'novelty', 'feasibility', 'chair'];
    case 'ask':
      return [];
    default:
      return undefined;
  }
}

/** A workflow the config file adds (a module, or stages): its description, else what it is. */
export function ownWorkflowDescription(
  name: string,
  w: { description?: string; module?: string; stages?: unknown; remote?: { graph: string; url: string } },
): string {
  if (w.description) return w.description;
  if (w.remote)
    return `The graph ${w.remote.graph} on the LangGraph server at ${new URL(w.remote.url).host}.`;
  return w.module ? `Your own graph (${w.module}).` : `Declared in the config file: ${name}.`;
}
