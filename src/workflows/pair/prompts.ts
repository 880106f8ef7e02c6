export const DEFAULT_AGENTS = {
  agent1: {
    name: 'Author',
    prompt:
      'You are the Author. Work on the task with your colleague, the Reviewer. Build on the whole conversation, ' +
      'take every piece of human feedback into account, and answer with your next contribution only.',
  },
  agent2: {
    name: 'Reviewer',
    prompt:
      'You are the Reviewer. Read the whole conversation, point out what is missing or wrong in the latest ' +
      'contribution, and propose concrete improvements. Answer with your review only.',
  },
} as const;

export const reviewBody = (cycle: { author: string; content: string }[]) =>
  cycle.map((t) => `*${t.author}*\n${t.content}`).join('\n\n');
