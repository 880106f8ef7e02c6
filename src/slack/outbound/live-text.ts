/**
 * Words streamed as a model writes them reach Slack a piece at a time, and Slack renders the
 * pieces joined: a mention or a link split across two appends would be made whole there, past
 * any check of either piece. So a piece goes out only up to its last whitespace (a mention, a
 * broadcast word or a link target never holds one), and every piece is defused on its own terms:
 * no `<` opens anything (`<@U…>`, `<!here>`, `<http…|text>`), no `](` or `]:` makes a hidden link,
 * no broadcast word pings. The saved words replace the streamed ones once the step is saved,
 * neutralized as every post is (blocks/text.ts); this only keeps the live view harmless.
 */
import { ZWSP } from '../blocks/links.js';

const BROADCAST = /@(channel|here|everyone)\b/gi;
/** Direction overrides, which could show an address reordered (posts drop them too: links.ts). */
const BIDI = /[\u202a-\u202e\u2066-\u2069]/g;

/**
 * A streamed piece that can neither ping nor hide (or reorder) where a link goes, whatever comes
 * next to it.
 */
export const defuse = (text: string): string =>
  text
    .replace(BIDI, '')
    .replace(/<(?=\S)/g, `<${ZWSP}`)
    .replace(/\](?=[(:])/g, `]${ZWSP}`)
    .replace(BROADCAST, `@${ZWSP}$1`);

/**
 * What of `pending` may go out now: up to and with its last whitespace (all of it when `all`,
 * at the stream's end), and what must wait for the rest of its word.
 */
export function ripe(pending: string, all = false): { now: string; later: string } {
  if (all) return { now: pending, later: '' };
  const cut = Math.max(pending.lastIndexOf(' '), pending.lastIndexOf('\n'), pending.lastIndexOf('\t'));
  return { now: pending.slice(0, cut + 1), later: pending.slice(cut + 1) };
}
