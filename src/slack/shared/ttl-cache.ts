/**
 * Answers kept for a while: one call per key per `ttlMs` serves every caller, callers at the same
 * moment share the call in flight, and a failed call is not kept (the next caller asks again).
 */
export function ttlCache<V>(
  load: (key: string) => Promise<V>,
  options: { ttlMs: number; now: () => number },
): (key: string) => Promise<V> {
  // Entries go in as they are made, so the oldest are first: expired ones are dropped from the front.
  const cache = new Map<string, { at: number; value: Promise<V> }>();
  return (key) => {
    const at = options.now();
    for (const [k, entry] of cache) {
      if (at - entry.at < options.ttlMs) break;
      cache.delete(k);
    }
    const kept = cache.get(key);
    if (kept) return kept.value;
    const entry = { at, value: (async () => load(key))() };
    cache.set(key, entry);
    entry.value.catch(() => {
      if (cache.get(key) === entry) cache.delete(key);
    });
    return entry.value;
  };
}
