/**
 * The card shows what is approved, end to end: a team's own graph (test/fixtures/asks.ts) asks
 * questions of any size through Bolt's HTTP receiver, a real engine and Postgres, and the fake
 * Slack Web API. Content longer than a card is all in the thread before it; a request that does
 * not validate gets a card with a note; a settling that fails every time fails its task with a
 * sentence and Retry, never "working" for ever.
 */
import { describe, expect, it } from 'vitest';
import { FAILURE_SENTENCES } from '../../src/failures.js';
import { neutralizeMarkdown } from '../../src/slack/blocks/text.js';
import { slackTaskId } from '../../src/slack/shared/origin.js';
import { contentHash } from '../../src/workflows/protocol/content-hash.js';
import { LONG_BODY, OVERSIZED_BODY, OVERSIZED_TITLE, TOOL_CALL_ARGS } from '../fixtures/asks.js';
import { click, commandBody, postSigned } from '../helpers/slack-requests.js';
import { slackPerFile } from '../helpers/slack-service.js';
import { type Post, slackThreads, until } from '../helpers/slack-thread.js';

const file = slackPerFile('slack_cards', {
  yaml: 'workflows:\n  asks:\n    module: ./test/fixtures/asks.ts\n    description: Asks one question\n',
});
const { slack } = file;
const { posts, cardsIn, rootOf, tsOf, buttons } = slackThreads(slack);

const engine = () => file.service.signoff.engine;
const taskOfThread = (thread: string) => slackTaskId({ channel: 'C0WORK', ts: thread });
const inThread = (thread: string) => posts().filter((p) => p.thread_ts === thread);
const markdownOf = (p: Post) =>
  p.blocks
    .filter((b) => b.type === 'markdown')
    .map((b) => (b as unknown as { text: string }).text)
    .join('\n');
const actionIds = (card: Post) => buttons(card).map((b) => b.action_id);
const button = (card: Post, id: string) => buttons(card).find((b) => b.action_id === id)?.value ?? '';
/** Posts carrying a review's full text (their heading says so). */
const fullText = (thread: string) =>
  inThread(thread).filter((p) => JSON.stringify(p.blocks).includes('The full text of'));

async function start(text: string) {
  await postSigned(file.events, commandBody(`asks ${text}`));
  const thread = tsOf(await until('root', () => rootOf(text)));
  return { thread, taskId: taskOfThread(thread) };
}

const statusOf = async (taskId: string) => (await engine().getTask(taskId))?.status;

