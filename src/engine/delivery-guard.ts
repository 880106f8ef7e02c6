/**
 * A surface's outside effects (a Slack post) cannot be fenced by the database the way a run's
 * writes are. A deliverer frozen past its lease (a GC pause, a stopped VM) would wake mid-round
 * and post what the next holder already posted. So each event is shown under its round's lease,
 * and the surface's client asks, right before each call, whether that lease is still held by the
 * process's own clock.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { SignoffError } from '../errors.js';
import type { Lease } from './runtime/index.js';

const current = new AsyncLocalStorage<Pick<Lease, 'held' | 'key'>>();

/** Runs `show` with its calls to the surface guarded by `lease`. */
export const underLease = <T>(lease: Pick<Lease, 'held' | 'key'>, show: () => Promise<T>): Promise<T> =>
  current.run(lease, show);

/** Throws `lease_lost` when the delivery this call is part of no longer holds its lease. */
export function assertDeliveryHeld(): void {
  const lease = current.getStore();
  if (lease && !lease.held())
    throw new SignoffError('lease_lost', `lease ${lease.key} lost; nothing more is sent`);
}
