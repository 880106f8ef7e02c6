/**
 * Numbers typed in JSON that a JavaScript number cannot hold as typed. JSON.parse reads `1e400` as
 * Infinity (which JSON then stores as null), `12345678901234567891` as the nearest double, and
 * `1.50000000000000001` as 1.5: a call would run with a number nobody typed, and may even read as
 * unchanged against the one shown. Node has no access to a number's source text in JSON.parse, so
 * the text is scanned.
 */

/** A number token of JSON, at the place a scan outside strings finds a `-` or a digit. */
const NUMBER = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/** A number token's exact value: `-` or not, digits without leading or trailing zeros, times ten to `exp`. */
type Exact = { sign: string; digits: string; exp: bigint };

/** `token` (a JSON number, or a double as String prints it: `1e+21`) read exactly, as digits and a power of ten. */
function exactOf(token: string): Exact {
  const [, sign = '', whole = '', fraction = '', exponent = '0'] =
    /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(token) ?? [];
  const all = `${whole}${fraction}`.replace(/^0+/, '');
  const digits = all.replace(/0+$/, '');
  // BigInt: an exponent typed with twenty digits is still compared exactly.
  const exp = BigInt(exponent) - BigInt(fraction.length) + BigInt(all.length - digits.length);
  return digits ? { sign, digits, exp } : { sign: '', digits: '0', exp: 0n };
}

const written = (x: Exact) => `${x.sign}${x.digits}e${x.exp}`;

/**
 * Whether `token` reads as the number it says: finite and either an integer that is exactly the
 * double it parses to, or the same digits as that double is printed with (`1.50` and `15e-1` for
 * 1.5, `12345678901234567000` for the double 12345678901234567168). The latter is how arguments an
 * agent sent are shown (a double, printed by JavaScript): sent back unchanged, they are the same
 * number, and pass. Digits past what the double keeps (`1.50000000000000001`, `1e-400` read as 0)
 * are refused, never rounded into a number nobody typed.
 */
function kept(token: string): boolean {
  const n = Number(token);
  if (!Number.isFinite(n)) return false;
  const exact = exactOf(token);
  // Finite, so a nonzero value's power of ten is at most 308: the integer is small to make.
  const integer = exact.exp >= 0n && Number.isInteger(n);
  if (integer && BigInt(`${exact.sign}${exact.digits}`) * 10n ** exact.exp === BigInt(n)) return true;
  return written(exact) === written(exactOf(String(n)));
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

/** The smallest double with every digit of its precision: below it, doubles keep fewer. */
const SMALLEST_FULL = 2 ** -1022;

/** Why a number `numberNotKept` found is not kept, to follow "the number 1e400, ". */
export function whyNotKept(token: string): string {
  const size = Math.abs(Number(token));
  if (!Number.isFinite(size) || size >= Number.MAX_SAFE_INTEGER)
    return 'which is too large to keep exactly as typed';
  if (size < SMALLEST_FULL) return 'which is too small to keep exactly as typed';
  return 'which has more digits than a number keeps';
}