describe('the card shows what is approved', () => {
  it('content longer than a card: all of it is in the thread just before the card, which says how much it does not show', async () => {
    // The card's first post fails as Slack fails at times: the posts before it are not repeated.
    let cardTries = 0;
    const stop = slack.refuse(
      'chat.postMessage',
      (a) => JSON.stringify(a.blocks ?? '').includes('signoff_approve') && cardTries++ === 0,
      'internal_error',
    );
    try {
      const { thread, taskId } = await start('long letter to the board');
      const card = await until('the card', () => cardsIn(thread)[0], 20_000);
      const [review] = await engine().reviews(taskId, 'pending');
      expect(review?.request.body).toBe(LONG_BODY);

      // The whole content, in order, right before the card (each part once).
      const parts = fullText(thread);
      expect(parts.length).toBe(3);
      expect(JSON.stringify(parts.map((p) => p.blocks))).toContain('part 3 of 3');
      const thread_ = inThread(thread);
      expect(thread_.slice(-4)).toEqual([...parts, card]);
      const shownAbove = parts.map(markdownOf).join(' ');
      expect(shownAbove.replace(/\s+/g, '')).toBe(neutralizeMarkdown(LONG_BODY).replace(/\s+/g, ''));
      expect(shownAbove).toContain('Recipient: eve@evil.example');

      // The card: the beginning, and how much more is above; the recipient is not on it.
      const onCard = markdownOf(card);
      expect(onCard).not.toContain('eve@evil.example');
      const [, hidden] =
        /_([\d,]+) more characters are not shown here: the whole text is in the 3 messages above\._/.exec(
          onCard,
        ) ?? [];
      const shown = onCard.slice(0, onCard.lastIndexOf('\n\n_'));
      expect(Number(hidden?.replace(/,/g, ''))).toBe(LONG_BODY.length - shown.length);

      // The hash Approve carries covers the review's content: exactly what the card and the posts show.
      const h = JSON.parse(button(card, 'signoff_approve')).h;
      expect(h).toBe(contentHash(review?.request as never));
      await postSigned(
        file.events,
        click('U0BOB', 'signoff_approve', button(card, 'signoff_approve'), tsOf(card), thread),
      );
      await until('the task done', async () => ((await statusOf(taskId)) === 'done' ? true : undefined));
      expect(fullText(thread)).toHaveLength(3);
    } finally {
      stop();
    }
  });

  it('a long card from before its content went to the thread is never redrawn with Approve', async () => {
    const { thread, taskId } = await start('long letter, as signoff posted it before');
    const card = await until('the card', () => cardsIn(thread)[0], 20_000);
    const [review] = await engine().reviews(taskId, 'pending');
    // As a card posted by an earlier signoff: no record of the content's posts above it.
    await file.service.signoff.db.pool.query('DELETE FROM signoff.slack_posts WHERE key LIKE $1', [
      `card:${review?.id}:text:%`,
    ]);
    // A click on a card that is out of date redraws it: plain, with nothing that approves.
    const stale = JSON.stringify({ ...JSON.parse(button(card, 'signoff_approve')), h: 'not-what-it-shows' });
    await postSigned(file.events, click('U0BOB', 'signoff_approve', stale, tsOf(card), thread));
    const redrawn = await until('the card redrawn', () =>
      slack.callsOf('chat.update').find((u) => u.ts === tsOf(card)),
    );
    expect(JSON.stringify(redrawn.blocks)).not.toContain('signoff_approve');
    expect(JSON.stringify(redrawn.blocks)).toContain('cannot be approved here');
    expect(await statusOf(taskId)).toBe('waiting');
  });

  it('a request that would not validate (200-character title, 200k body) gets a card with notes, and no Approve for what cannot be shown', async () => {
    const { thread, taskId } = await start('oversized transfer');
    const card = await until('the card', () => cardsIn(thread)[0], 20_000);
    expect(await statusOf(taskId)).toBe('waiting');
    const header = JSON.stringify(card.blocks.find((b) => b.type === 'header'));
    expect(header).toContain(OVERSIZED_TITLE.slice(0, 100));
    expect(header).toContain('…');
    const everything = [...fullText(thread).map(markdownOf), markdownOf(card)].join('\n');
    expect(everything).toContain(`**Title in full:** ${OVERSIZED_TITLE}`);
    expect(everything).toMatch(/_\(… [\d,]+ characters cut\)_/);
    expect(everything).toContain('too long to show in full, so it cannot be approved here');
    expect(everything).not.toContain('and the last word');
    expect(OVERSIZED_BODY.endsWith('and the last word')).toBe(true);
    expect(actionIds(card)).toEqual([
      'signoff_revise',
      'signoff_reject',
      'signoff_claim',
      'signoff_hand_over',
    ]);
  });

  it('a 5,000-character tool call gets a card, and its recipient is visible from it', async () => {
    const { thread, taskId } = await start('tool-call the letter');
    const card = await until('the card', () => cardsIn(thread)[0], 20_000);
    expect(await statusOf(taskId)).toBe('waiting');
    expect(JSON.stringify(TOOL_CALL_ARGS).length).toBeGreaterThan(5000);
    const everything = [...fullText(thread).map(markdownOf), markdownOf(card)].join('\n');
    expect(everything).toContain(TOOL_CALL_ARGS.to);
  });

  it('a settling that throws every time fails the task with a sentence and Retry; once fixed, Retry asks the question', async () => {
    // The database refuses this task's review every time (as a constraint or a full disk would).
    const pool = file.service.signoff.db.pool;
    await pool.query(`
      CREATE FUNCTION pg_temp_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.request::text LIKE '%never-settles%' THEN RAISE EXCEPTION 'refused by the test'; END IF;
        RETURN NEW;
      END $$`);
    await pool.query(
      'CREATE TRIGGER refuse_review BEFORE INSERT ON signoff.reviews FOR EACH ROW EXECUTE FUNCTION pg_temp_refuse()',
    );
    try {
      const { thread, taskId } = await start('never-settles the accounts');
      const failed = await until(
        'the task failed',
        async () => {
          const t = await engine().getTask(taskId);
          return t?.status === 'failed' ? t : undefined;
        },
        40_000,
      );
      expect(failed.statusReason).toBe(FAILURE_SENTENCES.unsaved);
      expect(cardsIn(thread)).toEqual([]);
      const root = await until('the root shows the failure and Retry', () =>
        slack
          .callsOf('chat.update')
          .filter((u) => u.ts === thread)
          .find((u) => JSON.stringify(u.blocks).includes('signoff_retry')),
      );
      expect(JSON.stringify(root.blocks)).toContain('could not save what this step ended with');

      await pool.query('DROP TRIGGER refuse_review ON signoff.reviews');
      await postSigned(file.events, click('U0ANN', 'signoff_retry', 'task', thread));
      const card = await until('the card after Retry', () => cardsIn(thread)[0], 20_000);
      expect(markdownOf(card)).toContain('never-settles the accounts');
      expect(await statusOf(taskId)).toBe('waiting');
    } finally {
      await pool.query('DROP TRIGGER IF EXISTS refuse_review ON signoff.reviews');
      await pool.query('DROP FUNCTION IF EXISTS pg_temp_refuse()');
    }
  });
});
