/**
 * The review an interrupt asks for. signoff's own workflows send a `ReviewRequest`; the standard
 * shapes become one (standard-interrupts.ts); anything else (a graph of the team's own) is shown
 * as its JSON with the three standard actions.
 *
 * It never throws: it runs inside the run's settling transaction, where a throw would roll back
 * every retry and leave the task working for ever. What does not fit the schema is shortened and
 * the card says so: a long title is cut (and given whole in the body), a long body is cut with
 * "(… N characters cut)", form fields that do not fit are left out with a note. Content that had
 * to be cut cannot be seen whole, so it cannot be approved: only sent back or rejected.
 */

import {
  ACTIONS,
  approves,
  DEFAULT_ACTIONS,
  type ReviewRequest,
  reviewFieldSchema,
  reviewRequestSchema,
} from './requests.js';
import { fromStandard } from './standard-interrupts.js';

const UNTITLED = 'The workflow asks for your review';
const TITLE_MAX = 150;
const LABEL_MAX = 30;
const FEEDBACK_LABEL_MAX = 100;
/**
 * The schema's own limit (protocol.ts): a standard interrupt's Edit form has up to two fields a call (its
 * decision and its arguments) for up to ten calls, and a modal of 20 fields and two more blocks
 * is well inside Slack's 100 blocks a view. Fewer would drop a call's field, and with it Edit.
 */
const FIELDS_MAX = 20;
/** The schema's body limit, less room for the notes put ahead of the content. */
const BODY_MAX = 100_000 - 2_000;
/** A kind as the config file names checkpoints. */
const KIND = /^[a-z][a-z0-9_]*$/;

export function toReviewRequest(value: unknown): ReviewRequest {
  const parsed = reviewRequestSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  try {
    const standard = fromStandard(value);
    if (standard) return shortened(standard);
    if (looksLikeRequest(value)) return shortened(value);
    return shortened({ kind: 'review', title: UNTITLED, body: `\`\`\`\n${asJson(value)}\n\`\`\`` });
  } catch {
    // Nothing above should throw; if it did, the review still opens, saying it cannot be read.
    return reviewRequestSchema.parse({
      kind: 'review',
      title: UNTITLED,
      body: '_signoff could not read what this step asks. Send it back for a new version, or reject it._',
      actions: ['revise', 'reject'],
    });
  }
}

/**
 * A request of signoff's own shape that does not validate (too long, a field too many): only the
 * request's own keys, so that nothing of a value in another shape is dropped unseen.
 */
function looksLikeRequest(value: unknown): value is Record<string, unknown> {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return false;
  const v = value as Record<string, unknown>;
  const own = Object.keys(reviewRequestSchema.shape);
  return (
    (typeof v.title === 'string' || typeof v.body === 'string') &&
    Object.keys(v).every((k) => own.includes(k))
  );
}

/** JSON of anything (a BigInt or a cycle included), indented. */
function asJson(value: unknown): string {
  try {
    return JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? v.toString() : v), 2) ?? String(value);
  } catch {
    return String(value);
  }
}

