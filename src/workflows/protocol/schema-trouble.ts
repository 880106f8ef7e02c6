/**
 * Why edited arguments do not fit their call's schema, in sentences a person can act on: every
 * problem Ajv finds (the first few said, the rest counted), each naming the field in the words of
 * the JSON they typed (`The arguments need "subject".`, `"amount" must be a number.`, `"cc" is not
 * one of the allowed fields.`), never Ajv's own (`must have required property 'subject'`).
 */
import type { ErrorObject, ValidateFunction } from 'ajv';

/** Problems said one by one; more are counted. */
const SAID_MAX = 3;
/** A field's name or path quoted at most this long (an agent's schema may name anything). */
const NAME_MAX = 40;
/** Allowed values listed at most (an enum of a hundred countries is not a sentence). */
const VALUES_MAX = 5;
const VALUE_MAX = 30;

/** Why `args` do not fit the schema `validate` checks (arg-schema.ts), or undefined when they do. */
export function argsTrouble(validate: ValidateFunction, args: Record<string, unknown>): string | undefined {
  return validate(args) ? undefined : schemaTrouble(validate.errors ?? []);
}

/** Ajv's errors as sentences: the first few, then how many more. */
export function schemaTrouble(errors: readonly ErrorObject[]): string {
  const kept = errors.filter(said);
  // The fields one object lacks are said together: `The arguments need "subject" and "body".`
  const lacking = new Map<string, string[]>();
  for (const e of kept)
    if (e.keyword === 'required')
      lacking.set(e.instancePath, [...(lacking.get(e.instancePath) ?? []), String(e.params.missingProperty)]);
  const sentences = [
    ...new Set(
      kept.map((e) =>
        e.keyword === 'required' ? needs(e.instancePath, lacking.get(e.instancePath) ?? []) : sentence(e),
      ),
    ),
  ];
  if (!sentences.length) return 'The arguments do not fit what this call takes.';
  const more = sentences.length - SAID_MAX;
  const rest = more > 0 ? [`And ${more} more ${more === 1 ? 'problem' : 'problems'}.`] : [];
  return [...sentences.slice(0, SAID_MAX), ...rest].join(' ');
}

/**
 * Whether an error is one a person can act on by itself: not one branch of an `anyOf`/`oneOf`
 * (the error of the whole says that none fits), nor an `if` (its `then`'s errors say what is wrong),
 * nor why a field's name did not fit `propertyNames` (the error of the whole names the field), nor
 * why an item is not the one a `contains` looks for (the list may rightly hold other items: the
 * error of the whole says what it lacks).
 */
const said = (e: ErrorObject) =>
  e.keyword !== 'if' &&
  e.propertyName === undefined &&
  !/\/(anyOf|oneOf)\/\d+\//.test(`${e.schemaPath}/`) &&
  !insideContains(e.schemaPath);

/**
 * Keywords whose next part of a schema path is a name the schema chose (a field `contains`, say);
 * `dependencies` is draft-07's `dependentSchemas`.
 */
const NAMING = new Set([
  'properties',
  'patternProperties',
  '$defs',
  'definitions',
  'dependentSchemas',
  'dependencies',
]);

/** Whether a schema path goes through a `contains` keyword's schema (not ends at it). */
function insideContains(schemaPath: string): boolean {
  const parts = partsOf(schemaPath.replace(/^#/, ''));
  for (let i = 0; i < parts.length - 1; i++) {
    if (NAMING.has(parts[i] as string)) i++;
    else if (parts[i] === 'contains') return true;
  }
  return false;
}

/** The JSON pointer's parts: `/items/0/name` → items, 0, name. */
const partsOf = (pointer: string) =>
  pointer
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));

/**
 * A field by its path as typed (`"address.city"`, `"items[0]"`), or the arguments themselves. A
 * number is an index only after a part (the arguments are an object: a first "0" is a key), and a
 * key with a dot or bracket in it is bracketed (`["a.b"]`), so that it never reads as a path.
 */
function named(parts: string[]): string | undefined {
  if (!parts.length) return undefined;
  const part = (p: string, i: number) =>
    /[.[\]]/.test(p) ? `[${JSON.stringify(p)}]` : i && /^\d+$/.test(p) ? `[${p}]` : i ? `.${p}` : p;
  return quoted(parts.map(part).join(''));
}

const quoted = (name: string) => `"${name.length > NAME_MAX ? `${name.slice(0, NAME_MAX - 1)}…` : name}"`;

/** A value the schema allows, as it would be typed. */
function shown(value: unknown): string {
  const json = JSON.stringify(value) ?? 'null';
  return json.length > VALUE_MAX ? `${json.slice(0, VALUE_MAX - 1)}…` : json;
}

