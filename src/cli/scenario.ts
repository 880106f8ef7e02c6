/**
 * Scenario files (seed 004's "parrot services", for teams): a workflow run as data. What each
 * agent answers (text, or an object for a structured answer), what each review is answered (per
 * checkpoint kind, round by round), and what must hold at the end. `signoff test` runs one on the
 * offline model; tests drive the same file through Slack's fake.
 *
 *   task: write the launch note
 *   agents:
 *     Author: [first draft, second draft]     # in order; the last repeats
 *     Planner: { specialist: audit }           # an object: the answer to a structured call
 *   reviews:
 *     review: [{ revise: make it shorter }, approve]
 *   expect: { status: done, rounds: 2, contains: [shorter] }
 *
 * Agents and checkpoints must be the workflow's (a typo would script nothing and pass): a name it
 * does not have is a `file:line` error listing the ones it has. A checkpoint the file scripts
 * that asks more often than the file answers fails the run, saying so.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { unknownName } from '../config/names.js';
import { objectOr } from '../config/workflows.js';
import { parseYamlFile } from '../config/yaml-file.js';
import { SignoffError } from '../errors.js';

const answer = z.union([z.string(), z.record(z.string(), z.unknown())]);

/** One review's answer: approve, reject, or revise with the words to send. */
const decisionSchema = z.union(
  [
    z.enum(['approve', 'reject']),
    z.object({ revise: z.string().min(1, 'revise needs the feedback to send') }).strict(),
  ],
  { error: 'expected approve, reject or { revise: <the feedback> }' },
);
export type ScenarioDecision = z.infer<typeof decisionSchema>;

export const scenarioSchema = z
  .object({
    /** Shown in the result line; the file's name when absent. */
    name: z.string().min(1).optional(),
    /** The task text, as a person would type it. */
    task: z.string().min(1),
    /** Per agent (its display name): its answers in order, or one answer for every call. */
    agents: z.record(z.string(), z.union([answer, z.array(answer).min(1)])).default({}),
    /**
     * Per checkpoint kind: the answers to its reviews, round by round; a checkpoint not listed is
     * approved; one listed that asks more often than it is answered fails the run.
     */
    reviews: z.record(z.string(), z.array(decisionSchema).min(1)).default({}),
    expect: z
      .object({
        status: z.enum(['done', 'rejected', 'stopped', 'cancelled', 'failed', 'waiting']),
        /** How many reviews were answered. */
        rounds: z.number().int().min(0).optional(),
        /** Texts the transcript must contain, in this order (each after the one before). */
        contains: z.array(z.string().min(1)).default([]),
        /** Text it must not. */
        excludes: z.array(z.string().min(1)).default([]),
      })
      .strict(),
  })
  .strict();
export type Scenario = z.infer<typeof scenarioSchema>;

/** The names a workflow's scenario may use (its WorkflowParts, workflows/shared/types.ts). */
export interface Cast {
  workflow: string;
  agents: string[];
  checkpoints: string[];
}

/** Reads and checks a scenario file; with `cast`, its agents and checkpoints must be those. */
export function readScenario(path: string, cast?: Cast): Scenario {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (cause) {
    throw new SignoffError('config_invalid', `There is no scenario file "${path}".`, { cause });
  }
  // The names are checked even when a value is wrong too (zod skips a refinement after a type
  // error by default): a file with a typo in a name and a bad answer hears of both at once.
  const schema = cast ? scenarioSchema.superRefine(castCheck(cast), { when: () => true }) : scenarioSchema;
  return parseYamlFile(schema, text, path);
}

/** Agents and checkpoints the workflow has; the scenario read may be the file's own, unchecked. */
const castCheck = (cast: Cast) => (scenario: Scenario, ctx: z.RefinementCtx) => {
  const unknown = (key: 'agents' | 'reviews', what: string, valid: string[]) => {
    for (const name of Object.keys(objectOr(scenario?.[key])).filter((n) => !valid.includes(n))) {
      ctx.addIssue({
        code: 'custom',
        path: [key, name],
        message: unknownName(name, valid, what, { of: cast.workflow }),
      });
    }
  };
  unknown('agents', 'agent', cast.agents);
  unknown('reviews', 'checkpoint', cast.checkpoints);
};
