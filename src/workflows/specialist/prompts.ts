import { LABEL, labelled } from '../../llm/prompt-labels.js';
import type { HistoryEntry } from './specialist-state.js';

export const plannerPrompt = (specialists: string[]) =>
  'You are the Planner of a finance team. Read the task and route it to the one specialist best placed to do it: ' +
  `${specialists.join(', ')}.`;

export const specialistPrompt = (specialist: string) =>
  `You are the ${specialist} specialist of a finance team. Do the task. When the history holds human feedback, ` +
  'revise your previous result so that it addresses every point of it, and keep what was not criticised.';

export function renderHistory(originalTask: string, history: HistoryEntry[]): string {
  const lines = history.map((h) =>
    h.userFeedback !== undefined
      ? `[round ${h.iteration}] ${labelled(LABEL.humanFeedback, h.userFeedback)}`
      : `[round ${h.iteration}] ${h.agent}: ${h.result ?? ''}`,
  );
  return `${labelled(LABEL.task, originalTask)}\n\nHistory:\n${lines.length ? lines.join('\n') : '(none yet)'}`;
}

export const title = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
