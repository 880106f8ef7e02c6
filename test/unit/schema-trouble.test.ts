/**
 * Edited arguments that do not fit their call's schema are refused in sentences a person can act
 * on: every problem (the first three said, the rest counted), each naming the field, never Ajv's
 * words. The same sentence is the Edit form's error on every surface (invalidEdit: Slack's modal,
 * the terminal's form and the engine's refusal).
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { askReviewRequest, toolCallSchema } from '../../src/workflows/ask/ask-request.js';
import { readArgSchema } from '../../src/workflows/protocol/arg-schema.js';
import { invalidEdit } from '../../src/workflows/protocol/review-form.js';
import { toReviewRequest } from '../../src/workflows/protocol/review-request.js';
import { argsTrouble } from '../../src/workflows/protocol/schema-trouble.js';

const schema = {
  type: 'object',
  properties: {
    to: { type: 'string' },
    subject: { type: 'string', minLength: 1 },
    amount: { type: 'number', minimum: 0 },
    priority: { enum: ['low', 'high'] },
    address: {
      type: 'object',
      properties: { city: { type: 'string' } },
      required: ['city'],
      additionalProperties: false,
    },
  },
  required: ['to', 'subject'],
  additionalProperties: false,
};
const request = toReviewRequest({
  actionRequests: [{ name: 'pay', args: { to: 'ann', subject: 'Rent', amount: 900 } }],
  reviewConfigs: [{ actionName: 'pay', allowedDecisions: ['approve', 'edit', 'reject'], argsSchema: schema }],
});
/** What is wrong with `args` by the schema above, in words. */
const fits = (args: Record<string, unknown>) => {
  const read = readArgSchema(schema);
  if (!('validate' in read)) throw new Error(read.unreadable);
  return argsTrouble(read.validate, args);
};
/** The Edit form's error for these arguments, as every surface shows it. */
const errorFor = (args: Record<string, unknown>) =>
  invalidEdit(request, { args_0: JSON.stringify(args) }).args_0;

/**
 * The Edit form of one call to `name` (arguments as shown: `shown`) under `argsSchema`: its error
 * for the arguments typed, by field.
 */
const editUnder =
  (argsSchema: Record<string, unknown>, o: { allowed?: string[]; name?: string; shown?: object } = {}) =>
  (args: Record<string, unknown>) => {
    const name = o.name ?? 'ship';
    const one = toReviewRequest({
      actionRequests: [{ name, args: o.shown ?? {} }],
      reviewConfigs: [
        { actionName: name, allowedDecisions: o.allowed ?? ['approve', 'edit', 'reject'], argsSchema },
      ],
    });
    return invalidEdit(one, { args_0: JSON.stringify(args) });
  };

describe('arguments that do not fit the schema', () => {
  it('a required field left out is named: the arguments need it', () => {
    expect(errorFor({ to: 'ann' })).toBe('The arguments need "subject".');
    expect(errorFor({})).toBe('The arguments need "to" and "subject".');
  });

  it('a value of the wrong type says what it must be', () => {
    expect(errorFor({ to: 'ann', subject: 'Rent', amount: '900' })).toBe('"amount" must be a number.');
    expect(errorFor({ to: 7, subject: 'Rent' })).toBe('"to" must be text in double quotes.');
  });

  it('a field the call does not take is named as not allowed, inside an object too', () => {
    expect(errorFor({ to: 'ann', subject: 'Rent', cc: 'bob' })).toBe(
      '"cc" is not one of the allowed fields.',
    );
    expect(errorFor({ to: 'ann', subject: 'Rent', address: { city: 'Oslo', zip: 1 } })).toBe(
      '"zip" is not one of the allowed fields of "address".',
    );
  });

  it('several problems are all said, in one message', () => {
    expect(errorFor({ subject: 'Rent', amount: '900', cc: 'bob' })).toBe(
      'The arguments need "to". "cc" is not one of the allowed fields. "amount" must be a number.',
    );
  });

  it('past three problems, the first three are said and the rest counted', () => {
    const said = errorFor({ subject: '', amount: -1, priority: 'urgent', address: {}, cc: 'bob' });
    expect(said).toBe(
      'The arguments need "to". "cc" is not one of the allowed fields. "subject" must not be empty. And 3 more problems.',
    );
    expect(said).not.toMatch(/must have required property|must NOT|must be equal to/);
  });

  it('the words of other rules: allowed values, bounds, a nested required field', () => {
    expect(fits({ to: 'a', subject: 'b', priority: 'urgent' })).toBe(
      '"priority" must be one of "low", "high".',
    );
    expect(fits({ to: 'a', subject: 'b', amount: -1 })).toBe('"amount" must be at least 0.');
    expect(fits({ to: 'a', subject: 'b', address: {} })).toBe('"address" needs "city".');
    expect(fits({ to: 'a', subject: 'b' })).toBeUndefined();
  });
});

