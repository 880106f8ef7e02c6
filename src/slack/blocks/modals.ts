/** Modals: start a task; give revise feedback or fill in a review's Edit form. */
import type { types } from '@slack/bolt';
import { type ReviseMeta, reviseMetadata } from './revise-meta.js';
import { LIMITS, neutralizePlain, truncate } from './text.js';

export const START_VIEW = 'signoff_start';
export const REVISE_VIEW = 'signoff_revise';

export function startModal(
  workflows: { name: string; description: string }[],
  channel: string,
  responseUrl?: string,
): types.View {
  return {
    type: 'modal',
    callback_id: START_VIEW,
    // The command's response URL goes along: the start answers through it (see respond.ts).
    private_metadata: JSON.stringify({ channel, responseUrl }),
    title: { type: 'plain_text', text: 'Start a task' },
    submit: { type: 'plain_text', text: 'Start' },
    close: { type: 'plain_text', text: 'Cancel' },
    blocks: [
      {
        type: 'input',
        block_id: 'workflow',
        label: { type: 'plain_text', text: 'Workflow' },
        element: {
          type: 'static_select',
          action_id: 'value',
          options: workflows.slice(0, 100).map((w) => ({
            text: { type: 'plain_text', text: truncate(w.name, 75) },
            description: { type: 'plain_text', text: truncate(w.description, 75) },
            value: w.name,
          })),
        },
      },
      {
        type: 'input',
        block_id: 'task',
        label: { type: 'plain_text', text: 'What should the agents do?' },
        element: { type: 'plain_text_input', action_id: 'value', multiline: true, max_length: 3000 },
      },
    ],
  };
}

/** A field of a review's Edit form: text (prefilled), or a menu of choices with none chosen. */
export interface ModalField {
  id: string;
  label: string;
  multiline: boolean;
  optional?: boolean;
  initial?: string;
  choices?: { value: string; label: string }[];
}

export const FIELD_BLOCK = 'field_';

function fieldBlock(f: ModalField): types.KnownBlock {
  const label = { type: 'plain_text' as const, text: truncate(neutralizePlain(f.label), 48) };
  const optional = f.optional ?? true;
  const element: types.InputBlockElement = f.choices
    ? {
        type: 'static_select',
        action_id: 'value',
        placeholder: { type: 'plain_text', text: 'Choose' },
        options: f.choices.slice(0, 100).map((c) => ({
          text: { type: 'plain_text', text: truncate(neutralizePlain(c.label), 75) },
          value: c.value.slice(0, 150),
        })),
      }
    : {
        type: 'plain_text_input',
        action_id: 'value',
        multiline: f.multiline,
        max_length: LIMITS.plainTextInput,
        ...(f.initial ? { initial_value: f.initial.slice(0, LIMITS.plainTextInput) } : {}),
      };
  return { type: 'input', block_id: `${FIELD_BLOCK}${f.id}`, label, optional, element };
}

/**
 * The modal of Revise (what should change: required feedback) or Edit (the review's form, each
 * call's decision and arguments, and an optional note: the message for any call rejected).
 */
export function reviseModal(
  meta: ReviseMeta,
  title: string,
  maxLength: number,
  fields: ModalField[] = [],
  /** Where the workflow's words ask for something else than a change (`feedbackLabel`), and its button's name. */
  asked?: { ask: string; button?: string },
): types.View {
  const editing = fields.length > 0;
  const deciding = fields.some((f) => f.choices);
  const heading = deciding
    ? 'Decide each call'
    : editing
      ? 'Edit before it runs'
      : asked?.button
        ? truncate(neutralizePlain(asked.button), 24)
        : 'Ask for a revision';
  return {
    type: 'modal',
    callback_id: REVISE_VIEW,
    private_metadata: reviseMetadata(meta),
    title: { type: 'plain_text', text: heading },
    submit: { type: 'plain_text', text: 'Send' },
    close: { type: 'plain_text', text: 'Cancel' },
    blocks: [
      ...(asked
        ? []
        : [
            {
              type: 'section' as const,
              text: { type: 'plain_text' as const, text: truncate(neutralizePlain(title), 2000) },
            },
          ]),
      ...fields.map(fieldBlock),
      {
        type: 'input',
        block_id: 'feedback',
        optional: editing,
        label: {
          type: 'plain_text',
          text: deciding
            ? 'Message for the calls you reject (optional)'
            : editing
              ? 'Note (optional)'
              : asked
                ? truncate(neutralizePlain(asked.ask), 2000)
                : 'What should change?',
        },
        element: {
          type: 'plain_text_input',
          action_id: 'value',
          multiline: true,
          max_length: Math.min(maxLength, LIMITS.plainTextInput),
        },
      },
    ],
  };
}

/** Edit's modal as it opens, before the review's form is read (the click's trigger lives 3 s). */
export const editLoading = (text = 'Reading the call…'): types.View => ({
  type: 'modal',
  title: { type: 'plain_text', text: 'Edit before it runs' },
  close: { type: 'plain_text', text: 'Cancel' },
  blocks: [{ type: 'section', text: { type: 'plain_text', text } }],
});
