/**
 * The fake Slack's agent view (the app's Messages tab), per Slack's method reference:
 *
 * - `assistant.threads.setSuggestedPrompts`: `channel_id` and `prompts` required; at most four
 *   prompts, each `{title, message}` (strings); an optional `title`. An agent app's prompts are its
 *   tab's: "including thread_ts in a call for an agent app will cause the call to silently fail",
 *   so such a call is answered ok and shows nothing. `channel_not_found` for a channel Slack does
 *   not have.
 * - `assistant.threads.setStatus`: `channel_id`, `thread_ts` and `status` required (an empty
 *   status clears it); `loading_messages` at most 10. `channel_not_found` for an unknown channel,
 *   `invalid_thread_ts` for a thread that channel does not have. Slack clears a status by itself
 *   when the app posts in the thread, and "a two minute timeout applies, which will cause the
 *   status to be removed if no message has been sent": two minutes after it was set, by Slack's
 *   clock (the fake's `now`, which a test moves on with `later`), it is gone.
 *
 * A required argument missing, or one of the wrong shape, is `invalid_arguments`, as Slack answers.
 */

export interface Prompts {
  title?: string;
  prompts: { title: string; message: string }[];
}

export interface ThreadStatus {
  status: string;
  loading_messages?: string[];
}

/** How long Slack shows a status that no message followed. */
export const STATUS_TIMEOUT_MS = 120_000;

const isText = (v: unknown): v is string => typeof v === 'string';
const INVALID = { ok: false, error: 'invalid_arguments' } as const;

export class FakeAgentView {
  /** The prompts each channel's Messages tab shows now. */
  readonly prompts = new Map<string, Prompts>();
  /** Each thread's status as last set (`channel:thread_ts`), and when; absent or '' when none. */
  private statuses = new Map<string, ThreadStatus & { at: number }>();

  constructor(
    /** Slack's time now (ms since the epoch). */
    private readonly now: () => number,
    /** Whether Slack has the channel (for the bot). */
    private readonly hasChannel: (channel: string) => boolean,
    /** Whether the channel has a message with this ts (a thread's root). */
    private readonly hasMessage: (channel: string, ts: string) => boolean,
  ) {}

  setSuggestedPrompts(args: Record<string, unknown>): { ok: boolean; error?: string } {
    const { channel_id: channel, prompts, title, thread_ts: thread } = args;
    if (!isText(channel) || !channel) return INVALID;
    if (!Array.isArray(prompts) || prompts.length === 0 || prompts.length > 4) return INVALID;
    if (!prompts.every((p) => p && isText(p.title) && isText(p.message) && p.title && p.message))
      return INVALID;
    if (title !== undefined && !isText(title)) return INVALID;
    if (!this.hasChannel(channel)) return { ok: false, error: 'channel_not_found' };
    // Silently dropped for an agent app (the reference's words): ok, and nothing shown.
    if (thread !== undefined) return { ok: true };
    this.prompts.set(channel, {
      ...(title ? { title } : {}),
      prompts: prompts.map((p) => ({ title: p.title, message: p.message })),
    });
    return { ok: true };
  }

  setStatus(args: Record<string, unknown>): { ok: boolean; error?: string } {
    const { channel_id: channel, thread_ts: thread, status, loading_messages: loading } = args;
    if (!isText(channel) || !channel || !isText(thread) || !thread || !isText(status)) return INVALID;
    if (loading !== undefined && (!Array.isArray(loading) || loading.length > 10 || !loading.every(isText)))
      return INVALID;
    if (!this.hasChannel(channel)) return { ok: false, error: 'channel_not_found' };
    if (!this.hasMessage(channel, thread)) return { ok: false, error: 'invalid_thread_ts' };
    this.statuses.set(`${channel}:${thread}`, {
      at: this.now(),
      status,
      ...(status && loading ? { loading_messages: loading as string[] } : {}),
    });
    return { ok: true };
  }

  /** The app posted in the thread: Slack clears its status there. */
  posted(channel: string, thread: string | undefined): void {
    if (thread) this.statuses.delete(`${channel}:${thread}`);
  }

  /** The thread's status as shown now ('' when none, or when two minutes passed since it was set). */
  statusOf(channel: string, thread: string): string {
    const shown = this.statuses.get(`${channel}:${thread}`);
    if (!shown || this.now() - shown.at >= STATUS_TIMEOUT_MS) return '';
    return shown.status;
  }
}