describe('a schema signoff cannot compile, or one of a later draft', () => {
  /** A single send_email call to ann, under `argsSchema`. */
  const editOf = (argsSchema: Record<string, unknown>, allowed?: string[]) =>
    editUnder(argsSchema, { allowed, name: 'send_email', shown: { to: 'ann' } });
  const unreadable =
    'The argument schema of send_email cannot be read, so edited arguments cannot be checked: approve it as asked, or reject it.';

  it("zod v4's z.toJSONSchema (draft 2020-12) checks an edit: arguments that fit pass, others are said in words", () => {
    const schema = z.toJSONSchema(z.object({ to: z.string() })) as Record<string, unknown>;
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    const edit = editOf(schema);
    expect(edit({ to: 'bob' })).toEqual({});
    expect(edit({ to: 7 })).toEqual({ args_0: '"to" must be text in double quotes.' });
    expect(edit({ to: 'bob', cc: 'eve' })).toEqual({ args_0: '"cc" is not one of the allowed fields.' });
  });

  it('an edit checked by a schema Ajv cannot compile is refused in a sentence, never thrown: unknown type, $ref to nowhere, bad pattern, unknown draft', () => {
    for (const schema of [
      { type: 'foo' },
      { type: 'object', properties: { to: { $ref: '#/$defs/nowhere' } } },
      { type: 'object', properties: { to: { type: 'string', pattern: '(' } } },
      { $schema: 'http://json-schema.org/draft-04/schema#', type: 'object' },
    ])
      expect([schema, editOf(schema)({ to: 'bob' })]).toEqual([schema, { args_0: unreadable }]);
  });

  it('arguments sent back as shown under a schema that cannot be read are the call as asked: approvable where approve is allowed, never checked', () => {
    expect(editOf({ type: 'foo' })({ to: 'ann' })).toEqual({});
    // Not approvable as asked: the same arguments are refused by that rule, an edit by the schema.
    const guarded = editOf({ type: 'foo' }, ['edit', 'reject']);
    expect(guarded({ to: 'ann' }).args_0).toContain('may not go ahead as asked');
    expect(guarded({ to: 'bob' }).args_0).toBe(
      'The argument schema of send_email cannot be read, so edited arguments cannot be checked: reject it.',
    );
  });

  it('an async schema ($async: its check is a Promise, truthy for any arguments) checks no edit: edits are refused in a sentence, none passes, no Promise is left to reject', () => {
    const async = { $async: true, type: 'object', properties: { to: { type: 'string' } } };
    expect(readArgSchema(async)).toEqual({
      unreadable: 'an async schema ($async) is not one signoff can check edited arguments with',
    });
    expect(editOf(async)({ to: 7 })).toEqual({ args_0: unreadable });
    expect(editOf(async)({ to: 'bob' })).toEqual({ args_0: unreadable });
    // As shown, the call as asked: approvable, as under any schema that cannot be read.
    expect(editOf(async)({ to: 'ann' })).toEqual({});
  });

  it("a schema with an $id compiles again and again, and one call's $ref never reaches another call's schema", () => {
    const withId = {
      $id: 'https://example.com/mail',
      type: 'object',
      properties: { to: { type: 'string' } },
    };
    expect(editOf(withId)({ to: 'bob' })).toEqual({});
    expect(editOf({ ...withId })({ to: 7 })).toEqual({ args_0: '"to" must be text in double quotes.' });
    expect(editOf({ $ref: 'https://example.com/mail' })({ to: 'bob' }).args_0).toContain('cannot be read');
  });
});

