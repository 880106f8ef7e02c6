import type { AllMiddlewareArgs, BlockButtonAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import type pg from 'pg';
import type { Engine } from '../../engine/index.js';
import type { Logger } from '../../logger.js';
import type { Audience } from '../shared/audience.js';
import type { Directory } from '../shared/directory.js';
import type { Permalinks } from '../shared/permalinks.js';
import type { AfterAck } from './after-ack.js';

/** What every listener receives. */
export interface ListenerDeps {
  engine: Engine;
  pool: pg.Pool;
  logger: Logger;
  /** Bounds the work listeners do after their ack (see after-ack.ts). */
  afterAck: AfterAck;
  /** Aborted when the Slack service stops: what waits on a timer (a Home tab's redraw) is dropped. */
  stopping?: AbortSignal;
  /** Who may see a task (its channel's members): what the Home tab and `/signoff list` show. */
  audience: Audience;
  /** Who a person is: their user groups, and whether they are from outside the organization. */
  directory: Directory;
  /** Links to tasks' threads, as Slack makes them (the Home tab and `/signoff list` show them). */
  permalinks: Permalinks;
}

/** What a button's listener gets from Bolt. */
export type ButtonArgs = SlackActionMiddlewareArgs<BlockButtonAction> & AllMiddlewareArgs;

/** What starting a task needs (also from a sweep, with no listener around it). */
export type StartDeps = Omit<ListenerDeps, 'audience' | 'directory' | 'permalinks'>;

/** The sentence a person sees when the database could not take their action. */
export const COULD_NOT_RECORD =
  'Sorry, I could not record that just now (the database did not answer). Please try again.';

/** The same, when only reading failed. */
export const COULD_NOT_READ =
  'Sorry, I could not look that up just now (the database did not answer). Please try again.';

/** The task was taken but could not be started yet: it starts by itself, nobody needs to retry. */
export const STARTS_LATER =
  'Your task is taken, but it could not be started just now (Slack or the database did not answer). It starts by itself as soon as it can; no need to send it again.';

/** The sweep tried for as long as the person can still be told (a response URL's life), in vain. */
export const NOT_STARTED =
  'Sorry, your task could not be started: Slack or the database kept failing for half an hour, so I stopped trying. Please send it again.';

/**
 * Slack did not open a form (its trigger lives 3 s, and Slack was slow or busy): nothing changed,
 * and `again` says what to do.
 */
export const notOpened = (what: string, again: string) =>
  `Slack did not open ${what} in time (it was slow or busy just then), so nothing changed. ${again}`;
