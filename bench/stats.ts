export const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] as number;
};
export const ms = (n: number) => `${n.toFixed(1)} ms`;
/** Start limits out of a benchmark's way: one requester starts hundreds of tasks at once. */
export const NO_START_LIMITS = 'starts:\n  perPerson: 100000\n  perChannel: 100000\n';
/**
 * Workflow settings for every bench: a proposal revises as long as the bench asks, and one
 * requester may have every task at once in the agents' hands (it measures runs, not start limits).
 */
export const BENCH_CONFIG = `${NO_START_LIMITS}workflows:\n  proposal:\n    maxRevisions: 100\n`;

export const approve = () => ({ action: 'approve', values: {}, by: 'bench', at: new Date().toISOString() });
export const revise = (feedback: string) => ({
  action: 'revise',
  feedback,
  values: {},
  by: 'bench',
  at: new Date().toISOString(),
});

/** Runs `n` loops at once, each `rounds` times; returns rounds per second. */
export async function throughput(
  n: number,
  rounds: number,
  loop: (i: number, round: number) => Promise<void>,
) {
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: n }, async (_, i) => {
      for (let r = 0; r < rounds; r++) await loop(i, r);
    }),
  );
  return (n * rounds) / ((performance.now() - t0) / 1000);
}
