/**
 * Markdown (and Slack's mrkdwn, which agents and workflows write for Slack) rendered for a
 * terminal: bold, italic, code, headings, lists, quotes, links and code fences. On a TTY the
 * emphasis becomes ANSI styles; in a pipe the markup is just removed, so what is saved or grepped
 * reads as plain text. Small on purpose: no Markdown library is a dependency here.
 */

/** How emphasis is shown: ANSI styles on a terminal, nothing in a pipe. */
export interface Style {
  bold(text: string): string;
  italic(text: string): string;
  code(text: string): string;
  heading(text: string): string;
  dim(text: string): string;
}

const ansi = (on: string, off: string) => (text: string) => (text ? `\x1b[${on}m${text}\x1b[${off}m` : text);

export const ANSI_STYLE: Style = {
  bold: ansi('1', '22'),
  italic: ansi('3', '23'),
  code: ansi('36', '39'),
  heading: ansi('1;4', '22;24'),
  dim: ansi('2', '22'),
};

const same = (text: string) => text;
export const PLAIN_STYLE: Style = { bold: same, italic: same, code: same, heading: same, dim: same };

/** A line that opens a code block: three or more backticks or tildes (a backtick one's info has none). */
const FENCE = /^\s*(`{3,}(?!.*`)|~{3,})/;
const HEADING = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/;
const BULLET = /^(\s*)[-*+•]\s+(.*)$/;
const QUOTE = /^\s*>\s?(.*)$/;
const RULE = /^\s{0,3}([-*_])(\s*\1){2,}\s*$/;

export function renderMarkdown(text: string, style: Style): string {
  const out: string[] = [];
  /** The fence of the open code block, if any. */
  let fenced: string | undefined;
  for (const line of text.split('\n')) {
    // As CommonMark reads it: only a line of the block's own character, at least as long and with
    // nothing after it, ends the block. Any fence line did here, so a `~~~` line in a tool call's
    // arguments (fenced with ```) ended them, and the rest showed as Markdown (`_data_` in italics).
    const fence = fenced ? undefined : FENCE.exec(line)?.[1];
    if (fence || (fenced && closes(line, fenced))) {
      fenced = fence;
      continue;
    }
    if (fenced) {
      out.push(`    ${style.code(line)}`);
      continue;
    }
    const heading = HEADING.exec(line);
    const bullet = BULLET.exec(line);
    const quote = QUOTE.exec(line);
    if (RULE.test(line)) out.push(style.dim('─'.repeat(40)));
    else if (heading) out.push(style.heading(inline(heading[1] as string, style)));
    else if (bullet) out.push(`${bullet[1]}• ${inline(bullet[2] as string, style)}`);
    else if (quote) out.push(`  ${style.italic(inline(quote[1] as string, style))}`);
    else out.push(inline(line, style));
  }
  return out.join('\n');
}

/** Whether `line` closes a code block opened by `fence`. */
const closes = (line: string, fence: string) => {
  const run = /^\s*(`{3,}|~{3,})\s*$/.exec(line)?.[1];
  return !!run && run[0] === fence[0] && run.length >= fence.length;
};

/**
 * Emphasis within a line. `*x*` is bold (Slack's mrkdwn, which the workflows write) and `_x_`
 * italic; a marker counts only against a word (`2 * 3 * 4`, `snake_case` stay as they are).
 * Code spans are left untouched inside.
 */
export function inline(line: string, style: Style): string {
  return line
    .split(/(`[^`\n]+`)/)
    .map((part, i) => {
      if (i % 2 === 1) return style.code(part.slice(1, -1));
      return part
        .replace(/\[([^\]\n]+)\]\(([^)\s]+)\)/g, (_, label: string, url: string) =>
          label === url ? url : `${label} (${url})`,
        )
        .replace(
          /<((?:https?|mailto):[^|>\s]+)\|([^>\n]+)>/g,
          (_, url: string, label: string) => `${label} (${url})`,
        )
        .replace(/<((?:https?|mailto):[^>\s]+)>/g, '$1')
        .replace(/(\*\*|__)(?=\S)(.+?)(?<=\S)\1/g, (_, _m: string, t: string) => style.bold(t))
        .replace(/(?<![\w*])\*(?=[^\s*])([^*\n]*?[^\s*])\*(?![\w*])/g, (_, t: string) => style.bold(t))
        .replace(/(?<![\w_])_(?=[^\s_])([^_\n]*?[^\s_])_(?![\w_])/g, (_, t: string) => style.italic(t));
    })
    .join('');
}
