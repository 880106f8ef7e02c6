/**
 * Modals against a Slack that enforces its trigger window (a trigger_id opens one view, once,
 * within 3 s of the request that carried it) and rate limits with 429 + Retry-After: a busy
 * method holds back nobody else's modal, a slow database does not use up the window, and a modal
 * Slack did not open gets the person a sentence, and so does an Edit form Slack did not take in
 * place of "Reading the call…". Through Bolt's HTTP receiver, a real engine and
 * Postgres, and the fake Slack Web API.
 */
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { TRIGGER_LIFE_MS, triggerId } from '../helpers/fake-slack-views.js';
import {
  appHomeOpened,
  click,
  commandBody,
  postSigned,
  withResponseUrl,
  withTrigger,
} from '../helpers/slack-requests.js';
import { slackPerFile } from '../helpers/slack-service.js';
import { type Post, slackThreads, until } from '../helpers/slack-thread.js';

const YAML = `workflows:
  pair:
    maxIterations: 1
  mail:
    module: ./test/fixtures/hitl-graph.ts
    checkpoints:
      tool_call: { reviewers: [requester, U0BOB] }
`;

const file = slackPerFile('slack_modals', { yaml: YAML });
const { slack } = file;
const { cardsIn, rootOf, tsOf, buttons, ephemeralsTo } = slackThreads(slack);

let n = 0;
async function start(workflow: string, ask: string) {
  const text = `${ask} ${++n}`;
  await postSigned(file.events, commandBody(`${workflow} ${text}`));
  const thread = tsOf(await until('root', () => rootOf(text)));
  const card = await until('card', () => cardsIn(thread)[0], 20_000);
  return { thread, card };
}

/** `user` clicks the card's button `actionId`; resolves once Bolt answered. */
const press = (user: string, card: Post, thread: string, actionId: string, trigger?: string) => {
  const value = buttons(card).find((b) => b.action_id === actionId)?.value ?? '';
  const body = click(user, actionId, value, tsOf(card), thread);
  return postSigned(file.events, trigger ? withTrigger(body, trigger) : body);
};

/** The views.open calls Slack carried out (so within their trigger's window) after the first `from`. */
const openedAfter = (from: number) => () => {
  const opened = slack
    .callsOf('views.open')
    .slice(from)
    .filter((v) => !v.failed);
  return opened.length ? opened : undefined;
};

const triggerRefusals = () => slack.refusals.filter((r) => r.error.endsWith('trigger_id'));

