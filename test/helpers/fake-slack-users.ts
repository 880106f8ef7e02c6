/** The fake Slack's people, as `users.info` shows them (see fake-slack.ts). */

/**
 * The part of Slack's user object that says where someone belongs: e.g. `{ team_id: 'T0OTHER',
 * is_stranger: true }` for someone of another organization in a Slack Connect channel.
 */
export interface FakeUser {
  id: string;
  team_id: string;
  name: string;
  deleted: boolean;
  is_bot: boolean;
  is_restricted: boolean;
  is_ultra_restricted: boolean;
  is_stranger?: boolean;
  enterprise_user?: { id: string; enterprise_id: string; enterprise_name: string; teams: string[] };
}

/**
 * `users.info` as Slack answers it: a member of workspace `team` (of the Enterprise organization
 * `enterprise`, if any) with `overrides`; `user_not_found` for a malformed id or `null`.
 */
export function usersInfo(
  id: string,
  overrides: Partial<FakeUser> | null | undefined,
  home: { team: string; enterprise?: string },
): object {
  if (!/^[UW][A-Z0-9]{2,}$/.test(id) || overrides === null) return { ok: false, error: 'user_not_found' };
  const member: FakeUser = {
    id,
    team_id: home.team,
    name: id.toLowerCase(),
    deleted: false,
    is_bot: false,
    is_restricted: false,
    is_ultra_restricted: false,
    // In an Enterprise organization every member's record names it.
    ...(home.enterprise
      ? {
          enterprise_user: {
            id,
            enterprise_id: home.enterprise,
            enterprise_name: 'Acme',
            teams: [home.team],
          },
        }
      : {}),
  };
  return { ok: true, user: { ...member, ...overrides } };
}

/**
 * `conversations.open` with one person, as Slack answers a bot (its documented errors, and what
 * bots meet in practice): `user_not_found` for a malformed id or no such person, `user_disabled`
 * for a deactivated account, `cannot_dm_bot` for another bot; `invalid_user_combination` for a
 * person of another organization (Slack Connect): the method's reference says messaging people of
 * several organizations needs those organizations in a channel together, and a bot cannot start a
 * Connect DM (that takes the person's acceptance), so the fake refuses every one, the stricter
 * reading; else their DM's id. `home`: the bot's workspace and Enterprise organization.
 */
export function conversationsOpen(
  users: string,
  overrides: Partial<FakeUser> | null | undefined,
  home: { team: string; enterprise?: string },
): object {
  if (!users) return { ok: false, error: 'users_list_not_supplied' };
  if (!/^[UW][A-Z0-9]{2,}$/.test(users) || overrides === null) return { ok: false, error: 'user_not_found' };
  if (overrides?.deleted) return { ok: false, error: 'user_disabled' };
  if (overrides?.is_bot) return { ok: false, error: 'cannot_dm_bot' };
  const team = overrides?.team_id ?? home.team;
  // In an Enterprise organization, a person of any of its workspaces is one of its own.
  const sameOrg =
    team === home.team ||
    (home.enterprise !== undefined &&
      (overrides?.enterprise_user?.enterprise_id ?? home.enterprise) === home.enterprise);
  if (!sameOrg || overrides?.is_stranger) return { ok: false, error: 'invalid_user_combination' };
  return { ok: true, channel: { id: `D${users.replace(/^[UW]/, '')}` } };
}
