/** How a document is cut into parts that full-text search can hold. */
import { describe, expect, it } from 'vitest';
import { partsOf } from '../../src/docs/parts.js';

describe('document parts', () => {
  it('a short document is one part', () => {
    expect(partsOf('One short note.')).toEqual(['One short note.']);
    expect(partsOf('')).toEqual(['']);
  });

  it('a long one is cut at paragraphs when one is near, and nothing is lost', () => {
    const paragraph = `${'word '.repeat(30).trim()}.\n\n`; // 152 characters
    const text = paragraph.repeat(20);
    const parts = partsOf(text, 1000);
    expect(parts.join('')).toBe(text);
    expect(parts.every((p) => p.length <= 1000)).toBe(true);
    expect(parts.slice(0, -1).every((p) => p.endsWith('.\n\n'))).toBe(true);
  });

  it('text without a break is cut at the limit, never inside a surrogate pair', () => {
    const text = '🦓'.repeat(1500); // 3,000 UTF-16 units, no space
    const parts = partsOf(text, 999);
    expect(parts.join('')).toBe(text);
    expect(parts.every((p) => p.length <= 999 && !/[\uD800-\uDBFF]$/.test(p))).toBe(true);
  });
});
