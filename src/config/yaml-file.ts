/**
 * A YAML file checked by a zod schema, every problem reported as `file:line:col path: what`
 * (the config file, scenario files). Throws one `config_invalid` error listing them all.
 */
import { isMap, isScalar, LineCounter, parseDocument } from 'yaml';
import type { z } from 'zod';
import { SignoffError } from '../errors.js';
import { didYouMean } from './names.js';
import { keysAt, wordsAt } from './schema-names.js';

export function parseYamlFile<T extends z.ZodType>(schema: T, text: string, file: string): z.infer<T> {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false });
  if (doc.errors.length) {
    const lines = doc.errors.map((e) => {
      const pos = lineCounter.linePos(e.pos[0]);
      return `${file}:${pos.line}:${pos.col} ${e.message.split('\n')[0]}`;
    });
    throw new SignoffError('config_invalid', lines.join('\n'));
  }
  const raw = doc.toJS() ?? {};
  const result = schema.safeParse(raw);
  if (result.success) return result.data;
  const problems = result.error.issues.flatMap((issue) => {
    const path = issue.path.map(String);
    // An unknown key is reported at the key itself, each on its own line, not at the map that holds it.
    if (issue.code === 'unrecognized_keys') {
      const known = keysAt(schema, issue.path);
      return issue.keys.map((key) => ({ path: [...path, key], message: unknownKey(key, known) }));
    }
    return [{ path, message: issue.message + misspeltWord(schema, issue, raw) }];
  });
  // In the file's order, as someone fixing them reads it (zod reports by schema, then by refinement).
  const lines = problems
    .map(({ path, message }) => ({ path, message, at: locate(doc, lineCounter, path) }))
    .sort((a, b) => a.at.line - b.at.line || a.at.col - b.at.col)
    .map(
      ({ path, message, at }) =>
        `${file}:${at.line}:${at.col} ${path.join('.') || '(top level)'}: ${message}`,
    );
  throw new SignoffError('config_invalid', lines.join('\n'));
}

/** `unknown key "promt" (did you mean prompt?)`, else the keys the map may have. */
function unknownKey(key: string, known: string[]): string {
  const guess = didYouMean(key, known);
  if (guess || !known.length) return `unknown key "${key}"${guess}`;
  return `unknown key "${key}"; the keys here are ${known.join(', ')}`;
}

/** ` (did you mean approve?)` for a word the schema has a close one for (`onTimeout: aprove`). */
function misspeltWord(schema: z.ZodType, issue: z.core.$ZodIssue, raw: unknown): string {
  if (issue.code !== 'invalid_value' && issue.code !== 'invalid_union') return '';
  const value = issue.path.reduce<unknown>(
    (v, key) => (v && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[key] : undefined),
    raw,
  );
  return typeof value === 'string' ? didYouMean(value, wordsAt(schema, issue.path)) : '';
}

type Range = [number, number, number];

/**
 * Where `path` is written: the deepest part of it that exists (a missing key points at its
 * parent). A key's own position, not its value's: `reveiw:` followed by a list on the next lines
 * is reported on the line that says `reveiw`, where the typo is.
 */
function locate(
  doc: ReturnType<typeof parseDocument>,
  counter: LineCounter,
  path: string[],
): { line: number; col: number } {
  for (let depth = path.length; depth >= 0; depth--) {
    const range = keyRange(doc, path.slice(0, depth)) ?? nodeRange(doc.getIn(path.slice(0, depth), true));
    if (range) return counter.linePos(range[0]);
  }
  return { line: 1, col: 1 };
}

/** The range of the last key of `path` in the map holding it (none for a list's item). */
function keyRange(doc: ReturnType<typeof parseDocument>, path: string[]): Range | undefined {
  if (!path.length) return undefined;
  const parent = path.length === 1 ? doc.contents : doc.getIn(path.slice(0, -1), true);
  if (!isMap(parent)) return undefined;
  const pair = parent.items.find((p) => isScalar(p.key) && String(p.key.value) === path.at(-1));
  return pair && isScalar(pair.key) ? (pair.key.range ?? undefined) : undefined;
}

const nodeRange = (node: unknown): Range | undefined =>
  (node as { range?: Range | null } | undefined)?.range ?? undefined;
