/**
 * The Slack side of the doors' port (engine/channel-starts.ts): a review asked through the API or
 * MCP is started as a person's command is (start-task.ts): claimed with what it asks, its root
 * posted in the channel, its task started; the sweep finishes what a dead process left.
 */
import type { WebClient } from '@slack/web-api';
import type { Queryable } from '../../db/queryable.js';
import type { ChannelStart, ChannelStarts } from '../../engine/index.js';
import { claimRequest } from './claims.js';
import type { StartDeps } from './deps.js';
import { finishClaimedStart } from './start-task.js';

export function createDoorStarts(deps: StartDeps, client: () => WebClient): ChannelStarts {
  let team: Promise<string> | undefined;
  /** The workspace the bot is in (auth.test, once): a task's origin names it. */
  const teamId = () => {
    team ??= client()
      .auth.test()
      .then((r) => r.team_id as string)
      .catch((error) => {
        team = undefined;
        throw error;
      });
    return team;
  };
  const slackStart = async (key: string, s: ChannelStart) => ({
    ...s,
    team: await teamId(),
    requestKey: key,
  });
  return {
    ready: async () => void (await teamId()),
    async claim(db: Queryable, key: string, s: ChannelStart) {
      const { requestKey: _, ...start } = await slackStart(key, s);
      await claimRequest(db, key, start);
    },
    async finish(key, s) {
      await finishClaimedStart(deps, client(), await slackStart(key, s));
    },
    async state(key) {
      const r = await deps.pool.query<{
        task_id: string | null;
        root_ts: string | null;
        refusal: string | null;
      }>('SELECT task_id, root_ts, refusal FROM signoff.slack_requests WHERE key = $1', [key]);
      const row = r.rows[0];
      return {
        ...(row?.task_id ? { taskId: row.task_id } : {}),
        ...(row?.root_ts ? { root: row.root_ts } : {}),
        ...(row?.refusal ? { refusal: row.refusal } : {}),
      };
    },
  };
}
