/**
 * A YAML file checked by a zod schema, every problem reported as `file:line:col path: what`
 * (the config file, scenario files). Throws one `config_invalid` error listing them all.
 */
import { isMap, isScalar, LineCounter, parseDocument } from 'yaml';
import type { z } from 'zod';
import { SignoffError } from '../errors.js';

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
  const lines = result.error.issues.map((issue) => {
    // An unknown key is reported at the key itself, not at the map that holds it.
    const path = [
      ...issue.path.map(String),
      ...(issue.code === 'unrecognized_keys' ? issue.keys.slice(0, 1) : []),
    ];
    const where = locate(doc, lineCounter, path);
    return `${file}:${where} ${path.join('.') || '(top level)'}: ${issue.message}`;
  });
  throw new SignoffError('config_invalid', lines.join('\n'));
}

type Range = [number, number, number];

/**
 * Where `path` is written: the deepest part of it that exists (a missing key points at its
 * parent). A key's own position, not its value's: `reveiw:` followed by a list on the next lines
 * is reported on the line that says `reveiw`, where the typo is.
 */
function locate(doc: ReturnType<typeof parseDocument>, counter: LineCounter, path: string[]): string {
  for (let depth = path.length; depth >= 0; depth--) {
    const range = keyRange(doc, path.slice(0, depth)) ?? nodeRange(doc.getIn(path.slice(0, depth), true));
    if (range) {
      const pos = counter.linePos(range[0]);
      return `${pos.line}:${pos.col}`;
    }
  }
  return '1:1';
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
