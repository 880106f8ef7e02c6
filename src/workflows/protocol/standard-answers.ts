/**
 * A decision answered in the shape its interrupt asked for (standard-interrupts.ts reads them):
 * a HITLRequest gets `{ decisions }`, one per call; an Agent Inbox interrupt a list with one
 * response; signoff's own requests the Decision itself. Nothing unreadable approves a call, and a
 * call that may not be approved as asked is rejected with a message that says so.
 */

import type { Decision, ReviewRequest } from './requests.js';
import { callsIn, notAllowed } from './standard-interrupts.js';
import type { CallDecision, ToolCall } from './tool-call-body.js';
import { readDecisions, shownDecisions } from './tool-call-form.js';

/** The decision, answered in the interrupt's own shape; signoff's own requests get the Decision. */
export function resumeValue(request: ReviewRequest, decision: Decision): unknown {
  const edit = request.edit;
  if (!request.origin) {
    // The rest of a quorum approved an edit: the workflow is answered with that edit.
    return edit && decision.action === 'approve'
      ? { ...decision, action: 'edit', values: edit.values, feedback: edit.feedback ?? decision.feedback }
      : decision;
  }
  const found = callsIn(request.origin);
  const calls = found?.calls ?? [];
  if (request.origin.format === 'agent_inbox' && decision.action === 'revise' && found?.respond) {
    return [{ type: 'response', args: decision.feedback ?? '' }];
  }
  const { decisions, message } = answered(calls, request, decision);
  if (request.origin.format === 'hitl') {
    return {
      decisions: decisions.map((d, i) =>
        d.type === 'edit'
          ? { type: 'edit', editedAction: { name: calls[i]?.name, args: d.args } }
          : d.type === 'reject'
            ? { type: 'reject', ...(message ? { message } : {}) }
            : { type: 'approve' },
      ),
    };
  }
  const d = decisions[0] ?? { type: 'reject' };
  if (d.type === 'approve') return [{ type: 'accept', args: null }];
  if (d.type === 'edit') return [{ type: 'edit', args: { action: calls[0]?.name, args: d.args } }];
  return [{ type: 'ignore', args: null }];
}

const UNREADABLE = 'signoff could not read this decision as an approval, so nothing was approved.';
const NOT_APPROVABLE = 'This call may not be approved as asked, and nobody edited it, so it was not run.';

/** One decision per call, and the message for the rejected ones. Nothing unreadable approves. */
function answered(
  calls: ToolCall[],
  request: ReviewRequest,
  decision: Decision,
): { decisions: CallDecision[]; message?: string } {
  const none = (message?: string) => ({
    decisions: calls.map((): CallDecision => ({ type: 'reject' })),
    message,
  });
  switch (decision.action) {
    case 'approve': {
      // Refused when decided; an approval recorded before that rule (by an earlier version,
      // which offered Approve when any call allowed it) still never approves a call that may not be.
      const shown = shownDecisions(calls, request.edit);
      const barred = new Set(notAllowed(calls, shown));
      if (!barred.size) return { decisions: shown, message: request.edit?.feedback };
      return {
        decisions: shown.map((d, i) => (barred.has(calls[i] as ToolCall) ? { type: 'reject' } : d)),
        message: NOT_APPROVABLE,
      };
    }
    case 'edit': {
      const read = readDecisions(calls, request, decision.values);
      return 'decisions' in read
        ? { decisions: read.decisions, message: decision.feedback }
        : none(UNREADABLE);
    }
    case 'reject':
      return none(decision.feedback);
    case 'revise':
      // Refused when decided (words take no tool call); a decision recorded before that rule.
      return none(UNREADABLE);
  }
}
