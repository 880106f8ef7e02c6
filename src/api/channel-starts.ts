/**
 * The port through which a door starts its task in a Slack channel: the Slack surface posts the
 * root message and starts the task exactly as for a person's command (its claim, its sweep for a
 * process that died halfway). The doors know only this.
 */
import type { Queryable } from '../db/queryable.js';
import type { Door } from '../engine/index.js';

export interface ChannelStart {
  channel: string;
  /** The agent asking: `<door>:<client>`. */
  user: string;
  workflow: string;
  text: string;
  door: Door;
  input: Record<string, unknown>;
}

export interface ChannelStarts {
  /** Claims the start in the caller's transaction: once committed, it is finished by someone. */
  claim(db: Queryable, key: string, start: ChannelStart): Promise<void>;
  /** Posts the root and starts the task (a failure is left for the sweep, a refusal kept). */
  finish(key: string, start: ChannelStart): Promise<void>;
  /** How the start went: its task, its root message, or why it was given up. */
  state(key: string): Promise<{ taskId?: string; root?: string; refusal?: string }>;
}
