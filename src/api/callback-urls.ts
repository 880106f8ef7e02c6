/**
 * Whether an ask's callbackUrl is one the config file lets its client be called back at. Checked
 * on the URL as it will be fetched, not as the client wrote it, and against each allowed prefix
 * read the same way: "http://127.0.0.1:@169.254.169.254/" starts with "http://127.0.0.1:" yet goes
 * to another host (what precedes "@" is a user name); "https://hooks.example.test:6379/" names
 * another port; "…/hooks-admin" starts with "…/hooks" yet is another path; "…/hooks/../admin" is
 * fetched as "…/admin". A prefix that ends at the host's colon ("http://127.0.0.1:") allows any
 * port of that host.
 */

/** A path segment's dot or slash, percent-encoded: a server may decode it into a path of its own. */
const ENCODED_SEPARATOR = /%2e|%2f|%5c/i;

/**
 * The URL to call back (parsed: dot segments resolved, host lower-cased), when one of `prefixes`
 * allows it: the same scheme and host, the same port (unless the prefix ends at the host's colon),
 * and a path at or below the prefix's, segment by segment. Undefined otherwise, and for a URL
 * carrying credentials or an encoded separator.
 */
export function allowedCallbackUrl(url: string, prefixes: readonly string[]): string | undefined {
  const parsed = parse(url);
  if (!parsed || parsed.username || parsed.password || ENCODED_SEPARATOR.test(parsed.pathname))
    return undefined;
  return prefixes.some((prefix) => allows(prefix, parsed)) ? parsed.href : undefined;
}

function allows(prefix: string, url: URL): boolean {
  const allowed = parse(prefix);
  if (!allowed || allowed.protocol !== url.protocol || allowed.hostname !== url.hostname) return false;
  const anyPort = /:\d*$/.test(prefix) && allowed.pathname === '/';
  if (!anyPort && allowed.port !== url.port) return false;
  const base = allowed.pathname;
  return (
    url.pathname === base ||
    (url.pathname.startsWith(base) && (base.endsWith('/') || url.pathname[base.length] === '/'))
  );
}

function parse(url: string): URL | undefined {
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}
