/**
 * Whether an ask's callbackUrl is one the config file lets its client be called back at. Checked
 * on the URL as it will be fetched, not as the client wrote it: "http://127.0.0.1:@169.254.169.254/"
 * starts with "http://127.0.0.1:" yet goes to another host (what precedes "@" is a user name), and
 * "…/hooks/../admin" starts with "…/hooks/" yet is fetched as "…/admin".
 */

/**
 * The URL to call back (parsed: dot segments resolved, host lower-cased), when it starts with one
 * of `prefixes` and names the same host; undefined otherwise, and for a URL carrying credentials.
 */
export function allowedCallbackUrl(url: string, prefixes: readonly string[]): string | undefined {
  const parsed = parse(url);
  if (!parsed || parsed.username || parsed.password) return undefined;
  const allowed = prefixes.some(
    (prefix) => parsed.href.startsWith(prefix) && parse(prefix)?.hostname === parsed.hostname,
  );
  return allowed ? parsed.href : undefined;
}

function parse(url: string): URL | undefined {
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}
