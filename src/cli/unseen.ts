/**
 * A review's body without what the terminal has just printed: in Slack a card stands alone, but
 * in a terminal the agents' words are on the screen right above it. A paragraph is left out when
 * its text (after a leading label such as `*Author*` or `**Goal:**`) is something an agent just
 * said whole: all of it, a paragraph of it, or whole lines of it; a label left with nothing under
 * it goes too. Words found only inside a longer sentence stay: "the line 'Send the report' must
 * go" above does not show that the body's "Send the report" went, and the reviewer approves it.
 */

/** Leading `*Name*`, `**Name:**` or `Name:` in bold, on its own line or before the text. */
const LABEL = /^\s*(\*\*?)[^*\n]{1,80}\1\s*/;
/** Shorter text could be a line of anything said by chance ("Yes."): it is kept unless said whole. */
const MIN_CHARS = 12;

const flat = (text: string) => text.replace(/\s+/g, ' ').trim();

/**
 * Whether `text` (flat) is whole lines, one after another within a paragraph, of `said`: what was
 * said may break its lines elsewhere than the body does (goal-plan says `**Goal:** …` and
 * `**Feasibility:** …` on two lines, its card makes them two paragraphs).
 */
function wholeLinesOf(said: string, text: string): boolean {
  return said.split(/\n\s*\n/).some((paragraph) => {
    const lines = paragraph.split('\n').map(flat).filter(Boolean);
    return lines.some((_, first) => {
      let at = 0;
      for (const line of lines.slice(first)) {
        if (text.slice(at) === line) return true;
        if (!text.startsWith(`${line} `, at)) return false;
        at += line.length + 1;
      }
      return false;
    });
  });
}

/** Stands where paragraphs were left out (Markdown: italic in a terminal). */
export const ABOVE = '_(what the agents said above)_';

/** The body with the paragraphs already shown replaced by one line saying so. */
export function unseen(body: string, shown: string[]): string {
  const said = shown.filter((s) => flat(s));
  if (!said.length) return body;
  const paragraphs = body.split(/\n\s*\n/);
  const texts = paragraphs.map((p) => flat(p.replace(LABEL, '')));
  const within = (text: string) =>
    !!text && said.some((s) => flat(s) === text || (text.length >= MIN_CHARS && wholeLinesOf(s, text)));
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
