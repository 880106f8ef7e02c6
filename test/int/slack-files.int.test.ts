/**
 * Thread replies with files (Slack's `file_share` messages), end to end: they count by their
 * words like any reply, and the feedback or new goal names the files in a line the agents read
 * (they cannot open files). A file with no words changes nothing; addressed to the bot, its author
 * is told why.
 */
import { describe, expect, it } from 'vitest';
import { FILES_ALONE } from '../../src/slack/inbound/listeners/events/thread-reply.js';
import { fileReply, uploaded } from '../helpers/slack-files.js';
import { commandBody, ephemeralClick, postSigned } from '../helpers/slack-requests.js';
import { scriptedWith, slackPerFile, thinkUnlessAborted } from '../helpers/slack-service.js';
import { slackThreads, until } from '../helpers/slack-thread.js';

/** Every prompt the agents were given, as text. */
const prompts: string[] = [];

const YAML = `workflows:
  pair:
    maxIterations: 1
    checkpoints:
      review: { reviewers: [U0BOB, requester], allowSelfApproval: false }
`;

const line = (names: string) =>
  `(Attached in Slack: ${names}. The agents cannot open files; only these words reach them.)`;

const file = slackPerFile('slack_files', {
  yaml: YAML,
  options: {
    // Agents on a goal marked SLOW think for 30 s (abortably): long enough to be redirected.
    modelFor: scriptedWith(async (_, input, options) => {
      const prompt = JSON.stringify(input.map((m) => m.content));
      prompts.push(prompt);
      if (prompt.includes('SLOW') && !prompt.includes('replaces the earlier goal')) {
        await thinkUnlessAborted(30_000, options?.signal);
      }
    }),
  },
});
const { slack } = file;
const { cardsIn, rootOf, tsOf, ephemeralsIn, updatesOf } = slackThreads(slack);

async function startTask(text: string, card = true) {
  await postSigned(file.events, commandBody(`pair ${text}`));
  const thread = tsOf(await until('root', () => rootOf(text)));
  const task = await until('the task', async () =>
    (await file.service.signoff.engine.listTasks()).find((t) => t.text === text),
  );
  if (card) await until('review card', () => cardsIn(thread)[0], 20_000);
  return { thread, task };
}

const send = (user: string, text: string, thread: string, names: string[]) =>
  postSigned(
    file.events,
    fileReply(
      user,
      text,
      thread,
      names.map((n) => uploaded(n, user)),
    ),
    { json: true },
  );

describe('a reply with a file', () => {
  it('"revise:" with a screenshot at a review is Revise: its words go to the agents with a line naming the file they cannot open', async () => {
    const { thread, task } = await startTask('write the login help page');
    await send('U0BOB', 'revise: the button is called Sign in, see the screenshot', thread, [
      'login-button.png',
    ]);
    const [decided] = await until('decided', async () => {
      const r = await file.service.signoff.engine.reviews(task.id, 'decided');
      return r.length ? r : undefined;
    });
    const feedback = `the button is called Sign in, see the screenshot\n\n${line('login-button.png')}`;
    expect(decided?.decision).toMatchObject({ action: 'revise', by: 'U0BOB', feedback });
    // The next round's agents read it; the card says it to people.
    await until('round 2 card', () => cardsIn(thread)[1], 20_000);
    expect(prompts.some((p) => p.includes('login-button.png') && p.includes('cannot open files'))).toBe(true);
    const cardTs = tsOf(cardsIn(thread)[0] as never);
    expect(updatesOf(cardTs).some((u) => JSON.stringify(u.blocks).includes('login-button.png'))).toBe(true);
  });

  it('words and a file not addressed to the bot get their author the private question; "Revise with it" sends the words and the line', async () => {
    const { thread, task } = await startTask('draft the pricing table');
    await send('U0BOB', 'the colours are off here', thread, ['pricing.png', 'palette.pdf']);
    const question = await until('the question', () => ephemeralsIn(thread, 'U0BOB')[0]);
    expect(JSON.stringify(question.blocks)).toContain('pricing.png, palette.pdf');
    expect(await file.service.signoff.engine.reviews(task.id, 'decided')).toEqual([]);
    const revise = (
      (question.blocks ?? []) as { type: string; elements?: { action_id: string; value: string }[] }[]
    )
      .find((b) => b.type === 'actions')
      ?.elements?.find((e) => e.action_id === 'signoff_reply_revise');
    await postSigned(
      file.events,
      ephemeralClick(
        'U0BOB',
        'signoff_reply_revise',
        revise?.value ?? '',
        question.ts,
        slack.responseUrl(question.channel, question.ts),
      ),
    );
    const [decided] = await until('decided', async () => {
      const r = await file.service.signoff.engine.reviews(task.id, 'decided');
      return r.length ? r : undefined;
    });
    expect(decided?.decision?.feedback).toBe(
      `the colours are off here\n\n${line('pricing.png, palette.pdf')}`,
    );
  });

  it('a file alone changes nothing: addressed to the bot, its author is told the agents cannot open files; otherwise nothing is said', async () => {
    const { thread, task } = await startTask('outline the release checklist');
    await send('U0BOB', '', thread, ['whiteboard.jpg']);
    await send('U0BOB', '<@U0BOT>', thread, ['whiteboard-2.jpg']);
    const told = await until('told', () => ephemeralsIn(thread, 'U0BOB')[0]);
    expect(told.text).toBe(FILES_ALONE);
    await file.service.settled();
    expect(ephemeralsIn(thread, 'U0BOB')).toHaveLength(1);
    expect((await file.service.signoff.engine.reviews(task.id)).map((r) => r.status)).toEqual(['pending']);
  });

  it('"redirect:" with a file while the agents work redirects the task: the new goal is the words and the line naming the file', async () => {
    const { task } = await startTask('SLOW draft the FAQ', false);
    const thread = String(task.origin.ts);
    await until('agents working', async () =>
      (await file.service.signoff.engine.getTask(task.id))?.status === 'working' &&
      prompts.some((p) => p.includes('SLOW draft the FAQ'))
        ? true
        : undefined,
    );
    await send('U0ANN', 'redirect: make it about billing only', thread, ['billing-questions.txt']);
    await until('review of the new goal', () => cardsIn(thread)[0], 20_000);
    const redirected = await file.service.signoff.engine.getTask(task.id);
    expect(redirected?.text).toBe(`make it about billing only\n\n${line('billing-questions.txt')}`);
    expect(redirected?.abandonedGoals.map((g) => g.text)).toEqual(['SLOW draft the FAQ']);
  });
});
