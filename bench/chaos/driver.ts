/**
 * The people of the chaos checker: signed requests to the web process, as Slack sends them
 * (commands, clicks, the revise modal, thread replies), and what the fake Slack kept, read back.
 * A request to a web process that is down fails quietly: Slack's own request would have too.
 */
import { triggerId } from '../../test/helpers/fake-slack-views.js';
import {
  alwaysSubmission,
  batchApproveClick,
  commandBody,
  eventCallback,
  payloadBody,
  postSigned,
  reviseSubmission,
  slackTsNow,
} from '../../test/helpers/slack-requests.js';
import type { SlackPost, ThreadReply } from './slack-process.js';

/** A click on a button of message `messageTs` in `channel` (test/helpers' `click` is fixed to one channel). */
function clickBody(
  user: string,
  channel: string,
  button: { action_id: string; value: string },
  messageTs: string,
  threadTs?: string,
) {
  return payloadBody({
    type: 'block_actions',
    team: { id: 'T0TEAM', domain: 'acme' },
    user: { id: user, username: user.toLowerCase(), team_id: 'T0TEAM' },
    api_app_id: 'A0APP',
    token: 'legacy',
    trigger_id: triggerId(),
    container: { type: 'message', message_ts: messageTs, channel_id: channel, is_ephemeral: false },
    channel: { id: channel, name: channel.toLowerCase() },
    message: { type: 'message', ts: messageTs, thread_ts: threadTs, text: 'card' },
    response_url: 'https://hooks.slack.test/actions/chaos',
    actions: [{ type: 'button', block_id: 'review', action_ts: String(Date.now() / 1000), ...button }],
  });
}

/** The review a card's buttons name. */
export function reviewOf(post: SlackPost): string | undefined {
  for (const b of post.buttons) {
    try {
      const value = JSON.parse(b.value) as { review?: string };
      if (value.review) return value.review;
    } catch {
      // not a review button (a root message's Cancel / Retry)
    }
  }
  return undefined;
}

export class SlackDriver {
  private posts: SlackPost[] = [];
  private cards = new Map<string, SlackPost>();
  /** Requests the web process did not answer (down, or restarting). */
  unanswered = 0;

  constructor(
    private readonly webUrl: string,
    private readonly control: string,
  ) {}

  /** Reads what Slack kept since the last read. */
  async refresh(): Promise<void> {
    const res = await fetch(`${this.control}/posts?since=${this.posts.length}`);
    const added = (await res.json()) as SlackPost[];
    for (const post of added) {
      this.posts.push(post);
      const review = reviewOf(post);
      if (review && !this.cards.has(review)) this.cards.set(review, post);
    }
  }

  all(): readonly SlackPost[] {
    return this.posts;
  }

  rootOf(marker: string): SlackPost | undefined {
    return this.posts.find((p) => !p.thread_ts && p.text.includes(marker));
  }

  /** The card showing `review` (the first posted, the only one unless something went wrong). */
  cardOf(review: string): SlackPost | undefined {
    return this.cards.get(review);
  }

  /** A message's text as it reads now. */
  async textOf(channel: string, ts: string): Promise<string | undefined> {
    const res = await fetch(`${this.control}/text?channel=${channel}&ts=${ts}`);
    return ((await res.json()) as { text?: string }).text;
  }

  /** A thread's replies as they read now. */
  async thread(channel: string, ts: string): Promise<ThreadReply[]> {
    const res = await fetch(`${this.control}/thread?channel=${channel}&ts=${ts}`);
    return (await res.json()) as ThreadReply[];
  }

  /** How many streamed messages are being written now (0 when the fake Slack cannot say). */
  async streamsWritten(): Promise<number> {
    const res = await fetch(`${this.control}/streams`).catch(() => undefined);
    return res?.ok ? ((await res.json()) as { writing: number }).writing : 0;
  }

  private async send(body: string, json = false): Promise<boolean> {
    try {
      const res = await postSigned(this.webUrl, body, { json });
      if (res.status === 200) return true;
    } catch {
      // the web process is down: the person's request is lost, as with Slack
    }
    this.unanswered++;
    return false;
  }

  command(user: string, channel: string, text: string): Promise<boolean> {
    return this.send(commandBody(text, user, { channel_id: channel, channel_name: channel.toLowerCase() }));
  }

  /** Clicks `actionId` on `post` (a card's decision buttons, a root's Cancel). */
  click(user: string, post: SlackPost, actionId: string): Promise<boolean> {
    const button = post.buttons.find((b) => b.action_id === actionId) ?? {
      action_id: actionId,
      value: 'task',
    };
    return this.send(clickBody(user, post.channel, button, post.ts, post.thread_ts));
  }

  /** Revise with feedback through the modal (opened from the card, submitted). */
  revise(user: string, card: SlackPost, feedback: string): Promise<boolean> {
    const value = JSON.parse(card.buttons.find((b) => b.action_id === 'signoff_approve')?.value ?? '{}');
    const meta = JSON.stringify({
      value,
      channel: card.channel,
      messageTs: card.ts,
      threadTs: card.thread_ts,
    });
    return this.send(reviseSubmission(user, meta, feedback));
  }

  /** "Always allow…" on a card, the modal sent back with `scope`: approves and proposes a rule. */
  alwaysAllow(user: string, card: SlackPost, scope: string): Promise<boolean> {
    const value = JSON.parse(card.buttons.find((b) => b.action_id === 'signoff_approve')?.value ?? '{}');
    const meta = JSON.stringify({
      value,
      action: 'always',
      channel: card.channel,
      messageTs: card.ts,
      threadTs: card.thread_ts,
    });
    return this.send(alwaysSubmission(user, meta, scope));
  }

  /** The standing rules' messages (each names its rule in its buttons' value). */
  ruleMessages(): { post: SlackPost; rule: number }[] {
    return this.posts.flatMap((post) => {
      const b = post.buttons.find((x) => x.action_id === 'signoff_rule_approve');
      const rule = b ? (JSON.parse(b.value) as { rule?: number }).rule : undefined;
      return rule ? [{ post, rule }] : [];
    });
  }

  /** A click on a rule message's Approve rule, Refuse or Revoke (the button as the message shows it now). */
  ruleClick(user: string, message: { post: SlackPost; rule: number }, actionId: string): Promise<boolean> {
    const button = { action_id: actionId, value: JSON.stringify({ rule: message.rule }) };
    return this.send(clickBody(user, message.post.channel, button, message.post.ts, message.post.thread_ts));
  }

  /**
   * Approve selected in `user`'s Home tab, with `picked` ticked (`<review>:<content hash>`, as the
   * tab drew them a moment ago).
   */
  batchApprove(user: string, picked: string[]): Promise<boolean> {
    return this.send(batchApproveClick(user, picked));
  }

  /** A message typed in a task's thread. */
  reply(user: string, channel: string, threadTs: string, text: string): Promise<boolean> {
    const event = {
      type: 'message',
      channel,
      channel_type: 'channel',
      user,
      text,
      ts: slackTsNow(),
      thread_ts: threadTs,
    };
    return this.send(eventCallback(event), true);
  }
}
