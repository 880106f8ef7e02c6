/**
 * What a test makes the fake Slack do wrong or slowly, as Slack does: hold a call, fail the next
 * one, refuse matching calls with an error, answer 429 with Retry-After on a method for a while,
 * or carry a call out and answer it late (the client has given up by then, yet the message is
 * in the channel: the fault that makes a retried post a duplicate).
 */
import { setTimeout as sleep } from 'node:timers/promises';

type When = (args: Record<string, unknown>) => boolean;

/** A promise and its resolve (Promise.withResolvers needs Node 22). */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = (): void => undefined;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** How the fake answers a call a fault caught instead of carrying it out. */
export interface FaultAnswer {
  status: number;
  body: { ok: false; error: string };
  headers?: Record<string, string>;
  /** Slack refused it with an error (recorded in `refusals`), rather than failing or limiting. */
  refused?: boolean;
  /** A 429 (recorded as limited). */
  limited?: boolean;
}

export class SlackFaults {
  private holds: { method: string; when: When; arrived: () => void; released: Promise<void> }[] = [];
  private failures: { method: string; status: number; retryAfter?: number; error?: string }[] = [];
  /** Standing refusals: every call that matches is answered with the error, as Slack would. */
  private refusing: { method: string; when: When; error: string }[] = [];
  /** Methods answered 429 until the rule is removed. */
  private throttled: { method: string; retryAfter: number }[] = [];
  private late: { method: string; when: When; ms: number }[] = [];

  /**
   * The next call of `method` waits before it is answered: `reached` resolves when it arrives,
   * `release` lets it through (to do something while a request is in flight).
   */
  holdNext(method: string, when: When = () => true): { reached: Promise<void>; release: () => void } {
    const reached = deferred();
    const released = deferred();
    this.holds.push({ method, when, arrived: reached.resolve, released: released.promise });
    return { reached: reached.promise, release: released.resolve };
  }

  /** Refuses every call of `method` whose arguments match, with a Slack error, until removed. */
  refuse(method: string, when: When, error: string): () => void {
    const rule = { method, when, error };
    this.refusing.push(rule);
    return () => {
      this.refusing = this.refusing.filter((r) => r !== rule);
    };
  }

  /** The next call of `method` fails: 429 with Retry-After, or a Slack error such as channel_not_found. */
  failNext(method: string, failure: { status?: number; retryAfter?: number; error?: string }): void {
    this.failures.push({ method, status: failure.status ?? 200, ...failure });
  }

  /** Forgets the failures `failNext` queued that no call has met yet; returns how many there were. */
  forgetFailures(): number {
    return this.failures.splice(0).length;
  }

  /**
   * Every call of `method` is answered 429 `ratelimited` with `Retry-After: retryAfter` (seconds),
   * as Slack answers a method whose limit is spent, until the returned undo is called.
   */
  rateLimit(method: string, retryAfter: number): () => void {
    const rule = { method, retryAfter };
    this.throttled.push(rule);
    return () => {
      this.throttled = this.throttled.filter((r) => r !== rule);
    };
  }

  /**
   * The next matching call of `method` is carried out at once (a post is in the channel, for
   * everyone to read) and answered `ms` later: what a caller that gave up before sees as a timeout.
   */
  answerLate(method: string, ms: number, when: When = () => true): void {
    this.late.push({ method, when, ms });
  }

  /** Waits while a held call is held. */
  protected async whileHeld(method: string, args: Record<string, unknown>): Promise<void> {
    const at = this.holds.findIndex((h) => h.method === method && h.when(args));
    if (at < 0) return;
    const [h] = this.holds.splice(at, 1);
    h?.arrived();
    await h?.released;
  }

  /** What a fault answers instead of carrying the call out, if one catches it. */
  protected faultFor(method: string, args: Record<string, unknown>): FaultAnswer | undefined {
    const limit = this.throttled.find((t) => t.method === method);
    if (limit) return ratelimited(limit.retryAfter);
    const at = this.failures.findIndex((f) => f.method === method);
    if (at >= 0) {
      const [f] = this.failures.splice(at, 1);
      if (f?.status === 429) return { ...ratelimited(f.retryAfter ?? 1), limited: false };
      return { status: f?.status ?? 200, body: { ok: false, error: f?.error ?? 'internal_error' } };
    }
    const refusal = this.refusing.find((r) => r.method === method && r.when(args));
    if (refusal) return { status: 200, body: { ok: false, error: refusal.error }, refused: true };
    return undefined;
  }

  /** Waits before answering a call carried out, when it is to be answered late. */
  protected async answerDelay(method: string, args: Record<string, unknown>): Promise<void> {
    const at = this.late.findIndex((l) => l.method === method && l.when(args));
    if (at < 0) return;
    const [l] = this.late.splice(at, 1);
    await sleep(l?.ms ?? 0);
  }
}

const ratelimited = (retryAfter: number): FaultAnswer => ({
  status: 429,
  body: { ok: false, error: 'ratelimited' },
  headers: { 'retry-after': String(retryAfter) },
  limited: true,
});
