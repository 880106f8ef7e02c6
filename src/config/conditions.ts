/**
 * A checkpoint rule's condition (`when:`), in CEL (the Common Expression Language, through
 * @marcbachmann/cel-js): parsed and type-checked against the facts below when the config file
 * loads, so a misspelt name or a sum of a string and a number is a `file:line` error there, and
 * evaluated on a review's content when it opens. CEL cannot loop or call out: a condition is
 * cheap and always ends.
 */
import { Environment } from '@marcbachmann/cel-js';
import { didYouMean } from './names.js';

/**
 * What a condition may read of a review, one set per tool call when the review asks about several
 * (each call is checked on its own): `tool` and `args` are the call's ("" and {} when the review
 * is content); `input` is what an agent sent through a door ({} for a command); `output`, the
 * workflow's state as the review opens.
 */
export interface ReviewFacts {
  workflow: string;
  checkpoint: string;
  /** The task's Slack channel ("" at the terminal). */
  channel: string;
  requester: string;
  /** `api`, `mcp`, or "" for a person's command. */
  door: string;
  title: string;
  /** The content as Markdown. */
  body: string;
  tool: string;
  args: Record<string, unknown>;
  input: Record<string, unknown>;
  /**
   * The workflow's state as the review opens: its structured output so far (a declared
   * workflow's stages' results, your own graph's fields), as JSON.
   */
  output: Record<string, unknown>;
}

const FACTS: Record<keyof ReviewFacts, string> = {
  workflow: 'string',
  checkpoint: 'string',
  channel: 'string',
  requester: 'string',
  door: 'string',
  title: 'string',
  body: 'string',
  tool: 'string',
  args: 'map',
  input: 'map',
  output: 'map',
};

/** The names a condition may use, for messages. */
export const FACT_NAMES = Object.keys(FACTS);

// Limits far above any sensible condition: a config file is trusted, but a pasted blob should
// fail to load rather than slow every review.
const env = Object.entries(FACTS).reduce(
  (e, [name, type]) => e.registerVariable(name, type),
  new Environment({ limits: { maxAstNodes: 500, maxDepth: 50, maxListElements: 200, maxMapEntries: 200 } }),
);

/** Why `source` is not a condition (it does not parse, names an unknown fact, or is not true/false); undefined when it is. */
export function conditionError(source: string): string | undefined {
  let result: ReturnType<typeof env.check>;
  try {
    result = env.check(source);
  } catch (error) {
    return firstLine(error);
  }
  if (!result.valid) {
    const message = firstLine(result.error);
    const unknown = /^Unknown variable: (\S+)/.exec(message)?.[1];
    return unknown
      ? `${message}${didYouMean(unknown, FACT_NAMES) || ` (a condition may use ${FACT_NAMES.join(', ')})`}`
      : message;
  }
  if (result.type !== 'bool') return `a condition must be true or false; this one is a ${result.type}`;
  return undefined;
}

const firstLine = (error: unknown) => String((error as Error)?.message ?? error).split('\n')[0] ?? '';

const parsed = new Map<string, ReturnType<typeof env.parse>>();

/**
 * The condition's value on `facts`: true or false, or why it could not be told (an argument the
 * call does not have, a value of another type). The caller decides what an error means.
 */
export function evaluateCondition(source: string, facts: ReviewFacts): boolean | { error: string } {
  let run = parsed.get(source);
  if (!run) {
    run = env.parse(source);
    parsed.set(source, run);
  }
  try {
    const value = run(facts as unknown as Record<string, unknown>);
    return value === true;
  } catch (error) {
    return { error: firstLine(error) };
  }
}
