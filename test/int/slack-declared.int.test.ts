/** The declared example end to end: through the fake Slack (cards, a thread-reply revise) and in the terminal. */

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runSignoff } from '../helpers/processes.js';
import { click, commandBody, postSigned, threadMessage } from '../helpers/slack-requests.js';
import { slackPerFile } from '../helpers/slack-service.js';
import { slackThreads, until } from '../helpers/slack-thread.js';

const FILE = join(import.meta.dirname, '..', '..', 'examples', 'declared', 'release-notes.yml');

const file = slackPerFile('slack_declared', { yaml: readFileSync(FILE, 'utf8') });
const { slack } = file;
const { rootOf, tsOf, cardsIn, buttons, posts } = slackThreads(slack);

describe('a declared workflow end to end', () => {
  it('in Slack: the draft card, the parallel checks, a revise by reply back to the draft, approvals to Done', async () => {
    await postSigned(file.events, commandBody('release-notes v3.0: dark mode'));
    const thread = tsOf(await until('root', () => rootOf('v3.0: dark mode')));
    const approve = async (n: number) => {
      const card = await until(`card ${n + 1}`, () => cardsIn(thread)[n], 20_000);
      const value = buttons(card).find((b) => b.action_id === 'signoff_approve')?.value ?? '';
      await postSigned(file.events, click('U0BOB', 'signoff_approve', value, tsOf(card), thread));
      return card;
    };
    await approve(0); // the draft
    const final = await until('final card', () => cardsIn(thread)[1], 20_000);
    expect(JSON.stringify(final.blocks)).toContain('Review the final');
    await postSigned(file.events, threadMessage('U0BOB', 'revise: mention the keyboard shortcut', thread), {
      json: true,
    });
    const redraft = await approve(2); // the draft again, with the feedback
    expect(JSON.stringify(redraft.blocks)).toContain('mention the keyboard shortcut');
    await approve(3); // the final
    await until('root says Done', () =>
      slack.callsOf('chat.update').find((u) => u.ts === thread && JSON.stringify(u.blocks).includes('Done')),
    );
    const authors = new Set(
      posts()
        .filter((p) => p.thread_ts === thread)
        .map((p) => (p as { username?: string }).username),
    );
    expect([...authors].filter(Boolean).sort()).toEqual(
      expect.arrayContaining(['Editor', 'Legal', 'Product', 'Writer']),
    );
  });

  it('in the terminal: run, approve, done', async () => {
    const r = await runSignoff(
      ['run', 'release-notes', 'v3.1: export'],
      { DATABASE_URL: file.db.url, SIGNOFF_CONFIG: FILE },
      '\n\n',
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Review the draft');
    expect(r.stdout).toContain('Review the final');
    expect(r.stdout.trim().split('\n').at(-1)).toMatch(/^task \S+: done$/);
  });
});
