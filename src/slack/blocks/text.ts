/**
 * Text that goes to Slack: nothing an agent or a person wrote may ping a channel, forge a mention
 * or a link, or exceed Slack's limits.
 */
import { showLinks, ZWSP } from './links.js';

/** Limits Slack enforces (docs and FACTS.md), with a margin where Slack counts differently. */
export const LIMITS = {
  blocksPerMessage: 50,
  sectionText: 3000,
  /** All markdown blocks of one payload together (Slack: 12,000; it errs near that). */
  markdownPerPayload: 11_000,
  /**
   * One message's blocks together, their text and `blockOverhead` for each block: Slack refuses
   * more with `msg_blocks_too_long`, near 12,000 characters but counting its block containers too,
   * so that more blocks take less text (bolt-js #2509, #2867). See blockTextRoom.
   */
  blockTextPerMessage: 11_000,
  /** What a block's container counts for against blockTextPerMessage (a section's, as JSON). */
  blockOverhead: 50,
  messageText: 40_000,
  buttonValue: 2000,
  plainTextInput: 3000,
  modalTitle: 24,
} as const;

/** The text a message of `blocks` blocks may carry across them, its containers counted. */
export const blockTextRoom = (blocks: number): number =>
  LIMITS.blockTextPerMessage - LIMITS.blockOverhead * blocks;

const BROADCAST = /@(channel|here|everyone)\b/gi;

/** For mrkdwn (section, context): Slack's three control characters escaped, broadcasts broken. */
export function escapeMrkdwn(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(BROADCAST, `@${ZWSP}$1`);
}

/**
 * For plain_text objects (headers, modal titles), which Slack shows as typed: entities would show
 * literally, so special `<!…>`, `<@…>`, `<#…>` sequences and broadcast words get a zero-width
 * space instead, so they show but never act. (A message's fallback `text` is mrkdwn: use
 * escapeMrkdwn for it.)
 */
export function neutralizePlain(text: string): string {
  return text.replace(/<([!@#])/g, `<${ZWSP}$1`).replace(BROADCAST, `@${ZWSP}$1`);
}

/**
 * For `markdown` blocks (standard Markdown that Slack translates): every link shows where it goes
 * (links.ts), and mentions and broadcasts are broken as in plain text, after the links so that no
 * rewrite can bring one together. Apply it to the exact text of the block: cutting or splitting a
 * neutralized text can reopen what a code span or fence had closed.
 */
export function neutralizeMarkdown(text: string): string {
  return showLinks(text, neutralizePlain);
}

/**
 * Markdown in parts of at most `max` characters, each neutralized after the split; a part that
 * neutralizing made longer than `max` is split finer.
 */
export function markdownParts(text: string, max: number, budget = max): string[] {
  return splitText(text, budget).flatMap((part) => {
    const safe = neutralizeMarkdown(part);
    return safe.length <= max || budget <= 256 ? [safe] : markdownParts(part, max, Math.floor(budget / 2));
  });
}

/**
 * The start of `text` as Markdown of at most `max` characters, neutralized after the cut (cut
 * finer when neutralizing made it longer); `cut` says whether anything was left out.
 */
export function markdownStart(
  text: string,
  max: number,
  budget = max,
): { text: string; cut: boolean; kept: number } {
  // The first chunk depends only on the first `budget + 1` characters.
  const head = splitText(text.slice(0, budget + 1), budget)[0] ?? '';
  const safe = neutralizeMarkdown(head);
  if (safe.length > max && budget > 256) return markdownStart(text, max, Math.floor(budget / 2));
  // `kept`: how many characters of `text` the start shows (a fence closed by the split aside).
  const kept = Math.min(head.length, text.length);
  return { text: safe, cut: text.length > budget, kept };
}

/** Cuts to `max` characters, ending with an ellipsis when cut. */
export function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1))}…`;
}

/**
 * What `chat.update` takes as a message's `text`: Slack refuses a long one (`msg_too_long`) where
 * a post takes 40,000 characters; reported refused past 4,000, in UTF-8 bytes by one report.
 */
export const UPDATE_TEXT_BYTES = 4000;

/**
 * `text` (escaped already) cut to `max` UTF-8 bytes, with an ellipsis, never in the middle of a
 * character or of an escape (`&amp;`).
 */
export function truncateBytes(text: string, max: number): string {
  if (Buffer.byteLength(text) <= max) return text;
  let cut = Buffer.from(text)
    .subarray(0, max - 3)
    .toString('utf8')
    .replace(/\uFFFD$/, '');
  cut = cut.replace(/&[a-z]*$/, '');
  return `${cut}…`;
}

/** Where to cut `text` to keep at most `max` characters: a paragraph, then a line, then a word boundary. */
function cutIndex(text: string, max: number): number {
  if (text.length <= max) return text.length;
  const window = text.slice(0, max);
  let cut = window.lastIndexOf('\n\n');
  if (cut < max / 2) cut = window.lastIndexOf('\n');
  if (cut < max / 2) cut = window.lastIndexOf(' ');
  return cut < max / 2 ? max : cut;
}

/** Whether a code fence is left open at the end of `text`. */
const fenceOpen = (text: string) => (text.match(/```/g) ?? []).length % 2 === 1;

/**
 * The first part of `text` that fits in `max` characters (cut at a boundary, an open code fence
 * closed) and how many characters of `text` it leaves out.
 */
export function cutText(text: string, max: number): { shown: string; hidden: number } {
  if (text.length <= max) return { shown: text, hidden: 0 };
  const cut = cutIndex(text, max - 4);
  const shown = text.slice(0, cut);
  return { shown: fenceOpen(shown) ? `${shown}\n\`\`\`` : shown, hidden: text.length - cut };
}

/**
 * Splits text into chunks of at most `max` characters, at paragraph, then line, then word
 * boundaries; a code fence cut in two is closed and reopened so both halves render as code.
 */
export function splitText(text: string, max: number): string[] {
  if (text.length <= max) return [text];
  const chunks: string[] = [];
  let rest = text;
  let openFence = false;
  while (rest.length > 0) {
    const budget = max - (openFence ? 4 : 0) - 4;
    if (rest.length <= budget) {
      chunks.push((openFence ? '```\n' : '') + rest);
      break;
    }
    const cut = cutIndex(rest, budget);
    let chunk = rest.slice(0, cut);
    rest = rest.slice(cut).replace(/^\s+/, '');
    const startsOpen = openFence;
    const endsOpen: boolean = fenceOpen(chunk) ? !openFence : openFence;
    chunk = (startsOpen ? '```\n' : '') + chunk + (endsOpen ? '\n```' : '');
    openFence = endsOpen;
    chunks.push(chunk);
  }
  return chunks;
}
