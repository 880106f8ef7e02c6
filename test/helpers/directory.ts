/**
 * A directory of user groups the test answers for, as a surface's would (Slack's, in groups.ts):
 * each person's answer by a function set per test (absent: in no group); a rejection is a group
 * the surface could not say about.
 */
import type { GroupDirectory } from '../../src/engine/index.js';

export function testDirectory() {
  const people = new Map<string, (group: string) => Promise<boolean>>();
  const directory: GroupDirectory = {
    memberOf: async (actor, groups) => {
      const inGroup = people.get(actor.id) ?? (async () => false);
      const answers = await Promise.allSettled(groups.map((g) => inGroup(g)));
      return {
        member: groups.filter((_, i) => {
          const answer = answers[i];
          return answer?.status === 'fulfilled' && answer.value;
        }),
        unanswered: groups.filter((_, i) => answers[i]?.status === 'rejected'),
      };
    },
  };
  return { directory, people };
}
