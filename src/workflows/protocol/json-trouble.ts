/**
 * Where typed JSON fails to parse, in words a person can act on and short whatever was typed:
 * the parser's complaint (at most 60 characters, without the copy of the whole text that V8
 * puts in some of its messages), and where: "on line 3, column 12" when the text spans lines,
 * else the bit it stopped at ("at “subject: "x"}”"), or "at the end". A character offset was
 * useless in a 300-character line or a pasted block.
 */

/** The longest complaint of the parser's said; a longer one is left out rather than cut. */
const WHAT_MAX = 60;
/** How much of the text, from where the parser stopped, is quoted. */
const BIT_MAX = 20;

export function jsonTrouble(text: string, error: unknown): string {
  const message = error instanceof Error ? error.message : '';
  // V8: "… in JSON at position 27", newer ones add "(line 2 column 5)"; "Unexpected token 'x',
  // "<the whole text>" is not valid JSON" gives no position and quotes everything typed.
  const at = /at position (\d+)/.exec(message)?.[1];
  const what = message
    .split(/ in JSON| \(line |, (?:\.\.\.)?".*" is not valid JSON| at position /s)[0]
    ?.replace(/\.$/, '')
    .replace(/^Unexpected end of JSON input$/, 'it ends too soon');
  const said = what && what.length <= WHAT_MAX ? what.charAt(0).toLowerCase() + what.slice(1) : '';
  return [said, at === undefined ? '' : where(text, Number(at))].filter(Boolean).join(' ');
}

function where(text: string, position: number): string {
  if (!text.slice(position).trim()) return 'at the end';
  if (text.includes('\n')) {
    const before = text.slice(0, position).split('\n');
    return `on line ${before.length}, column ${(before.at(-1)?.length ?? 0) + 1}`;
  }
  const bit = text.slice(position, position + BIT_MAX);
  return `at “${bit}${position + BIT_MAX < text.length ? '…' : ''}”`;
}
