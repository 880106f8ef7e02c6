/**
 * JSON with every object's keys sorted: two values that differ only in key order (a tool call's
 * arguments as an agent sent them, and as the database gives them back) read the same.
 */
export const canonicalJson = (value: unknown): string =>
  JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  ) ?? 'null';

/**
 * Whether two values are the same JSON, whatever the order of their keys: the one rule for "the
 * arguments did not change" (a reviewer who only reordered keys changed nothing).
 */
export const sameJson = (a: unknown, b: unknown): boolean => canonicalJson(a) === canonicalJson(b);

/**
 * Whether two texts are the same JSON value, whatever their key order and white space (arguments
 * typed at a prompt, and as the form shows them); text that is not JSON is the same as nothing.
 */
export function sameJsonText(a: string, b: string): boolean {
  try {
    return sameJson(JSON.parse(a), JSON.parse(b));
  } catch {
    return false;
  }
}

/**
 * The same, to be read: runs of three backticks as `\u0060` escapes (JSON's own, meaning the same
 * value), so that no code block or inline code it is shown in ends early.
 */
export const shownJson = (value: unknown): string =>
  canonicalJson(value).replace(/`{3,}/g, (run) => '\\u0060'.repeat(run.length));
