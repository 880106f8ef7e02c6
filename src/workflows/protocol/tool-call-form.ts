/**
 * A review of tool calls (standard-interrupts.ts) as signoff shows and reads it: the
 * buttons it offers, its body, the Edit form (per call: a decision, with no default, and the
 * arguments where they may be edited and fit a field), and the reading of a filled-in form into
 * one explicit decision per call. Nothing is filled in: a call without a decision, or with
 * arguments that do not parse or fit its schema, makes the form refused.
 */

import { readArgSchema } from './arg-schema.js';
import { sameJson } from './canonical-json.js';
import { numberNotKept, whyNotKept } from './json-numbers.js';
import { jsonTrouble } from './json-trouble.js';
import {
  type Action,
  FIELD_MAX,
  type PendingEdit,
  type ReviewField,
  type ReviewRequest,
  type ReviewRequestInput,
  TOOL_CALL_KIND,
} from './requests.js';
import { argsTrouble } from './schema-trouble.js';
import { type CallDecision, type ToolCall, toolCallsBody, valuesCut } from './tool-call-body.js';

/** Calls decided one by one in a form, at most (two fields each, and Slack's modal has room). */
const FORM_CALLS = 10;
const BODY_MAX = 99_000;
/** Said ahead of calls that cannot be shown whole. */
const UNSEEN = 'This is too long to show in full, so it cannot be approved or edited here.';
const choiceId = (i: number) => `decision_${i}`;
const argsId = (i: number) => `args_${i}`;
/** Whether a form field is a call's arguments (a line of JSON), as the audit records them. */
export const isArgumentsField = (id: string) => /^args_\d+$/.test(id);

const pretty = (args: Record<string, unknown>) => JSON.stringify(args, null, 2);
const count = (n: number) => n.toLocaleString('en-US');
const nameOf = (calls: ToolCall[], i: number) =>
  `${calls.length > 1 ? `${i + 1}. ` : ''}${calls[i]?.name ?? 'the call'}`;

/** The arguments a call runs with when approved as shown. */
const argsShown = (call: ToolCall, shown: CallDecision | undefined) =>
  shown?.type === 'edit' ? shown.args : call.args;

/** Whether the call's arguments go in the form: it may be edited, and they fit a field. */
const editable = (call: ToolCall, args: Record<string, unknown>) =>
  call.allowed.includes('edit') && pretty(args).length <= FIELD_MAX;

function choicesFor(call: ToolCall, args: Record<string, unknown>): NonNullable<ReviewField['choices']> {
  return [
    ...(call.allowed.includes('approve') || editable(call, args)
      ? [{ value: 'approve', label: editable(call, args) ? 'Approve, with the arguments below' : 'Approve' }]
      : []),
    ...(call.allowed.includes('reject') ? [{ value: 'reject', label: 'Reject' }] : []),
  ];
}

/**
 * The words an Edit came with, where the agent gets them with the decision (signoff's own
 * request; the message of a tool call the edit rejects): whoever approves the edit reads them too.
 */
export const editNote = (edit: Pick<PendingEdit, 'feedback'> | undefined) =>
  edit?.feedback ? `\n\n**With the edit, for the agent:**\n${edit.feedback.replace(/^/gm, '> ')}` : '';

