/**
 * Slack's trigger_ids and open views, as strict as Slack. A trigger_id comes with a command or an
 * interaction and opens one view, once, within 3 seconds (docs.slack.dev, views.open:
 * `expired_trigger_id`, `exchanged_trigger_id`, `invalid_trigger_id` for one not shaped
 * "132456.7890123.abcdef"). An opened view has an id and a hash; views.update of an unknown id is
 * `not_found`, and one with a stale hash `hash_conflict`. A Home tab is checked as Slack checks it.
 */
import { randomBytes } from 'node:crypto';
import { blocksRefusal } from './slack-blocks.js';

export const TRIGGER_LIFE_MS = 3000;

let issued = 0;
/**
 * The trigger_id Slack puts in a request it sends at `at` (now): shaped as Slack's, with the
 * moment it was handed out in its middle part, which is how the fake knows when it expires.
 */
export const triggerId = (at = Date.now()): string => `${++issued}.${at}.${randomBytes(6).toString('hex')}`;

export class FakeViews {
  private exchanged = new Set<string>();
  private views = new Map<string, { hash: string }>();
  private count = 0;

  /** Slack's error for opening a view with `trigger`, or undefined when it opens (and the trigger is spent). */
  exchange(trigger: unknown, now = Date.now()): string | undefined {
    const parsed = /^\d+\.(\d+)\.[0-9a-f]+$/.exec(String(trigger ?? ''));
    if (!parsed) return 'invalid_trigger_id';
    if (this.exchanged.has(String(trigger))) return 'exchanged_trigger_id';
    if (now - Number(parsed[1]) > TRIGGER_LIFE_MS) return 'expired_trigger_id';
    this.exchanged.add(String(trigger));
    return undefined;
  }

  /** A view just opened: its id and hash, as views.open answers them. */
  opened(): { id: string; hash: string } {
    const id = `V${String(++this.count).padStart(8, '0')}`;
    const hash = `${Date.now()}.${randomBytes(4).toString('hex')}`;
    this.views.set(id, { hash });
    return { id, hash };
  }

  /** views.update of `viewId` (with the `hash` it was read at, if given): its new hash, or Slack's error. */
  update(viewId: unknown, hash: unknown): { hash: string } | { error: string } {
    const view = this.views.get(String(viewId ?? ''));
    if (!view) return { error: 'not_found' };
    if (hash !== undefined && hash !== view.hash) return { error: 'hash_conflict' };
    view.hash = `${Date.now()}.${randomBytes(4).toString('hex')}`;
    return { hash: view.hash };
  }
}

/**
 * What Slack says about a Home tab (`views.publish`), or undefined when it would accept it: a view
 * of type home with at most 100 blocks (docs.slack.dev, "Home tab views"), private_metadata of at
 * most 3,000 characters, and blocks within Block Kit's limits (section text 3,000, header 150,
 * a button's value 2,000, an actions block 25 elements, a context block 10).
 */
export function homeRefusal(view: unknown): string | undefined {
  const v = view as {
    type?: string;
    private_metadata?: string;
    blocks?: { type?: string; text?: { text?: string }; elements?: { value?: string }[] }[];
  };
  if (v?.type !== 'home' || !Array.isArray(v.blocks)) return 'invalid_arguments';
  if (v.blocks.length > 100 || (v.private_metadata ?? '').length > 3000) return 'invalid_arguments';
  // Block Kit's rules for every block (slack-blocks.ts), then the limits below.
  if (blocksRefusal(v.blocks)) return 'invalid_blocks';
  for (const b of v.blocks) {
    const text = b.text?.text ?? '';
    if ((b.type === 'section' && text.length > 3000) || (b.type === 'header' && text.length > 150))
      return 'invalid_blocks';
    const elements = b.elements ?? [];
    if ((b.type === 'actions' && elements.length > 25) || (b.type === 'context' && elements.length > 10))
      return 'invalid_blocks';
    if (elements.some((e) => (e.value ?? '').length > 2000)) return 'invalid_blocks';
  }
  return undefined;
}
