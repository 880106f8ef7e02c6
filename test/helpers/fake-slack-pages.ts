/**
 * Slack's cursor pagination, as the fake answers it ("Pagination" in Slack's docs): a page holds at
 * most `limit` items (each method has its default and its most), `response_metadata.next_cursor`
 * is an opaque string that names the next page ('' on the last), and a cursor Slack did not hand
 * out for this very listing is `invalid_cursor`. "It's possible to receive fewer results than your
 * specified limit, even when there are additional results to retrieve": a listing given `shorter`
 * holds fewer (never none, so that every cursor moves on). A client that reads one page, takes a
 * short page for the last, or makes up a cursor, is caught.
 */

export interface PageRule {
  /** Items per page when no `limit` is given. */
  defaultLimit: number;
  /** The most a page holds, whatever `limit` asks. */
  maxLimit: number;
}

/** conversations.members: 100 by default, up to 999 (its page: "a limit value under 1000"). */
export const MEMBERS_PAGES: PageRule = { defaultLimit: 100, maxLimit: 999 };
/** conversations.history: 100 by default, up to 999. */
export const HISTORY_PAGES: PageRule = { defaultLimit: 100, maxLimit: 999 };
/** conversations.replies: 1,000 by default, up to 1,000. */
export const REPLIES_PAGES: PageRule = { defaultLimit: 1000, maxLimit: 1000 };

const cursorFor = (listing: string, from: number) =>
  Buffer.from(`${listing}|next:${from}`, 'utf8').toString('base64');

/**
 * How many items a page holds when `limit` were asked (and allowed): Slack may answer fewer, with
 * more to come. At least 1 is kept whatever it says.
 */
export type ShortPages = (limit: number) => number;

/**
 * The page of `items` that `args` (`limit`, `cursor`) asks for, within `listing` (the method and
 * what it lists, e.g. `conversations.members:C0WORK`): the page and the page's metadata, or Slack's
 * error. `shorter`: how many a page holds of the `limit` asked (all of them without it).
 */
export function pageOf<T>(
  items: T[],
  args: Record<string, unknown>,
  listing: string,
  rule: PageRule,
  shorter?: ShortPages,
):
  | { page: T[]; meta: { has_more: boolean; response_metadata: { next_cursor: string } } }
  | { error: string } {
  const asked = args.limit === undefined || args.limit === '' ? rule.defaultLimit : Number(args.limit);
  if (!Number.isInteger(asked) || asked < 0) return { error: 'invalid_limit' };
  // Slack reads 0 as "its default".
  const limit = Math.min(asked || rule.defaultLimit, rule.maxLimit);
  let from = 0;
  if (typeof args.cursor === 'string' && args.cursor !== '') {
    const decoded = Buffer.from(args.cursor, 'base64').toString('utf8');
    const match = /^(.*)\|next:(\d+)$/.exec(decoded);
    if (!match || match[1] !== listing || cursorFor(listing, Number(match[2])) !== args.cursor)
      return { error: 'invalid_cursor' };
    from = Number(match[2]);
  }
  const holds = shorter ? Math.max(1, Math.min(limit, Math.floor(shorter(limit)))) : limit;
  const page = items.slice(from, from + holds);
  const more = from + holds < items.length;
  return {
    page,
    meta: {
      has_more: more,
      response_metadata: { next_cursor: more ? cursorFor(listing, from + holds) : '' },
    },
  };
}

/**
 * A page of messages as conversations.history and .replies answer it (metadata only when asked),
 * holding as many as `shorter` says of the `limit` asked.
 */
export function listMessages(
  messages: { metadata?: unknown }[],
  args: Record<string, unknown>,
  listing: string,
  rule: PageRule,
  shorter: ShortPages,
): object {
  const listed = pageOf(messages, args, listing, rule, shorter);
  if ('error' in listed) return { ok: false, error: listed.error };
  const withMetadata = args.include_all_metadata === true || args.include_all_metadata === 'true';
  return {
    ok: true,
    messages: listed.page.map(({ metadata, ...m }) => (withMetadata ? { ...m, metadata } : m)),
    ...listed.meta,
  };
}
