/**
 * What a person saw when they decided: a short hash of the review's content (title, body, the
 * choices and fields it offered). A surface must show all of it before it offers Approve (the
 * Slack card shows a long body's beginning and posts the whole of it just above; a form shows the
 * fields' values; a card that cannot show the content offers no Approve). Labels and the round
 * only present the same request. A surface sends it with the decision; the engine refuses a
 * decision made on content that is no longer the review's (a stale card), and records the hash
 * with the decision, so an auditor can tell what was approved.
 */
import { createHash } from 'node:crypto';
import type { ReviewRequest } from './requests.js';

export function contentHash(request: ReviewRequest): string {
  const seen = {
    title: request.title,
    body: request.body,
    actions: request.actions,
    fields: request.fields.map((f) => [f.id, f.initial ?? '']),
    // An edit counted towards a quorum is what is approved now (absent otherwise: hashes stay).
    // Its keys sorted: the database gives a JSON object's keys back in an order of its own.
    edit: request.edit && Object.entries(request.edit.values).sort(([a], [b]) => (a < b ? -1 : 1)),
    // The edit's words go to the agent with the approval (absent without any: hashes stay).
    note: request.edit?.feedback || undefined,
  };
  return createHash('sha256').update(JSON.stringify(seen)).digest('hex').slice(0, 16);
}