describe('modals within the trigger window', () => {
  it("a 429 on one method (a busy Home tab's views.publish) does not hold back another person's Revise modal", async () => {
    const { thread, card } = await start('pair', 'name the new product');
    // Slack says: no views.publish for 30 s.
    const undo = slack.rateLimit('views.publish', 30);
    try {
      await postSigned(file.events, appHomeOpened('U0CAT'), { json: true });
      await until('the Home tab limited', () =>
        slack.calls.find((c) => c.method === 'views.publish' && c.args.limited),
      );
      const from = slack.callsOf('views.open').length;
      await press('U0BOB', card, thread, 'signoff_revise');
      // The fake refuses a trigger older than 3 s: an open it carried out came within the window.
      const [modal] = await until('the Revise modal', openedAfter(from), 10_000);
      expect(JSON.stringify(modal?.view)).toContain('What should change?');
      expect(triggerRefusals()).toEqual([]);
    } finally {
      undo();
    }
  });

  it('Revise and Edit open their modal within the trigger window while the database is slow; Edit shows its form once the review is read', async () => {
    const pair = await start('pair', 'summarise the contract');
    const mail = await start('mail', 'send the launch note');
    // The database is slow: every read of the reviews waits until this transaction ends.
    const locker = new pg.Client({ connectionString: file.db.url });
    await locker.connect();
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE signoff.reviews IN ACCESS EXCLUSIVE MODE');
    let released = false;
    const release = async () => {
      if (released) return;
      released = true;
      await locker.query('ROLLBACK');
      await locker.end();
    };
    try {
      const updates = slack.callsOf('views.update').length;
      let from = slack.callsOf('views.open').length;
      await press('U0BOB', pair.card, pair.thread, 'signoff_revise');
      const [revise] = await until('the Revise modal', openedAfter(from), 10_000);
      expect(JSON.stringify(revise?.view)).toContain('What should change?');

      from = slack.callsOf('views.open').length;
      await press('U0BOB', mail.card, mail.thread, 'signoff_edit');
      const [edit] = await until('the Edit modal', openedAfter(from), 10_000);
      expect(JSON.stringify(edit?.view)).toContain('Reading the call');
      expect(triggerRefusals()).toEqual([]);

      // The database answers again: the form replaces "reading", with the call's arguments.
      await release();
      const form = await until('the Edit form', () => slack.callsOf('views.update')[updates], 10_000);
      const blocks = (form.view as { blocks: { block_id?: string; element?: { initial_value?: string } }[] })
        .blocks;
      const args = blocks.find((b) => b.block_id === 'field_args_0')?.element?.initial_value ?? '{}';
      expect(Object.keys(JSON.parse(args)).sort()).toEqual(['body', 'subject', 'to']);
      expect(form.failed).toBeUndefined();
    } finally {
      await release();
    }
  });

  it('a modal Slack did not open (its trigger expired) gets the person a sentence: Revise, History and /signoff alone', async () => {
    const { thread, card } = await start('pair', 'plan the offsite');
    const expired = () => triggerId(Date.now() - 5000);

    await press('U0BOB', card, thread, 'signoff_revise', expired());
    const revise = await until('the sentence after Revise', () =>
      ephemeralsTo('U0BOB').find((t) => t.includes('Slack did not open the form in time')),
    );
    expect(revise).toContain('Click *Revise* on the card again.');

    await postSigned(file.events, withTrigger(click('U0DAN', 'signoff_history', 'task', thread), expired()));
    const history = await until('the sentence after History', () =>
      ephemeralsTo('U0DAN').find((t) => t.includes('Slack did not open the history in time')),
    );
    expect(history).toContain('Click *History* on the message again.');

    const responseUrl = slack.responseUrl('C0WORK', '', 'U0EVE');
    await postSigned(
      file.events,
      commandBody('', 'U0EVE', { response_url: responseUrl, trigger_id: expired() }),
    );
    const command = await until('the sentence after /signoff', () =>
      ephemeralsTo('U0EVE').find((t) => t.includes('Slack did not open the form in time')),
    );
    expect(command).toContain('Send `/signoff` again');
    expect(triggerRefusals().map((r) => r.error)).toEqual([
      'expired_trigger_id',
      'expired_trigger_id',
      'expired_trigger_id',
    ]);
  });
});

describe('a modal when Slack’s budget for it is spent', () => {
  it('views.open’s limit spent (for every process, as kept in Postgres): the Revise click gets a sentence at once, and the call is not sent to Slack to be refused', async () => {
    const { thread, card } = await start('pair', 'book the venue');
    const pool = file.service.signoff.db.pool;
    // Every process together has used views.open's budget for the next 30 s.
    await pool.query(`SELECT signoff.hold_slot('slack:views.open', 30000, 600, 5)`);
    try {
      const opens = slack.callsOf('views.open').length;
      // The click's trigger is dated now (the fake takes it for 3 s).
      const trigger = triggerId();
      const clickedAt = Date.now();
      await press('U0BOB', card, thread, 'signoff_revise', trigger);
      const said = await until('the sentence after Revise', () =>
        ephemeralsTo('U0BOB').find((t) => t.includes('Slack did not open the form in time')),
      );
      expect(said).toContain('Click *Revise* on the card again.');
      // At once: Slack took the sentence while the click's trigger would still have opened a modal.
      const told = slack.calls.find(
        (c) =>
          c.method === 'chat.postEphemeral' &&
          c.args.user === 'U0BOB' &&
          String(c.args.text).includes('Slack did not open the form in time') &&
          !c.args.failed,
      );
      expect((told?.at ?? Number.POSITIVE_INFINITY) - clickedAt).toBeLessThan(TRIGGER_LIFE_MS);
      // Told without waiting for a trigger that would expire, and Slack never saw the call.
      expect(slack.callsOf('views.open')).toHaveLength(opens);
      expect(slack.limited.filter((l) => l.method === 'views.open')).toEqual([]);
    } finally {
      await pool.query(`DELETE FROM signoff.rate_limits WHERE key = 'slack:views.open'`);
    }
  });
});

