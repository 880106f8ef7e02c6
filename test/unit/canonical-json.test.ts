/** "The arguments did not change" is one rule: the same JSON value, whatever the key order or spacing. */
import { describe, expect, it } from 'vitest';
import { sameJson, sameJsonText } from '../../src/workflows/protocol/canonical-json.js';
import { toReviewRequest } from '../../src/workflows/protocol/review-request.js';
import { editMeans } from '../../src/workflows/protocol/standard-interrupts.js';
import { REQUESTS } from '../fixtures/hitl-graph.js';

describe('the same JSON', () => {
  it('keys in another order, at any depth, are the same value', () => {
    expect(sameJson({ a: 1, b: { c: [1, { d: 2, e: 3 }] } }, { b: { c: [1, { e: 3, d: 2 }] }, a: 1 })).toBe(
      true,
    );
  });

  it('a changed value, a key added or removed, or items in another order are not', () => {
    expect(sameJson({ a: 1, b: 2 }, { a: 1, b: 3 })).toBe(false);
    expect(sameJson({ a: 1 }, { a: 1, b: null })).toBe(false);
    expect(sameJson({ a: [1, 2] }, { a: [2, 1] })).toBe(false);
    expect(sameJson({ a: '1' }, { a: 1 })).toBe(false);
  });

  it('texts: whitespace and key order do not count; text that is not JSON is never the same', () => {
    const shown = '{\n  "to": "team@example.com",\n  "subject": "Launch"\n}';
    expect(sameJsonText('{"subject":"Launch","to":"team@example.com"}', shown)).toBe(true);
    expect(sameJsonText('{ "subject" : "Launch" ,  "to": "team@example.com" }', shown)).toBe(true);
    expect(sameJsonText('{"subject":"Launch!","to":"team@example.com"}', shown)).toBe(false);
    expect(sameJsonText('{"to": ', shown)).toBe(false);
    expect(sameJsonText('{"to": ', '{"to": ')).toBe(false);
  });

  it('the engine reads an Edit whose arguments are only reordered as no edit of them', () => {
    const one = toReviewRequest(REQUESTS.one);
    const reordered = '{ "body": "We ship today.", "subject": "Launch", "to": "team@example.com" }';
    expect(editMeans(one, { args_0: reordered })).toBe('approve');
    expect(editMeans(one, { args_0: reordered.replace('team@', 'ops@') })).toBe('edit');
  });
});
