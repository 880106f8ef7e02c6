/**
 * `signoff test <workflow> --scenario <file>`: runs a task with the scenario's answers, prints the
 * transcript as `signoff run` would, then checks the file's expectations. Exit 0 when they hold,
 * 1 with the first difference.
 */
import type { Engine } from '../engine/api.js';
import type { LineSource } from './lines.js';
import type { Feed, Output } from './printer.js';
import type { Scenario } from './scenario.js';
import { runSession } from './session.js';

/** Reviews answered at most, so that a scenario that loops ends. */
const MAX_ROUNDS = 50;

export interface ScenarioRun {
  engine: Engine;
  feed: Feed;
  out: Output;
  actor: string;
  /** Everything printed so far (the transcript the expectations read). */
  transcript(): string;
}

export async function runScenario(
  deps: ScenarioRun,
  workflow: string,
  scenario: Scenario,
  name: string,
): Promise<number> {
  const { engine, out } = deps;
  const { task } = await engine.start({
    workflow,
    text: scenario.task,
    requester: deps.actor,
    surface: 'cli',
  });
  const answered = new Map<string, number>();
  let rounds = 0;
  // The answer to each review, by its checkpoint kind and round, typed as a person would.
  const lines: LineSource = {
    next: async () => {
      const [review] = await engine.reviews(task.id, 'pending');
      if (!review || rounds >= MAX_ROUNDS) return undefined;
      const i = answered.get(review.checkpoint) ?? 0;
      answered.set(review.checkpoint, i + 1);
      rounds += 1;
      const decision = scenario.reviews[review.checkpoint]?.[i] ?? 'approve';
      const line = decision === 'approve' ? 'approve' : decision === 'reject' ? 'reject' : decision.revise;
      out.write(`${line}\n`);
      return line;
    },
    close: () => undefined,
  };
  const ended = await runSession({ engine, lines, out, actor: deps.actor, feed: deps.feed }, task.id);
  const transcript = deps.transcript();
  const { expect } = scenario;
  const difference =
    ended.status !== expect.status
      ? `expected status ${expect.status}, got ${ended.status}${ended.statusReason ? ` (${ended.statusReason})` : ''}`
      : expect.rounds !== undefined && rounds !== expect.rounds
        ? `expected ${expect.rounds} review rounds, got ${rounds}`
        : (expect.contains
            .filter((text) => !transcript.includes(text))
            .map((text) => `expected the transcript to contain "${text}"`)[0] ??
          expect.excludes
            .filter((text) => transcript.includes(text))
            .map((text) => `expected the transcript not to contain "${text}"`)[0]);
  out.write(
    difference
      ? `scenario "${name}": FAILED: ${difference}\n`
      : `scenario "${name}": ok (${ended.status}, ${rounds} review round${rounds === 1 ? '' : 's'})\n`,
  );
  return difference ? 1 : 0;
}