describe('an Edit form Slack does not take', () => {
  /** The text of the views.update calls after the first `from`, and whether Slack failed each. */
  const updatesAfter = (from: number) =>
    slack
      .callsOf('views.update')
      .slice(from)
      .map((u) => ({ failed: Boolean(u.failed), shown: JSON.stringify(u.view) }));

  it.each([
    ['an error', 'internal_error', 'Slack did not take the form for this call just now'],
    ['a refusal of its content', 'invalid_blocks', "Slack would not show this call's form"],
  ])('after %s, the modal says so instead of "Reading the call…" for ever', async (_, error, said) => {
    const mail = await start('mail', 'send the invoice reminder');
    const from = slack.callsOf('views.update').length;
    slack.failNext('views.update', { error });
    await press('U0BOB', mail.card, mail.thread, 'signoff_edit');
    const [form, shown] = await until('the modal updated after the failure', () => {
      const u = updatesAfter(from);
      return u.length >= 2 ? u : undefined;
    });
    expect(form).toMatchObject({ failed: true });
    expect(form?.shown).toContain('field_args_0');
    expect(shown).toMatchObject({ failed: false });
    expect(shown?.shown).toContain(said);
    expect(shown?.shown).not.toContain('Reading the call');
  });

  it('a 429 with a short Retry-After is waited out: the form is shown', async () => {
    const mail = await start('mail', 'send the board pack');
    const from = slack.callsOf('views.update').length;
    slack.failNext('views.update', { status: 429, retryAfter: 1 });
    await press('U0BOB', mail.card, mail.thread, 'signoff_edit');
    const shown = await until('the form after the 429', () => updatesAfter(from).find((u) => !u.failed));
    expect(shown.shown).toContain('field_args_0');
    expect(updatesAfter(from).map((u) => u.failed)).toEqual([true, false]);
  });

  it('when Slack takes no update of the modal at all (429 for 30 s), the person is told beside it, through the click’s response URL where Slack shows them no ephemeral', async () => {
    const mail = await start('mail', 'send the offsite agenda');
    // U0OUT reads C0WORK without having joined it: Slack shows them no ephemeral there.
    const before = ephemeralsTo('U0OUT').length;
    const undo = slack.rateLimit('views.update', 30);
    try {
      const value = buttons(mail.card).find((b) => b.action_id === 'signoff_edit')?.value ?? '';
      const body = click('U0OUT', 'signoff_edit', value, tsOf(mail.card), mail.thread);
      await postSigned(
        file.events,
        withResponseUrl(body, slack.responseUrl('C0WORK', tsOf(mail.card), 'U0OUT')),
      );
      const told = await until('the sentence to U0OUT', () => ephemeralsTo('U0OUT')[before]);
      expect(told).toContain('Slack did not take the Edit form for this call just now, so nothing changed.');
      expect(told).toContain('click *Edit* on the card again');
      expect(slack.ephemerals.filter((e) => e.user === 'U0OUT').at(-1)?.viaResponseUrl).toBe(true);
    } finally {
      undo();
    }
  });
});

describe('History Slack takes no update of', () => {
  it.each([
    [
      'a 429 for 30 s',
      () => slack.rateLimit('views.update', 30),
      'Slack did not take the history just now. Close the window that reads “Reading the history…” and click *History* on the message again.',
    ],
    [
      'a refusal of every update',
      () => slack.refuse('views.update', () => true, 'invalid_blocks'),
      "Slack would not show this task's history (it refused its content). Close the window that reads “Reading the history…”; the whole trail is in the terminal: `signoff audit slack-C0WORK-",
    ],
  ])(
    'after %s, the person is told beside the modal that reads "Reading the history…", through the click’s response URL where Slack shows them no ephemeral',
    async (_, fault, said) => {
      const { thread } = await start('pair', 'sum up the survey');
      // U0OUT reads C0WORK without having joined it: Slack shows them no ephemeral there.
      const before = ephemeralsTo('U0OUT').length;
      const updates = slack.callsOf('views.update').length;
      // What an earlier 429 taught the client about views.update is forgotten: Slack is asked.
      const forget = () =>
        file.service.signoff.db.pool.query(
          `DELETE FROM signoff.rate_limits WHERE key = 'slack:views.update'`,
        );
      await forget();
      const undo = fault();
      try {
        const body = click('U0OUT', 'signoff_history', 'task', thread);
        await postSigned(file.events, withResponseUrl(body, slack.responseUrl('C0WORK', thread, 'U0OUT')));
        const told = await until('the sentence to U0OUT', () => ephemeralsTo('U0OUT')[before]);
        expect(told).toContain(said);
        expect(slack.ephemerals.filter((e) => e.user === 'U0OUT').at(-1)?.viaResponseUrl).toBe(true);
        // The trail was sent and Slack took it not: nothing shows in the modal but "Reading…".
        const tried = slack.callsOf('views.update').slice(updates);
        expect(tried.length).toBeGreaterThan(0);
        expect(tried.every((u) => u.failed)).toBe(true);
      } finally {
        undo();
        await forget();
      }
    },
  );
});
