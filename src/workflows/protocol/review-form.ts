/**
 * The Edit form of a review (its `fields`): what a filled-in form must hold, whatever the surface
 * that filled it. Checked by the engine before an edit is recorded, and by Slack's modal first so
 * that a mistake shows in the form itself. Errors are keyed by field id; `FORM` is the form's own.
 */

import { FIELD_MAX, type ReviewRequest } from './requests.js';
import { toolCallErrors } from './standard-interrupts.js';

/** The key of an error that belongs to no one field. */
export const FORM = 'form';

/** Why the filled-in Edit form cannot be used, by field: its own rules, then its tool calls'. */
export function invalidEdit(request: ReviewRequest, values: Record<string, string>): Record<string, string> {
  const errors = formErrors(request, values);
  return Object.keys(errors).length ? errors : toolCallErrors(request, values);
}

function formErrors(request: ReviewRequest, values: Record<string, string>): Record<string, string> {
  const errors: Record<string, string> = {};
  const known = new Set(request.fields.map((f) => f.id));
  const stray = Object.keys(values).filter((k) => !known.has(k));
  if (stray.length) errors[FORM] = `This form has no field ${stray.map((k) => `"${k}"`).join(', ')}.`;
  for (const f of request.fields) {
    const v = values[f.id];
    if (f.choices) {
      if (!v) {
        if (!f.optional) errors[f.id] = `Choose what to do with ${f.label}.`;
      } else if (!f.choices.some((c) => c.value === v)) {
        errors[f.id] = `Choose one of: ${f.choices.map((c) => c.label).join(', ')}.`;
      }
      continue;
    }
    if (!f.optional && !v?.trim()) errors[f.id] = `Fill in ${f.label}.`;
    else if (v && v.length > FIELD_MAX)
      errors[f.id] = `This is ${v.length} characters; a field holds ${FIELD_MAX}.`;
  }
  return errors;
}
