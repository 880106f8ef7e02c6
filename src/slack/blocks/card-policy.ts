/**
 * What a team's approval policy adds to an open card: "Always allow…" beside an Approve (where the
 * config file names who signs rules off), the claim buttons ("I'll take it", "Hand over…",
 * "Release"), and the lines that say who has the review and who decides for someone away.
 */
import type { Review } from '../../engine/index.js';

/** "Always allow…": approve, and propose a standing rule (the modal asks its scope). */
export const ALWAYS_ACTION_ID = 'signoff_always';

/** Claim and hand-off: "I'll take it", "Hand over…" (a modal names the person), "Release". */
export const CLAIM_ACTION_IDS = {
  claim: 'signoff_claim',
  handOver: 'signoff_hand_over',
  release: 'signoff_release',
} as const;

type Button = {
  type: 'button';
  action_id: string;
  text: { type: 'plain_text'; text: string; emoji: true };
  value: string;
};

/**
 * The card's buttons with the policy's: Always allow… right after Approve, the claim buttons last.
 * A card that takes no decision here (none shown) takes no claim either.
 */
export function withPolicyButtons<B extends { action_id: string }>(
  review: Review,
  shown: B[],
  value: string,
): (B | Button)[] {
  if (!shown.length) return shown;
  const button = (action_id: string, text: string): Button => ({
    type: 'button',
    action_id,
    text: { type: 'plain_text', text, emoji: true },
    value,
  });
  const approve = shown.findIndex((b) => b.action_id === 'signoff_approve') + 1;
  // Where the config file names who signs rules off, beside an Approve that approves what is seen.
  const always =
    review.settings.alwaysAllow && approve > 0 ? [button(ALWAYS_ACTION_ID, 'Always allow…')] : [];
  const claims = review.claimedBy
    ? [button(CLAIM_ACTION_IDS.handOver, 'Hand over…'), button(CLAIM_ACTION_IDS.release, 'Release')]
    : [button(CLAIM_ACTION_IDS.claim, "I'll take it"), button(CLAIM_ACTION_IDS.handOver, 'Hand over…')];
  return [...shown.slice(0, approve), ...always, ...shown.slice(approve), ...claims];
}

/** Who has the review (claimed, or handed over), and who decides for someone away. */
export function claimLines(review: Review): string[] {
  const away = Object.entries(review.settings.delegates ?? {}).map(
    ([person, delegate]) => `:palm_tree: <@${person}> is away: <@${delegate}> decides in their place`,
  );
  const claimed = review.claimedBy
    ? [
        `:raising_hand: <@${review.claimedBy}> has it${review.settings.exclusiveClaims ? ': only they decide it while it is theirs' : ''}; reminders go to them`,
      ]
    : [];
  return [...claimed, ...away];
}
