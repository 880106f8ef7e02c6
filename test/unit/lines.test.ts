/** Lines typed at a terminal: a paste of several lines is one answer, whole; lines typed ahead of a question are none. */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { answerTo, linesFrom } from '../../src/cli/lines.js';

const terminal = () => {
  const input = new PassThrough();
  const out: string[] = [];
  const lines = linesFrom(input, { typedAhead: 'drop' });
  return { input, lines, out: { write: (t: string) => void out.push(t) }, said: out };
};

describe('terminal lines', () => {
  it('a pasted answer of several lines is sent whole (its last line break aside), and nothing of it is left to answer the next question', async () => {
    const t = terminal();
    const answer = answerTo(t.lines, t.out, '> ');
    // Typed once the question is shown (what comes before it is typed ahead, and dropped).
    setTimeout(() => t.input.write('make it shorter\nand add a title\n\n'), 100);
    expect(await answer).toBe('make it shorter\nand add a title');
    const next = answerTo(t.lines, t.out, '> ');
    setTimeout(() => t.input.write('approve\n'), 100);
    expect(await next).toBe('approve');
    expect(t.said.join('')).not.toContain('ignored');
    t.lines.close();
  });

  it('lines typed one after the other are answers one at a time', async () => {
    const t = terminal();
    const first = answerTo(t.lines, t.out, '> ');
    setTimeout(() => t.input.write('approve\n'), 100);
    expect(await first).toBe('approve');
    const second = answerTo(t.lines, t.out, '> ');
    setTimeout(() => t.input.write('reject\n'), 100);
    expect(await second).toBe('reject');
    t.lines.close();
  });
});
