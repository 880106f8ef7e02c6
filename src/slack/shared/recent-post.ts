/**
 * Finding a message signoff posted, by the key in its metadata, among a conversation's latest
 * messages or in a thread: what a retried post or start looks for when an earlier attempt may have posted and
 * died before recording it. Slack hands out history a page at a time (`limit`, then
 * `response_metadata.next_cursor`); a busy channel's latest page may not reach back far enough,
 * so pages are read, newest first, until the latest LATEST messages have been. Pages are counted
 * by what they hold, not by how many: "it's possible to receive fewer results than your specified
 * limit, even when there are additional results to retrieve" (Slack's Pagination).
 */
import type { WebClient } from '@slack/web-api';
import { postedAs } from './posts.js';

/** Messages per page (Slack takes up to 999; it advises 200). */
const PAGE = 200;
/** How far back a channel's post is looked for: its latest 1,000 messages. */
const LATEST = 1000;
/**
 * The most pages read, however few each holds: a bound on the calls (each a Tier 3 slot), four
 * times what full pages take, should Slack answer page after page of very few.
 */
const MOST_PAGES = 20;

/** The ts of the message posted as `key` among the latest 1,000 of `channel`, if there is one. */
export async function findRecentPost(
  client: WebClient,
  channel: string,
  key: string,
): Promise<string | undefined> {
  let cursor: string | undefined;
  let read = 0;
  for (let page = 0; page < MOST_PAGES && read < LATEST; page += 1) {
    const recent = await client.conversations.history({
      channel,
      include_all_metadata: true,
      limit: PAGE,
      cursor,
    });
    const found = postedAs(recent.messages, key);
    if (found) return found;
    read += recent.messages?.length ?? 0;
    cursor = recent.response_metadata?.next_cursor || undefined;
    if (!cursor) return undefined;
  }
  return undefined;
}

/** The ts of the message posted as `key` in the thread `thread` (its replies, every page), if there is one. */
export async function findThreadPost(
  client: WebClient,
  thread: { channel: string; ts: string },
  key: string,
): Promise<string | undefined> {
  let cursor: string | undefined;
  do {
    const page = await client.conversations.replies({
      channel: thread.channel,
      ts: thread.ts,
      include_all_metadata: true,
      limit: PAGE,
      cursor,
    });
    const hit = postedAs(page.messages, key);
    if (hit) return hit;
    cursor = page.response_metadata?.next_cursor || undefined;
  } while (cursor);
  return undefined;
}
