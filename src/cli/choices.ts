/**
 * A review's choices as the terminal says them, in the review's own words (its labels: "accept
 * goal", "refine"): under its card, and when a typed word is not one of them.
 */
import type { Review } from '../engine/index.js';

/** "The query to search instead" → "the query to search instead" within a sentence ("SQL" stays). */
export const lowerFirst = (text: string) =>
  /^[A-Z][a-z]/.test(text) ? text.charAt(0).toLowerCase() + text.slice(1) : text;

/** A single call's arguments, the review's one field, typed at the prompt as a line of JSON. */
export const argumentsField = (review: Review) => {
  const fields = review.request.fields;
  return fields.length === 1 && !fields[0]?.choices ? fields[0] : undefined;
};

/**
 * A tool call that may not go ahead as asked (its `allowedDecisions` lack approve: LangChain's
 * `['edit', 'reject']`): its review has Edit and no Approve, so it must be changed or rejected. (A
 * review whose Approve is gone because its content was cut has no Edit either.)
 */
export const mustChange = (review: Review) => {
  const r = review.request;
  return r.origin !== undefined && r.actions.includes('edit') && !r.actions.includes('approve');
};

/** "a, b, or c" */
export const either = (items: string[]) =>
  items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')}, or ${items.at(-1)}`;

/**
 * What to type at a call that may not go ahead as asked, where approving is what was tried (Enter,
 * "approve", its arguments typed back as shown): the ways to change it, and to reject it.
 */
export function mustChangeSentence(review: Review): string {
  const r = review.request;
  const word = (action: keyof typeof r.labels) => (r.labels[action] ?? action).toLowerCase();
  const respond = r.actions.includes('revise') ? [`a sentence to ${word('revise')}`] : [];
  // As wordsDoNotChange says: an Agent Inbox call's ignore takes no message (a why typed would be
  // dropped), so it is offered with what it does; a LangChain call's reject tells its agent why.
  const saysWhy = r.origin?.format !== 'agent_inbox';
  const reject = r.actions.includes('reject') ? [saysWhy ? '"reject" (or "reject: why")' : '"reject"'] : [];
  const rejectTo = reject.map((w) => `${w} to ${word('reject')}`);
  if (argumentsField(review))
    return `This call may not go ahead as asked: type ${either(['its edited arguments as one line of JSON', '"edit" for a form', ...respond, ...(saysWhy ? reject : rejectTo)])}.`;
  return `Not every call here may go ahead as asked: type ${either(['"edit" to decide each', ...respond, ...rejectTo])}.`;
}

export function choicesOf(review: Review): string {
  const r = review.request;
  const word = (action: keyof typeof r.labels, fallback: string) =>
    (r.labels[action] ?? fallback).toLowerCase();
  const changed = mustChange(review);
  return [
    r.actions.includes('approve')
      ? // A tool call goes ahead on the typed word only (cli/answer.ts).
        `${r.origin ? '' : 'Enter or '}"approve" to ${word('approve', 'approve')}`
      : undefined,
    r.actions.includes('edit')
      ? argumentsField(review)
        ? changed
          ? 'type its edited arguments as one line of JSON (it may not go ahead as asked), "edit" for a form'
          : `type the arguments as one line of JSON to ${word('edit', 'edit')} (that approves them)`
        : `"edit" to ${word('edit', 'edit')}${changed ? ' (not every call may go ahead as asked)' : ''}`
      : undefined,
    r.actions.includes('revise')
      ? r.feedbackLabel
        ? `type ${lowerFirst(r.feedbackLabel)}`
        : `type feedback to ${word('revise', 'revise')}`
      : undefined,
    r.actions.includes('reject') ? `"reject" to ${word('reject', 'reject')}` : undefined,
    // Where the config file sets alwaysAllow (the review keeps it): approve and propose a rule.
    r.actions.includes('approve') && review.settings.alwaysAllow
      ? '"always" to approve and always allow'
      : undefined,
  ]
    .filter(Boolean)
    .join(', ');
}

/**
 * What a line typed at a tool call (one that takes no response) is answered with when it is no
 * answer: words change no call (nor do arguments that name no call, or a call that may not be
 * edited), and what does. The example names the call's first argument only: the whole set,
 * wrapped over lines, buried the sentence.
 */
export function wordsDoNotChange(review: Review, typed: string): string {
  const r = review.request;
  const word = (action: keyof typeof r.labels) => (r.labels[action] ?? action).toLowerCase();
  const only = argumentsField(review);
  const edit = r.actions.includes('edit')
    ? only
      ? [`its edited arguments as one line of JSON (such as ${briefly(only.initial)})`, '"edit" for a form']
      : ['"edit" to decide each call']
    : [];
  const approve = r.actions.includes('approve') && !only ? [`"approve" to ${word('approve')}`] : [];
  // An Agent Inbox call's ignore takes no message; a LangChain call's reject tells its agent why.
  const reject = !r.actions.includes('reject')
    ? []
    : r.origin?.format === 'agent_inbox'
      ? [`"reject" to ${word('reject')}`]
      : [`"reject: <why>" to ${only ? '' : `${word('reject')} and `}tell the agent why`];
  const lead = !typed.startsWith('{')
    ? 'Words do not change a tool call'
    : edit.length
      ? "Arguments typed here could be any call's"
      : 'These arguments may not be changed';
  return `${lead}: type ${either([...edit, ...approve, ...reject])}.`;
}

/** `{"to": "…"}`: arguments shown by their first key alone. */
function briefly(args: string | undefined): string {
  let first: string | undefined;
  try {
    first = Object.keys(JSON.parse(args ?? '{}') as object)[0];
  } catch {
    first = undefined;
  }
  return first === undefined ? '{…}' : `{${JSON.stringify(first)}: "…"}`;
}
