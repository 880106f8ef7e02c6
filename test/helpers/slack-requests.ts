/** Signed requests to Bolt's HTTP receiver, as Slack sends them. */
import { createHmac } from 'node:crypto';
import { triggerId } from './fake-slack-views.js';

export const SIGNING_SECRET = 'test-signing-secret';

export interface SentRequest {
  status: number;
  body: string;
}

export async function postSigned(
  url: string,
  body: string,
  opts: { secret?: string; timestamp?: number; headers?: Record<string, string>; json?: boolean } = {},
): Promise<SentRequest> {
  const ts = String(opts.timestamp ?? Math.floor(Date.now() / 1000));
  const signature = `v0=${createHmac('sha256', opts.secret ?? SIGNING_SECRET)
    .update(`v0:${ts}:${body}`)
    .digest('hex')}`;
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': opts.json ? 'application/json' : 'application/x-www-form-urlencoded',
      'x-slack-request-timestamp': ts,
      'x-slack-signature': signature,
      ...opts.headers,
    },
    body,
  });
  return { status: res.status, body: await res.text() };
}

let views = 0;
export const commandBody = (text: string, user = 'U0ANN', extra: Record<string, string> = {}) =>
  new URLSearchParams({
    token: 'legacy',
    team_id: 'T0TEAM',
    team_domain: 'acme',
    channel_id: 'C0WORK',
    channel_name: 'work',
    user_id: user,
    user_name: user.toLowerCase(),
    command: '/signoff',
    text,
    api_app_id: 'A0APP',
    response_url: 'https://hooks.slack.test/commands/1',
    // Shaped as Slack's, and dated now: the fake refuses it 3 s from now, as Slack does.
    trigger_id: triggerId(),
    ...extra,
  }).toString();

export const payloadBody = (payload: object) =>
  new URLSearchParams({ payload: JSON.stringify(payload) }).toString();

/** The fields every interaction payload from `user` carries. */
const interaction = (user: string) => ({
  team: { id: 'T0TEAM', domain: 'acme' },
  user: { id: user, username: user.toLowerCase(), team_id: 'T0TEAM' },
  api_app_id: 'A0APP',
  token: 'legacy',
  trigger_id: triggerId(),
});

/** A click on a button of the message `messageTs` in `channel` (C0WORK unless said). */
export function click(
  user: string,
  actionId: string,
  value: string,
  messageTs: string,
  threadTs?: string,
  channel = 'C0WORK',
  /** The button's label, as Slack sends it with the click (`actions[].text`). */
  text?: string,
) {
  return payloadBody({
    type: 'block_actions',
    ...interaction(user),
    // A message in a thread names it in both, as Slack's payloads do.
    container: {
      type: 'message',
      message_ts: messageTs,
      channel_id: channel,
      is_ephemeral: false,
      ...(threadTs ? { thread_ts: threadTs } : {}),
    },
    channel: { id: channel, name: 'work' },
    message: { type: 'message', ts: messageTs, thread_ts: threadTs, text: 'card' },
    response_url: 'https://hooks.slack.test/actions/1',
    actions: [
      {
        type: 'button',
        action_id: actionId,
        block_id: 'review',
        value,
        ...(text ? { text: { type: 'plain_text', text, emoji: true } } : {}),
        action_ts: String(Date.now() / 1000),
      },
    ],
  });
}

/**
 * A click on a button of `user`'s App Home tab: a view's container, no channel, no message;
 * `values`: the state of the tab's inputs Slack sends with it (ticked checkboxes).
 */
export function homeClick(
  user: string,
  actionId: string,
  value: string,
  values: Record<string, unknown> = {},
) {
  const view = `V0HOME${user}`;
  return payloadBody({
    type: 'block_actions',
    ...interaction(user),
    container: { type: 'view', view_id: view },
    view: {
      id: view,
      team_id: 'T0TEAM',
      type: 'home',
      blocks: [],
      private_metadata: '',
      callback_id: '',
      state: { values },
      hash: 'h',
    },
    actions: [
      {
        type: 'button',
        action_id: actionId,
        block_id: 'home_pages',
        value,
        action_ts: String(Date.now() / 1000),
      },
    ],
  });
}

