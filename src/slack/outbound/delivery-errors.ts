/**
 * What a Web API failure means for the event being delivered (a DeliveryError the engine acts on):
 * Slack's 429 is the rate limit, outages and timeouts are temporary, a channel the bot cannot
 * reach any more is unreachable, anything else is this message refused.
 */
import { ErrorCode, type WebAPICallError } from '@slack/web-api';
import { DeliveryError } from '../../errors.js';
import { CHANNEL_REFUSALS } from '../shared/final-errors.js';

/**
 * Slack had a problem, not the message; or the whole workspace's access did (a revoked or wrong
 * token): every event waits, with backoff, for an operator to fix it, rather than failing one by one.
 */
const TEMPORARY = new Set([
  'invalid_auth',
  'not_authed',
  'token_revoked',
  'token_expired',
  'account_inactive',
  'ratelimited',
  'internal_error',
  'fatal_error',
  'service_unavailable',
  'request_timeout',
  'team_added_to_org',
]);

/** What a Web API failure means for the event being delivered. */
export function deliveryError(error: unknown): DeliveryError {
  const e = error as WebAPICallError & {
    data?: { error?: string };
    retryAfter?: number;
    statusCode?: number;
  };
  switch (e.code) {
    case ErrorCode.RateLimitedError:
      return new DeliveryError('limited', 'ratelimited', {
        cause: error,
        retryAfterMs: (e.retryAfter ?? 1) * 1000,
      });
    case ErrorCode.RequestError:
      return new DeliveryError('temporary', 'request_failed', { cause: error });
    case ErrorCode.HTTPError:
      return new DeliveryError(
        (e.statusCode ?? 500) >= 500 ? 'temporary' : 'refused',
        `http_${e.statusCode}`,
        {
          cause: error,
        },
      );
    case ErrorCode.PlatformError: {
      const code = e.data?.error ?? 'unknown_error';
      // The bot cannot post in the task's channel any more: what happened and what to do.
      const unreachable = CHANNEL_REFUSALS[code]?.thread;
      if (unreachable) {
        return new DeliveryError('unreachable', code, {
          cause: error,
          reason: `${unreachable} (Slack said ${code})`,
        });
      }
      return new DeliveryError(TEMPORARY.has(code) ? 'temporary' : 'refused', code, { cause: error });
    }
    default:
      return new DeliveryError('temporary', String((error as { code?: unknown }).code ?? 'error'), {
        cause: error,
      });
  }
}

/** Errors of the Web API client (the rest, a database error on the way, the engine judges itself). */
export const isWebApiError = (error: unknown) =>
  String((error as { code?: unknown })?.code ?? '').startsWith('slack_');

export const slackCode = (error: unknown) => (error as { data?: { error?: string } }).data?.error;