/** The review of `calls`: title, body, buttons and the Edit form. */
export function toolCallForm(
  calls: ToolCall[],
  o: { respond: boolean; inbox: boolean; edit?: PendingEdit },
): Pick<ReviewRequestInput, 'kind' | 'title' | 'body' | 'actions' | 'labels' | 'fields'> {
  const shown = shownDecisions(calls, o.edit);
  const many = calls.length > 1;
  const inForm = calls.length <= FORM_CALLS;
  const fields: ReviewField[] = [];
  let decidable = inForm;
  let something = false;
  for (const [i, call] of (inForm ? calls : []).entries()) {
    const args = argsShown(call, shown[i]);
    const choices = choicesFor(call, args);
    if (!choices.length) decidable = false;
    if (many) {
      fields.push({
        id: choiceId(i),
        label: nameOf(calls, i).slice(0, 48),
        multiline: false,
        optional: false,
        choices,
      });
      if (choices.length > 1) something = true;
    }
    if (editable(call, args)) {
      something = true;
      fields.push({
        id: argsId(i),
        label: `${nameOf(calls, i)} arguments (JSON)`.slice(0, 48),
        multiline: true,
        optional: false,
        initial: pretty(args),
      });
    }
  }
  const every = (d: CallDecision['type']) => calls.every((c) => c.allowed.includes(d));
  const edits = decidable && something;
  const n = calls.length;
  const shownCalls = calls.map((c, i) => ({ ...c, state: o.edit ? shown[i] : undefined }));
  // A value cut short is not seen whole: nothing may approve the calls, not even an edit of another.
  const cut = valuesCut(shownCalls);
  const notes = calls.map((call, i) => {
    const args = argsShown(call, shown[i]);
    if (!call.allowed.includes('edit') || editable(call, args) || !inForm) return undefined;
    return `Too long to edit here (${count(pretty(args).length)} characters; a form field holds ${count(FIELD_MAX)})${cut ? '.' : ': approve it as it is, or reject it.'}`;
  });
  const tooMany = inForm
    ? ''
    : `\n\n_There are ${n} calls, too many to decide one by one here: ${cut ? 'reject them all' : 'approve them all or reject them all'}._`;
  // A HITL agent gets the edit's note with the calls it rejects; an Agent Inbox one never does.
  const noted = !o.inbox && shown.some((d) => d.type === 'reject') ? editNote(o.edit) : '';
  const full = toolCallsBody(shownCalls.map((c, i) => ({ ...c, note: notes[i] }))) + tooMany + noted;
  // Only thousands of keys could pass a review's 100,000 characters (long values are cut first).
  const over = full.length > BODY_MAX;
  const unseen = cut || over;
  const actions: Action[] = [
    ...((every('approve') || o.edit) && !unseen ? (['approve'] as const) : []),
    ...(edits && !unseen ? (['edit'] as const) : []),
    ...(o.respond ? (['revise'] as const) : []),
    ...(every('reject') ? (['reject'] as const) : []),
  ];
  const body = over ? `${full.slice(0, BODY_MAX)}\n\n_…cut: this call is longer than a review holds._` : full;
  return {
    kind: TOOL_CALL_KIND,
    // What the card asks: a call that may not go ahead as asked is not offered for approval.
    title:
      `${actions.includes('approve') || !actions.includes('edit') ? 'Approve' : 'Change'} ${calls.map((c) => c.name).join(', ')}?`.slice(
        0,
        150,
      ),
    body: unseen ? `> :warning: ${UNSEEN}\n\n${body}` : body,
    // A review no button could answer would wait for ever: Reject is left (the graph says if it may not).
    actions: actions.length ? actions : ['reject'],
    labels: {
      approve: o.edit ? 'Approve as edited' : many ? `Approve all ${n}` : o.inbox ? 'Accept' : 'Approve',
      edit: many ? (fields.some((f) => !f.choices) ? 'Edit or decide each' : 'Decide each') : 'Edit',
      revise: 'Respond',
      reject: many ? `Reject all ${n}` : o.inbox ? 'Ignore' : 'Reject',
    },
    fields,
  };
}

/**
 * The arguments typed, or why they are none: not JSON at all (and where), a number JSON would not
 * keep as typed (`inexact`), or JSON but no object.
 */
const parseArgs = (
  text: string,
): { args: Record<string, unknown> } | { unreadable?: string } | { inexact: string } => {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (error) {
    return { unreadable: jsonTrouble(text, error) };
  }
  const inexact = numberNotKept(text);
  if (inexact !== undefined) return { inexact };
  return v && typeof v === 'object' && !Array.isArray(v) ? { args: v as Record<string, unknown> } : {};
};

/** A number quoted at most this long (a thousand digits typed are no sentence). */
const NUMBER_SHOWN = 40;

/** Why a number typed cannot go to the call as typed (too large, too small, too many digits), and how to send it as text. */
function inexactSentence(name: string, token: string): string {
  const whole = token.length <= NUMBER_SHOWN;
  const shownToken = whole ? token : `${token.slice(0, NUMBER_SHOWN - 1)}…`;
  return `The arguments of ${name} hold the number ${shownToken}, ${whyNotKept(token)}: write it in quotes${whole ? `, as "${token}"` : ''}.`;
}

/**
 * Why `parsed` cannot run as `call`'s arguments by its schema. A schema that cannot be read (one
 * Ajv cannot compile: a `$schema` it does not know, a `$ref` to nowhere) checks nothing, so edited
 * arguments are refused, never run unchecked; the arguments as shown (`args`) are what the call
 * asked, and go on to the rules of an approval.
 */
