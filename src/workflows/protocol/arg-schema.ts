/**
 * A tool call's argument schema made a check, the one way every door and form reads it: the Ajv of
 * the draft its `$schema` names (2020-12, which zod v4's `z.toJSONSchema` writes; 2019-09; else
 * draft-07), with the same options, so that what an API ask is accepted with is what its Edit form
 * can check. A schema that cannot be compiled is said, never thrown: its callers word it for their
 * own readers (a reviewer's form, an API client's 400).
 */
import type { Ajv as AjvCore, ValidateFunction } from 'ajv';
import { Ajv } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { canonicalJson } from './canonical-json.js';

// Every problem, so that all are said at once. No logger: a format it does not know (`email`
// without ajv-formats, which signoff does not load: formats stay unchecked) is left unchecked,
// not warned about in the middle of a terminal's prompt. Not strict: agents' schemas carry
// keywords of their own (`title`, `examples`, vendor extensions).
const OPTIONS = { allErrors: true, strict: false, logger: false } as const;

/** Each draft's Ajv, and the id of the draft's meta-schema as that Ajv knows it. */
const DRAFTS = {
  '2020-12': { id: 'https://json-schema.org/draft/2020-12/schema', make: () => new Ajv2020(OPTIONS) },
  '2019-09': { id: 'https://json-schema.org/draft/2019-09/schema', make: () => new Ajv2019(OPTIONS) },
  '07': { id: 'http://json-schema.org/draft-07/schema#', make: () => new Ajv(OPTIONS) },
} as const;
type Draft = keyof typeof DRAFTS;

/** One Ajv per draft: making one compiles its meta-schemas, too slow to do at every form read. */
const made = new Map<Draft, AjvCore>();

/**
 * A draft's id as schemas write it: by http or https, with a trailing `#` or none (Ajv knows each
 * by one spelling only, and refused the others while the sentence named the very draft written).
 */
const DRAFT_ID = /^https?:\/\/json-schema\.org\/(?:draft\/(2020-12|2019-09)|draft-(07))\/schema#?$/;

/**
 * The draft a `$schema` names, or undefined: none named (read as draft-07), or one signoff does not
 * read. That includes draft-06 and draft-04, whose meta-schemas no Ajv here is given: refused in
 * a sentence, not read by another draft's rules.
 */
function draftOf(id: unknown): Draft | undefined {
  const [, later, seven] = (typeof id === 'string' && DRAFT_ID.exec(id)) || [];
  return (later ?? seven) as Draft | undefined;
}

const ASYNC = 'an async schema ($async) is not one signoff can check edited arguments with';

type Read = { validate: ValidateFunction } | { unreadable: string };

/** Schemas read, the most recently used last: this many are kept, the least recently used dropped. */
export const SCHEMAS_KEPT = 100;

/**
 * Reads by the schema's canonical JSON (its `$schema` is in it, so the draft is too). A compile is
 * 1.5–4 ms and a call's schema is read at every form read, card and decision; each compile stands
 * alone (the Ajv forgets it, below), so a check made once serves every later read of that schema.
 */
const reads = new Map<string, Read>();

/**
 * `schema` as a check of arguments, or why it cannot be one (Ajv's reason, or the `$schema` it
 * does not know), for a developer to read. The same schema (whatever its key order) gets the same
 * result, compiled once while it is among the last SCHEMAS_KEPT read.
 */
export function readArgSchema(schema: Record<string, unknown>): Read {
  const key = canonicalJson(schema);
  const known = reads.get(key) ?? compiled(schema);
  reads.delete(key);
  reads.set(key, known);
  if (reads.size > SCHEMAS_KEPT) reads.delete(reads.keys().next().value as string);
  return known;
}

function compiled(schema: Record<string, unknown>): Read {
  const named = draftOf(schema.$schema);
  const draft = named ?? '07';
  const ajv = made.get(draft) ?? DRAFTS[draft].make();
  made.set(draft, ajv);
  try {
    // Its `$schema` spelled as the Ajv knows it; nothing else is changed.
    const validate = ajv.compile(named ? { ...schema, $schema: DRAFTS[named].id } : schema);
    // An async schema's check returns a Promise: truthy whatever the arguments, and rejected (with
    // no one to catch it, which can end the process) for arguments that do not fit. Its type says
    // sync: Ajv types a compile by the schema it is given, and this one is any JSON.
    if ((validate as { $async?: unknown }).$async) return { unreadable: ASYNC };
    return { validate };
  } catch (error) {
    const unknown =
      !named && schema.$schema !== undefined && /^no schema with key or ref/.test((error as Error).message);
    return {
      unreadable: unknown
        ? `its "$schema" (${JSON.stringify(schema.$schema)}) is not a draft signoff reads: json-schema.org draft-07, 2019-09 or 2020-12`
        : String((error as Error)?.message ?? error),
    };
  } finally {
    // Forgotten once compiled (the check keeps what it needs): a shared Ajv would keep every schema
    // (each form read from the database is a new object: it would grow for ever), refuse a second
    // schema with an `$id` it has seen (an agent's schemas share them), and let one call's `$ref`
    // reach another call's schema.
    ajv.removeSchema();
  }
}
