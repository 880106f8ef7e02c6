/**
 * What `/signoff away …` says, for its form: the day back and the delegate, where the command
 * names them for certain, and a note for each thing it said that names nothing for certain (the
 * form opens on tomorrow, with a people picker, and says so at its top instead of dropping it).
 * Slack sends a typed "@name" as plain text (the manifest does not escape), so only a mention Slack
 * sent as an id names a person.
 */
const MENTION = /<@([UW][A-Z0-9]+)(?:\|[^>]*)?>/;
const DATE = /\b(\d{4}-\d{2}-\d{2})\b/;
const FILLER = /^(until|till|back|on|to)$/i;

export interface AwayCommand {
  /** The day back, YYYY-MM-DD: the one typed when it is after today, else tomorrow. */
  day: string;
  delegate?: string;
  notes: string[];
}

export function readAwayCommand(text: string, now: Date): AwayCommand {
  const tomorrow = new Date(now.getTime() + 86_400_000).toISOString().slice(0, 10);
  const delegate = MENTION.exec(text)?.[1];
  const typed = DATE.exec(text)?.[1];
  const valid = typed && !Number.isNaN(Date.parse(typed)) && Date.parse(typed) > now.getTime();
  const rest = text.replace(MENTION, ' ').replace(DATE, ' ').split(/\s+/).filter(Boolean);
  const people = rest.filter((w) => w.startsWith('@'));
  const words = rest.filter((w) => !w.startsWith('@') && !FILLER.test(w));
  const notes: string[] = [];
  if (typed && !valid) notes.push(`"${typed}" is not a day after today: pick the day you are back below.`);
  if (words.length)
    notes.push(`I could not read "${words.join(' ')}": pick the day below (typed, a day reads ${tomorrow}).`);
  if (people.length && !delegate)
    notes.push(`Slack sent "${people.join(' ')}" as plain text, not as a person: pick them below.`);
  return { day: valid ? typed : tomorrow, ...(delegate ? { delegate } : {}), notes };
}
