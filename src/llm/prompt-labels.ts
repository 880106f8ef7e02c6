/**
 * The labels workflows write in their prompts ("Task: …", "Feedback: …"). The offline model reads
 * a few of them back (the task it is about, the latest feedback, the earlier search queries), so
 * they live here, in one place, and neither side can drift from the other.
 */
export const LABEL = {
  task: 'Task',
  goal: 'Goal',
  topic: 'Topic',
  feedback: 'Feedback',
  humanFeedback: 'Human feedback',
  earlierQueries: 'Earlier queries',
} as const;

/** `Label: value`, as the prompts write it. */
export const labelled = (label: (typeof LABEL)[keyof typeof LABEL], value: string) => `${label}: ${value}`;
