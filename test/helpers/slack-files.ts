/**
 * Thread replies with files, as Slack sends them: a message of subtype `file_share` whose `text` is
 * what was typed with the upload (empty when nothing was) and whose `files` describe the uploads
 * (docs: @slack/types FileShareMessageEvent; the message event's file objects). In a Slack Connect
 * channel a file from another organization comes with its id only (`file_access:
 * "check_file_info"`).
 */
import { eventCallback, slackTsNow } from './slack-requests.js';

let files = 0;

/** An upload by `user` of this workspace, as a `file_share` message carries it. */
export function uploaded(name: string, user: string, team = 'T0TEAM') {
  const id = `F0FILE${++files}`;
  const now = Math.floor(Date.now() / 1000);
  return {
    id,
    created: now,
    timestamp: now,
    name,
    title: name,
    mimetype: 'image/png',
    filetype: 'png',
    pretty_type: 'PNG',
    user,
    user_team: team,
    editable: false,
    size: 48_213,
    mode: 'hosted',
    is_external: false,
    external_type: '',
    is_public: false,
    public_url_shared: false,
    display_as_bot: false,
    username: '',
    url_private: `https://files.slack.test/files-pri/${team}-${id}/${encodeURIComponent(name)}`,
    url_private_download: `https://files.slack.test/files-pri/${team}-${id}/download/${encodeURIComponent(name)}`,
    permalink: `https://acme.slack.test/files/${user}/${id}/${encodeURIComponent(name)}`,
    is_starred: false,
    has_rich_preview: false,
  };
}

/** A file shared from another organization in a Slack Connect channel: its id, nothing else. */
export function sharedFromElsewhere() {
  return {
    id: `F0FILE${++files}`,
    mode: 'file_access',
    file_access: 'check_file_info',
    created: 0,
    timestamp: 0,
    user: '',
  };
}

/** A reply with `attached` files by `user` in the thread `threadTs` of C0WORK, typed `text` with them. */
export function fileShareEvent(user: string, text: string, threadTs: string, attached: object[]) {
  const ts = slackTsNow();
  return {
    type: 'message',
    subtype: 'file_share',
    text,
    files: attached,
    upload: false,
    user,
    display_as_bot: false,
    ts,
    thread_ts: threadTs,
    parent_user_id: 'U0BOT',
    channel: 'C0WORK',
    event_ts: ts,
    channel_type: 'channel',
  };
}

/** The Events API delivery of that reply, in this workspace. */
export const fileReply = (user: string, text: string, threadTs: string, attached: object[]) =>
  eventCallback(fileShareEvent(user, text, threadTs, attached));
