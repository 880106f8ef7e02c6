/**
 * Starting a task from Slack, after the request was acked: claim the request with what it asks
 * (a retry of the same command finds it claimed), post the root message (in a channel its ts
 * names the thread and the task; in the app's Messages tab it is the bot's reply in the thread of
 * the person's message, which names them), record the root, start the task.
 *
 * A process can die anywhere in between. Once the claim is in, the start is finished by someone:
 * this process, or a sweep in any web process that finds a claim left unfinished. The sweep takes
 * the recorded root, or finds it in the channel by its message metadata, or posts it; two roots
 * for one request cannot both stand (the one recorded first wins, the other is deleted).
 */
import type { WebClient } from '@slack/web-api';
import { z } from 'zod';
import { DOORS } from '../../engine/index.js';
import { isSignoffError } from '../../errors.js';
import { rootMessage } from '../blocks/messages.js';
import { isPerson } from '../blocks/people.js';
import { startRefusal } from '../shared/final-errors.js';
import { type SlackOrigin, slackTaskId, taskInThread } from '../shared/origin.js';
import { postMetadata } from '../shared/posts.js';
import { findRecentPost, findThreadPost } from '../shared/recent-post.js';
import { claimRequest, linkRequest, recordRoot, takeUnfinishedStarts } from './claims.js';
import { COULD_NOT_RECORD, NOT_STARTED, STARTS_LATER, type StartDeps } from './deps.js';
import { answerInThread } from './messages-tab.js';
import { afterRateLimit } from './rate-limited.js';
import { respondPrivately } from './respond.js';
import { tellClicker } from './tell-clicker.js';

const slackStartSchema = z.object({
  /** The workspace the request named: kept in the task's origin, never part of its id. */
  team: z.string(),
  channel: z.string(),
  user: z.string(),
  workflow: z.string(),
  text: z.string(),
  /** The command's response URL: it reaches the person where the bot may not post. */
  responseUrl: z.string().url().optional(),
  /**
   * The person's message the task lives under (the Messages tab, where each message is its own
   * conversation): the root is posted in its thread. Absent: the root starts its own thread.
   */
  thread: z.string().optional(),
  /** A start asked through a door (the API, MCP): `user` is the agent (`api:name`), nobody to tell. */
  door: z.enum(DOORS).optional(),
  /** What its workflow starts from besides the text (the review an agent asks). */
  input: z.record(z.string(), z.unknown()).optional(),
});
export type SlackStart = z.infer<typeof slackStartSchema> & { requestKey: string };

/** A start left unfinished this long is taken over (well past a slow Slack answer). */
export const UNFINISHED_START_MS = 60_000;
/**
 * How long a start waits for its channel's turn to post the root (posts go about one a second per
 * channel, cards and agents' words included): a burst of starts in one channel each get their root
 * within this. Past it the person is told it starts by itself, and the sweep finishes it.
 */
const ROOT_WAIT_MS = 20_000;
/** A start the sweep could not finish (Slack or the database failing) is tried again this soon. */
const START_RETRY_MS = 15_000;
/**
 * A start still unfinished this long after it was asked for is given up: a command's response URL
 * lives 30 minutes, and the last sweeps inside it can still tell the person.
 */
export const START_GIVE_UP_MS = 29 * 60_000;

/**
 * Claims and starts. Throws only when the claim could not be made (nothing is recorded: the
 * person should try again); after that, a failure is left for the sweep to finish.
 */
export async function startFromSlack(deps: StartDeps, client: WebClient, s: SlackStart): Promise<void> {
  const { requestKey, ...start } = s;
  // Over the start limits: said privately before anything is posted in the channel or recorded.
  const refused = await deps.engine.startRefusal({
    surface: 'slack',
    requester: start.user,
    channel: start.channel,
  });
  if (refused) {
    deps.logger.info(
      { request: requestKey, user: start.user, channel: start.channel },
      'start refused: limits',
    );
    return tell(deps, client, start, refused);
  }
  if (!(await claimRequest(deps.pool, requestKey, start))) {
    deps.logger.info({ request: requestKey }, 'repeated Slack request; the task was started before');
    return;
  }
  await finishClaimedStart(deps, client, s);
}

/**
 * A start claimed (by a person's command, or by a door with its own record: the API, MCP): posted
 * and started now, or refused for good (the refusal said, and kept for a door to read), or left
 * for the sweep (the person told it starts by itself).
 */
