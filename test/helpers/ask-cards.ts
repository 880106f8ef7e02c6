/**
 * The card of a review an agent asked (the HTTP API, MCP), found by its title, and a person
 * pressing its buttons by their labels: what the doors' tests do in the fake Slack.
 */
import { click, postSigned } from './slack-requests.js';
import type { SlackFile } from './slack-service.js';
import { type Post, slackThreads, until } from './slack-thread.js';

type Button = { action_id: string; value: string; text?: { text: string } };

export function askCards(file: SlackFile) {
  const { posts, cardsIn, tsOf, buttons } = slackThreads(file.slack);
  const labelled = (card: Post, label: string) =>
    (buttons(card) as Button[]).find((b) => b.text?.text === label);
  return {
    /** The card of the ask titled `title` (its root's thread), once posted. */
    async cardOf(title: string) {
      const root = await until('the root', () => posts().find((p) => !p.thread_ts && p.text.includes(title)));
      const thread = tsOf(root);
      const card = await until('the card', () => cardsIn(thread)[0]);
      return { thread, card, root };
    },
    /** `user` presses the button labelled `label` on `card`. */
    press(user: string, card: Post, thread: string, label: string) {
      const b = labelled(card, label);
      return postSigned(
        file.events,
        click(user, b?.action_id ?? 'missing', b?.value ?? '', tsOf(card), thread),
      );
    },
  };
}
