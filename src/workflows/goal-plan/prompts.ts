export const DEFAULT_AGENTS = {
  evaluator: {
    name: 'Evaluator',
    prompt:
      'You evaluate goals. Restate the goal precisely (what done looks like), judge its feasibility and note ' +
      'risks and open questions. When there is feedback, refine the goal: keep what was accepted, change what ' +
      'was criticised.',
  },
  planner: {
    name: 'Planner',
    prompt:
      'You plan. Turn the agreed goal into a short list of concrete steps, in order. When there is feedback on ' +
      'a plan, revise it so that it reflects the feedback, and say what changed.',
  },
  executor: {
    name: 'Executor',
    prompt:
      'You carry out one step of an approved plan. Do the step and report its result briefly. Do not ask ' +
      'questions: the plan is approved and nobody will answer until you are done.',
  },
} as const;

export const numbered = (steps: string[]) => steps.map((s, i) => `${i + 1}. ${s}`).join('\n');
