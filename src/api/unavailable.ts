/**
 * The sentence for a door's call that failed on signoff's side (neither the caller's mistake nor a
 * refusal), naming what did not answer when the error says so: Slack, through its Web API client's
 * codes, or the database, a connection lost (`isConnectionError`). An agent told "the database or
 * Slack" could not say which was down, while /healthz could; an error of any other kind is
 * signoff's own, logged, and no service is blamed for it.
 */
import type pg from 'pg';
import { isConnectionError } from '../db/queryable.js';

const AGAIN = 'try again in a few seconds.';

/** Slack's part in a failure, from the first link of its cause chain that @slack/web-api made. */
function slackPart(error: unknown): string | undefined {
  let e = error as { code?: unknown; data?: { error?: unknown }; cause?: unknown; original?: unknown };
  for (let depth = 0; e && typeof e === 'object' && depth < 8; depth++) {
    if (e.code === 'slack_webapi_rate_limited_error') return 'Slack asked signoff to slow down';
    if (e.code === 'slack_webapi_platform_error')
      return `Slack refused it: ${typeof e.data?.error === 'string' ? e.data.error : 'no reason given'}`;
    if (typeof e.code === 'string' && e.code.startsWith('slack_webapi_')) return 'Slack did not answer';
    e = (e.cause ?? e.original) as typeof e;
  }
  return undefined;
}

/** `unavailable(error)`: the sentence for a failed call, given the database `pool` the doors use. */
export function createUnavailable(pool: pg.Pool): (error: unknown) => string {
  return (error) => {
    const why =
      slackPart(error) ?? (isConnectionError(error, pool) ? 'the database did not answer' : undefined);
    return why
      ? `signoff could not do that just now (${why}); ${AGAIN}`
      : `signoff could not do that just now (an error on its side, logged for whoever runs it); ${AGAIN} If it keeps failing, tell them.`;
  };
}
