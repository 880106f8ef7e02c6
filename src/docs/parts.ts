/**
 * Cuts a document into parts Postgres's full-text search can hold: a tsvector holds at most 1 MB,
 * and a text's tsvector can be a few times its size (many distinct short words), so a part is a
 * few pages, well under that. A cut falls at a paragraph, a line or a space when one is near.
 */

/** Characters per part: about 3,000 words, at most 80 KB of UTF-8. */
export const PART_CHARS = 20_000;
export function partsOf(text: string, size = PART_CHARS): string[] {
  // How far back from the limit a cut looks for a paragraph, a line or a space.
  const lookBack = Math.floor(size / 5);
  const parts: string[] = [];
  let rest = text;
  while (rest.length > size) {
    const window = rest.slice(size - lookBack, size);
    const at = [/\n\s*\n/g, /\n/g, /\s/g]
      .map((boundary) => lastMatchEnd(window, boundary))
      .find((end) => end !== undefined);
    let cut = at === undefined ? size : size - lookBack + at;
    // Never between the two halves of a surrogate pair (an emoji, a rare CJK character).
    const code = rest.charCodeAt(cut - 1);
    if (code >= 0xd800 && code <= 0xdbff) cut -= 1;
    parts.push(rest.slice(0, cut));
    rest = rest.slice(cut);
  }
  parts.push(rest);
  return parts;
}

function lastMatchEnd(text: string, pattern: RegExp): number | undefined {
  let end: number | undefined;
  for (const m of text.matchAll(pattern)) end = m.index + m[0].length;
  return end;
}
