/**
 * Interrupts in the standard shapes, so that graphs written for other tools work unchanged:
 * LangChain's `humanInTheLoopMiddleware` (a HITLRequest, answered with `{ decisions }`) and the
 * Agent Inbox (a list of HumanInterrupt, answered with a list of responses). Each becomes one
 * review of its tool calls: Approve (every call as asked), Edit (a form: each call's decision and,
 * where it may be edited, its arguments as JSON, checked against its `argsSchema`), Reject (every
 * call; the feedback is the message to the agent), and the Agent Inbox's Respond (words back).
 * Words never approve or edit a call, and no call is approved that nobody decided. This file
 * reads the interrupts and checks decisions on them; standard-answers.ts answers them.
 */
import type { StateSnapshot } from '@langchain/langgraph';
import { z } from 'zod';
import {
  type Decision,
  FIELD_MAX,
  type PendingEdit,
  type ReviewRequest,
  type ReviewRequestInput,
  reviewRequestSchema,
} from './requests.js';
import type { CallDecision, ToolCall } from './tool-call-body.js';
import {
  decisionValues,
  editNote,
  readDecisions,
  sameDecisions,
  shownDecisions,
  toolCallForm,
} from './tool-call-form.js';

const hitlSchema = z.object({
  actionRequests: z
    .array(
      z.object({
        name: z.string().min(1),
        args: z.record(z.string(), z.unknown()),
        description: z.string().optional(),
      }),
    )
    .min(1),
  reviewConfigs: z.array(
    z.object({
      actionName: z.string(),
      allowedDecisions: z.array(z.enum(['approve', 'edit', 'reject'])),
      argsSchema: z.record(z.string(), z.unknown()).optional(),
    }),
  ),
});

const inboxSchema = z
  .array(
    z.object({
      action_request: z.object({ action: z.string().min(1), args: z.record(z.string(), z.unknown()) }),
      config: z.object({
        allow_ignore: z.boolean(),
        allow_respond: z.boolean(),
        allow_edit: z.boolean(),
        allow_accept: z.boolean(),
      }),
      description: z.string().optional(),
    }),
  )
  .min(1);

type Origin = NonNullable<ReviewRequest['origin']>;

/** The calls of a standard interrupt, and whether it also takes words back (Agent Inbox's respond). */
export function callsIn(
  origin: Pick<Origin, 'format' | 'value'>,
): { calls: ToolCall[]; respond: boolean } | undefined {
  if (origin.format === 'hitl') {
    const hitl = hitlSchema.safeParse(origin.value);
    if (!hitl.success) return undefined;
    const { actionRequests, reviewConfigs } = hitl.data;
    return {
      respond: false,
      calls: actionRequests.map((a, i) => {
        // The middleware lists one config per call, in order; by name for any other producer.
        const at = reviewConfigs[i];
        const config = at?.actionName === a.name ? at : reviewConfigs.find((c) => c.actionName === a.name);
        return { ...a, allowed: config?.allowedDecisions ?? [], argsSchema: config?.argsSchema };
      }),
    };
  }
  const inbox = inboxSchema.safeParse(origin.value);
  if (!inbox.success) return undefined;
  // An Agent Inbox graph reads the first response: the first interrupt is the one asked.
  const first = inbox.data[0] as z.infer<typeof inboxSchema>[number];
  const c = first.config;
  return {
    respond: c.allow_respond,
    calls: [
      {
        name: first.action_request.action,
        args: first.action_request.args,
        description: first.description,
        allowed: [
          ...(c.allow_accept ? (['approve'] as const) : []),
          ...(c.allow_edit ? (['edit'] as const) : []),
          ...(c.allow_ignore ? (['reject'] as const) : []),
        ],
      },
    ],
  };
}

/**
 * The review for a standard interrupt value, or undefined when it is in neither shape. With
 * `edit`: as it stands after an Edit counted towards a quorum (what the others now approve).
 */
export function fromStandard(value: unknown, edit?: PendingEdit): ReviewRequestInput | undefined {
  for (const format of ['hitl', 'agent_inbox'] as const) {
    const found = callsIn({ format, value });
    if (found)
      return {
        ...toolCallForm(found.calls, { respond: found.respond, inbox: format === 'agent_inbox', edit }),
        origin: { format, value },
        edit,
      };
  }
  return undefined;
}

/** The calls of a review of a standard interrupt (undefined for signoff's own requests). */
export const toolCallsOf = (request: ReviewRequest): ToolCall[] | undefined =>
  request.origin && callsIn(request.origin)?.calls;

/**
 * Why a decision cannot be taken on a tool call review, in a sentence: words alone (revise) where
 * the interrupt takes no response.
 */
export function invalidToolDecision(request: ReviewRequest, action: Decision['action']): string | undefined {
  if (!request.origin) return undefined;
  const found = callsIn(request.origin);
  if (!found) return 'This review cannot be read any more; nothing can be decided on it here.';
  if (action === 'revise' && !found.respond) {
    return 'A tool call is decided with Approve, Edit or Reject on its card; words alone never approve, edit or reject it.';
  }
  // A review stored before calls were decided one by one may list Approve although a call may
  // not be approved as asked: Approve answers each call as shown, so it cannot answer that one.
  const barred =
    action === 'approve' ? notAllowed(found.calls, shownDecisions(found.calls, request.edit)) : [];
  if (barred.length) {
    return `${barred.map((c) => c.name).join(', ')} may not be approved as asked, so Approve cannot answer this review: decide each call with Edit, or reject it.`;
  }
  return undefined;
}