/**
 * The same interaction from someone of another workspace, as Slack sends it in a Slack Connect
 * channel: its `team` and `user.team_id` are `team` (slack-orgs.ts has Grid's shapes).
 */
export function fromTeam(body: string, team: string): string {
  const payload = JSON.parse(new URLSearchParams(body).get('payload') ?? '{}');
  return payloadBody({
    ...payload,
    team: { id: team, domain: team.toLowerCase() },
    user: { ...payload.user, team_id: team },
  });
}

/**
 * A click on a button of an ephemeral message `messageTs` (as chat.postEphemeral answered): Slack
 * marks the container ephemeral, sends no `message`, and gives the response URL that answers it.
 */
export function ephemeralClick(
  user: string,
  actionId: string,
  value: string,
  messageTs: string,
  responseUrl: string,
  channel = 'C0WORK',
) {
  return payloadBody({
    type: 'block_actions',
    ...interaction(user),
    container: { type: 'message', message_ts: messageTs, channel_id: channel, is_ephemeral: true },
    channel: { id: channel, name: 'work' },
    response_url: responseUrl,
    actions: [
      { type: 'button', action_id: actionId, block_id: 'reply', value, action_ts: String(Date.now() / 1000) },
    ],
  });
}

/** A form's answer: text, `{ selected }` for a menu, `{ radio }`, `{ user }` (a people picker), `{ date }`. */
type FormValue = string | { selected: string } | { radio: string } | { user: string } | { date: string };

/** A form's answer as Slack sends it in `state.values`. */
const formInput = (value: FormValue) => {
  if (typeof value === 'string') return { value: { type: 'plain_text_input', value } };
  if ('radio' in value) return { value: { type: 'radio_buttons', selected_option: { value: value.radio } } };
  if ('user' in value) return { value: { type: 'users_select', selected_user: value.user } };
  if ('date' in value) return { value: { type: 'datepicker', selected_date: value.date } };
  return {
    value: {
      type: 'static_select',
      selected_option: { text: { type: 'plain_text', text: value.selected }, value: value.selected },
    },
  };
};

/** Submitting a modal (`callbackId`) with its inputs by block id, carrying the metadata it was opened with. */
export function viewSubmission(
  user: string,
  callbackId: string,
  privateMetadata: string,
  values: Record<string, FormValue>,
) {
  return payloadBody({
    type: 'view_submission',
    ...interaction(user),
    view: {
      id: `V${++views}`,
      team_id: 'T0TEAM',
      type: 'modal',
      callback_id: callbackId,
      private_metadata: privateMetadata,
      state: {
        values: Object.fromEntries(Object.entries(values).map(([block, v]) => [block, formInput(v)])),
      },
      hash: 'h',
    },
  });
}

/**
 * Submitting the revise (or edit) modal with `feedback` and any form fields, by block id: text,
 * or `{ selected }` for a menu (left out: nothing chosen), carrying the metadata the modal was
 * opened with.
 */
export function reviseSubmission(
  user: string,
  privateMetadata: string,
  feedback: string,
  fields: Record<string, string | { selected: string }> = {},
) {
  return viewSubmission(user, 'signoff_revise', privateMetadata, { feedback, ...fields });
}

/** Submitting the "Always allow…" modal with the scope chosen, carrying the metadata it was opened with. */
export const alwaysSubmission = (user: string, privateMetadata: string, scope: string) =>
  viewSubmission(user, 'signoff_always', privateMetadata, { scope: { radio: scope } });

/**
 * Approve selected in `user`'s Home tab with `picked` ticked (`<review>:<content hash>` each), as
 * Slack sends the view's state with the click.
 */
export const batchApproveClick = (user: string, picked: string[]) =>
  homeClick(user, 'signoff_batch_approve', '', {
    signoff_batch: {
      signoff_batch_pick: { type: 'checkboxes', selected_options: picked.map((value) => ({ value })) },
    },
  });

/**
 * Submitting the start modal (`/signoff` alone) with a workflow and a task, carrying the metadata
 * it was opened with: the command's channel and response URL.
 */
