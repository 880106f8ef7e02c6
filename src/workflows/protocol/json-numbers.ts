/**
 * Numbers typed in JSON that a JavaScript number cannot hold as typed. JSON.parse reads `1e400` as
 * Infinity (which JSON then stores as null) and `12345678901234567891` as the nearest double: a
 * call would run with a number nobody typed, and may even read as unchanged against the one shown.
 * Node has no access to a number's source text in JSON.parse, so the text is scanned.
 */

/** A number token of JSON, at the place a scan outside strings finds a `-` or a digit. */
const NUMBER = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/**
 * Whether `token` reads as the number it says: finite and, when it is an integer (no `.` or
 * exponent), exactly the double it parses to, or the way that double is printed. The latter is
 * how arguments an agent sent as a rounded number are shown (`12345678901234567000` for the double
 * 12345678901234567168): sent back unchanged, they are the same number, and pass.
 */
function kept(token: string): boolean {
  const n = Number(token);
  if (!Number.isFinite(n)) return false;
  if (/[.eE]/.test(token)) return true;
  return BigInt(token) === BigInt(n) || String(n) === token;
}

/** The first number in the JSON `text` (already parsed: it is valid) that is not kept as typed. */
export function numberNotKept(text: string): string | undefined {
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '-' || (c >= '0' && c <= '9')) {
      NUMBER.lastIndex = i;
      const token = NUMBER.exec(text)?.[0] ?? c;
      if (!kept(token)) return token;
      i += token.length - 1;
    }
  }
  return undefined;
}