describe("an API ask's schema is read as its Edit form reads it", () => {
  const askWith = (schema: Record<string, unknown>) =>
    toolCallSchema.safeParse({ name: 'send_email', arguments: { to: 'ann' }, schema });

  it("zod v4's 2020-12 schema is accepted at the door, and an edit under it is checked", () => {
    const schema = z.toJSONSchema(z.object({ to: z.string() })) as Record<string, unknown>;
    expect(askWith(schema).success).toBe(true);
    const request = askReviewRequest({
      title: 'Mail?',
      toolCall: { name: 'send_email', arguments: { to: 'ann' }, schema },
    });
    expect(invalidEdit(request, { args_0: '{"to": 7}' })).toEqual({
      args_0: '"to" must be text in double quotes.',
    });
    expect(invalidEdit(request, { args_0: '{"to": "bob"}' })).toEqual({});
  });

  it('an async schema ($async) is refused at the door with a sentence saying why', () => {
    const refused = askWith({ $async: true, type: 'object' });
    expect(refused.success).toBe(false);
    expect(refused.error?.issues.map((i) => [i.path, i.message])).toEqual([
      [
        ['schema'],
        'not a JSON Schema signoff can check edited arguments with (an async schema ($async) is not one signoff can check edited arguments with)',
      ],
    ]);
  });

  it('a schema that cannot be compiled is refused at the door with a sentence saying why', () => {
    const refused = askWith({ type: 'object', properties: { to: { type: 'string', pattern: '(' } } });
    expect(refused.success).toBe(false);
    expect(refused.error?.issues).toEqual([
      expect.objectContaining({
        path: ['schema'],
        message: expect.stringMatching(
          /^not a JSON Schema signoff can check edited arguments with \(.*regular expression/,
        ),
      }),
    ]);
    const draft4 = askWith({ $schema: 'http://json-schema.org/draft-04/schema#' });
    expect(draft4.error?.issues[0]?.message).toBe(
      'not a JSON Schema signoff can check edited arguments with (its "$schema" ("http://json-schema.org/draft-04/schema#") is not a draft signoff reads: json-schema.org draft-07, 2019-09 or 2020-12)',
    );
  });
});

describe('a list that must contain an item', () => {
  /** The Edit form's error for `args` of a call whose schema is `properties` (draft 2020-12). */
  const errorUnder = (properties: Record<string, unknown>, args: Record<string, unknown>) =>
    editUnder({ $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties })(args)
      .args_0;

  it('a list without the item it must contain says so once: its other items are not errors, and no Ajv words', () => {
    const a = { type: 'array', contains: { const: 1 } };
    expect(errorUnder({ a }, { a: [2, 3] })).toBe('"a" has no item of the kind it needs.');
    expect(errorUnder({ a }, { a: [2, 1] })).toBeUndefined();
  });

  it('how many such items it must list, at least and at most, is said in words', () => {
    const between = { type: 'array', contains: { const: 1 }, minContains: 2, maxContains: 3 };
    expect(errorUnder({ a: between }, { a: [1, 2] })).toBe(
      '"a" must list at least 2 and at most 3 items of the kind it needs.',
    );
    expect(errorUnder({ a: between }, { a: [1, 1, 1, 1] })).toBe(
      '"a" must list at least 2 and at most 3 items of the kind it needs.',
    );
    const twice = { type: 'array', contains: { const: 1 }, minContains: 2 };
    expect(errorUnder({ a: twice }, { a: [1] })).toBe('"a" must list at least 2 items of the kind it needs.');
  });

  it('a field named "contains" is a field like any other: its errors are said', () => {
    expect(errorUnder({ contains: { type: 'string' } }, { contains: 3 })).toBe(
      '"contains" must be text in double quotes.',
    );
  });

  it('a field named "contains" under draft-07 dependencies is a field like any other: what it needs is said', () => {
    const schema = { type: 'object', dependencies: { contains: { required: ['items'] } } };
    expect(editUnder(schema)({ contains: 3 }).args_0).toBe('The arguments need "items".');
    expect(editUnder(schema)({ contains: 3, items: [] })).toEqual({});
  });
});

describe('the keywords of drafts 2019-09 and 2020-12, the ids of drafts, and formats', () => {
  /** The Edit form's error for `args` under `argsSchema`. */
  const errorUnder = (argsSchema: Record<string, unknown>, args: Record<string, unknown>) =>
    editUnder(argsSchema)(args).args_0;

  it('dependentRequired (2019-09) names the field the other one needs', () => {
    const schema = {
      $schema: 'https://json-schema.org/draft/2019-09/schema',
      type: 'object',
      dependentRequired: { card: ['expiry'] },
    };
    expect(errorUnder(schema, { card: '4111' })).toBe('With "card", the arguments need "expiry" too.');
    expect(errorUnder(schema, { card: '4111', expiry: '12/30' })).toBeUndefined();
  });

  it('unevaluatedProperties (2020-12) names the field no part of the schema takes', () => {
    const schema = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      allOf: [{ properties: { to: { type: 'string' } } }],
      unevaluatedProperties: false,
    };
    expect(errorUnder(schema, { to: 'ann', cc: 'bob' })).toBe('"cc" is not one of the allowed fields.');
    expect(errorUnder(schema, { to: 'ann' })).toBeUndefined();
  });

  it("a draft's id written by http or https, with a trailing # or none, is read by that draft's rules", () => {
    for (const $schema of [
      'http://json-schema.org/draft/2020-12/schema',
      'https://json-schema.org/draft/2020-12/schema#',
    ]) {
      const schema = {
        $schema,
        type: 'object',
        allOf: [{ properties: { to: {} } }],
        unevaluatedProperties: false,
      };
      expect(errorUnder(schema, { to: 'ann', cc: 'bob' })).toBe('"cc" is not one of the allowed fields.');
    }
    for (const $schema of [
      'http://json-schema.org/draft/2019-09/schema',
      'https://json-schema.org/draft/2019-09/schema#',
    ]) {
      const schema = { $schema, type: 'object', dependentRequired: { card: ['expiry'] } };
      expect(errorUnder(schema, { card: '4111' })).toBe('With "card", the arguments need "expiry" too.');
    }
    for (const $schema of [
      'https://json-schema.org/draft-07/schema#',
      'http://json-schema.org/draft-07/schema',
    ]) {
      // `items` as a list checks each place (draft-07's meaning; 2020-12 calls it prefixItems).
      const schema = { $schema, type: 'object', properties: { pair: { items: [{ type: 'string' }] } } };
      expect(errorUnder(schema, { pair: [1] })).toBe('"pair[0]" must be text in double quotes.');
    }
  });

  it('a $schema that is no draft signoff reads (draft-06, draft-04, a look-alike id elsewhere) is refused in a sentence naming the ids it reads', () => {
    for (const $schema of [
      'http://json-schema.org/draft-06/schema#',
      'http://json-schema.org/draft-04/schema#',
      'https://example.com/draft/2020-12/schema',
    ])
      expect(readArgSchema({ $schema, type: 'object' })).toEqual({
        unreadable: `its "$schema" (${JSON.stringify($schema)}) is not a draft signoff reads: json-schema.org draft-07, 2019-09 or 2020-12`,
      });
  });

  it('formats are not checked: text that is no email passes a field of format "email"', () => {
    const schema = { type: 'object', properties: { to: { type: 'string', format: 'email' } } };
    expect(errorUnder(schema, { to: 'not an email' })).toBeUndefined();
  });
});

describe('fields named as typed', () => {
  /** The Edit form's error for `args` under `properties`. */
  const errorFor = (properties: Record<string, unknown>, args: Record<string, unknown>) =>
    editUnder({ type: 'object', properties })(args).args_0;
  const text = { type: 'string' };

  it('a top-level key "0" is a key, not an index; a number after a part is an index', () => {
    expect(errorFor({ 0: text }, { 0: 1 })).toBe('"0" must be text in double quotes.');
    expect(errorFor({ items: { type: 'array', items: text } }, { items: ['a', 1] })).toBe(
      '"items[1]" must be text in double quotes.',
    );
  });

  it('a key with a dot in it is bracketed, never read as a nested field', () => {
    expect(errorFor({ 'a.b': text }, { 'a.b': 1 })).toBe('"["a.b"]" must be text in double quotes.');
    expect(errorFor({ a: { type: 'object', properties: { 'b.c': text } } }, { a: { 'b.c': 1 } })).toBe(
      '"a["b.c"]" must be text in double quotes.',
    );
    expect(errorFor({ a: { type: 'object', properties: { b: text } } }, { a: { b: 1 } })).toBe(
      '"a.b" must be text in double quotes.',
    );
  });
});
