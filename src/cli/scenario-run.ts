/**
 * `signoff test <workflow> --scenario <file>`: runs a task with the scenario's answers, prints the
 * transcript as `signoff run` would, then checks the file's expectations. Exit 0 when they hold,
 * 1 with the first difference. A review the file scripts answers for, asking once more than it
 * answers, ends the run as a failure that says so: nothing is approved that the file did not say.
 */
import { existsSync } from 'node:fs';
import { basename } from 'node:path';
import type { Config } from '../config/config.js';
import { openDatabase } from '../db/database.js';
import { createScratchDatabase, type ScratchDatabase } from '../db/scratch.js';
import type { Engine } from '../engine/index.js';
import { isSignoffError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { WorkflowParts } from '../workflows/shared/types.js';
import { CLI } from './help.js';
import type { LineSource } from './lines.js';
import { type Feed, type Output, printable } from './printer.js';
import { readScenario, type Scenario } from './scenario.js';
import { runSession } from './session.js';

export interface ScenarioTest {
  workflow: string;
  file: string;
  /** Undefined when the file has problems: they are said with its names' once the workflow is known. */
  scenario?: Scenario;
}

/**
 * `test <workflow> --scenario <file>`: the file read and checked, or the line that says what is
 * wrong. A file that reads but does not check out is not refused yet: its agents and checkpoints
 * are checked against the workflow once that is loaded, and every problem is said then, at once.
 */
export function readScenarioTest(args: string[]): ScenarioTest | { error: string } {
  const [workflow, flag, file] = args;
  if (!workflow || flag !== '--scenario' || !file) {
    return { error: `usage: ${CLI} test <workflow> --scenario <file.yml>` };
  }
  try {
    return { workflow, file, scenario: readScenario(file) };
  } catch (error) {
    if (!isSignoffError(error, 'config_invalid')) throw error;
    return existsSync(file) ? { workflow, file } : { error: error.message };
  }
}

/**
 * A database of its own on the server signoff uses (the embedded one, or DATABASE_URL's): the
 * run's tasks, reviews and audit entries never join the team's, and dropping it leaves nothing.
 */
export async function scenarioDatabase(config: Config, logger: Logger): Promise<ScratchDatabase> {
  const server = await openDatabase({
    url: config.database.url,
    dataDir: config.database.dataDir,
    logger,
    poolSize: 1,
  });
  try {
    const scratch = await createScratchDatabase(server.url, 'scenario');
    return {
      url: scratch.url,
      drop: async () => {
        await scratch.drop();
        await server.close();
      },
    };
  } catch (error) {
    await server.close();
    throw error;
  }
}

/**
 * Checks the file's agents and checkpoints against the workflow's (a typo is a `file:line`
 * error naming the valid ones), then runs it. Your own graph's parts cannot be known: not checked.
 */
export async function runScenarioTest(
  deps: ScenarioRun,
  test: ScenarioTest,
  parts: ReadonlyMap<string, WorkflowParts>,
  err: Output,
): Promise<number> {
  const own = parts.get(test.workflow);
  try {
    // Read again with the workflow's names: the file's problems and its unknown names, all at once.
    const scenario = own?.checkpoints
      ? readScenario(test.file, { workflow: test.workflow, agents: own.agents, checkpoints: own.checkpoints })
      : (test.scenario ?? readScenario(test.file));
    return await runScenario(deps, test.workflow, scenario, scenario.name ?? basename(test.file));
  } catch (error) {
    // A file naming what the workflow lacks, or a workflow that does not exist: one line each.
    if (!isSignoffError(error, 'config_invalid') && !isSignoffError(error, 'unknown_workflow')) throw error;
    err.write(`${error.message}\n`);
    return 2;
  }
}

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
  /** Why the script stopped answering before the task ended, when it did. */
  let stopped: string | undefined;
  // The answer to each review, by its checkpoint kind and round, typed as a person would.
  const lines: LineSource = {
    next: async () => {
      const [review] = await engine.reviews(task.id, 'pending');
      if (!review) return undefined;
      if (rounds >= MAX_ROUNDS) {
        stopped = `the workflow still asked after ${MAX_ROUNDS} review rounds; the scenario stops there`;
        return undefined;
      }
      const i = answered.get(review.checkpoint) ?? 0;
      const script = scenario.reviews[review.checkpoint];
      if (script && i >= script.length) {
        stopped = `the review "${review.checkpoint}" asked a ${ordinal(i + 1)} time, but the file answers it ${script.length} time${script.length === 1 ? '' : 's'}: add an answer under reviews.${review.checkpoint}`;
        return undefined;
      }
      answered.set(review.checkpoint, i + 1);
      rounds += 1;
      const decision = script?.[i] ?? 'approve';
      const line = decision === 'approve' ? 'approve' : decision === 'reject' ? 'reject' : decision.revise;
      out.write(`${line}\n`);
      return line;
    },
    // The script answers what is asked when it is asked: nothing is typed ahead to drop.
    asked: async () => 0,
    // Its answers are made when asked, for as long as a review waits; only a session reads them.
    ended: () => false,
    close: () => undefined,
  };
  // The scenario's database is dropped after the run: no hint points to the task.
  const ended = await runSession(
    { engine, lines, out, actor: deps.actor, feed: deps.feed, kept: false },
    task.id,
  );
  const transcript = deps.transcript();
  const { expect } = scenario;
  const difference =
    stopped ??
    (ended.status !== expect.status
      ? `expected status ${expect.status}, got ${ended.status}${ended.statusReason ? ` (${printable(ended.statusReason)})` : ''}`
      : expect.rounds !== undefined && rounds !== expect.rounds
        ? `expected ${expect.rounds} review rounds, got ${rounds}`
        : (missingInOrder(transcript, expect.contains) ??
          expect.excludes
            .filter((text) => transcript.includes(text))
            .map((text) => `expected the transcript not to contain "${text}"`)[0]));
  out.write(
    difference
      ? `scenario "${name}": FAILED: ${difference}\n`
      : `scenario "${name}": ok (${ended.status}, ${rounds} review round${rounds === 1 ? '' : 's'})\n`,
  );
  return difference ? 1 : 0;
}

/**
 * The first of `texts` the transcript lacks, each looked for after the one before it: an
 * expectation can say that the revision came after the feedback, not only that both appear.
 */
function missingInOrder(transcript: string, texts: string[]): string | undefined {
  let from = 0;
  for (const [i, text] of texts.entries()) {
    const at = transcript.indexOf(text, from);
    if (at >= 0) {
      from = at + text.length;
      continue;
    }
    return i > 0 && transcript.includes(text)
      ? `expected "${text}" after "${texts[i - 1]}" in the transcript`
      : `expected the transcript to contain "${text}"`;
  }
  return undefined;
}

const ordinal = (n: number) =>
  `${n}${n % 10 === 1 && n !== 11 ? 'st' : n % 10 === 2 && n !== 12 ? 'nd' : n % 10 === 3 && n !== 13 ? 'rd' : 'th'}`;
