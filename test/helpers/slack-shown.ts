/**
 * What each reply in a thread of the fake Slack shows now, as a person would read it: a post's
 * text and blocks, a streamed message's words, or whatever the last chat.update made of either.
 * A deleted message shows nothing (it is gone from the thread).
 */
import type { FakeSlack } from './fake-slack.js';

export interface Shown {
  ts: string;
  /** Its text and blocks, as one string to search. */
  content: string;
}

export function shownIn(slack: FakeSlack, thread: string): Shown[] {
  const posted = new Map<string, Record<string, unknown>>();
  for (const call of slack.callsOf('chat.postMessage')) {
    const ts = slack.tsOfPost(call);
    if (ts) posted.set(ts, call);
  }
  return slack.messages
    .filter((m) => m.thread_ts === thread && m.ts !== thread)
    .map((m) => {
      const update = slack
        .callsOf('chat.update')
        .filter((u) => u.ts === m.ts && u.channel === m.channel && !u.failed)
        .at(-1);
      const post = posted.get(m.ts);
      const stream = slack.streams.find(m.channel, m.ts);
      const shown = update ?? post;
      const content = shown
        ? `${String(shown.text ?? '')}\n${JSON.stringify(shown.blocks ?? [])}`
        : (stream?.text ?? m.text ?? '');
      return { ts: m.ts, content };
    });
}