export async function finishClaimedStart(deps: StartDeps, client: WebClient, s: SlackStart): Promise<void> {
  const { requestKey, ...start } = s;
  try {
    await finishStart(deps, client, requestKey, start, undefined);
  } catch (err) {
    const refusal = startRefusal(err);
    if (refusal) return giveUp(deps, client, requestKey, start, refusal);
    deps.logger.warn({ request: requestKey, err }, 'start not finished; a sweep finishes it');
    await tell(deps, client, start, STARTS_LATER);
  }
}

/**
 * A start asked for by a person (the command, the start form), once acked: work after the ack
 * (after-ack.ts), and a claim that could not be made is said to them (they should send it again).
 */
export function startAfterAck(deps: StartDeps, client: WebClient, s: SlackStart): Promise<void> {
  return deps.afterAck.run(async () => {
    try {
      await startFromSlack(deps, client, s);
    } catch (error) {
      deps.logger.error({ err: error, request: s.requestKey }, 'start not claimed');
      await tell(deps, client, s, COULD_NOT_RECORD);
    }
  });
}

/**
 * A private sentence to whoever asked: through the response URL when there is one (it works
 * anywhere), else, or when Slack no longer takes it (past its 30 minutes: a start the sweep gives
 * up after every process was down a while), as an ephemeral message in the channel; a start in
 * the Messages tab is answered in its message's thread.
 */
export async function tell(
  deps: StartDeps,
  client: WebClient,
  s: { channel: string; user: string; responseUrl?: string; thread?: string },
  text: string,
): Promise<void> {
  // An agent that asked through a door reads the refusal from its request (endRequest).
  if (!isPerson(s.user)) return;
  if (s.responseUrl && (await respondPrivately(s.responseUrl, text, deps.logger))) return;
  // A start in the Messages tab lives in the thread of the person's message, in their own DM.
  if (s.thread)
    return void (await answerInThread(client, deps.logger, { channel: s.channel, ts: s.thread }, text));
  await tellClicker({ client, logger: deps.logger }, { channel: s.channel, user: s.user })(text);
}

/**
 * The request is finished without a task, and the person told why (Slack refusing for good, see
 * final-errors.ts, or the sweep out of time): trying again every sweep would never end.
 */
async function giveUp(
  deps: StartDeps,
  client: WebClient,
  key: string,
  s: z.infer<typeof slackStartSchema>,
  why: string,
): Promise<void> {
  await endRequest(deps, key, s, why);
  deps.logger.info({ request: key, channel: s.channel, why }, 'the start was given up');
  await tell(deps, client, s, why);
}

/** Posts (or finds) the root, records it, starts the task. */
async function finishStart(
  deps: StartDeps,
  client: WebClient,
  key: string,
  s: z.infer<typeof slackStartSchema>,
  known: string | undefined,
): Promise<void> {
  const task = { requester: s.user, workflow: s.workflow, text: s.text };
  // `ts` is the root message's; the thread is the person's message when there is one.
  let ts = known;
  if (!ts) {
    // Sent once: a post Slack did not answer may be in the channel, and the sweep looks for it
    // there first. A 429 (Slack did not post it; most often the channel's budget, kept by the
    // client before Slack is asked) is waited out: the channel's turn comes about once a second.
    const posted = await afterRateLimit(
      () =>
        client.chat.postMessage({
          channel: s.channel,
          ...(s.thread ? { thread_ts: s.thread } : {}),
          ...rootMessage(task, 'working'),
          unfurl_links: false,
          metadata: postMetadata(`start:${key}`),
        }),
      ROOT_WAIT_MS,
    );
    ts = await recordRoot(deps.pool, key, posted.ts as string);
    // Another process posted and recorded its root first: this one goes.
    if (ts !== posted.ts) await client.chat.delete({ channel: s.channel, ts: posted.ts as string });
  }
  const origin: SlackOrigin = s.thread
    ? { team: s.team, channel: s.channel, ts: s.thread, root: ts }
    : { team: s.team, channel: s.channel, ts };
  // A root recorded before may have its task already (its process died before linking it), under
  // an id that named the command's workspace if it was started before migration 017: that task.
  const already = known ? await taskInThread(deps.engine, origin) : undefined;
  if (already) return void (await linkRequest(deps.pool, key, already.id));
  try {
    const started = await deps.engine.start({
      id: slackTaskId(origin),
      workflow: s.workflow,
      text: s.text,
      requester: s.user,
      surface: 'slack',
      origin,
      channel: s.channel,
      door: s.door,
      input: s.input,
    });
    await linkRequest(deps.pool, key, started.task.id);
  } catch (error) {
    if (!isSignoffError(error)) throw error;
    if (error.code === 'too_many_tasks') {
      // Another start took the last place while this one posted its root: the root goes, the
      // person is told privately, as when the limit was seen before posting.
      await client.chat
        .delete({ channel: s.channel, ts })
        .catch((err) =>
          deps.logger.warn({ err, request: key }, 'could not delete the root of a refused start'),
        );
      await endRequest(deps, key, s, error.message);
      return tell(deps, client, s, error.message);
    }
    // Refused for good (the workflow was turned off meanwhile, say): the root says so, and the
    // request is finished.
    await client.chat.update({
      channel: s.channel,
      ts,
      ...rootMessage(task, 'failed', `it could not be started: ${error.message}`, { controls: false }),
    });
    await endRequest(deps, key, s, `It could not be started: ${error.message}`);
  }
}

