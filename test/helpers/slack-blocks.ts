/**
 * Block Kit as Slack checks it, for the fake (docs.slack.dev, "Block Kit" reference: blocks,
 * block elements, composition objects). A message's blocks that break a rule are refused with
 * `invalid_blocks`; a view's with `invalid_arguments`. Only the rules the product's blocks can
 * meet are here, each with Slack's own number.
 */

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);
const textOf = (o: unknown): string => (isObj(o) && typeof o.text === 'string' ? o.text : '');
const isPlain = (o: unknown) => isObj(o) && o.type === 'plain_text';

/**
 * A confirmation dialog: every part a plain_text object, title within 100 characters, text 300,
 * confirm and deny 30 each ("Confirmation dialog object").
 */
export function confirmRefusal(confirm: unknown): string | undefined {
  if (!isObj(confirm)) return 'confirm is not an object';
  const parts = { title: 100, text: 300, confirm: 30, deny: 30 } as const;
  for (const [part, max] of Object.entries(parts)) {
    const o = confirm[part];
    if (!isPlain(o)) return `confirm.${part} must be a plain_text object`;
    if (textOf(o).length === 0 || textOf(o).length > max)
      return `confirm.${part} must be 1-${max} characters`;
  }
  return undefined;
}

/** A button: text plain_text within 75, value 2,000, action_id 255, and a valid confirm if any. */
function elementRefusal(e: unknown): string | undefined {
  if (!isObj(e)) return 'element is not an object';
  if (typeof e.action_id === 'string' && e.action_id.length > 255) return 'action_id over 255';
  if (e.type === 'button') {
    if (!isPlain(e.text) || textOf(e.text).length === 0 || textOf(e.text).length > 75)
      return 'button text must be plain_text of 1-75 characters';
    if (typeof e.value === 'string' && e.value.length > 2000) return 'button value over 2000';
  }
  if (e.confirm !== undefined) return confirmRefusal(e.confirm);
  return undefined;
}

/** One block's own rules ("Blocks" reference, per block type). */
function blockRefusal(b: unknown): string | undefined {
  if (!isObj(b) || typeof b.type !== 'string') return 'block without a type';
  if (typeof b.block_id === 'string' && b.block_id.length > 255) return 'block_id over 255';
  switch (b.type) {
    case 'section': {
      if (b.text === undefined && b.fields === undefined) return 'section needs text or fields';
      const n = textOf(b.text).length;
      if (b.text !== undefined && (n === 0 || n > 3000)) return 'section text must be 1-3000 characters';
      return b.accessory === undefined ? undefined : elementRefusal(b.accessory);
    }
    case 'header':
      return isPlain(b.text) && textOf(b.text).length > 0 && textOf(b.text).length <= 150
        ? undefined
        : 'header text must be plain_text of 1-150 characters';
    case 'context': {
      const elements = Array.isArray(b.elements) ? b.elements : [];
      if (elements.length === 0 || elements.length > 10) return 'context needs 1-10 elements';
      return elements.some((e) => textOf(e).length > 3000) ? 'context element over 3000' : undefined;
    }
    case 'actions': {
      const elements = Array.isArray(b.elements) ? b.elements : [];
      if (elements.length === 0 || elements.length > 25) return 'actions needs 1-25 elements';
      for (const e of elements) {
        const wrong = elementRefusal(e);
        if (wrong) return wrong;
      }
      return undefined;
    }
    case 'markdown':
      return typeof b.text === 'string' && b.text.length > 0 ? undefined : 'markdown needs text';
    case 'input':
      return isPlain(b.label) && textOf(b.label).length <= 2000 ? undefined : 'input label';
    default:
      return undefined;
  }
}

/**
 * What is wrong with a list of blocks, or undefined: each block's rules, block ids unique, and
 * markdown blocks' text within 12,000 characters together ("Markdown block": "the cumulative
 * limit for all markdown blocks in a single payload is 12,000 characters").
 */
export function blocksRefusal(blocks: unknown[]): string | undefined {
  const ids = new Set<string>();
  let markdown = 0;
  for (const b of blocks) {
    const wrong = blockRefusal(b);
    if (wrong) return wrong;
    const { block_id: id, type, text } = b as Obj;
    if (typeof id === 'string') {
      if (ids.has(id)) return `block_id ${id} used twice`;
      ids.add(id);
    }
    if (type === 'markdown') markdown += String(text).length;
  }
  return markdown > 12_000 ? 'markdown blocks over 12,000 characters together' : undefined;
}

type ViewElement = {
  type?: string;
  max_length?: number;
  options?: { text?: { text?: string }; value?: string }[];
};
/**
 * What Slack says about a modal or a Home tab, or undefined when it would accept it ("View
 * object": 100 blocks, a title of 24 characters, private_metadata of 3,000; a text input's
 * max_length at most 3,000, a menu's options at most 100, each shown in 75 characters with a
 * value of 150), the blocks' own rules included.
 */
export function viewRefusal(view: unknown): string | undefined {
  const v = view as {
    title?: { text?: string };
    private_metadata?: string;
    blocks?: { element?: ViewElement }[];
  };
  if (!v || typeof v !== 'object' || !Array.isArray(v.blocks)) return 'invalid_arguments';
  if (v.blocks.length > 100 || (v.title?.text ?? '').length > 24) return 'invalid_arguments';
  if ((v.private_metadata ?? '').length > 3000) return 'invalid_arguments';
  if (blocksRefusal(v.blocks)) return 'invalid_arguments';
  for (const b of v.blocks) {
    const e = b.element;
    if (e?.type === 'plain_text_input' && (e.max_length ?? 0) > 3000) return 'invalid_arguments';
    if (
      e?.options &&
      (e.options.length > 100 ||
        e.options.some((o) => (o.text?.text ?? '').length > 75 || (o.value ?? '').length > 150))
    )
      return 'invalid_arguments';
  }
  return undefined;
}
