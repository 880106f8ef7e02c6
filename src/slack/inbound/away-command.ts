/**
 * What `/signoff away …` says, for its form: the day back and the delegate, where the command
 * names them for certain, and a note for each thing it said that names nothing for certain (the
 * form opens on tomorrow, with a people picker, and says so at its top instead of dropping it).
 * Slack sends a typed "@name" as plain text (the manifest does not escape), so only a mention Slack
 * sent as an id names a person, and only one.
 */
const MENTIONS = /<@([UW][A-Z0-9]+)(?:\|[^>]*)?>/g;
const DATES = /\b\d{4}-\d{2}-\d{2}\b/g;
const FILLER = /^(until|till|back|on|to)$/i;

export interface AwayCommand {
  /** The day back, YYYY-MM-DD: the one typed when it is a real day after today, else tomorrow. */
  day: string;
  delegate?: string;
  notes: string[];
}

/** A calendar day that exists (not 2026-02-30, which Date would roll over), after `now`. */
const dayAfter = (day: string, now: Date) => {
  const at = new Date(`${day}T00:00:00Z`);
  return !Number.isNaN(at.getTime()) && at.toISOString().slice(0, 10) === day && at > now;
};

export function readAwayCommand(text: string, now: Date): AwayCommand {
  const tomorrow = new Date(now.getTime() + 86_400_000).toISOString().slice(0, 10);
  const mentions = [...new Set([...text.matchAll(MENTIONS)].map((m) => m[1] as string))];
  const dates = text.match(DATES) ?? [];
  const rest = text.replace(MENTIONS, ' ').replace(DATES, ' ').split(/\s+/).filter(Boolean);
  const typed = rest.filter((w) => w.startsWith('@'));
  const words = rest.filter((w) => !w.startsWith('@') && !FILLER.test(w));
  const [day] = dates;
  const good = dates.length === 1 && day !== undefined && dayAfter(day, now);
  const notes: string[] = [];
  if (dates.length > 1)
    notes.push(`Name one day, not ${dates.join(' and ')}: pick the day you are back below.`);
  else if (day && !good) notes.push(`"${day}" is not a day after today: pick the day you are back below.`);
  if (mentions.length > 1) notes.push('Name one person to take your reviews: pick them below.');
  if (typed.length)
    notes.push(`Slack sent "${typed.join(' ')}" as plain text, not as a person: pick them below.`);
  if (words.length)
    notes.push(
      `I could not read "${words.join(' ')}": pick the day and the person below (write a day as ${tomorrow}).`,
    );
  return {
    day: good ? day : tomorrow,
    ...(mentions.length === 1 ? { delegate: mentions[0] } : {}),
    notes,
  };
}
