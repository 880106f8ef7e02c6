/**
 * A review's Edit form at the prompt, one field a line: a decision is typed (nothing is chosen for
 * the person), arguments are one line of JSON or Enter to keep them as shown. A message for the
 * calls rejected is asked last, when some are. A form with no decision to type (one call: its
 * arguments only) that changes nothing decides nothing: sent, the engine would read it as an
 * approval that nobody typed.
 */
import type { ReviewField } from '../engine/index.js';
import { sameJson } from './answer.js';
import { answerTo, type LineSource } from './lines.js';
import type { Output } from './printer.js';

/**
 * The form's values and note; `unchanged` when it decides nothing; undefined when the input ends
 * first. `check` says what is wrong with the values (the engine's reading of the form, by field):
 * a field typed wrong (arguments that are not JSON, or not what the call takes) is said and asked
 * again, alone, so that the answers typed before it are kept.
 */
export async function fillForm(
  fields: ReviewField[],
  lines: LineSource,
  out: Output,
  /** The review's `feedback.maxLength`: the note's limit. */
  maxLength: number,
  check: (values: Record<string, string>) => Record<string, string> = () => ({}),
): Promise<{ values: Record<string, string>; feedback?: string } | { unchanged: true } | undefined> {
  const values: Record<string, string> = {};
  // Without a decision to type, Enter on the arguments is not "keep them": it is "nothing to do".
  const decides = fields.some((f) => f.choices);
  const keep = decides ? 'Enter keeps them as shown' : 'Enter changes nothing and goes back to the review';
  const ask = async (f: ReviewField): Promise<boolean> => {
    for (;;) {
      const options = f.choices?.map((c) => `"${c.value}"`).join(' or ');
      const line = await answerTo(
        lines,
        out,
        f.choices ? `${f.label}: ${options}? ` : `${withoutJson(f.label)}, as one line of JSON (${keep}): `,
      );
      if (line === undefined) return false;
      const text = line.trim();
      if (!f.choices) {
        values[f.id] = text || oneLine(f.initial ?? '');
        return true;
      }
      const chosen = f.choices.find((c) => c.value === text.toLowerCase());
      if (chosen) {
        values[f.id] = chosen.value;
        return true;
      }
      out.write(`Type ${options}.\n`);
    }
  };
  for (const f of fields) if (!(await ask(f))) return undefined;
  // Choices are checked as typed; what the engine would refuse in a typed field is asked again.
  for (;;) {
    const errors = check(values);
    const wrong = fields.filter((f) => !f.choices && errors[f.id]);
    if (!wrong.length) break;
    for (const f of wrong) {
      out.write(`${errors[f.id]}\n`);
      if (!(await ask(f))) return undefined;
    }
  }
  const changed = fields.some((f) => {
    const typed = values[f.id] ?? '';
    const shown = f.initial ?? '';
    return !f.choices && typed !== oneLine(shown) && !sameJson(typed, shown);
  });
  if (!decides && !changed) return { unchanged: true };
  if (!Object.values(values).includes('reject')) return { values };
  for (;;) {
    const note = await answerTo(lines, out, 'A message for the calls you reject (Enter for none): ');
    if (note === undefined) return undefined;
    const feedback = note.trim();
    // The engine refuses a longer one too; asked again here, the calls' decisions are kept.
    if (feedback.length <= maxLength) return { values, feedback: feedback || undefined };
    out.write(
      `That is ${feedback.length.toLocaleString('en-US')} characters; this review takes at most ${maxLength.toLocaleString('en-US')}.\n`,
    );
  }
}

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
