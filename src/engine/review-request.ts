import { fromStandard } from './standard-interrupts.js';
import { type ReviewRequest, reviewRequestSchema } from './types.js';

/**
 * The review an interrupt asks for. signoff's own workflows send a `ReviewRequest`; anything
 * else (a graph of the team's own) is shown as its JSON with the three standard actions.
 */
export function toReviewRequest(value: unknown): ReviewRequest {
  const parsed = reviewRequestSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const standard = fromStandard(value);
  if (standard) return reviewRequestSchema.parse(standard);
  const json = JSON.stringify(value, null, 2) ?? String(value);
  return reviewRequestSchema.parse({
    kind: 'review',
    title: 'The workflow asks for your review',
    body: `\`\`\`\n${json.slice(0, 90_000)}\n\`\`\``,
  });
}