/** JSON Schema's types in words that say how to type them. */
const TYPES: Record<string, string> = {
  string: 'text in double quotes',
  number: 'a number',
  integer: 'a whole number',
  boolean: 'true or false',
  array: 'a list in [ ]',
  object: 'an object in { }',
  null: 'null',
};

const BOUNDS = {
  minimum: 'at least',
  maximum: 'at most',
  exclusiveMinimum: 'more than',
  exclusiveMaximum: 'less than',
} as const;

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

/** What an object (by its JSON pointer) lacks: `The arguments need "to".`, `"address" needs "city".` */
function needs(pointer: string, missing: string[]): string {
  const field = named(partsOf(pointer));
  const names = missing.map(quoted);
  const listed = names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)}` : names.join('');
  return `${field ?? 'The arguments'} ${field ? 'needs' : 'need'} ${listed}.`;
}

function sentence(e: ErrorObject): string {
  const parts = partsOf(e.instancePath);
  const field = named(parts);
  const it = field ?? 'The arguments';
  const p = e.params as Record<string, unknown>;
  const n = Number(p.limit);
  switch (e.keyword) {
    case 'dependentRequired':
    case 'dependencies': {
      const missing = quoted(String(p.missingProperty));
      return `With ${quoted(String(p.property))}, ${field ? `${field} needs` : 'the arguments need'} ${missing} too.`;
    }
    case 'additionalProperties':
    case 'unevaluatedProperties': {
      const stray = quoted(String(p.additionalProperty ?? p.unevaluatedProperty));
      return `${stray} is not one of the allowed fields${field ? ` of ${field}` : ''}.`;
    }
    case 'type': {
      const types = String(p.type)
        .split(',')
        .map((t) => TYPES[t] ?? t);
      return `${it} must be ${types.join(' or ')}.`;
    }
    case 'enum': {
      const allowed = (Array.isArray(p.allowedValues) ? p.allowedValues : []) as unknown[];
      const listed = allowed.slice(0, VALUES_MAX).map(shown);
      const more = allowed.length > VALUES_MAX ? `, or ${allowed.length - VALUES_MAX} more` : '';
      return allowed.length === 1
        ? `${it} must be ${listed[0]}.`
        : `${it} must be one of ${listed.join(', ')}${more}.`;
    }
    case 'const':
      return `${it} must be ${shown(p.allowedValue)}.`;
    case 'minLength':
      return n === 1 ? `${it} must not be empty.` : `${it} must be at least ${plural(n, 'character')} long.`;
    case 'maxLength':
      return `${it} must be at most ${plural(n, 'character')} long.`;
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum': {
      const bound = BOUNDS[e.keyword as keyof typeof BOUNDS];
      return `${it} must be ${bound} ${String(p.limit)}.`;
    }
    case 'multipleOf':
      return `${it} must be a multiple of ${String(p.multipleOf)}.`;
    case 'minItems':
      return n === 1 ? `${it} must not be an empty list.` : `${it} must list at least ${plural(n, 'item')}.`;
    case 'maxItems':
      return `${it} must list at most ${plural(n, 'item')}.`;
    case 'contains': {
      const [min, max] = [
        Number(p.minContains ?? 1),
        p.maxContains === undefined ? undefined : Number(p.maxContains),
      ];
      const kind = 'of the kind it needs';
      if (max === undefined)
        return min === 1
          ? `${it} has no item ${kind}.`
          : `${it} must list at least ${plural(min, 'item')} ${kind}.`;
      return min > 0
        ? `${it} must list at least ${min} and at most ${plural(max, 'item')} ${kind}.`
        : `${it} must list at most ${plural(max, 'item')} ${kind}.`;
    }
    case 'uniqueItems':
      return `${it} must not list the same item twice.`;
    case 'minProperties':
      return `${it} must have at least ${plural(n, 'field')}.`;
    case 'maxProperties':
      return `${it} must have at most ${plural(n, 'field')}.`;
    case 'pattern': {
      const pattern = String(p.pattern);
      const which = pattern.length <= NAME_MAX ? ` (the pattern ${pattern})` : '';
      return `${it} is not written the way this call takes${which}.`;
    }
    case 'propertyNames':
      return `${quoted(String(p.propertyName))} is not an allowed field name${field ? ` in ${field}` : ''}.`;
    case 'anyOf':
      return `${it} ${field ? 'does' : 'do'} not fit any of the forms this call takes.`;
    case 'oneOf':
      return `${it} must fit exactly one of the forms this call takes.`;
    case 'not':
    case 'false schema':
      return field ? `${field} is not allowed here.` : 'The arguments are not what this call takes.';
    // No `format`: formats are not checked (arg-schema.ts loads no ajv-formats), so Ajv never says one.
    default:
      // A keyword not named above: Ajv's own words, with the field named as above.
      return `${it} ${e.message ?? 'does not fit what this call takes'}.`;
  }
}
