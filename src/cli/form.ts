/**
 * A review's Edit form at the prompt, one field a line: a decision is typed (nothing is chosen for
 * the person), arguments are one line of JSON or Enter to keep them as shown. A message for the
 * calls rejected is asked last, when some are. A form with no decision to type (one call: its
 * arguments only) that changes nothing decides nothing: sent, the engine would read it as an
 * approval that nobody typed. Nor does a form left at a field ("quit", or Enter where arguments
 * typed wrong are asked again) or at the message.
 */
import { type ReviewField, sameJsonText } from '../engine/index.js';
import { answerTo, type LineSource } from './lines.js';
import type { Output } from './printer.js';

/**
 * The form's values and note; `unchanged` when it decides nothing, `left` when the person went back
 * to the review from a field or the message (nothing decided either); undefined when the input ends first. `check`
 * says what is wrong with the values (the engine's reading of the form, by field): a field typed
 * wrong (arguments that are not JSON, or not what the call takes) is said and asked again, alone,
 * so that the answers typed before it are kept.
 */
export async function fillForm(
  fields: ReviewField[],
  lines: LineSource,
  out: Output,
  /** The review's `feedback.maxLength`: the note's limit. */
  maxLength: number,
  check: (values: Record<string, string>) => Record<string, string> = () => ({}),
): Promise<
  { values: Record<string, string>; feedback?: string } | { unchanged: true } | { left: true } | undefined
> {
  const values: Record<string, string> = {};
  // Without a decision to type, Enter on the arguments is not "keep them": it is "nothing to do".
  const decides = fields.some((f) => f.choices);
  const keep = decides ? 'Enter keeps them as shown' : 'Enter changes nothing and goes back to the review';
  /**
   * One field asked. After an error (`again`) Enter is no "keep them as shown": the person had
   * just typed other arguments, and an approval of the ones they tried to change is one nobody
   * gave. It goes back to the review, as the words that leave the form do at any field.
   */
  const ask = async (f: ReviewField, again = false): Promise<'typed' | 'left' | 'ended'> => {
    for (;;) {
      const options = f.choices?.map((c) => `"${c.value}"`).join(' or ');
      const enter = again ? `Enter goes back to the review; ${NOTHING_DECIDED}` : keep;
      const line = await answerTo(
        lines,
        out,
        f.choices ? `${f.label}: ${options}? ` : `${withoutJson(f.label)}, as one line of JSON (${enter}): `,
      );
      if (line === undefined) return 'ended';
      const text = line.trim();
      // None of these is JSON or a choice: read as a value, they would be asked again for ever.
      if (LEAVE.has(text.toLowerCase()) || (again && !text)) return 'left';
      if (!f.choices) {
        values[f.id] = text || oneLine(f.initial ?? '');
        return 'typed';
      }
      const chosen = f.choices.find((c) => c.value === text.toLowerCase());
      if (chosen) {
        values[f.id] = chosen.value;
        return 'typed';
      }
      out.write(`Type ${options}. ("quit" goes back to the review; ${NOTHING_DECIDED}.)\n`);
    }
  };
  /** Arguments typed as shown, keys in any order: nothing the person changed (Enter puts them back). */
  const asShown = (f: ReviewField) => {
    const typed = values[f.id] ?? '';
    const shown = f.initial ?? '';
    return typed === oneLine(shown) || sameJsonText(typed, shown);
  };
  for (const f of fields) {
    const asked = await ask(f);
    if (asked !== 'typed') return asked === 'left' ? { left: true } : undefined;
  }
  // Choices are checked as typed; what the engine would refuse in a typed field is asked again.
  // Arguments as shown are never checked here: a call whose own arguments do not fit its schema
  // would have them refused at every Enter, a field asked for ever (the engine says it, once).
  for (;;) {
    const errors = check(values);
    const wrong = fields.filter((f) => !f.choices && errors[f.id] && !asShown(f));
    if (!wrong.length) break;
    for (const f of wrong) {
      out.write(`${errors[f.id]}\n`);
      const asked = await ask(f, true);
      if (asked !== 'typed') return asked === 'left' ? { left: true } : undefined;
    }
  }
  const changed = fields.some((f) => !f.choices && !asShown(f));
  if (!decides && !changed) return { unchanged: true };
  if (!Object.values(values).includes('reject')) return { values };
  for (;;) {
    const note = await answerTo(
      lines,
      out,
      'A message for the calls you reject (Enter for none, "back" to go back to the review): ',
    );
    if (note === undefined) return undefined;
    const feedback = note.trim();
    // As at a field: taken as the message, "quit" would be sent to the agent and the calls decided.
    // Not "stop" or "cancel": words a person may well mean to tell the agent of a call rejected.
    if (LEAVE_MESSAGE.has(feedback.toLowerCase())) return { left: true };
    // The engine refuses a longer one too; asked again here, the calls' decisions are kept.
    if (feedback.length <= maxLength) return { values, feedback: feedback || undefined };
    out.write(
      `That is ${feedback.length.toLocaleString('en-US')} characters; this review takes at most ${maxLength.toLocaleString('en-US')}.\n`,
    );
  }
}

/**
 * Words that leave the form at any of its fields for the review, as `quit` leaves a review's
 * prompt: none is JSON or a choice, so none takes an answer away.
 */
const LEAVE = new Set(['quit', 'exit', 'q', 'cancel', 'stop', 'back']);
const LEAVE_MESSAGE = new Set(['quit', 'exit', 'q', 'back']);
const NOTHING_DECIDED = 'nothing is decided';

/**
 * A field's label without its "(JSON)" (Slack's form says the box takes JSON that way): the
 * prompt says it, and how, once.
 */
const withoutJson = (label: string) => label.replace(/\s*\(JSON\)\s*$/i, '');

/** Pretty JSON as one line (as typed at a prompt); other text as it is. */
function oneLine(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text));
  } catch {
    return text;
  }
}
