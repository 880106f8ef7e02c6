/**
 * A Messages-tab (DM) task's thinking status, kept up while a run of it goes. Slack drops a status
 * two minutes after it was set when no message followed ("A two minute timeout applies, which
 * will cause the status to be removed if no message has been sent": assistant.threads.setStatus),
 * and the sink sets it only as the task starts and after each post: a model or a tool slower than
 * that would leave the thread looking idle while its agents work. So a run of a DM task sets it as
 * it starts (it may have lapsed before: a retry's backoff, a restart) and every KEEP_THINKING_MS
 * until it ends.
 *
 * Never "working" on a task that is not: the task's status is read before each set, and again once
 * Slack has taken it. A cancel, a redirect or a review that came meanwhile has the sink clear the
 * status, and that clear may reach Slack before this set: then the set is cleared again here. The
 * run's end waits for a set under way, so that what the end changes is cleared after it.
 *
 * A courtesy, as the sink's: a call Slack does not take, or whose slot is not free within a few
 * seconds, is logged and left (the next one comes a minute later); nothing of the run fails or
 * waits for it but its end.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { WebClient } from '@slack/web-api';
import type { LiveRunInfo, Task } from '../../engine/index.js';
import type { Logger } from '../../logger.js';
import { isDirectMessage, type SlackThread, slackOriginSchema } from '../shared/origin.js';
import type { RateLimits } from '../shared/rate-limits.js';
import { createStreamCalls, slackCode } from './stream-calls.js';
import type { SlackLive } from './streams.js';
import { threadStatus } from './thinking.js';

/** How often a run sets its thread's status again: half Slack's two minutes, for slot waits and clocks. */
export const KEEP_THINKING_MS = 60_000;

/** How long a set waits for its slot (Slack keeps this method's limit to itself: see rate-limits.ts). */
const SLOT_WAIT_MS = 5000;

/** Where the keeper's time comes from (a test passes its own). */
export interface ThinkingClock {
  /** Resolves after `ms`, or rejects once `signal` aborts. */
  sleep(ms: number, signal: AbortSignal): Promise<unknown>;
}

const realTime: ThinkingClock = { sleep: (ms, signal) => sleep(ms, undefined, { signal, ref: false }) };

/** `live`, whose runs of DM tasks keep their thread's thinking status up while they go. */
export function keepThinking(
  live: SlackLive,
  deps: { client: WebClient; limits: RateLimits; logger: Logger; clock?: ThinkingClock },
): SlackLive {
  const { client, logger, clock = realTime } = deps;
  const slack = createStreamCalls(client, deps.limits);
  const show = (thread: SlackThread, working: boolean) =>
    slack.call('assistant.threads.setStatus', undefined, SLOT_WAIT_MS, () =>
      client.assistant.threads.setStatus(threadStatus(thread, working)),
    );

  /** Sets the status if the task is working; false once there is nothing more to keep up. */
  const refresh = async (task: Task, thread: SlackThread, run: LiveRunInfo): Promise<boolean> => {
    if (!run.held() || (await run.status()) !== 'working') return false;
    try {
      await show(thread, true);
    } catch (err) {
      logger.warn(
        { err, task: task.id, slack: slackCode(err) },
        'could not keep the thread’s thinking status; the task goes on without it',
      );
      return true;
    }
    if ((await run.status()) === 'working') return true;
    // No longer working: the sink's clear may have reached Slack before this set did.
    await show(thread, false);
    return false;
  };

  return {
    ...live,
    open(task, run) {
      const view = live.open(task, run);
      const origin = slackOriginSchema.safeParse(task.origin).data;
      if (!origin || !isDirectMessage(origin.channel)) return view;
      const thread = { channel: origin.channel, ts: origin.ts };
      const ended = new AbortController();
      let underWay: Promise<boolean> = Promise.resolve(true);
      const tick = () => {
        underWay = refresh(task, thread, run).catch((err) => {
          logger.warn({ err, task: task.id }, 'could not keep the thread’s thinking status');
          return true;
        });
        return underWay;
      };
      void (async () => {
        let going = await tick();
        while (going && !ended.signal.aborted) {
          const slept = await clock.sleep(KEEP_THINKING_MS, ended.signal).then(
            () => true,
            () => false,
          );
          going = slept && !ended.signal.aborted && (await tick());
        }
      })();
      return {
        ...view,
        close: async (how) => {
          ended.abort();
          await Promise.all([underWay, view.close(how)]);
        },
      };
    },
  };
}
