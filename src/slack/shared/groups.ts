/**
 * The engine's directory port (`GroupDirectory`) answered from Slack: whether a person is in user
 * groups, asked of the directory (directory.ts) in the workspace the task lives in, then in the
 * one their request came from (`user.team_id`: in an organization, a group of their own workspace
 * may review a task started from another). The engine asks only before a transaction, and only
 * about the groups a person's right hinges on.
 */
import type { GroupDirectory } from '../../engine/index.js';
import type { Directory } from './directory.js';
import { workspaceOf } from './origin.js';

export function slackGroups(directory: Pick<Directory, 'inGroup'>): GroupDirectory {
  return {
    memberOf: async (actor, groups, task) => {
      // An org-wide install must name the workspace a group lives in (see Directory.inGroup).
      const teams = [workspaceOf(task), actor.workspace];
      const answers = await Promise.allSettled(groups.map((g) => directory.inGroup(actor.id, g, teams)));
      return {
        member: groups.filter((_, i) => {
          const answer = answers[i];
          return answer?.status === 'fulfilled' && answer.value;
        }),
        unanswered: groups.filter((_, i) => answers[i]?.status === 'rejected'),
      };
    },
  };
}
