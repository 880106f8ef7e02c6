/**
 * Links that show where they go. Slack's `markdown` block renders standard Markdown links, images
 * and references, and a model (or whoever wrote what it read) chooses the label: a link is kept
 * only when its label is exactly its address; every other one is posted as `label (address)`,
 * images and references as text. What a laxer reader than CommonMark, or Slack's own
 * `<url|label>`, could still take for a link is escaped. Code stays code.
 */
import type { Link, Nodes } from 'mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { toString as plainText } from 'mdast-util-to-string';

export const ZWSP = '\u200b';

/**
 * Longer than any markdown block Slack accepts (12,000 for all of a message's): callers split
 * first, and parsing is linear but slow (seconds per 100k of brackets), so such text is escaped
 * wholesale instead.
 */
const PARSED_AT_MOST = 24_000;
/** A rewrite can bring text together into a new link (`]` then a label starting `(`): checked again. */
const ROUNDS = 4;
/** Bidi overrides, embeddings and isolates reorder what follows them, a shown address included. */
const BIDI = /[\u202a-\u202e\u2066-\u2069]/g;
/** An address made only of these displays as itself: no emphasis, entity, escape or invisible character. */
const PLAIN_URL = /^[A-Za-z0-9\-._:/?#@!$&'()+,;=%]+$/;
const ENTITY = /&(?=#?[A-Za-z0-9]+;)/g;
const HAS_ENTITY = /&#?[A-Za-z0-9]+;/;
/** `[` or `]` not already escaped (an even number of backslashes before it). */
const BRACKET = /(?<!\\)((?:\\\\)*)([[\]])/g;
/** `](`, where a laxer reader could start a link's target, when the `]` is not escaped. */
const LINK_TARGET = /(?<!\\)((?:\\\\)*)\](?=\()/g;
/** Slack's `<url|label>`: a zero-width space after the `<` makes it text. */
const SLACK_LINK = /<(?!\u200b)(?=[^<>\n]*\|)/g;

const CHILDREN = Symbol('children');

interface Edit {
  start: number;
  end: number;
  text: string;
}

/**
 * The Markdown with every link showing where it goes, after `finish` (breaking mentions): that
 * runs inside the check too, because any change can change what is a link (`<!---->` broken
 * into text makes an indented `[a](b)` under it a paragraph). Never throws: text too long to
 * parse, or that does not settle, has every bracket escaped and every autolink broken.
 */
export function showLinks(markdown: string, finish: (text: string) => string = (text) => text): string {
  if (markdown.length > PARSED_AT_MOST) return finish(escapeAll(markdown));
  try {
    let text = markdown;
    for (let round = 0; round < ROUNDS; round++) {
      const next = finish(applyEdits(text, editsFor(text)).replace(BIDI, ''));
      if (next === text) return text;
      text = next;
    }
  } catch {
    // A parser failure (deep nesting) must not stop the post: the wholesale escape below is safe.
  }
  return finish(escapeAll(markdown));
}

/** No link at all in any reading: brackets escaped, autolinks, HTML and `<url|label>` broken. */
function escapeAll(text: string): string {
  return text
    .replace(BIDI, '')
    .replace(BRACKET, '$1\\$2')
    .replace(/<(?=[A-Za-z])/g, `<${ZWSP}`)
    .replace(SLACK_LINK, `<${ZWSP}`);
}

/** What to change, from the last position to the first. */
function editsFor(source: string): Edit[] {
  const edits: Edit[] = [];
  const stack: Nodes[] = [fromMarkdown(source)];
  for (let node = stack.pop(); node; node = stack.pop()) {
    const start = node.position?.start.offset;
    const end = node.position?.end.offset;
    if (start === undefined || end === undefined) continue;
    if (node.type === 'linkReference') {
      // Its brackets become text; its label, which may hold an image or code, is walked as usual.
      const first = node.children[0]?.position?.start.offset ?? end;
      const last = node.children.at(-1)?.position?.end.offset ?? end;
      edits.push(escapedBrackets(source, start, first), escapedBrackets(source, last, end));
      stack.push(...node.children);
      continue;
    }
    const text = editFor(node, source.slice(start, end), source);
    if (text === CHILDREN) {
      if ('children' in node) stack.push(...(node.children as Nodes[]));
    } else if (text !== undefined) edits.push({ start, end, text });
  }
  return edits.filter((e) => e.text !== source.slice(e.start, e.end)).sort((a, b) => b.start - a.start);
}

function escapedBrackets(source: string, start: number, end: number): Edit {
  return { start, end, text: source.slice(start, end).replace(BRACKET, '$1\\$2') };
}

function applyEdits(source: string, edits: Edit[]): string {
  const pieces: string[] = [];
  let at = source.length;
  for (const e of edits) {
    pieces.push(source.slice(e.end, at), e.text);
    at = e.start;
  }
  pieces.push(source.slice(0, at));
  return pieces.reverse().join('');
}

/** The node's new source, `undefined` to keep it, or CHILDREN to look at its children instead. */
function editFor(node: Nodes, raw: string, source: string): string | undefined | typeof CHILDREN {
  switch (node.type) {
    case 'link':
      if (showsItself(node, source)) return undefined;
      // An autolink whose address is not plain (Slack's `|` label) is broken into its text.
      if (raw.startsWith('<')) return `<${ZWSP}${raw.slice(1)}`;
      return shown(plainText(node), 'link', node.url);
    case 'image':
      return shown(node.alt ?? '', 'image', node.url);
    case 'imageReference':
    case 'definition':
    case 'html':
      // Unlinked, or raw HTML (in which CommonMark reads no link, but a reader reading it as
      // Markdown might): every bracket becomes text.
      return raw.replace(BRACKET, '$1\\$2').replace(SLACK_LINK, `<${ZWSP}`);
    case 'text':
      return raw.replace(LINK_TARGET, '$1\\]').replace(SLACK_LINK, `<${ZWSP}`);
    case 'inlineCode':
      // A GFM table cuts cells at `|` even inside a code span, which can free a link from it.
      return raw.includes('|') ? raw.replace(/\](?=\()/g, `]${ZWSP}`) : undefined;
    case 'code':
      return undefined;
    default:
      return CHILDREN;
  }
}

/** A link whose label is its address, character for character, displayed as typed. */
function showsItself(link: Link, source: string): boolean {
  const [label, ...more] = link.children;
  if (label?.type !== 'text' || more.length > 0 || !label.position) return false;
  const typed = source.slice(label.position.start.offset, label.position.end.offset);
  return (
    typed === label.value &&
    (link.url === typed || link.url === `mailto:${typed}`) &&
    PLAIN_URL.test(link.url) &&
    !HAS_ENTITY.test(link.url)
  );
}

/** `label (address)` as plain text; the address alone when it is the label. */
function shown(label: string, fallback: string, url: string): string {
  const words = label.replace(/\s+/g, ' ').trim();
  const address = visibleUrl(url);
  if (!url) return asText(words || fallback);
  if (words === url) return address;
  return `${asText(words || fallback)} (${address})`;
}

/** Text shown as typed: every character that Markdown or Slack could read as syntax escaped. */
function asText(text: string): string {
  return text.replace(/[\\`*_~[\]<>]/g, '\\$&').replace(ENTITY, '\\&');
}

/**
 * The address as a reader should see it: characters that are invisible, look alike or break the
 * text percent-encoded, and those Markdown would read as emphasis escaped.
 */
function visibleUrl(url: string): string {
  return url
    .replace(/[^A-Za-z0-9\-._~:/?#@!$&'()*+,;=%]/gu, (c) =>
      [...Buffer.from(c, 'utf8')].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join(''),
    )
    .replace(/[*_~]/g, '\\$&')
    .replace(ENTITY, '\\&');
}
