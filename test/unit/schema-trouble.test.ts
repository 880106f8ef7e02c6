/**
 * Edited arguments that do not fit their call's schema are refused in sentences a person can act
 * on: every problem (the first three said, the rest counted), each naming the field, never Ajv's
 * words. The same sentence is the Edit form's error on every surface (invalidEdit: Slack's modal,
 * the terminal's form and the engine's refusal).
 */
import { describe, expect, it } from 'vitest';
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
/** The Edit form's error for these arguments, as every surface shows it. */
const errorFor = (args: Record<string, unknown>) =>
  invalidEdit(request, { args_0: JSON.stringify(args) }).args_0;

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
    expect(argsTrouble(schema, { to: 'a', subject: 'b', priority: 'urgent' })).toBe(
      '"priority" must be one of "low", "high".',
    );
    expect(argsTrouble(schema, { to: 'a', subject: 'b', amount: -1 })).toBe('"amount" must be at least 0.');
    expect(argsTrouble(schema, { to: 'a', subject: 'b', address: {} })).toBe('"address" needs "city".');
    expect(argsTrouble(schema, { to: 'a', subject: 'b' })).toBeUndefined();
  });
});