/** The calls whose decision (by position) is not one their interrupt allows. */
export const notAllowed = (calls: ToolCall[], decisions: CallDecision[]) =>
  calls.filter((c, i) => !c.allowed.includes(decisions[i]?.type ?? 'reject'));

/** Why the Edit form's calls cannot be read, by field (empty for signoff's own requests). */
export function toolCallErrors(
  request: ReviewRequest,
  values: Record<string, string>,
): Record<string, string> {
  const calls = toolCallsOf(request);
  const read = calls && readDecisions(calls, request, values);
  return read && 'errors' in read ? read.errors : {};
}

/**
 * What an Edit form amounts to: `reject` when it rejects every call, `approve` when it leaves every
 * call as the review shows it, else `edit` (signoff's own requests: always `edit`).
 */
export function editMeans(
  request: ReviewRequest,
  values: Record<string, string>,
): 'approve' | 'edit' | 'reject' {
  const calls = toolCallsOf(request);
  const read = calls && readDecisions(calls, request, values);
  if (!calls || !read || !('decisions' in read)) return 'edit';
  if (read.decisions.every((d) => d.type === 'reject') && request.actions.includes('reject')) return 'reject';
  const same = sameDecisions(read.decisions, shownDecisions(calls, request.edit));
  return same && request.actions.includes('approve') ? 'approve' : 'edit';
}

/** One call as an Edit form decided it, by its tool's name: what the audit keeps. */
export type DecidedCall = { tool: string; args: Record<string, unknown> } | { tool: string; rejected: true };

/**
 * What an Edit form decided of each call, read against the review as the person saw it (its
 * pending edit too); undefined for signoff's own requests, or a form that does not read.
 */
export function decidedCalls(
  request: ReviewRequest,
  values: Record<string, string>,
): DecidedCall[] | undefined {
  const calls = toolCallsOf(request);
  const read = calls && readDecisions(calls, request, values);
  if (!calls || !read || !('decisions' in read)) return undefined;
  return calls.map((call, i) => {
    const d = read.decisions[i];
    if (d?.type === 'reject') return { tool: call.name, rejected: true };
    return { tool: call.name, args: d?.type === 'edit' ? d.args : call.args };
  });
}

/**
 * The calls an Edit form would run, each with the arguments it would run with (a rejected call
 * runs not at all); undefined for signoff's own requests, or a form that does not read.
 */
export function callsAsEdited(
  request: ReviewRequest,
  values: Record<string, string>,
): ToolCall[] | undefined {
  const calls = toolCallsOf(request);
  const decided = decidedCalls(request, values);
  if (!calls || !decided) return undefined;
  return calls.flatMap((call, i) => {
    const d = decided[i];
    return !d || 'rejected' in d ? [] : [{ ...call, args: d.args }];
  });
}

/** The request as an Edit counted towards a quorum leaves it: what the rest of the quorum approves. */
export function withEdit(request: ReviewRequest, edit: PendingEdit): ReviewRequest {
  const calls = toolCallsOf(request);
  if (request.origin && calls) {
    const read = readDecisions(calls, request, edit.values);
    // Kept as one explicit decision per call, whatever the form it came from.
    const values = 'decisions' in read ? decisionValues(read.decisions) : edit.values;
    const standard = fromStandard(request.origin.value, { ...edit, values });
    // Its own title and rules stay (a review asked through a door names both).
    return reviewRequestSchema.parse({
      ...standard,
      kind: request.kind,
      round: request.round,
      title: request.title,
      rules: request.rules,
    });
  }
  // signoff's own request: the form shows the values given, and so does the body.
  const before = request.edit ? request.body.lastIndexOf(EDITED) : -1;
  const base = before >= 0 ? request.body.slice(0, before) : request.body;
  const lines = request.fields.map((f) => `${f.label}: ${JSON.stringify(edit.values[f.id] ?? '')}`);
  return {
    ...request,
    edit,
    body: `${base}${EDITED}\n\`\`\`\n${lines.join('\n')}\n\`\`\`${editNote(edit)}`.slice(0, 100_000),
    fields: request.fields.map((f) =>
      f.choices ? f : { ...f, initial: edit.values[f.id]?.slice(0, FIELD_MAX) },
    ),
  };
}

/** What a decided review approved: with an Edit, its request as the edit made it. */
export function asDecided(request: ReviewRequest, decision: Decision | null): ReviewRequest {
  if (decision?.action !== 'edit') return request;
  const { by, at, values, feedback } = decision;
  return withEdit(request, { by, at, n: (request.edit?.n ?? 0) + 1, values, feedback });
}

const EDITED = '\n\n**Changed at review** (approving approves these values):';

/** The pending interrupts of a graph state: listed in `tasks`, not yet answered (`result` unset). */
export function pendingInterrupts(state: StateSnapshot): { id: string; value: unknown }[] {
  return state.tasks
    .filter((t) => (t as { result?: unknown }).result === undefined)
    .flatMap((t) => t.interrupts.map((i) => ({ id: i.id as string, value: i.value })));
}

/**
 * Whether words alone may answer this tool call: an Agent Inbox interrupt that allows `respond`,
 * where a revise with feedback is sent as the agent's response (see resumeValue), whether or not
 * it also allows an edit (that is the card's Edit). Never a HITLRequest, which takes no words.
 */
export function answeredWithWords(request: ReviewRequest): boolean {
  return request.origin?.format === 'agent_inbox' && Boolean(callsIn(request.origin)?.respond);
}
