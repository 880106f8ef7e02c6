/**
 * Names from a known set (workflows, checkpoints, agents, stages, keys, options): what to say
 * when a file names one that is not among them, and the close one it probably meant. The config
 * file and scenario files say it the same way, from here.
 */

/**
 * Edits from `a` to `b`: insert, delete, replace a letter, or swap two neighbours (`reveiw` is one
 * from `review`). The optimal-string-alignment form of Damerau–Levenshtein, ~15 lines: no library
 * for that (none is installed, and one would bring a dependency to keep for ten lines).
 */
export function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.length][b.length];
}

/**
 * The known names `name` is probably a typo of: the closest ones, when they are close enough (a
 * third of the name's letters may differ, at least one; letter case is free: `Author`, `author`).
 */
export function closest(name: string, known: readonly string[]): string[] {
  const scored = known
    .filter((k) => k !== name)
    .map((k) => ({ k, d: editDistance(name.toLowerCase(), k.toLowerCase()) }))
    .filter(({ k, d }) => d <= Math.max(1, Math.floor(Math.max(name.length, k.length) / 3)));
  const best = Math.min(...scored.map((s) => s.d));
  return scored.filter((s) => s.d === best).map((s) => s.k);
}

/** ` (did you mean review?)`, or nothing when no known name is close. */
export function didYouMean(name: string, known: readonly string[]): string {
  const guesses = closest(name, known);
  return guesses.length ? ` (did you mean ${guesses.join(' or ')}?)` : '';
}

/**
 * A name that is not one of `known`, with the close one and every valid one:
 * `pair has no checkpoint "reveiw" (did you mean review?); its checkpoints are review` (`of`),
 * `there is no agent "writter" under agents (did you mean writer?); the agents are writer, editor`
 * (`under`), or `there is no workflow "pairs" (…); the workflows are …` (neither).
 */
export function unknownName(
  name: string,
  known: readonly string[],
  what: string,
  where: { of?: string; under?: string } = {},
): string {
  const head = where.of
    ? `${where.of} has no ${what} "${name}"`
    : `there is no ${what} "${name}"${where.under ? ` under ${where.under}` : ''}`;
  const list = known.length ? known.join(', ') : '(none)';
  return `${head}${didYouMean(name, known)}; ${where.of ? 'its' : 'the'} ${what}s are ${list}`;
}
