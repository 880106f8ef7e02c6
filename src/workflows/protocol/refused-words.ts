/**
 * Words a review will not take as its revise (its `refusedWords`: a proposal's queries searched
 * before). Checked by the engine before a decision is recorded, whatever the surface, so that a
 * refused query is never echoed as a decision taken and then asked for again.
 */
import type { ReviewRequest } from './requests.js';

/**
 * Words as compared: case, spacing and punctuation aside ("  Battery   STORAGE. " is "battery
 * storage"), as the full-text search reads a query: one that differs only so finds the same.
 */
export const wordsKey = (words: string) =>
  words
    .toLowerCase()
    // Letters with their marks (Hindi's, Thai's vowel signs) and digits; the rest is spacing.
    .replace(/[^\p{L}\p{M}\p{N}]+/gu, ' ')
    .trim();

/** Why `words` cannot be the revise of `request`, in a sentence; undefined when they can. */
export function refusedRevise(request: ReviewRequest, words: string): string | undefined {
  const refused = request.refusedWords;
  if (!refused) return undefined;
  const key = wordsKey(words);
  if (!key && refused.wordless) return `Nothing was recorded: "${words.trim()}" ${refused.wordless}.`;
  if (!refused.words.some((w) => wordsKey(w) === key)) return undefined;
  return `Nothing was recorded: "${words.trim()}" ${refused.because}.`;
}
