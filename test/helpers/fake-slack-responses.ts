/**
 * Response URLs as the fake Slack hands them out with commands and clicks, and the ephemeral
 * messages people see (from chat.postEphemeral or through a response URL).
 */
import { randomUUID } from 'node:crypto';
import { slackRefusal } from './slack-wire.js';

/** An ephemeral message as its user sees it (a response_url with replace_original changes one). */
export interface FakeEphemeral {
  channel: string;
  user: string;
  ts: string;
  thread_ts?: string;
  text?: string;
  blocks?: unknown[];
  /** Shown through a command's or a click's response URL, not `chat.postEphemeral`. */
  viaResponseUrl?: boolean;
}

/** How long Slack takes answers through a response URL ("Handling user interaction": 30 minutes). */
export const RESPONSE_URL_LIFE_MS = 30 * 60_000;

export class FakeResponseUrls {
  /** Ephemeral messages as their users see them now. */
  readonly ephemerals: FakeEphemeral[] = [];
  /** What was posted to response URLs, and for which message. */
  readonly responses: { channel: string; ts: string; body: Record<string, unknown> }[] = [];
  /** Response URLs handed out: the message each answers, when, and how often it was used. */
  private urls = new Map<string, { channel: string; ts: string; user?: string; uses: number; at: number }>();

  /** `now`: Slack's clock (a test moves it on to age the URLs handed out). */
  constructor(
    private readonly refusals: { method: string; error: string }[],
    private readonly now: () => number = Date.now,
  ) {}

  /** A new response URL's id (the fake serves it at /respond/<id>). */
  handOut(channel: string, ts: string, user?: string, ageMs = 0): string {
    const id = randomUUID();
    this.urls.set(id, { channel, ts, user, uses: 0, at: this.now() - ageMs });
    return id;
  }

  /** Each ephemeral gets its own ts, in the order shown (slack-thread.ts relies on it). */
  nextTs(): string {
    return `${1_800_000_000 + this.ephemerals.length}.000200`;
  }

  /**
   * A post to a response URL: Slack takes 5 within 30 minutes of handing it out, and answers 404
   * for one it does not know, one past its 30 minutes (`expired_url`) or used 5 times (`used_url`).
   */
  post(id: string, body: Record<string, unknown>): [number, string] {
    const url = this.urls.get(id);
    if (!url) return [404, 'no_such_url'];
    const refusal =
      this.now() - url.at > RESPONSE_URL_LIFE_MS ? 'expired_url' : url.uses >= 5 ? 'used_url' : '';
    if (refusal) {
      this.refusals.push({ method: 'response_url', error: refusal });
      return [404, refusal];
    }
    url.uses += 1;
    const refused = slackRefusal(body);
    if (refused) {
      this.refusals.push({ method: 'response_url', error: refused });
      return [400, refused];
    }
    this.responses.push({ channel: url.channel, ts: url.ts, body });
    if (body.replace_original === true || body.replace_original === 'true') {
      const shown = this.ephemerals.find((e) => e.channel === url.channel && e.ts === url.ts);
      if (shown) Object.assign(shown, { text: body.text, blocks: body.blocks });
    } else if (url.user && body.response_type !== 'in_channel') {
      this.ephemerals.push({
        channel: url.channel,
        user: url.user,
        ts: this.nextTs(),
        text: body.text as string | undefined,
        blocks: body.blocks as unknown[] | undefined,
        viaResponseUrl: true,
      });
    }
    return [200, 'ok'];
  }
}
