/**
 * A task's plan on its root message: Slack's `plan` block, one `task_card` per step of its
 * workflow (the graph's nodes, engine/plan-steps.ts), each pending, in progress, complete or error.
 * A step waiting for its review says so; a step a Stop cut short says who stopped it.
 */
import type { types } from '@slack/bolt';
import type { Progress, ProgressStep, TaskStatus } from '../../engine/index.js';
import { isPerson } from './people.js';
import { truncate } from './text.js';

type KnownBlock = types.KnownBlock;
type RichTextBlock = types.RichTextBlock;

/** Task cards a plan shows at most, and the characters of a plan's or a card's title. */
const MAX_CARDS = 50;
const MAX_TITLE = 256;

/** Statuses whose steps never run are left out: the work is over and did not need them. */
const ENDED: readonly TaskStatus[] = ['done', 'rejected', 'stopped'];

const words = (text: string): RichTextBlock => ({
  type: 'rich_text',
  elements: [{ type: 'rich_text_section', elements: [{ type: 'text', text }] }],
});

/** What a step's card says under its title, if anything. */
function details(step: ProgressStep): RichTextBlock | undefined {
  if (step.stoppedBy) {
    const who = isPerson(step.stoppedBy)
      ? { type: 'user' as const, user_id: step.stoppedBy }
      : { type: 'text' as const, text: step.stoppedBy };
    return {
      type: 'rich_text',
      elements: [{ type: 'rich_text_section', elements: [{ type: 'text', text: 'Stopped by ' }, who] }],
    };
  }
  if (step.status === 'error') return undefined;
  if (step.waiting) return words('Waiting for review');
  return undefined;
}

/** At most 50 steps: from a little before the first one not yet complete, so where the work is shows. */
function shownSteps<T extends { step: ProgressStep }>(steps: T[]): T[] {
  if (steps.length <= MAX_CARDS) return steps;
  const current = steps.findIndex(({ step }) => step.status !== 'complete');
  const from = Math.min(Math.max(0, (current < 0 ? steps.length : current) - 5), steps.length - MAX_CARDS);
  return steps.slice(from, from + MAX_CARDS);
}

/** The plan block for a task in `status`, or undefined when there is nothing to show. */
export function planBlock(progress: Progress | null | undefined, status: TaskStatus): KnownBlock | undefined {
  const steps = (progress?.steps ?? [])
    .map((step, i) => ({ step, id: `step_${i + 1}` }))
    .filter(({ step }) => !(ENDED.includes(status) && step.status === 'pending'));
  if (steps.length === 0) return undefined;
  const complete = steps.filter(({ step }) => step.status === 'complete').length;
  return {
    type: 'plan',
    title: `${complete} of ${steps.length} step${steps.length === 1 ? '' : 's'} complete`,
    tasks: shownSteps(steps).map(({ step, id }) => {
      const more = details(step);
      return {
        type: 'task_card',
        task_id: id,
        title: truncate(step.title, MAX_TITLE) || id,
        status: step.status,
        ...(more ? { details: more } : {}),
      };
    }),
  };
}
