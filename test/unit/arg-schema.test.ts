/**
 * A schema read twice is compiled once: the same schema (whatever its key order) gets the same
 * result while it is among the last ones read, and a check kept that way still checks as it did
 * when made, whatever was compiled since (each compile stands alone).
 */
import { describe, expect, it } from 'vitest';
import { readArgSchema, SCHEMAS_KEPT } from '../../src/workflows/protocol/arg-schema.js';
import { argsTrouble } from '../../src/workflows/protocol/schema-trouble.js';

/** A tree of nodes, each a name and children that are nodes: a recursive `$ref`. */
const tree = () => ({
  $id: 'https://example.com/tree',
  type: 'object',
  properties: { root: { $ref: '#/definitions/node' } },
  definitions: {
    node: {
      type: 'object',
      properties: {
        name: { type: 'string' },
        children: { type: 'array', items: { $ref: '#/definitions/node' } },
      },
      required: ['name'],
    },
  },
});

const checkOf = (schema: Record<string, unknown>) => {
  const read = readArgSchema(schema);
  if (!('validate' in read)) throw new Error(read.unreadable);
  return read.validate;
};

describe('a schema read again', () => {
  it('the same schema, read again as a new object with its keys in another order, gets the result already made', () => {
    const first = readArgSchema(tree());
    const { definitions, ...rest } = tree();
    expect(readArgSchema({ definitions, ...rest })).toBe(first);
    // A schema that cannot be read is kept too, with its sentence.
    expect(readArgSchema({ type: 'nonsense' })).toBe(readArgSchema({ type: 'nonsense' }));
  });

  it('a kept check of a recursive $ref still checks as made after other schemas were compiled, one with the same $id and definitions', () => {
    const validate = checkOf(tree());
    checkOf({
      $id: 'https://example.com/tree',
      type: 'object',
      properties: { root: { $ref: '#/definitions/node' } },
      definitions: { node: { type: 'number' } },
    });
    checkOf({ $schema: 'https://json-schema.org/draft/2020-12/schema', $defs: { node: { type: 'string' } } });
    expect(checkOf(tree())).toBe(validate);
    expect(
      argsTrouble(validate, { root: { name: 'a', children: [{ name: 'b', children: [] }] } }),
    ).toBeUndefined();
    expect(argsTrouble(validate, { root: { name: 'a', children: [{ name: 'b', children: [{}] }] } })).toBe(
      '"root.children[0].children[0]" needs "name".',
    );
    expect(argsTrouble(validate, { root: 7 })).toBe('"root" must be an object in { }.');
  });

  it(`only the last ${SCHEMAS_KEPT} schemas read are kept: an older one is compiled anew, and checks the same`, () => {
    const validate = checkOf(tree());
    for (let i = 0; i < SCHEMAS_KEPT; i++) checkOf({ type: 'object', maxProperties: i });
    const anew = checkOf(tree());
    expect(anew).not.toBe(validate);
    expect(argsTrouble(anew, { root: { name: 'a', children: [{}] } })).toBe(
      '"root.children[0]" needs "name".',
    );
    // Read again before being dropped, a schema stays: the least recently read goes first.
    for (let i = 0; i < SCHEMAS_KEPT - 1; i++) checkOf({ type: 'object', minProperties: i });
    checkOf(tree());
    for (let i = 0; i < SCHEMAS_KEPT - 1; i++) checkOf({ type: 'object', maxLength: i });
    expect(checkOf(tree())).toBe(anew);
  });
});