/** The request made to fit the schema, with a note for everything that had to change. */
function shortened(value: Record<string, unknown>): ReviewRequest {
  const v = {
    ...value,
    origin: reviewRequestSchema.shape.origin.safeParse(value.origin).data,
  } as Record<keyof ReviewRequest, unknown>;
  const notes: string[] = [];
  const fullTitle = typeof v.title === 'string' && v.title.trim() ? v.title.trim() : UNTITLED;
  const title = fullTitle.length > TITLE_MAX ? `${fullTitle.slice(0, TITLE_MAX - 1)}…` : fullTitle;
  let body = typeof v.body === 'string' ? v.body : v.body === undefined ? '' : asJson(v.body);
  if (title !== fullTitle) body = `**Title in full:** ${fullTitle}\n\n${body}`;
  const cut = body.length - BODY_MAX;
  if (cut > 0) {
    body = body.slice(0, BODY_MAX);
    // A code fence left open would swallow the note.
    if ((body.match(/```/g) ?? []).length % 2 === 1) body += '\n```';
    body += `\n\n_(… ${cut.toLocaleString('en-US')} characters cut)_`;
  }
  const { kept: fields, dropped } = fitFields(v.fields, notes);
  let actions = Array.isArray(v.actions)
    ? ACTIONS.filter((a) => (v.actions as unknown[]).includes(a))
    : [...DEFAULT_ACTIONS];
  if (actions.length === 0) actions = [...DEFAULT_ACTIONS];
  if (dropped && v.origin && actions.includes('edit')) {
    // A standard interrupt's Edit changes its calls' arguments, one form field each: with one
    // missing, an edit could not say what to do with that call.
    actions = actions.filter((a) => a !== 'edit');
    notes.push('Editing is not offered here: not every call fits in a form.');
  }
  if (cut > 0) {
    // Nobody can see all of it: nothing may approve it, an edit of a tool call's arguments included.
    const before = actions;
    actions = actions.filter((a) => !approves(a) && !(a === 'revise' && fields.length));
    if (actions.length === 0) actions = ['reject'];
    if (actions.length < before.length)
      notes.push('This is too long to show in full, so it cannot be approved here.');
  }
  const lead = notes.map((n) => `> :warning: ${n}`).join('\n');
  return reviewRequestSchema.parse({
    kind: typeof v.kind === 'string' ? asKind(v.kind) : 'review',
    title,
    body: lead ? `${lead}\n\n${body}` : body,
    actions,
    labels: fitLabels(v.labels),
    feedbackLabel:
      typeof v.feedbackLabel === 'string' && v.feedbackLabel.trim()
        ? v.feedbackLabel.trim().slice(0, FEEDBACK_LABEL_MAX)
        : undefined,
    round: Number.isInteger(v.round) && (v.round as number) >= 1 ? v.round : 1,
    refusedWords: reviewRequestSchema.shape.refusedWords.safeParse(v.refusedWords).data,
    rejectGoesOn: reviewRequestSchema.shape.rejectGoesOn.safeParse(v.rejectGoesOn).data,
    fields,
    origin: v.origin,
    rules: reviewRequestSchema.shape.rules.safeParse(v.rules).data,
  });
}

/** A checkpoint name from whatever the graph called it ("Payment Review" → payment_review). */
function asKind(kind: string): string {
  if (KIND.test(kind)) return kind;
  const slug = kind
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, '_')
    .replace(/^[^a-z]+/, '')
    .slice(0, 64);
  return slug || 'review';
}

function fitLabels(labels: unknown): ReviewRequest['labels'] {
  if (!labels || typeof labels !== 'object') return {};
  const out: ReviewRequest['labels'] = {};
  for (const a of ACTIONS) {
    const label = (labels as Record<string, unknown>)[a];
    if (typeof label === 'string' && label.trim()) out[a] = label.trim().slice(0, LABEL_MAX);
  }
  return out;
}

/** The form fields that fit (at most `FIELDS_MAX`, each valid), with a note for each left out. */
function fitFields(fields: unknown, notes: string[]): { kept: ReviewRequest['fields']; dropped: number } {
  const kept: ReviewRequest['fields'] = [];
  let dropped = 0;
  for (const raw of Array.isArray(fields) ? fields : []) {
    const f = (raw && typeof raw === 'object' ? raw : {}) as {
      id?: unknown;
      label?: unknown;
      initial?: unknown;
    };
    const label = typeof f.label === 'string' ? f.label.slice(0, 48) : f.label;
    const field = reviewFieldSchema.safeParse({ ...f, label });
    const named = `“${String(label ?? f.id ?? 'a field')}”`;
    if (field.success && kept.length < FIELDS_MAX) {
      kept.push(field.data);
      continue;
    }
    // A few notes say which; past that, how many (the notes must fit too).
    if (++dropped > 3) continue;
    notes.push(
      kept.length >= FIELDS_MAX
        ? `The form field ${named} was left out: a review has at most ${FIELDS_MAX}.`
        : typeof f.initial === 'string' && f.initial.length > 3000
          ? `The form field ${named} was left out: its value (${f.initial.length.toLocaleString('en-US')} characters) is longer than a form can hold.`
          : `The form field ${named} was left out: it is not a valid form field.`,
    );
  }
  if (dropped > 3) notes.push(`${dropped - 3} more form fields were left out.`);
  return { kept, dropped };
}
