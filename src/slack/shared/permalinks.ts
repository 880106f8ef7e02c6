/**
 * Links to messages, as Slack makes them (`chat.getPermalink`). A hand-built
 * `slack.com/archives/…` link is wrong where the workspace has its own domain, in an Enterprise
 * organization, on GovSlack (slack-gov.com), and for a thread reply (whose link names its thread):
 * Slack says what the link is. A message's link does not change, so each is asked once and kept
 * in `signoff.slack_permalinks`, for every process and across restarts (retention deletes old ones).
 */
import type { WebClient } from '@slack/web-api';
import type pg from 'pg';
import type { Logger } from '../../logger.js';
import { createLimiter } from './limiter.js';

/** A message: its channel and ts. */
export interface MessageRef {
  channel: string;
  ts: string;
}

export interface Permalinks {
  /** The link to a message; rejects when Slack does not give one (the message gone, Slack down). */
  of(message: MessageRef): Promise<string>;
  /**
   * The links of several messages, keyed by `permalinkKey`: those Slack does not give, or not
   * within `LIST_WAIT_MS`, are left out (shown without a link), so a list is never held up by
   * them; one still coming is kept when it comes, for the next time.
   */
  ofMany(messages: MessageRef[]): Promise<Map<string, string>>;
}

export const permalinkKey = (m: MessageRef) => `${m.channel}/${m.ts}`;

/** Calls to Slack at once when many links are missing (chat.getPermalink is Tier 4, 100+ a minute). */
const AT_ONCE = 4;
/** How long a list (the Home tab, /signoff list) waits for links not kept yet. */
const LIST_WAIT_MS = 500;

export function createPermalinks(deps: { client: WebClient; pool: pg.Pool; logger: Logger }): Permalinks {
  const { client, pool } = deps;
  const limit = createLimiter(AT_ONCE);

  const kept = async (messages: MessageRef[]): Promise<Map<string, string>> => {
    const r = await pool.query<{ channel: string; ts: string; permalink: string }>(
      `SELECT channel, ts, permalink FROM signoff.slack_permalinks
       WHERE (channel, ts) IN (SELECT * FROM unnest($1::text[], $2::text[]))`,
      [messages.map((m) => m.channel), messages.map((m) => m.ts)],
    );
    return new Map(r.rows.map((row) => [permalinkKey(row), row.permalink]));
  };

  const ask = async (m: MessageRef): Promise<string> => {
    const answer = await limit(() => client.chat.getPermalink({ channel: m.channel, message_ts: m.ts }));
    if (!answer.permalink) throw new Error(`Slack gave no permalink for ${permalinkKey(m)}`);
    await pool.query(
      `INSERT INTO signoff.slack_permalinks (channel, ts, permalink) VALUES ($1, $2, $3)
       ON CONFLICT (channel, ts) DO NOTHING`,
      [m.channel, m.ts, answer.permalink],
    );
    return answer.permalink;
  };

  return {
    of: async (m) => (await kept([m])).get(permalinkKey(m)) ?? ask(m),
    ofMany: async (messages) => {
      const links = await kept(messages);
      const missing = [...new Map(messages.map((m) => [permalinkKey(m), m])).values()].filter(
        (m) => !links.has(permalinkKey(m)),
      );
      const asking = Promise.all(
        missing.map(async (m) => {
          try {
            links.set(permalinkKey(m), await ask(m));
          } catch (error) {
            deps.logger.warn({ err: error, channel: m.channel, ts: m.ts }, 'no link to a message');
          }
        }),
      );
      let timer: NodeJS.Timeout | undefined;
      const waited = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, LIST_WAIT_MS);
      });
      await Promise.race([asking, waited]);
      clearTimeout(timer);
      return new Map(links);
    },
  };
}
