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

/**
 * A static select's options ("Select menu element", "Option group object"): `options` or
 * `option_groups`, 1 to 100 of them (an empty menu is refused, not shown empty), each option's
 * text within 75 characters and its value within 150.
 */
function selectRefusal(e: Obj): string | undefined {
  const groups = Array.isArray(e.option_groups) ? (e.option_groups as Obj[]) : undefined;
  const options = groups ? groups.flatMap((g) => (Array.isArray(g.options) ? g.options : [])) : e.options;
  if (!Array.isArray(options) || options.length === 0) return 'static_select needs 1-100 options';
  if (options.length > 100 || (groups?.length ?? 0) > 100) return 'static_select over 100 options';
  const wrong = (o: Obj) => textOf(o.text).length > 75 || String(o.value ?? '').length > 150;
  return options.some((o) => wrong(o as Obj)) ? 'option text over 75 or value over 150' : undefined;
}

/**
 * A block element: a button's text plain_text within 75 and value 2,000, a static select's options,
 * any action_id within 255, and a valid confirm if any.
 */
function elementRefusal(e: unknown): string | undefined {
  if (!isObj(e)) return 'element is not an object';
  if (typeof e.action_id === 'string' && e.action_id.length > 255) return 'action_id over 255';
  if (e.type === 'button') {
    if (!isPlain(e.text) || textOf(e.text).length === 0 || textOf(e.text).length > 75)
      return 'button text must be plain_text of 1-75 characters';
    if (typeof e.value === 'string' && e.value.length > 2000) return 'button value over 2000';
  }
  if (e.type === 'static_select' || e.type === 'multi_static_select') {
    const wrong = selectRefusal(e);
    if (wrong) return wrong;
  }
  if (e.type === 'radio_buttons' || e.type === 'checkboxes') {
    // "Radio button group" and "Checkboxes" elements: 1 to 10 options; an option's text and
    // description 75 characters each, its value 150.
    const options = Array.isArray(e.options) ? (e.options as Obj[]) : [];
    if (options.length < 1 || options.length > 10) return `${e.type} needs 1-10 options`;
    const wrong = (o: Obj) =>
      textOf(o.text).length > 75 ||
      (o.description !== undefined && textOf(o.description).length > 75) ||
      String(o.value ?? '').length > 150;
    if (options.some(wrong)) return `${e.type} option text or description over 75, or value over 150`;
  }
  if (e.confirm !== undefined) return confirmRefusal(e.confirm);
  return undefined;
}

/** The statuses a task card may show ("Task card block": `status`). */
const TASK_STATUSES = ['pending', 'in_progress', 'complete', 'error'];

/**
 * An agent's plain-text field (a plan's or task card's title, a task's id): present, and within
 * the 256 characters cited for task fields (Slack's streaming chunks; the block pages give none).
 */
const taskFieldRefusal = (v: unknown, what: string) =>
  typeof v === 'string' && v.length > 0 && v.length <= 256 ? undefined : `${what} must be 1-256 characters`;

/**
 * A task card ("Task card block"): `task_id` and `title` required, `status` one of four, `details`
 * and `output` each one rich_text block, `sources` url elements.
 */
function taskCardRefusal(b: Obj): string | undefined {
  const wrong =
    taskFieldRefusal(b.task_id, 'task_card task_id') ?? taskFieldRefusal(b.title, 'task_card title');
  if (wrong) return wrong;
  if (b.status !== undefined && !TASK_STATUSES.includes(String(b.status))) return 'task_card status';
  for (const part of ['details', 'output'] as const) {
    const v = b[part];
    if (v !== undefined && !(isObj(v) && v.type === 'rich_text' && Array.isArray(v.elements)))
      return `task_card ${part} must be one rich_text block`;
  }
  if (b.sources !== undefined) {
    const ok =
      Array.isArray(b.sources) &&
      b.sources.every(
        (s) => isObj(s) && s.type === 'url' && typeof s.url === 'string' && typeof s.text === 'string',
      );
    if (!ok) return 'task_card sources must be url elements';
  }
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
    case 'task_card':
      return taskCardRefusal(b);
    case 'plan': {
      // "Plan block": a title, and task cards (at most 50 are shown; more are refused here).
      const wrong = taskFieldRefusal(b.title, 'plan title');
      if (wrong) return wrong;
      if (b.tasks === undefined) return undefined;
      if (!Array.isArray(b.tasks) || b.tasks.length > 50) return 'plan tasks must be at most 50 task cards';
      for (const t of b.tasks) {
        if (!isObj(t) || t.type !== 'task_card') return 'plan tasks must be task_card blocks';
        const card = taskCardRefusal(t);
        if (card) return card;
      }
      return undefined;
    }
    case 'input':
      if (!isPlain(b.label) || textOf(b.label).length > 2000) return 'input label';
      return elementRefusal(b.element);
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
  // Slack's agent blocks: a plan, or task cards, not both in one message.
  const types = new Set(blocks.map((b) => (isObj(b) ? b.type : undefined)));
  if (types.has('plan') && types.has('task_card')) return 'a plan and task cards in one message';
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

/** A modal's button label ("View object": `submit` and `close`): plain_text of 1 to 24 characters. */
const labelRefusal = (label: unknown) =>
  label === undefined || (isPlain(label) && textOf(label).length > 0 && textOf(label).length <= 24)
    ? undefined
    : 'a modal button label must be plain_text of 1-24 characters';

/**
 * What Slack says about a modal (views.open, .push, .update), or undefined when it would accept it
 * ("Modal views": type modal; a plain_text title of 24 characters; `submit` and `close` labels of
 * 24, and a `submit` wherever an input block is; 100 blocks; private_metadata of 3,000 characters;
 * callback_id and external_id of 255; a text input's max_length at most 3,000), the blocks' own
 * rules included (a static select's options among them). Slack answers `invalid_arguments`.
 */
export function viewRefusal(view: unknown): string | undefined {
  return modalRefusal(view) ? 'invalid_arguments' : undefined;
}

/** What is wrong with a modal (or a Home tab's view object), in words, or undefined. */
export function modalRefusal(view: unknown): string | undefined {
  if (!isObj(view) || !Array.isArray(view.blocks)) return 'a view needs blocks';
  const v = view as Obj & { blocks: Obj[] };
  if (v.type !== 'modal' && v.type !== 'home') return 'a view is a modal or a home tab';
  if (v.type === 'modal') {
    if (!isPlain(v.title) || textOf(v.title).length === 0 || textOf(v.title).length > 24)
      return 'title must be plain_text of 1-24 characters';
    const label = labelRefusal(v.submit) ?? labelRefusal(v.close);
    if (label) return label;
    if (v.submit === undefined && v.blocks.some((b) => b.type === 'input')) return 'an input needs a submit';
  }
  if (v.blocks.length > 100) return 'over 100 blocks';
  if (String(v.private_metadata ?? '').length > 3000) return 'private_metadata over 3000';
  if (String(v.callback_id ?? '').length > 255 || String(v.external_id ?? '').length > 255)
    return 'callback_id or external_id over 255';
  const blocks = blocksRefusal(v.blocks);
  if (blocks) return blocks;
  for (const b of v.blocks) {
    const e = b.element as { type?: string; max_length?: number } | undefined;
    if (e?.type === 'plain_text_input' && (e.max_length ?? 0) > 3000) return 'max_length over 3000';
  }
  return undefined;
}
