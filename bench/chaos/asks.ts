/**
 * Reviews asked through the HTTP API in a chaos run: an agent asks in a channel with an
 * Idempotency-Key, and asks again (sometimes twice at once) until the web process answers, as a
 * client whose request timed out would; it cancels through the API. Once quiet, each ask must
 * stand for exactly one task, and what the API says of it must be what its task and review are.
 */
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import type { Violation } from './invariants.js';

export const CHAOS_API_TOKEN = 'chaos-api-token-0123456789';
export const CHAOS_API_CLIENT = 'chaos-bot';
export const chaosApiConfig = (channels: string[]) =>
  [
    'api:',
    '  clients:',
    `    ${CHAOS_API_CLIENT}:`,
    `      tokenSha256: ${createHash('sha256').update(CHAOS_API_TOKEN).digest('hex')}`,
    `      channels: [${channels.join(', ')}]`,
    '      perMinute: 100000',
  ].join('\n');

export interface AskView {
  id: string;
  status: string;
  decision?: { by: string };
  /** Why an ask is stuck or ended without a decision. */
  reason?: string;
}

export class AskClient {
  constructor(private readonly webUrl: string) {}

  private async call(method: string, path: string, body?: unknown, key?: string) {
    const res = await fetch(`${this.webUrl.replace('/slack/events', '/api/v1')}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${CHAOS_API_TOKEN}`,
        'content-type': 'application/json',
        ...(key ? { 'idempotency-key': key } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    return { status: res.status, body: (await res.json()) as AskView };
  }

  /**
   * Asks until the web process answers (the same key each time), at most `forMs`; with `twice`,
   * each try goes out twice at once. Returns every id the API answered with (one key: one id).
   */
  async ask(channel: string, title: string, key: string, twice: boolean, forMs = 300_000): Promise<string[]> {
    const until = Date.now() + forMs;
    while (Date.now() < until) {
      const tries = Array.from({ length: twice ? 2 : 1 }, () =>
        this.call('POST', '/reviews', { channel, title, content: `Please sign off: ${title}` }, key).catch(
          () => undefined,
        ),
      );
      const answered = (await Promise.all(tries)).filter((r) => r && r.status < 300);
      if (answered.length) return answered.map((r) => r?.body.id as string);
      await sleep(500);
    }
    return [];
  }

  /** Cancels; the view the API answered with, when it answered 200. */
  async cancel(id: string): Promise<AskView | undefined> {
    const r = await this.call('POST', `/reviews/${id}/cancel`).catch(() => undefined);
    return r?.status === 200 ? r.body : undefined;
  }

  async view(id: string): Promise<AskView | undefined> {
    const r = await this.call('GET', `/reviews/${id}`).catch(() => undefined);
    return r?.status === 200 ? r.body : undefined;
  }
}

/**
 * What the API must say of an ask whose task is in `status`, its last review `action` (ask-view.ts):
 * once made, a decision is the ask's answer (its callback may have gone already), and a cancel or
 * a failure that comes after it does not take it back; a failed task may be retried from its
 * Retry button, so its ask still waits (saying why).
 */
function expected(status: string, action: string | null): string[] {
  if (action === 'approve' || action === 'edit') return ['approved'];
  if (action === 'revise') return ['revised'];
  if (action === 'reject') return ['rejected'];
  if (status === 'cancelled') return ['cancelled'];
  if (status === 'waiting') return ['pending'];
  if (status === 'rejected') return ['rejected'];
  if (status === 'done') return ['approved'];
  if (status === 'failed') return ['pending', 'starting'];
  return ['starting', 'pending'];
}

/**
 * ask_lost: an ask never got its id although the API was up; ask_forked: one key answered with
 * two ids; asked_twice: one key, two tasks; ask_not_started: no task, and the API does not say
 * it failed; ask_mismatch: the API's word differs from the task's state, or a cancel the API
 * answered as done left the task going.
 */
export async function checkAsks(
  pool: pg.Pool,
  client: AskClient,
  asks: { marker: string; askIds?: string[]; cancelled?: boolean }[],
): Promise<Violation[]> {
  const out: Violation[] = [];
  for (const a of asks) {
    const ids = [...new Set(a.askIds ?? [])];
    if (ids.length > 1)
      out.push({ kind: 'ask_forked', detail: `${a.marker}: one key, ids ${ids.join(', ')}` });
    const askId = ids[0];
    if (!askId) {
      out.push({ kind: 'ask_lost', detail: `${a.marker}: the API never answered its ask` });
      continue;
    }
    const tasks = await pool.query<{ id: string; status: string; action: string | null }>(
      `SELECT t.id, t.status,
              (SELECT r.decision->>'action' FROM signoff.reviews r WHERE r.task_id = t.id
               ORDER BY r.created_at DESC LIMIT 1) AS action
       FROM signoff.tasks t WHERE t.workflow = 'ask' AND t.text LIKE $1`,
      [`%${a.marker}%`],
    );
    if (tasks.rows.length > 1) {
      out.push({ kind: 'asked_twice', detail: `${a.marker}: ${tasks.rows.length} tasks for one key` });
      continue;
    }
    const task = tasks.rows[0];
    const view = await client.view(askId);
    if (!task) {
      // Refused for good (the API says so, with why) is an answer; silence is not.
      if (view?.status !== 'failed')
        out.push({
          kind: 'ask_not_started',
          detail: `${a.marker}: no task; the API says ${view?.status ?? 'nothing'}`,
        });
      continue;
    }
    if (a.cancelled && task.status !== 'cancelled')
      out.push({
        kind: 'ask_mismatch',
        task: task.id,
        detail: `${a.marker}: cancelled through the API, but ${task.status}`,
      });
    const want = expected(task.status, task.action);
    // A failed task's ask waits, and says why.
    const unexplained = task.status === 'failed' && !task.action && !view?.reason;
    if (!view || !want.includes(view.status) || unexplained)
      out.push({
        kind: 'ask_mismatch',
        task: task.id,
        detail: `${a.marker}: the API says ${view?.status ?? 'nothing'}${unexplained ? ' with no reason' : ''}; the task is ${task.status} (${task.action ?? 'undecided'})`,
      });
  }
  return out;
}
