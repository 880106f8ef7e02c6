/**
 * Declared workflows (seed 004's "configuration over code"): a workflow in the config file may
 * list its stages instead of naming a built-in or a module. Each stage runs its agents in order
 * (`agents`) or at once (`parallel`), and may end in a review; approve goes on to the next stage,
 * revise goes back to `onRevise` (default: the same stage) with the feedback, reject ends it.
 */
import { z } from 'zod';
import { closest, didYouMean, unknownName } from '../../config/names.js';
import { BUDGET_CHECKPOINT } from '../protocol/requests.js';

const id = z.string().regex(/^[a-z][a-z0-9_]*$/, 'expected a lowercase id (letters, digits, _)');

export const stageSchema = z
  .object({
    id,
    /** Agents (keys of `agents`) that run one after the other, each seeing everything so far. */
    agents: z.array(id).min(1).optional(),
    /** Agents that run at once, in one graph step (seed 004's parallel members). */
    parallel: z.array(id).min(2).optional(),
    /** A checkpoint after the stage: its reviews are configured under `checkpoints.<name>`. */
    review: id.optional(),
    /** Where a revision sends the work (a stage id); default: this stage. */
    onRevise: id.optional(),
    /** Revisions of this stage before the task ends, saying it stopped there. */
    maxRevisions: z.number().int().min(1).max(100).optional(),
    /**
     * An agent that judges the stage's work first (approve or revise, as a structured answer):
     * approve goes on without a person; revise goes to the review (or straight back, without one).
     */
    verdict: id.optional(),
  })
  .strict()
  .refine((s) => (s.agents ? 1 : 0) + (s.parallel ? 1 : 0) === 1, {
    message: 'a stage has either agents (in order) or parallel (at once), not both, not neither',
  });
export type Stage = z.infer<typeof stageSchema>;

/**
 * What the stages refer to must exist: agents, stages, and checkpoints configured for a review
 * that no stage has. A revision that loops back must pass a review on the way (else it would
 * run forever). Each problem is added at its path, so the error names its line in the file.
 */
export function checkStages(
  w: {
    stages?: Stage[];
    module?: string;
    agents: Record<string, unknown>;
    checkpoints: Record<string, unknown>;
  },
  ctx: z.RefinementCtx,
): void {
  if (!w.stages) return;
  if (w.module)
    ctx.addIssue({
      code: 'custom',
      path: ['stages'],
      message: 'a workflow has either a module or stages, not both',
    });
  const ids = w.stages.map((s) => s.id);
  const problem = (path: (string | number)[], message: string) =>
    ctx.addIssue({ code: 'custom', path: ['stages', ...path], message });
  const agents = Object.keys(w.agents);
  const noAgent = (name: string) => unknownName(name, agents, 'agent', { under: 'agents' });
  w.stages.forEach((s, i) => {
    if (ids.indexOf(s.id) !== i) problem([i, 'id'], `the stage id "${s.id}" is used twice`);
    for (const key of ['agents', 'parallel'] as const) {
      (s[key] ?? []).forEach((a, j) => {
        if (!(a in w.agents)) problem([i, key, j], noAgent(a));
      });
    }
    if (s.verdict && !(s.verdict in w.agents)) problem([i, 'verdict'], noAgent(s.verdict));
    if (s.onRevise && !ids.includes(s.onRevise))
      problem([i, 'onRevise'], unknownName(s.onRevise, ids, 'stage'));
    if ((s.onRevise || s.maxRevisions) && !s.review && !s.verdict)
      problem([i], 'onRevise and maxRevisions need a review or a verdict to revise from');
    if (s.verdict && !s.review && !s.maxRevisions)
      problem(
        [i, 'verdict'],
        'a verdict without a review loops until it approves: give the stage maxRevisions',
      );
  });
  checkReviewNames(w.stages, Object.keys(w.checkpoints), problem, ctx);
}

/**
 * Checkpoints configured for a review no stage has would configure nothing. When a stage's review
 * has no settings and is close to such a checkpoint (`review: final_reveiw` beside
 * `checkpoints.final_review`), the two are one typo: reported once, at the stage's review, where
 * the checkpoint's name would send the reader to the wrong line.
 */
function checkReviewNames(
  stages: Stage[],
  checkpoints: string[],
  problem: (path: (string | number)[], message: string) => void,
  ctx: z.RefinementCtx,
) {
  const reviews = [...new Set(stages.map((s) => s.review).filter((r): r is string => !!r))];
  // `budget` is every workflow's (the review at its budget), whatever its stages.
  const unreviewed = checkpoints.filter((c) => !reviews.includes(c) && c !== BUDGET_CHECKPOINT);
  const explained = new Set<string>();
  stages.forEach((s, i) => {
    if (!s.review || checkpoints.includes(s.review)) return;
    const meant = closest(s.review, unreviewed);
    if (!meant.length) return;
    for (const m of meant) explained.add(m);
    const names = meant.map((m) => `checkpoints.${m}`).join(' or ');
    problem(
      [i, 'review'],
      `review: ${s.review} has no settings under checkpoints, and ${names} is no stage's review (did you mean ${meant.join(' or ')}?)`,
    );
  });
  for (const name of unreviewed.filter((c) => !explained.has(c))) {
    const list = reviews.length ? `; the stages' reviews are ${reviews.join(', ')}` : '';
    ctx.addIssue({
      code: 'custom',
      path: ['checkpoints', name],
      message: `no stage has review: ${name}${didYouMean(name, reviews)}${list}`,
    });
  }
}
