/**
 * A tool call as a review card shows it: its name, then its arguments key by key, in their order,
 * one line each, so that every key (a recipient after a long body too) is on the card. A value too
 * long for its line is named there and given below: in full, unless the long values together pass
 * what a review holds, when each is cut, its line says so, and the review offers no approval
 * (`valuesCut`). Everything the agent wrote is inside code blocks, where Markdown does nothing,
 * and characters that hide or reorder text are shown as escapes; so are runs of three backticks,
 * which would end a block for a reader that counts them wherever they are (Slack's splitter,
 * src/slack/blocks/text.ts), so that every reader ends the blocks where they were written.
 */

/** What a reviewer decided for one call: run it as asked, run it with other arguments, or not. */
export type CallDecision =
  | { type: 'approve' }
  | { type: 'edit'; args: Record<string, unknown> }
  | { type: 'reject' };

/** One tool call asked about, whatever the shape: what it is and which decisions it takes. */
export interface ToolCall {
  name: string;
  args: Record<string, unknown>;
  description?: string;
  allowed: readonly CallDecision['type'][];
  argsSchema?: Record<string, unknown>;
}

export interface ShownCall {
  name: string;
  args: Record<string, unknown>;
  description?: string;
  /** What an edit at review made of it, while the rest of the quorum approves (else as asked). */
  state?: CallDecision;
  /** Why it has no place in the Edit form, when it may be edited but cannot be here. */
  note?: string;
}

/** A value longer than this (as JSON) is given below the key list instead of on its line. */
const INLINE = 120;
/** All long values together; past it each is cut (the body must stay under 100,000 characters). */
const LONG_BUDGET = 80_000;

/**
 * Zero-width, joiner and bidirectional control characters, and runs of backticks that could end a
 * block (a value holding one is given as JSON, where the escape means the backtick): shown, never
 * obeyed.
 */
const ESCAPED = /[\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]|`{3,}/g;
const unicodeEscape = (c: string) => `\\u${(c.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`;
const visible = (s: string) => s.replace(ESCAPED, (c) => [...c].map(unicodeEscape).join(''));

const keyOf = (k: string) => visible(/^[A-Za-z_][A-Za-z0-9_.-]{0,79}$/.test(k) ? k : JSON.stringify(k));
const json = (v: unknown, indent?: number) => JSON.stringify(v, null, indent) ?? String(v);
const count = (n: number) => n.toLocaleString('en-US');

/**
 * A long value as a block: a string as written, else JSON. A ``` anywhere in it could end the block
 * (signoff writes only ``` fences, the one kind Slack documents): such a string is JSON, where its
 * backticks can be escapes. A `~~~` line cannot end a ``` block (CommonMark), and stays as written.
 */
const longText = (v: unknown) => (typeof v === 'string' && !v.includes('```') ? v : json(v, 2));

/** How much of a call's description its heading line holds; a longer one is a long text below. */
const DESCRIPTION_INLINE = 300;

/**
 * The call's description. LangChain's default one ends with the arguments as first asked: left
 * out, since the list below shows them as they now are.
 */
function descriptionOf(c: ShownCall): string {
  const d = c.description ?? '';
  const asked = d.indexOf(`\n\nTool: ${c.name}\nArgs: `);
  return (asked >= 0 ? d.slice(0, asked) : d).trim();
}

/** A description short enough for the heading line, as one line (else none: it is given below). */
function shortDescription(c: ShownCall): string | undefined {
  const text = descriptionOf(c).replace(/\s+/g, ' ');
  return text && text.length <= DESCRIPTION_INLINE ? visible(text) : undefined;
}

/**
 * The call's long texts, each given whole below its key list as far as the budget allows: its long
 * values, and a description too long for the heading (an agent's words about the call, read in
 * full like the arguments, and like them inside a code block, where Markdown does nothing).
 */
function longTexts(c: ShownCall): { name: string; text: string }[] {
  const values = Object.entries(argsOf(c))
    .filter(([, v]) => json(v).length > INLINE)
    .map(([k, v]) => ({ name: keyOf(k), text: longText(v) }));
  const described = descriptionOf(c);
  const description =
    described && !shortDescription(c)
      ? [{ name: 'description', text: described.includes('```') ? json(described) : described }]
      : [];
  return [...description, ...values];
}

/** How long each long text may be shown: all of them together stay within LONG_BUDGET. */
function cutAt(calls: ShownCall[]): { cut: number; long: string[] } {
  const long = calls.flatMap((c) => longTexts(c).map((t) => t.text));
  return { cut: Math.max(500, Math.floor(LONG_BUDGET / Math.max(1, long.length))), long };
}

/**
 * Whether the body of `calls` shows a text cut short (a value, or the agent's description): then
 * nobody can see all of it, so the review may not offer anything that approves the calls (Approve,
 * or Edit of another call).
 */
export function valuesCut(calls: ShownCall[]): boolean {
  const { cut, long } = cutAt(calls);
  return long.some((text) => text.length > cut);
}

/** The Markdown of the calls, numbered when there are several. */
export function toolCallsBody(calls: ShownCall[]): string {
  const { cut } = cutAt(calls);
  return calls.map((c, i) => callBody(c, calls.length > 1 ? i + 1 : undefined, cut)).join('\n\n');
}

const argsOf = (c: ShownCall) => (c.state?.type === 'edit' ? c.state.args : c.args);

function callBody(c: ShownCall, number: number | undefined, cut: number): string {
  const entries = Object.entries(argsOf(c));
  const short = shortDescription(c);
  const head = `**${number ? `${number}. ` : ''}${visible(c.name.slice(0, 100))}**${short ? `: ${short}` : ''}`;
  const state =
    c.state?.type === 'edit'
      ? '\n_Changed at review: it runs with the arguments below._'
      : c.state?.type === 'reject'
        ? '\n_Rejected at review: it does not run._'
        : '';
  const lines = entries.map(([k, v]) => {
    const inline = json(v);
    if (inline.length <= INLINE) return `${keyOf(k)}: ${visible(inline)}`;
    const length = longText(v).length;
    return `${keyOf(k)}: (${count(length)} characters, ${length > cut ? `the first ${count(cut)} below` : 'in full below'})`;
  });
  const blocks = longTexts(c).map(({ name, text }) => {
    const shown =
      text.length > cut ? `${text.slice(0, cut)}… (${count(text.length - cut)} more characters)` : text;
    return `\`\`\`\n${name} (${count(text.length)} characters):\n${visible(shown)}\n\`\`\``;
  });
  // A long description (the first of them) is read before the arguments it speaks of.
  const described = shortDescription(c) || !descriptionOf(c) ? [] : blocks.splice(0, 1);
  const list = `\`\`\`\n${lines.length ? lines.join('\n') : '(no arguments)'}\n\`\`\``;
  const note = c.note ? `\n_${c.note}_` : '';
  return [`${head}${state}`, ...described, list, ...blocks].join('\n') + note;
}
