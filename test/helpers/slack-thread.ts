/** Reading what the bot posted to the fake Slack: roots, threads, cards and their buttons. */
import { setTimeout as sleep } from 'node:timers/promises';
import type { FakeSlack } from './fake-slack.js';

/** Polls `find` until it returns something. */
export async function until<T>(
  what: string,
  find: () => T | undefined | Promise<T | undefined>,
  ms = 15_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const found = await find();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

export type Post = {
  channel: string;
  thread_ts?: string;
  text: string;
  blocks: { type: string; elements?: { action_id: string; value: string }[] }[];
};

export function slackThreads(slack: FakeSlack) {
  const posts = () => slack.callsOf('chat.postMessage').filter((p) => !p.failed) as unknown as Post[];
  return {
    posts,
    cardsIn: (thread: string) =>
      posts().filter((p) => p.thread_ts === thread && p.blocks?.some((b) => b.type === 'actions')),
    rootOf: (text: string) => posts().find((p) => !p.thread_ts && p.text.includes(text)),
    /** The ts the fake gave a post: its index among postMessage answers. */
    /** The ts Slack gave the post's message. */
    tsOf: (post: Post) => {
      const ts = slack.tsOfPost(post);
      if (!ts) throw new Error(`no message was made by the post "${post.text}"`);
      return ts;
    },
    buttons: (card: Post) => card.blocks.find((b) => b.type === 'actions')?.elements ?? [],
    /**
     * What the bot told `user` alone (ephemeral messages, then answers through response URLs): only
     * what Slack showed them. A chat.postEphemeral Slack refused or answered 429 showed nothing, nor one into a thread with no
     * reply yet.
     */
    ephemeralsTo: (user: string) => [
      ...slack
        .callsOf('chat.postEphemeral')
        .filter((e) => e.user === user && !e.failed && !e.unshown)
        .map((e) => String(e.text)),
      ...slack.ephemerals.filter((e) => e.user === user && e.viaResponseUrl).map((e) => String(e.text)),
    ],
    /** The ephemeral messages shown to `user` in `thread`, as they are now (a response may have replaced one). */
    ephemeralsIn: (thread: string, user: string) =>
      slack.ephemerals.filter((e) => e.thread_ts === thread && e.user === user),
    /** The updates of the message `ts`, in order. */
    updatesOf: (ts: string) => slack.callsOf('chat.update').filter((u) => u.ts === ts),
  };
}
