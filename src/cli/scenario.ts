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
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { SignoffError } from '../errors.js';
import type { ModelFor } from '../llm/models.js';
import { ScriptedChatModel, scriptOf } from '../llm/scripted.js';
import { parseYamlFile } from '../yaml-file.js';

const answer = z.union([z.string(), z.record(z.string(), z.unknown())]);

/** One review's answer: approve, reject, or revise with the words to send. */
const decisionSchema = z.union([
  z.enum(['approve', 'reject']),
  z.object({ revise: z.string().min(1, 'revise needs the feedback to send') }).strict(),
]);
export type ScenarioDecision = z.infer<typeof decisionSchema>;

export const scenarioSchema = z
  .object({
    /** Shown in the result line; the file's name when absent. */
    name: z.string().min(1).optional(),
    /** The task text, as a person would type it. */
    task: z.string().min(1),
    /** Per agent (its display name): its answers in order, or one answer for every call. */
    agents: z.record(z.string(), z.union([answer, z.array(answer).min(1)])).default({}),
    /** Per checkpoint kind: the answers to its reviews, round by round; unlisted ones approve. */
    reviews: z.record(z.string(), z.array(decisionSchema).min(1)).default({}),
    expect: z
      .object({
        status: z.enum(['done', 'rejected', 'stopped', 'cancelled', 'failed', 'waiting']),
        /** How many reviews were answered. */
        rounds: z.number().int().min(0).optional(),
        /** Text the transcript must contain. */
        contains: z.array(z.string().min(1)).default([]),
        /** Text it must not. */
        excludes: z.array(z.string().min(1)).default([]),
      })
      .strict(),
  })
  .strict();
export type Scenario = z.infer<typeof scenarioSchema>;

export function readScenario(path: string): Scenario {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (cause) {
    throw new SignoffError('config_invalid', `There is no scenario file "${path}".`, { cause });
  }
  return parseYamlFile(scenarioSchema, text, path);
}

/** The offline model, with the scenario's agents answering what it scripts for them. */
export function scenarioModels(scenario: Scenario): ModelFor {
  const scripts = new Map(
    Object.entries(scenario.agents).map(([agent, a]) => [agent, scriptOf(Array.isArray(a) ? a : [a])]),
  );
  return ({ name }) => new ScriptedChatModel({ agent: name, script: scripts.get(name) });
}