function schemaTroubleOf(
  call: ToolCall,
  schema: Record<string, unknown>,
  o: { name: string; parsed: Record<string, unknown>; args: Record<string, unknown> },
): string | undefined {
  const { name, parsed, args } = o;
  const check = readArgSchema(schema);
  if ('validate' in check) return argsTrouble(check.validate, parsed);
  if (sameJson(parsed, args)) return undefined;
  const way = call.allowed.includes('approve') ? 'approve it as asked, or reject it' : 'reject it';
  return `The argument schema of ${name} cannot be read, so edited arguments cannot be checked: ${way}.`;
}

export const sameDecisions = (a: CallDecision[], b: CallDecision[]) => sameJson(a, b);

/**
 * One decision per call from a filled-in form (`values`), as the review shows the calls now.
 * Each call needs its decision (a single call's Edit is its approval with the arguments given);
 * arguments must be a JSON object of the call's schema; a call run with other arguments than it
 * asked is an edit, and must allow one.
 */
export function readDecisions(
  calls: ToolCall[],
  request: Pick<ReviewRequest, 'edit'>,
  values: Record<string, string>,
): { decisions: CallDecision[] } | { errors: Record<string, string> } {
  const shown = shownDecisions(calls, request.edit);
  const errors: Record<string, string> = {};
  const decisions = calls.map((call, i): CallDecision => {
    const choice = values[choiceId(i)] ?? (calls.length > 1 ? undefined : 'approve');
    const name = nameOf(calls, i);
    if (choice === 'reject' && call.allowed.includes('reject')) return { type: 'reject' };
    if (choice !== 'approve') {
      errors[choiceId(i)] = choice
        ? `${name} cannot be "${choice}": choose one of its options.`
        : `Choose what to do with ${name}.`;
      return { type: 'reject' };
    }
    const text = values[argsId(i)];
    let args = argsShown(call, shown[i]);
    if (text !== undefined) {
      const read = parseArgs(text);
      if ('inexact' in read) {
        errors[argsId(i)] = inexactSentence(name, read.inexact);
        return { type: 'reject' };
      }
      if (!('args' in read)) {
        errors[argsId(i)] =
          read.unreadable === undefined
            ? `Write the arguments of ${name} as a JSON object, such as {"to": "…"}.`
            : `The arguments of ${name} could not be read as JSON${read.unreadable ? ` (${read.unreadable})` : ''}: write them as one JSON object, such as {"to": "…"}.`;
        return { type: 'reject' };
      }
      const parsed = read.args;
      const invalid = call.argsSchema && schemaTroubleOf(call, call.argsSchema, { name, parsed, args });
      if (invalid) {
        errors[argsId(i)] = invalid;
        return { type: 'reject' };
      }
      args = parsed;
    }
    if (sameJson(args, call.args)) {
      if (call.allowed.includes('approve')) return { type: 'approve' };
      // Sent back unchanged, an edit would run the call as asked, which its rules do not allow.
      errors[argsId(i)] = `${name} may not go ahead as asked: change its arguments, or reject it.`;
      return { type: 'reject' };
    }
    if (!call.allowed.includes('edit')) {
      errors[argsId(i)] = `${name} may not be changed: approve it as asked, or reject it.`;
      return { type: 'reject' };
    }
    return { type: 'edit', args };
  });
  return Object.keys(errors).length ? { errors } : { decisions };
}

/** What the review shows for each call: as asked, or as an edit counted towards a quorum made it. */
export function shownDecisions(calls: ToolCall[], edit: PendingEdit | undefined): CallDecision[] {
  if (!edit) return calls.map(() => ({ type: 'approve' }));
  const read = readDecisions(calls, {}, edit.values);
  // Never read as an approval of something nobody decided.
  return 'decisions' in read ? read.decisions : calls.map(() => ({ type: 'reject' }));
}

/** Decisions as the values of a form that says them all: what an edit counted towards a quorum keeps. */
export function decisionValues(decisions: CallDecision[]): Record<string, string> {
  return Object.fromEntries(
    decisions.flatMap((d, i) => [
      [choiceId(i), d.type === 'reject' ? 'reject' : 'approve'],
      ...(d.type === 'edit' ? [[argsId(i), JSON.stringify(d.args)]] : []),
    ]),
  );
}
