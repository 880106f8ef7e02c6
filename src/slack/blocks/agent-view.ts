/**
 * The app's Messages tab (Slack's agent view): the suggested prompts it opens with, and how a
 * message there names a workflow and a task. A prompt's message is the workflow's name; a message
 * starting with a workflow's name, with or without a colon ("pair: draft the launch email",
 * "pair draft the launch email", as after `/signoff`), starts that workflow with the rest.
 */
import { truncate } from './text.js';

type Workflow = { name: string; description: string };

/** Slack shows at most four suggested prompts. */
export const MAX_PROMPTS = 4;

/** What a message that names no workflow (or a prompt for the list) says: `help`. */
export const HELP_WORD = 'help';

const HELP_PROMPT = { title: 'What can I start here?', message: HELP_WORD };

/**
 * The prompts the Messages tab opens with: each workflow the person may start there (its name is
 * the prompt's message, which asks what the task is); with more than four, three and the list.
 */
export function startPrompts(workflows: Workflow[]): {
  title: string;
  prompts: { title: string; message: string }[];
} {
  const shown = workflows.length > MAX_PROMPTS ? workflows.slice(0, MAX_PROMPTS - 1) : workflows;
  const prompts = shown.map((w) => ({ title: truncate(`${w.name}: ${w.description}`, 75), message: w.name }));
  if (prompts.length < workflows.length || prompts.length === 0) prompts.push(HELP_PROMPT);
  return { title: 'Start a task', prompts };
}

/** What a message says, when it names a workflow: the workflow and the rest (the task). */
export function readStart(
  text: string,
  known: readonly string[],
): { workflow: string; task: string } | undefined {
  const said = text.trim().replace(/^\/signoff\s+/i, '');
  const m = /^([A-Za-z0-9][\w.-]*)\s*(:)?\s*([\s\S]*)$/.exec(said);
  if (!m) return undefined;
  const [, word = '', colon, rest = ''] = m;
  const workflow = known.find((k) => k === word) ?? known.find((k) => k.toLowerCase() === word.toLowerCase());
  if (workflow) return { workflow, task: rest };
  // "deploy: the new site" names a workflow, one that does not exist: the person hears which do.
  if (colon && word.toLowerCase() !== HELP_WORD) return { workflow: word, task: rest };
  return undefined;
}

/** The answer to a message that names no workflow: how to start one, and which there are. */
export function howToStart(workflows: Workflow[]): string {
  if (workflows.length === 0) {
    return 'No workflow can be started here: each one is kept to some channels in signoff’s config. Use `/signoff` in one of those channels, or ask whoever runs signoff.';
  }
  const example = `${workflows[0]?.name}: draft the launch email`;
  return [
    `To start a task, write the workflow and what the agents should do in one message, e.g. \`${example}\`. The agents work in a thread here and ask you to review their work.`,
    '',
    ...workflows.map((w) => `• *${w.name}*: ${w.description}`),
  ].join('\n');
}
