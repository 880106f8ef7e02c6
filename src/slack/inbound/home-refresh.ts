/**
 * Draws people's Home tabs, one draw at a time per person, and the latest wins. A draw asked for
 * while one is under way (the tab opened twice, More clicked while it draws) is not a second
 * draw side by side with the first: it is remembered, and drawn once the first is done, from what
 * is current then. A 429 on `views.publish` (Slack did not publish; the tab would show what it
 * showed before, stale, until the person happened to open it again) is not dropped: the draw is
 * made again after the Retry-After Slack gave, reading everything afresh, so the tab ends up
 * showing the reviews as they are then. Draws asked for meanwhile are folded into that one. The
 * wait holds nothing: it is a timer, and the draw it leads to goes through `run` (the work after
 * acks) like any other. A service that stops (`stopping` aborted) clears those timers and sets no
 * more: a redraw is a courtesy, and it must not run on a database and a client being closed.
 */
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../../logger.js';
import { rateLimitWaitMs } from './rate-limited.js';

/** How long a Home tab's draw waits out Slack's 429s in all, before it is left to the next opening. */
export const HOME_MAX_WAIT_MS = 5 * 60_000;

/** One draw of `user`'s Home tab: the page of their reviews that starts after `after`. */
export interface HomeDraw {
  client: WebClient;
  user: string;
  after?: string;
}

export interface HomeRefresh {
  /** Draws the tab (or has it drawn, once the draw under way for that person is done). */
  refresh(draw: HomeDraw): Promise<void>;
}

export function createHomeRefresh(deps: {
  publish: (draw: HomeDraw) => Promise<void>;
  logger: Logger;
  /** Where a draw made again after a 429 runs (the work after acks). */
  run: <T>(work: () => Promise<T>) => Promise<T>;
  maxWaitMs?: number;
  /** Aborted when the service stops: redraws waiting out a 429 are dropped. */
  stopping?: AbortSignal;
}): HomeRefresh {
  const maxWaitMs = deps.maxWaitMs ?? HOME_MAX_WAIT_MS;
  /** Per person with a draw under way or waiting: the draw asked for since, and how long 429s held it. */
  const busy = new Map<string, { next?: HomeDraw; waitedMs: number }>();
  /** The timers of redraws waiting out a 429. */
  const waiting = new Set<NodeJS.Timeout>();
  deps.stopping?.addEventListener(
    'abort',
    () => {
      for (const timer of waiting) clearTimeout(timer);
      waiting.clear();
    },
    { once: true },
  );

  async function draw(first: HomeDraw): Promise<void> {
    const state = busy.get(first.user);
    if (!state) return;
    let current: HomeDraw | undefined = first;
    while (current) {
      try {
        await deps.publish(current);
        state.waitedMs = 0;
      } catch (err) {
        const waitMs = rateLimitWaitMs(err);
        if (waitMs !== undefined && state.waitedMs + waitMs <= maxWaitMs && !deps.stopping?.aborted) {
          state.waitedMs += waitMs;
          // Drawn again later: what was asked for since, else this same page.
          state.next ??= current;
          const timer = setTimeout(() => {
            waiting.delete(timer);
            void redo(first.user);
          }, waitMs);
          timer.unref();
          waiting.add(timer);
          return;
        }
        // Nothing to tell the person in: the tab keeps what it showed, until it is opened again.
        deps.logger.warn({ err, user: current.user }, 'could not draw the home tab');
      }
      current = state.next;
      state.next = undefined;
    }
    busy.delete(first.user);
  }

  async function redo(user: string): Promise<void> {
    const state = busy.get(user);
    const next = state?.next;
    if (!state || !next || deps.stopping?.aborted) return void busy.delete(user);
    state.next = undefined;
    await deps
      .run(() => draw(next))
      .catch((err) => {
        busy.delete(user);
        deps.logger.warn({ err, user }, 'could not draw the home tab again');
      });
  }

  return {
    async refresh(asked) {
      const state = busy.get(asked.user);
      if (state) {
        state.next = asked;
        return;
      }
      busy.set(asked.user, { waitedMs: 0 });
      // Never throws: a draw that fails is logged (above), and the tab keeps what it showed.
      await draw(asked);
    },
  };
}
