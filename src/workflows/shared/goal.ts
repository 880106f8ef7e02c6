/** What a workflow starts from: the task as far as a workflow needs it. */
export interface TaskInput {
  text: string;
  requester: string;
  /** Goals this one replaced (seed 003: a redirect keeps the abandoned goal), oldest first. */
  abandonedGoals?: string[];
  /** What a task asked through a door starts from besides its text (the `ask` workflow's request). */
  input?: Record<string, unknown> | null;
}

/**
 * The goal as the agents read it. After a redirect it names the goals it replaces, so that the
 * agents re-plan knowing what was asked before.
 */
export function goalOf(task: TaskInput): string {
  if (!task.abandonedGoals?.length) return task.text;
  const dropped = task.abandonedGoals.map((g) => `"${g}"`).join(', ');
  return `${task.text}\n\n(This replaces the earlier goal ${dropped}, which is abandoned.)`;
}
