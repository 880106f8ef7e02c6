/**
 * Sign-off rules end to end through the fake Slack, for a declared workflow: a 2-approval draft
 * review (progress on the card, a double click counted once, two people clicking at once, the
 * History modal with who approved what), then a final review that escalates at its deadline (a
 * ping in the thread and a DM to the person added) and is rejected automatically after it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { testClock } from '../helpers/harness.js';
import { appHomeOpened, click, commandBody, postSigned } from '../helpers/slack-requests.js';
import { slackPerFile } from '../helpers/slack-service.js';
import { slackThreads, until } from '../helpers/slack-thread.js';

// The release-notes example, its reviews made stricter: two of three approve the draft; the
// final review escalates to a lead after an hour, then rejects.
const FILE = join(import.meta.dirname, '..', '..', 'examples', 'declared', 'release-notes.yml');
const YAML = readFileSync(FILE, 'utf8').replace(
  / {4}checkpoints:\n[\s\S]*$/,
  `    checkpoints:
      draft_review: { reviewers: [U0BOB, U0CAT, U0DAN], approvals: 2, timeout: 4h, reminders: [1h], dmReviewers: true, onTimeout: remind }
      final_review: { reviewers: [U0BOB], timeout: 1h, onTimeout: escalate, escalateTo: [U0EVE, U0ZED], escalateAfter: 30m, finalAction: reject }
`,
);

const clock = testClock();

const file = slackPerFile('slack_sign_off', { yaml: YAML, options: { clock } });
const { slack } = file;
const { rootOf, tsOf, cardsIn, buttons, posts, ephemeralsTo, updatesOf } = slackThreads(slack);

describe('sign-off rules in Slack', () => {
  it('a 2-of-3 review, then an escalating final review, with the History modal telling who did what', async () => {
    await postSigned(file.events, commandBody('release-notes v4.0: offline mode'));
    const thread = tsOf(await until('root', () => rootOf('v4.0: offline mode')));
    const draft = await until('draft card', () => cardsIn(thread)[0], 20_000);
    expect(JSON.stringify(draft.blocks)).toContain('0 of 2 approvals');
    const value = buttons(draft).find((b) => b.action_id === 'signoff_approve')?.value ?? '';
    const approve = (user: string) =>
      postSigned(file.events, click(user, 'signoff_approve', value, tsOf(draft), thread));

    await approve('U0BOB');
    await until('bob told', () =>
      ephemeralsTo('U0BOB').find((t) => t.includes('Your approval is recorded (1 of 2)')),
    );
    const progress = await until('card shows 1 of 2', () =>
      updatesOf(tsOf(draft)).find((u) => JSON.stringify(u.blocks).includes('1 of 2 approvals')),
    );
    expect(JSON.stringify(progress.blocks)).toContain('signoff_approve'); // still open
    await approve('U0BOB');
    await until('double click refused', () =>
      ephemeralsTo('U0BOB').find((t) => t.includes('You have approved this already')),
    );

    // Two people at once: one completes the quorum, the other hears it was already decided.
    await Promise.all([approve('U0CAT'), approve('U0DAN')]);
    const decided = await until('card approved', () =>
      updatesOf(tsOf(draft)).find((u) => JSON.stringify(u.blocks).includes('(2 approvals)')),
    );
    expect(JSON.stringify(decided.blocks)).toMatch(/Approved by <@U0BOB> and <@U0(CAT|DAN)> \(2 approvals\)/);
    await until('the later click told', () =>
      [...ephemeralsTo('U0CAT'), ...ephemeralsTo('U0DAN')].find((t) => t.includes('already decided')),
    );

    // The final review: nobody answers in time; it is escalated to U0EVE, in the thread and by DM.
    const final = await until('final card', () => cardsIn(thread)[1], 20_000);
    expect(JSON.stringify(final.blocks)).toContain('(then <@U0EVE>, <@U0ZED> are asked too)');
    clock.advance(3600 + 1);
    await file.service.signoff.engine.releaseDueTimers('slack');
    const ping = await until('escalation in the thread', () =>
      posts().find((p) => p.thread_ts === thread && p.text.startsWith('Escalated')),
    );
    expect(JSON.stringify(ping.blocks)).toContain('no decision within 1h, so *Review the final');
    expect(JSON.stringify(ping.blocks)).toContain('escalated to <@U0EVE>, <@U0ZED>');
    // U0ZED is not in the channel: the thread says to invite them, and no DM tells them of it.
    expect(JSON.stringify(ping.blocks)).toContain('<@U0ZED> is not in this channel and cannot see the card');
    const dm = await until('DM to the lead', () =>
      posts().find((p) => !p.thread_ts && p.channel.startsWith('D') && p.text.includes('escalated to you')),
    );
    expect(slack.callsOf('conversations.open').some((c) => c.users === 'U0EVE')).toBe(true);
    expect(dm.text).toContain('Nobody decided in time');
    await until('card lists the lead', () =>
      updatesOf(tsOf(final)).find((u) =>
        JSON.stringify(u.blocks).includes('Reviewers: <@U0BOB>, <@U0EVE>, <@U0ZED>'),
      ),
    );

    clock.advance(30 * 60);
    await file.service.signoff.engine.releaseDueTimers('slack');
    const closed = await until('rejected automatically', () =>
      updatesOf(tsOf(final)).find((u) =>
        JSON.stringify(u.blocks).includes('Rejected automatically: nobody decided'),
      ),
    );
    expect(JSON.stringify(closed.blocks)).toContain('no decision within 90m, escalated included');
    // Events go out in order: the escalation's pings were done before this update; none reached U0ZED.
    expect(slack.callsOf('conversations.open').some((c) => c.users === 'U0ZED')).toBe(false);
    const root = await until('root says rejected', () =>
      updatesOf(thread).find((u) => JSON.stringify(u.blocks).includes('rejected automatically')),
    );

    // History on the root message: the trail in a modal.
    const history = (root.blocks as { elements?: { action_id: string }[] }[])
      .flatMap((b) => b.elements ?? [])
      .find((e) => e.action_id === 'signoff_history');
    expect(history).toBeDefined();
    await postSigned(file.events, click('U0ANN', 'signoff_history', 'task', thread));
    const modal = await until('history modal', () =>
      slack
        .callsOf('views.update')
        .find(
          (v) =>
            JSON.stringify(v.view).includes('Task history') && JSON.stringify(v.view).includes('rejected'),
        ),
    );
    const text = JSON.stringify(modal.view);
    expect(text).toContain('<@U0ANN> started the task');
    expect(text).toContain('<@U0BOB> approved _draft_review, round 1_ (1 of 2 approvals)');
    // The refusal's sentence, as its author was told it; its code is the audit's, not a person's.
    expect(text).toContain(
      '<@U0BOB> tried to approve _draft_review, round 1_: *refused* (You have approved this already.',
    );
    expect(text).toContain(
      'signoff escalated the review _final_review, round 1_ to <@U0EVE>, <@U0ZED> automatically: no decision within 1h',
    );
    expect(text).toContain('signoff rejected _final_review, round 1_ automatically: no decision within 90m');
  });

  it('GET /metrics: decisions by action and checkpoint, time to decision, pending reviews, tasks by status, queue depth, delivery failures', async () => {
    // A second task whose writer's words Slack refuses for good: a delivery failure to count.
    const stop = slack.refuse('chat.postMessage', (a) => a.username === 'Writer', 'invalid_blocks');
    try {
      await postSigned(file.events, commandBody('release-notes v4.1: sync'));
      const thread = tsOf(await until('root', () => rootOf('v4.1: sync')));
      await until('draft card', () => cardsIn(thread)[0], 20_000);
      await until('fallback shown', () =>
        posts().find((p) => p.thread_ts === thread && p.text.includes('invalid_blocks')),
      );
    } finally {
      stop();
    }
    const res = await fetch(file.events.replace('/slack/events', '/metrics'));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    const text = await res.text();
    const value = (line: string) =>
      Number(
        text
          .split('\n')
          .find((l) => l.startsWith(`${line} `))
          ?.split(' ')[1],
      );
    expect(value('signoff_database_up')).toBe(1);
    expect(
      value(
        'signoff_decisions_total{workflow="release-notes",checkpoint="draft_review",door="slack",action="approve",automatic="false"}',
      ),
    ).toBe(1);
    expect(
      value(
        'signoff_decisions_total{workflow="release-notes",checkpoint="final_review",door="slack",action="reject",automatic="true"}',
      ),
    ).toBe(1);
    expect(
      value(
        'signoff_time_to_decision_seconds_count{workflow="release-notes",checkpoint="draft_review",door="slack"}',
      ),
    ).toBe(1);
    // A timer's decision is not people's pace: it is counted above, not timed.
    expect(text).not.toContain(
      'signoff_time_to_decision_seconds_count{workflow="release-notes",checkpoint="final_review",door="slack"}',
    );
    expect(
      value('signoff_reviews_pending{workflow="release-notes",checkpoint="draft_review",door="slack"}'),
    ).toBe(1);
    expect(value('signoff_tasks{workflow="release-notes",door="slack",status="rejected"}')).toBe(1);
    expect(value('signoff_tasks{workflow="release-notes",door="slack",status="waiting"}')).toBe(1);
    expect(value('signoff_event_delivery_failures{type="agent_said"}')).toBeGreaterThanOrEqual(1);
    expect(text).toMatch(/^signoff_queue_jobs\{queue="[^"]+",state="(waiting|delayed|active)"\} \d+$/m);
    expect(text).toContain('signoff_process_cpu_seconds_total');
  });

  it('the App Home shows, per workflow, what waits and the median time to decision of the last 7 days, to members of its channel only', async () => {
    const home = async (user: string) => {
      const before = slack.callsOf('views.publish').length;
      await postSigned(file.events, appHomeOpened(user), { json: true });
      return JSON.stringify(
        (
          await until(`home for ${user}`, () =>
            slack
              .callsOf('views.publish')
              .slice(before)
              .find((v) => v.user_id === user),
          )
        ).view,
      );
    };
    const bob = await home('U0BOB');
    expect(bob).toContain('Reviews by workflow');
    expect(bob).toMatch(
      /\*release-notes\* · 1 waiting · median time to decision \d+s \(1 decision, last 7 days\)/,
    );
    // Someone outside the channel sees no numbers from it.
    expect(await home('U0ZED')).not.toContain('Reviews by workflow');
  });

  it('a reminder of a 2-approval review reaches, in the thread and by DM, only the reviewers who have not approved', async () => {
    // The second task's draft waits (from the metrics test); U0BOB approves it now.
    const thread = tsOf(await until('root', () => rootOf('v4.1: sync')));
    const draft = cardsIn(thread)[0] as NonNullable<ReturnType<typeof cardsIn>[0]>;
    const value = buttons(draft).find((b) => b.action_id === 'signoff_approve')?.value ?? '';
    await postSigned(file.events, click('U0BOB', 'signoff_approve', value, tsOf(draft), thread));
    await until('card shows 1 of 2', () =>
      updatesOf(tsOf(draft)).find((u) => JSON.stringify(u.blocks).includes('1 of 2 approvals')),
    );
    clock.advance(3 * 3600 + 1);
    await file.service.signoff.engine.releaseDueTimers('slack');
    const reminder = await until('reminder in the thread', () =>
      posts().find((p) => p.thread_ts === thread && p.text.startsWith('Reminder')),
    );
    expect(JSON.stringify(reminder.blocks)).toContain('Reminder for <@U0CAT>, <@U0DAN>');
    expect(JSON.stringify(reminder.blocks)).not.toContain('U0BOB');
    const remindedBy = (dm: string) => posts().some((p) => p.channel === dm && p.text.includes('Reminder'));
    await until('DM reminders', () => (remindedBy('D0CAT') && remindedBy('D0DAN') ? true : undefined));
    // One reminder's DMs go out in the reviewers' order (U0BOB first): with the others sent, his would be.
    expect(remindedBy('D0BOB')).toBe(false);
  });
});
