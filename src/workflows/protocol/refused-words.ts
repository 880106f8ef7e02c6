/**
 * Words a review will not take as its revise (its `refusedWords`: a proposal's queries searched
 * before). Checked by the engine before a decision is recorded, whatever the surface, so that a
 * refused query is never echoed as a decision taken and then asked for again.
 */
import type { ReviewRequest } from './requests.js';

/** Words as compared: case and spacing aside ("  Battery   STORAGE " is "battery storage"). */
export const wordsKey = (words: string) => words.trim().toLowerCase().replace(/\s+/g, ' ');

/** Why `words` cannot be the revise of `request`, in a sentence; undefined when they can. */
export function refusedRevise(request: ReviewRequest, words: string): string | undefined {
  const refused = request.refusedWords;
  if (!refused?.words.some((w) => wordsKey(w) === wordsKey(words))) return undefined;
  return `Nothing was recorded: "${words.trim()}" ${refused.because}.`;
}
