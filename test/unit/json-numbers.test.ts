/**
 * Numbers typed in edited arguments that JSON.parse would not keep as typed (Infinity stored as
 * null, a big integer rounded to the nearest double, digits past what a double keeps) are refused,
 * naming the number and saying to quote it: a call never runs with a number nobody typed, nor reads
 * as unchanged because of one. The same number written another way, and any number an agent sent,
 * is kept.
 */
import { describe, expect, it } from 'vitest';
import { invalidEdit } from '../../src/workflows/protocol/review-form.js';
import { toReviewRequest } from '../../src/workflows/protocol/review-request.js';
import { toolCallsOf } from '../../src/workflows/protocol/standard-interrupts.js';
import { readDecisions } from '../../src/workflows/protocol/tool-call-form.js';

/** A call to `pay` with `args`, which may be approved, edited or rejected. */
const payWith = (args: Record<string, unknown>, allowed = ['approve', 'edit', 'reject']) =>
  toReviewRequest({
    actionRequests: [{ name: 'pay', args }],
    reviewConfigs: [{ actionName: 'pay', allowedDecisions: allowed }],
  });

describe('numbers typed that JSON would not keep as typed', () => {
  it('a number too large for a double (1e400, read as Infinity and stored as null) is refused, named, and said to be quoted', () => {
    const request = payWith({ n: 1 });
    expect(invalidEdit(request, { args_0: '{"n": 1e400}' })).toEqual({
      args_0:
        'The arguments of pay hold the number 1e400, which is too large to keep exactly as typed: write it in quotes, as "1e400".',
    });
    expect(invalidEdit(request, { args_0: '{"list": [1, -1E+400]}' }).args_0).toContain(
      'the number -1E+400,',
    );
  });

  it('Infinity never reads as unchanged against a null shown (an approval as asked nobody gave): the edit is refused, nothing decided', () => {
    const request = payWith({ n: null });
    const calls = toolCallsOf(request) ?? [];
    expect(readDecisions(calls, request, { args_0: '{"n": 1e400}' })).toEqual({
      errors: { args_0: expect.stringContaining('the number 1e400') },
    });
  });

  it('an integer beyond what a double holds exactly is refused rather than rounded, inside nested values too', () => {
    const request = payWith({ id: '1' });
    expect(invalidEdit(request, { args_0: '{"id": 12345678901234567891}' }).args_0).toBe(
      'The arguments of pay hold the number 12345678901234567891, which is too large to keep exactly as typed: write it in quotes, as "12345678901234567891".',
    );
    expect(invalidEdit(request, { args_0: '{"a": {"b": [-9007199254740993]}}' }).args_0).toContain(
      'the number -9007199254740993,',
    );
    // Quoted, it is text, and goes as typed.
    const calls = toolCallsOf(request) ?? [];
    expect(readDecisions(calls, request, { args_0: '{"id": "12345678901234567891"}' })).toEqual({
      decisions: [{ type: 'edit', args: { id: '12345678901234567891' } }],
    });
  });

  it('numbers inside strings, and numbers a double holds, are not refused', () => {
    const request = payWith({ n: 1 });
    const calls = toolCallsOf(request) ?? [];
    // 4503599627370495.5 is 2^52 - 0.5: a double holds it (above 2^52 a double holds no halves).
    const typed =
      '{"note": "1e400 and 12345678901234567891 \\" 1e999", "n": 4503599627370495.5, "m": -0, "k": 9007199254740992, "e": 1e308}';
    expect(readDecisions(calls, request, { args_0: typed })).toEqual({
      decisions: [{ type: 'edit', args: JSON.parse(typed) }],
    });
  });

  it('a number with a dot or an exponent that a double rounds is refused, named, with why and how to quote it: integers written with them, digits past a double, a number read as 0', () => {
    const request = payWith({ n: 1 });
    const said = (token: string) => invalidEdit(request, { args_0: `{"n": ${token}}` }).args_0;
    const quote = (token: string, why: string) =>
      `The arguments of pay hold the number ${token}, ${why}: write it in quotes, as "${token}".`;
    for (const token of [
      '123456789012345678e0',
      '9007199254740993.0',
      '9007199254740993.5',
      '9007199254740992.5',
    ])
      expect(said(token)).toBe(quote(token, 'which is too large to keep exactly as typed'));
    expect(said('1.50000000000000001')).toBe(
      quote('1.50000000000000001', 'which has more digits than a number keeps'),
    );
    expect(said('1e-400')).toBe(quote('1e-400', 'which is too small to keep exactly as typed'));
  });

  it('a number typed over the one shown that a double would round to it never reads as unchanged (an approval nobody gave): refused, nothing decided', () => {
    for (const [shown, typed] of [
      [1.5, '1.50000000000000001'],
      [0, '1e-400'],
      [123456789012345680, '123456789012345678e0'],
    ] as const) {
      const request = payWith({ n: shown });
      const calls = toolCallsOf(request) ?? [];
      expect(readDecisions(calls, request, { args_0: `{"n": ${typed}}` })).toEqual({
        errors: { args_0: expect.stringContaining(`the number ${typed},`) },
      });
    }
  });

  it('the same number written another way is kept: trailing zeros, an exponent, a dot on an integer', () => {
    const request = payWith({ a: 1.5, b: 0.1, c: 100, d: 1.5e-7 });
    const calls = toolCallsOf(request) ?? [];
    for (const typed of [
      '{"a": 1.50, "b": 0.1, "c": 100.0, "d": 1.5e-7}',
      '{"a": 15e-1, "b": 1e-1, "c": 1e2, "d": 0.00000015}',
      '{"a": 1.5, "b": 0.10, "c": 1.00E+2, "d": 150e-9}',
    ])
      expect([typed, readDecisions(calls, request, { args_0: typed })]).toEqual([
        typed,
        { decisions: [{ type: 'approve' }] },
      ]);
  });

  it('any number an agent sent (a double as JavaScript prints it) reads back the same: approvable unchanged', () => {
    const doubles = [
      0.1 + 0.2,
      1 / 3,
      -2.5e-8,
      5e-324,
      2.2250738585072014e-308,
      1.7976931348623157e308,
      4503599627370495.5,
      123456789.12345679,
      -0.000001,
      1e-7,
      1e21,
      2 ** 60,
    ];
    for (const n of doubles) {
      const request = payWith({ n });
      const calls = toolCallsOf(request) ?? [];
      const shown = request.fields.find((f) => f.id === 'args_0')?.initial ?? '';
      expect([n, readDecisions(calls, request, { args_0: shown })]).toEqual([
        n,
        { decisions: [{ type: 'approve' }] },
      ]);
    }
  });

  it('arguments shown with a big number the agent sent rounded (a JS number) are approvable unchanged: the number as printed reads back the same', () => {
    // biome-ignore lint/correctness/noPrecisionLoss: the agent's number, rounded, is the point
    const rounded = 12345678901234567891;
    const request = payWith({ id: rounded, n: 1e21 });
    const calls = toolCallsOf(request) ?? [];
    const shown = request.fields.find((f) => f.id === 'args_0')?.initial ?? '';
    expect(shown).toContain('12345678901234567000');
    expect(readDecisions(calls, request, { args_0: shown })).toEqual({ decisions: [{ type: 'approve' }] });
    // The double's exact value, typed in full, is the same number too.
    expect(readDecisions(calls, request, { args_0: '{"id": 12345678901234567168, "n": 1e21}' })).toEqual({
      decisions: [{ type: 'approve' }],
    });
  });
});
