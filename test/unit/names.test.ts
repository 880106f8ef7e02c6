/** Names from a known set: how far a typo is from what it meant, and the sentence that says so. */
import { describe, expect, it } from 'vitest';
import { closest, editDistance, unknownName } from '../../src/config/names.js';

describe('names from a known set', () => {
  it('counts a swap of two neighbouring letters as one edit, as a missing, extra or wrong letter is', () => {
    expect(editDistance('reveiw', 'review')).toBe(1);
    expect(editDistance('promt', 'prompt')).toBe(1);
    expect(editDistance('writter', 'writer')).toBe(1);
    expect(editDistance('colour', 'color')).toBe(1);
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('', 'abc')).toBe(3);
  });

  it('suggests the closest names when a third of the letters or fewer differ, whatever the case', () => {
    expect(closest('timout', ['timeout', 'onTimeout', 'reminders'])).toEqual(['timeout']);
    expect(closest('Auther', ['Author', 'Reviewer'])).toEqual(['Author']);
    expect(closest('author', ['Author'])).toEqual(['Author']);
    expect(closest('ghost', ['writer', 'editor'])).toEqual([]);
    expect(closest('qa', ['pr'])).toEqual([]);
    expect(closest('rat', ['cat', 'bat', 'cart'])).toEqual(['cat', 'bat']);
  });

  it('says what is missing, the name probably meant and every valid one', () => {
    expect(unknownName('writter', ['writer', 'editor'], 'agent', { under: 'agents' })).toBe(
      'there is no agent "writter" under agents (did you mean writer?); the agents are writer, editor',
    );
    expect(unknownName('ghost', ['writer'], 'agent', { of: 'notes' })).toBe(
      'notes has no agent "ghost"; its agents are writer',
    );
    expect(unknownName('x', [], 'checkpoint', { of: 'mine' })).toBe(
      'mine has no checkpoint "x"; its checkpoints are (none)',
    );
  });
});
