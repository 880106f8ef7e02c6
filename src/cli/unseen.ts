/**
 * A review's body without what the terminal has just printed: in Slack a card stands alone, but
 * in a terminal the agents' words are on the screen right above it. A paragraph is left out when
 * its text (after a leading label such as `*Author*` or `**Goal:**`) is part of something an
 * agent just said; a label left with nothing under it goes too.
 */

/** Leading `*Name*`, `**Name:**` or `Name:` in bold, on its own line or before the text. */
const LABEL = /^\s*(\*\*?)[^*\n]{1,80}\1\s*/;
/** Shorter text could be in anything said by chance ("Yes."): it is kept unless said whole. */
const MIN_CHARS = 12;

const flat = (text: string) => text.replace(/\s+/g, ' ').trim();

/** Stands where paragraphs were left out (Markdown: italic in a terminal). */
export const ABOVE = '_(what the agents said above)_';

/** The body with the paragraphs already shown replaced by one line saying so. */
export function unseen(body: string, shown: string[]): string {
  const said = shown.map(flat).filter(Boolean);
  if (!said.length) return body;
  const paragraphs = body.split(/\n\s*\n/);
  const texts = paragraphs.map((p) => flat(p.replace(LABEL, '')));
  const within = (text: string) =>
    !!text && said.some((s) => s === text || (text.length >= MIN_CHARS && s.includes(text)));
  // Said as it stands ("**Feasibility:** high"), or its text under a label of the card's own.
  const repeated = paragraphs.map((p, i) => within(flat(p)) || within(texts[i] as string));
  // A bare label ("*Author*" alone) belongs to the paragraph after it.
  const left = paragraphs.map((_, i) => repeated[i] || (!texts[i] && repeated[i + 1]));
  if (!left.some(Boolean)) return body;
  const first = left.indexOf(true);
  return paragraphs
    .map((p, i) => (i === first ? ABOVE : left[i] ? undefined : p))
    .filter((p) => p !== undefined)
    .join('\n\n');
}
