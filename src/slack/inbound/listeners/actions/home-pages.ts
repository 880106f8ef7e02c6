/**
 * The Home tab's More and Back to the first: the tab is drawn again at that page of the reviews
 * waiting for whoever clicked. The value names where the page starts (a review id); it is only a
 * place in that person's own list, which is read with their rights whatever it says.
 */
import { z } from 'zod';
import type { ButtonArgs, ListenerDeps } from '../../deps.js';
import type { HomeRefresh } from '../../home-refresh.js';

const afterSchema = z.string().min(1).max(255);

export function createHomePage(deps: ListenerDeps, home: HomeRefresh, page: 'more' | 'first') {
  return async ({ ack, body, action, client }: ButtonArgs) => {
    await ack();
    const after = page === 'more' ? afterSchema.safeParse(action.value) : undefined;
    if (after && !after.success) return;
    await deps.afterAck.run(() => home.refresh({ client, user: body.user.id, after: after?.data }));
  };
}