/**
 * The request is finished without a task, and why (a sentence) is kept; a door's is in the audit
 * too (a person's refusals are said to them, an agent's read from its request).
 */
async function endRequest(deps: StartDeps, key: string, s: z.infer<typeof slackStartSchema>, why: string) {
  await deps.pool.query('UPDATE signoff.slack_requests SET start = NULL, refusal = $2 WHERE key = $1', [
    key,
    why,
  ]);
  if (s.door)
    await deps.engine.auditRefusal({
      actor: s.user,
      action: 'start',
      code: 'start_given_up',
      message: why,
      detail: { workflow: s.workflow, door: s.door, channel: s.channel, request: key },
    });
}

/** Finishes the starts a dead process left: each found root, or a new one, and its task. */
export async function finishUnfinishedStarts(deps: StartDeps, client: WebClient): Promise<number> {
  const left = await takeUnfinishedStarts(deps.pool, UNFINISHED_START_MS, START_RETRY_MS);
  for (const { key, start, rootTs, ageMs } of left) {
    const s = slackStartSchema.safeParse(start);
    if (!s.success) continue;
    if (ageMs >= START_GIVE_UP_MS) {
      await outOfTime(deps, client, key, s.data, rootTs).catch((e) =>
        deps.logger.warn({ request: key, err: e }, 'could not give up a start yet'),
      );
      continue;
    }
    try {
      let ts = rootTs ?? undefined;
      if (!ts) {
        // The root may be out with its record lost: it carries the request's key (among the
        // channel's latest messages: it was posted a minute or two ago, under whatever came since;
        // or in the thread of the person's message it answers).
        const found = s.data.thread
          ? await findThreadPost(client, { channel: s.data.channel, ts: s.data.thread }, `start:${key}`)
          : await findRecentPost(client, s.data.channel, `start:${key}`);
        if (found) ts = await recordRoot(deps.pool, key, found);
      }
      await finishStart(deps, client, key, s.data, ts);
      deps.logger.info({ request: key }, 'finished a start a process had left');
    } catch (err) {
      const refusal = startRefusal(err);
      if (refusal) {
        await giveUp(deps, client, key, s.data, refusal).catch((e) =>
          deps.logger.warn({ request: key, err: e }, 'could not give up a start yet'),
        );
        continue;
      }
      deps.logger.warn({ request: key, err }, 'could not finish a start yet; will try again');
    }
  }
  return left.length;
}

/** Given up after trying for too long: a root posted without its task says so, without controls. */
async function outOfTime(
  deps: StartDeps,
  client: WebClient,
  key: string,
  s: z.infer<typeof slackStartSchema>,
  rootTs: string | null,
): Promise<void> {
  if (rootTs) {
    const task = { requester: s.user, workflow: s.workflow, text: s.text };
    await client.chat
      .update({
        channel: s.channel,
        ts: rootTs,
        ...rootMessage(task, 'failed', 'it could not be started in time; send it again', { controls: false }),
      })
      .catch((err) => deps.logger.warn({ err, request: key }, 'could not mark the root of a start given up'));
  }
  await giveUp(deps, client, key, s, NOT_STARTED);
}
