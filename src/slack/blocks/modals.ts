/** Modals: start a task; give revise feedback. */
import type { types } from '@slack/bolt';
import { neutralizePlain, truncate } from './text.js';

export const START_VIEW = 'signoff_start';
export const REVISE_VIEW = 'signoff_revise';

export function startModal(workflows: { name: string; description: string }[], channel: string): types.View {
  return {
    type: 'modal',
    callback_id: START_VIEW,
    private_metadata: JSON.stringify({ channel }),
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

/** The form fields of a review (a tool call's arguments to edit), each prefilled. */
export interface ModalField {
  id: string;
  label: string;
  multiline: boolean;
  initial?: string;
}

export const FIELD_BLOCK = 'field_';

export function reviseModal(
  meta: object,
  title: string,
  maxLength: number,
  fields: ModalField[] = [],
): types.View {
  const editing = fields.length > 0;
  return {
    type: 'modal',
    callback_id: REVISE_VIEW,
    private_metadata: JSON.stringify(meta),
    title: { type: 'plain_text', text: editing ? 'Edit before it runs' : 'Ask for a revision' },
    submit: { type: 'plain_text', text: 'Send' },
    close: { type: 'plain_text', text: 'Cancel' },
    blocks: [
      { type: 'section', text: { type: 'plain_text', text: truncate(neutralizePlain(title), 2000) } },
      ...fields.map(
        (f): types.KnownBlock => ({
          type: 'input',
          block_id: `${FIELD_BLOCK}${f.id}`,
          label: { type: 'plain_text', text: truncate(neutralizePlain(f.label), 48) },
          element: {
            type: 'plain_text_input',
            action_id: 'value',
            multiline: f.multiline,
            max_length: 3000,
            ...(f.initial ? { initial_value: f.initial.slice(0, 3000) } : {}),
          },
        }),
      ),
      {
        type: 'input',
        block_id: 'feedback',
        optional: editing,
        label: { type: 'plain_text', text: editing ? 'Note (optional)' : 'What should change?' },
        element: {
          type: 'plain_text_input',
          action_id: 'value',
          multiline: true,
          max_length: Math.min(maxLength, 3000),
        },
      },
    ],
  };
}
