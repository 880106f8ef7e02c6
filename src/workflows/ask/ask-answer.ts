/**
 * What a decided `ask` review answers the agent that asked: approved (a tool call with the
 * arguments to run it with, edited or not), revised (words to act on), or rejected (with the
 * reviewer's words, if any). Read from the review as recorded, the way the workflow was resumed.
 */
import type { Decision, ReviewRequest } from '../protocol/requests.js';
import { resumeValue } from '../protocol/standard-answers.js';
import { toolCallsOf } from '../protocol/standard-interrupts.js';

export interface AskAnswer {
  outcome: 'approved' | 'revised' | 'rejected';
  /** A tool call approved: the arguments to run it with (the reviewer's, when edited). */
  arguments?: Record<string, unknown>;
  edited?: boolean;
  feedback?: string;
}

export function askAnswer(request: ReviewRequest, decision: Decision): AskAnswer {
  const call = toolCallsOf(request)?.[0];
  if (!call) {
    const outcome =
      decision.action === 'reject' ? 'rejected' : decision.action === 'revise' ? 'revised' : 'approved';
    return { outcome, ...(decision.feedback ? { feedback: decision.feedback } : {}) };
  }
  const answer = resumeValue(request, decision) as {
    decisions?: { type: string; editedAction?: { args?: Record<string, unknown> }; message?: string }[];
  };
  const d = answer.decisions?.[0];
  if (!d || d.type === 'reject') {
    const feedback = d?.message ?? decision.feedback;
    return { outcome: 'rejected', ...(feedback ? { feedback } : {}) };
  }
  const edited = d.type === 'edit';
  return {
    outcome: 'approved',
    arguments: edited ? (d.editedAction?.args ?? call.args) : call.args,
    edited,
    ...(decision.feedback ? { feedback: decision.feedback } : {}),
  };
}
