/** Text helpers every layer may use. */

/** A one-line excerpt; long input is cut at a word boundary. */
export function excerpt(s: string, max = 90): string {
  const flat = s.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max);
  return `${cut.slice(0, Math.max(cut.lastIndexOf(' '), max - 20))}…`;
}
