/**
 * The fake model's plain answers in chaos, and how the invariants tell whose words a message
 * shows. Each answer opens with its call's mark (`[call N]`): a streamed message shows its first
 * words first, so even one cut after a few words names its call, and a partial streamed copy
 * beside the posted saved words counts as the same words twice. (The fake's default sentence
 * names its call only at its end, which a cut stream never reaches.)
 * Answers run to 40–80 words, a second or two at the model's 25 ms a word, so that a kill lands
 * mid-stream often, not only now and then.
 */

const VOCABULARY = (
  'the team drafts each step with care and checks what it needs before the next one starts ' +
  'so that reviewers see a plan they can approve or send back with a short note about timing ' +
  'budget owners risks and the order of work'
).split(' ');

/** How many words answer `n` has besides its mark: 40 to 80, the same for the same call. */
const lengthOf = (n: number) => 40 + ((n * 7919) % 41);

/** Answer `n` of the fake model: its mark, then words in short sentences (no Markdown, no mentions). */
export function chaosAnswer(n: number): string {
  const words = Array.from({ length: lengthOf(n) }, (_, i) => {
    const word = VOCABULARY[(n * 31 + i * 7) % VOCABULARY.length] as string;
    return (i + 1) % 12 === 0 ? `${word}.` : word;
  });
  return `[call ${n}] ${words.join(' ')}.`;
}

/** The mark of a call, wherever it reads (a post's text, its blocks as JSON, a stream's words). */
const MARK = /\[call (\d+)\]/g;

/** The calls whose words `text` shows, each once. */
export const callsIn = (text: string): Set<string> =>
  new Set([...text.matchAll(MARK)].map((m) => m[1] as string));