export function startSubmission(
  user: string,
  meta: { channel: string; responseUrl?: string },
  workflow: string,
  task: string,
) {
  return viewSubmission(user, 'signoff_start', JSON.stringify(meta), {
    workflow: { selected: workflow },
    task,
  });
}

/** A time in microseconds since the epoch as Slack writes a ts: seconds, then six digits. */
export const slackTs = (micros: number) =>
  `${Math.floor(micros / 1e6)}.${String(micros % 1e6).padStart(6, '0')}`;

let lastMicros = 0;
/**
 * A ts as Slack writes one for a message sent now, each later than the last. At the end of its
 * millisecond: a reply sent once a post was seen is never earlier than it, as in Slack.
 */
export function slackTsNow(): string {
  lastMicros = Math.max(lastMicros + 1, Date.now() * 1000 + 999);
  return slackTs(lastMicros);
}

let eventIds = 0;
/** An Events API delivery of `event` in team T0TEAM (a given `eventId` repeats one, as Slack's retries do). */
export function eventCallback(event: Record<string, unknown>, eventId = `Ev${++eventIds}`) {
  return JSON.stringify({
    token: 'legacy',
    team_id: 'T0TEAM',
    api_app_id: 'A0APP',
    type: 'event_callback',
    event_id: eventId,
    event_time: Math.floor(Date.now() / 1000),
    event,
  });
}

/**
 * A message posted by `user` in the thread `threadTs` of channel C0WORK; `broadcast`: also sent
 * to the channel (Slack's `thread_broadcast` subtype).
 */
export const threadMessage = (
  user: string,
  text: string,
  threadTs: string,
  /** `ts`: the message's own (Slack delivers a message written a while ago with its ts of then). */
  o: { broadcast?: boolean; ts?: string } = {},
) =>
  eventCallback({
    type: 'message',
    ...(o.broadcast ? { subtype: 'thread_broadcast' } : {}),
    channel: 'C0WORK',
    channel_type: 'channel',
    user,
    text,
    ts: o.ts ?? slackTsNow(),
    thread_ts: threadTs,
  });

/** `user` opening the app's Home tab. */
export const appHomeOpened = (user: string) =>
  eventCallback({
    type: 'app_home_opened',
    user,
    channel: 'D0HOME',
    tab: 'home',
    event_ts: slackTsNow(),
  });

/** `user` opening the app's Messages tab (its agent view): their DM with the app is `channel`. */
export const messagesTabOpened = (user: string, channel: string) =>
  eventCallback({
    type: 'app_home_opened',
    user,
    channel,
    tab: 'messages',
    event_ts: slackTsNow(),
  });

/**
 * `user`'s message `ts` (as the fake Slack kept it: `FakeSlack.said`) in their DM with the app,
 * `channel`, as Slack sends it (message.im); in the thread `threadTs` when given.
 */
export const directMessage = (
  user: string,
  text: string,
  at: { channel: string; ts: string; threadTs?: string },
) =>
  eventCallback({
    type: 'message',
    channel: at.channel,
    channel_type: 'im',
    user,
    text,
    ts: at.ts,
    event_ts: at.ts,
    ...(at.threadTs ? { thread_ts: at.threadTs } : {}),
  });

/** A Stop on the thinking status of `user`'s thread `threadTs` in `channel` (their DM with the app). */
export const agentSessionStopped = (user: string, channel: string, threadTs: string) =>
  eventCallback({
    type: 'agent_session_stopped',
    channel,
    user,
    thread_ts: threadTs,
    streaming_message_ts: [],
    event_ts: slackTsNow(),
  });

/** The same interaction carrying `responseUrl` (one a FakeSlack handed out, to see what it says). */
export function withResponseUrl(body: string, responseUrl: string): string {
  const payload = JSON.parse(new URLSearchParams(body).get('payload') ?? '{}');
  return payloadBody({ ...payload, response_url: responseUrl });
}

/** The same command or interaction carrying `trigger` (an expired one, say) instead of its own. */
export function withTrigger(body: string, trigger: string): string {
  const form = new URLSearchParams(body);
  const payload = form.get('payload');
  if (payload) return payloadBody({ ...JSON.parse(payload), trigger_id: trigger });
  form.set('trigger_id', trigger);
  return form.toString();
}
