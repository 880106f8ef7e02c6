/**
 * Times as a person at this terminal reads them: in local time, with how far away they are
 * ("15:35 (in 2 hours)"), instead of the stored UTC ISO string.
 */

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['day', 86_400],
  ['hour', 3_600],
  ['minute', 60],
];

/** "in 2 hours", "5 minutes ago", "in less than a minute". */
export function relativeTime(at: Date, now: Date): string {
  const seconds = (at.getTime() - now.getTime()) / 1000;
  const [unit, size] = UNITS.find(([, size]) => Math.abs(seconds) >= size) ?? [];
  if (!unit || !size) return seconds >= 0 ? 'in less than a minute' : 'less than a minute ago';
  return new Intl.RelativeTimeFormat('en', { numeric: 'always' }).format(Math.round(seconds / size), unit);
}

/** "15:35" today, "Thu 26 Nov, 15:35" another day, with the year when it is not this one. */
export function localTime(at: Date, now: Date, timeZone?: string): string {
  const part = (options: Intl.DateTimeFormatOptions, date = at) =>
    new Intl.DateTimeFormat('en-GB', { timeZone, ...options }).format(date);
  const time = part({ hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
  const day = (date: Date) => part({ year: 'numeric', month: '2-digit', day: '2-digit' }, date);
  if (day(at) === day(now)) return time;
  const sameYear = part({ year: 'numeric' }) === part({ year: 'numeric' }, now);
  const date = part({
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    ...(sameYear ? {} : { year: 'numeric' }),
  });
  return `${date}, ${time}`;
}

/** "15:35 (in 2 hours)": both, for a due time or a last change. */
export const when = (iso: string, now: Date, timeZone?: string): string => {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return iso;
  return `${localTime(at, now, timeZone)} (${relativeTime(at, now)})`;
};
