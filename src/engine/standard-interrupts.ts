/**
 * Interrupts in the standard shapes, so that graphs written for other tools work unchanged:
 * LangChain's `humanInTheLoopMiddleware` (a HITLRequest, answered with `{ decisions }`) and the
 * Agent Inbox (a list of HumanInterrupt, answered with a list of responses). Each becomes one
 * review: Approve, Edit (a form with each action's arguments as JSON, checked against its
 * `argsSchema` when given) and Reject (the feedback is the message to the agent).
 */
import type { StateSnapshot } from '@langchain/langgraph';
import { Ajv } from 'ajv';
import { z } from 'zod';
import type { Decision, ReviewRequest, ReviewRequestInput } from './types.js';

const hitlSchema = z.object({
  actionRequests: z
    .array(
      z.object({
        name: z.string(),
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
      action_request: z.object({ action: z.string(), args: z.record(z.string(), z.unknown()) }),
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

const MAX_FIELDS = 5;
const fieldId = (i: number) => `args_${i}`;
const code = (v: unknown) => `\`\`\`\n${JSON.stringify(v, null, 2)}\n\`\`\``;

/** The review for a standard interrupt value, or undefined when it is in neither shape. */
export function fromStandard(value: unknown): ReviewRequestInput | undefined {
  const hitl = hitlSchema.safeParse(value);
  if (hitl.success) {
    const { actionRequests, reviewConfigs } = hitl.data;
    const allowed = (name: string) =>
      reviewConfigs.find((c) => c.actionName === name)?.allowedDecisions ?? [];
    const any = (d: 'approve' | 'edit' | 'reject') => actionRequests.some((a) => allowed(a.name).includes(d));
    return {
      kind: 'tool_call',
      title: `Approve ${actionRequests.map((a) => a.name).join(', ')}?`.slice(0, 150),
      body: actionRequests
        .map((a) => `**${a.name}**${a.description ? `: ${a.description}` : ''}\n${code(a.args)}`)
        .join('\n\n'),
      actions: [
        ...(any('approve') ? (['approve'] as const) : []),
        ...(any('edit') ? (['revise'] as const) : []),
        ...(any('reject') ? (['reject'] as const) : []),
      ],
      labels: { revise: 'Edit' },
      fields: actionRequests.slice(0, MAX_FIELDS).flatMap((a, i) =>
        allowed(a.name).includes('edit')
          ? [
              {
                id: fieldId(i),
                label: `${a.name} (JSON)`.slice(0, 48),
                multiline: true,
                initial: JSON.stringify(a.args, null, 2),
              },
            ]
          : [],
      ),
      origin: { format: 'hitl', value },
    };
  }
  const inbox = inboxSchema.safeParse(value);
  if (inbox.success) {
    const first = inbox.data[0] as z.infer<typeof inboxSchema>[number];
    const c = first.config;
    return {
      kind: 'tool_call',
      title: `Approve ${first.action_request.action}?`.slice(0, 150),
      body: `${first.description ? `${first.description}\n\n` : ''}**${first.action_request.action}**\n${code(first.action_request.args)}`,
      actions: [
        ...(c.allow_accept ? (['approve'] as const) : []),
        ...(c.allow_edit || c.allow_respond ? (['revise'] as const) : []),
        ...(c.allow_ignore ? (['reject'] as const) : []),
      ],
      labels: { approve: 'Accept', revise: c.allow_edit ? 'Edit' : 'Respond', reject: 'Ignore' },
      fields: c.allow_edit
        ? [
            {
              id: fieldId(0),
              label: `${first.action_request.action} (JSON)`.slice(0, 48),
              multiline: true,
              initial: JSON.stringify(first.action_request.args, null, 2),
            },
          ]
        : [],
      origin: { format: 'agent_inbox', value },
    };
  }
  return undefined;
}

const parseArgs = (text: string | undefined): Record<string, unknown> | undefined => {
  try {
    const v = JSON.parse(text ?? '');
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
};

const ajv = new Ajv({ allErrors: false, strict: false });

/** Why the edited arguments cannot be used (not a JSON object, or not of the action's schema). */
export function invalidEdit(request: ReviewRequest, values: Record<string, string>): Record<string, string> {
  const errors: Record<string, string> = {};
  if (request.origin?.format !== 'hitl' && request.origin?.format !== 'agent_inbox') return errors;
  const hitl = request.origin.format === 'hitl' ? hitlSchema.parse(request.origin.value) : undefined;
  for (const field of request.fields) {
    const args = parseArgs(values[field.id] ?? field.initial);
    if (!args) {
      errors[field.id] = 'Write the arguments as a JSON object, such as {"to": "…"}.';
      continue;
    }
    const index = Number(field.id.slice('args_'.length));
    const name = hitl?.actionRequests[index]?.name;
    const schema = hitl?.reviewConfigs.find((c) => c.actionName === name)?.argsSchema;
    if (schema && !ajv.validate(schema, args)) {
      errors[field.id] =
        `Not valid for ${name}: ${ajv.errorsText(ajv.errors, { dataVar: 'arguments' })}.`.slice(0, 150);
    }
  }
  return errors;
}

/** The decision, answered in the interrupt's own shape; signoff's own requests get the Decision. */
export function resumeValue(request: ReviewRequest, decision: Decision): unknown {
  if (!request.origin) return decision;
  const edited = (i: number, original: Record<string, unknown>) =>
    parseArgs(decision.values[fieldId(i)]) ?? original;
  if (request.origin.format === 'hitl') {
    const { actionRequests } = hitlSchema.parse(request.origin.value);
    return {
      decisions: actionRequests.map((a, i) => {
        if (decision.action === 'approve') return { type: 'approve' };
        if (decision.action === 'reject') return { type: 'reject', message: decision.feedback };
        const editable = request.fields.some((f) => f.id === fieldId(i));
        return editable
          ? { type: 'edit', editedAction: { name: a.name, args: edited(i, a.args) } }
          : { type: 'approve' };
      }),
    };
  }
  const first = inboxSchema.parse(request.origin.value)[0] as z.infer<typeof inboxSchema>[number];
  if (decision.action === 'approve') return [{ type: 'accept', args: null }];
  if (decision.action === 'reject') return [{ type: 'ignore', args: null }];
  if (first.config.allow_edit) {
    return [
      {
        type: 'edit',
        args: { action: first.action_request.action, args: edited(0, first.action_request.args) },
      },
    ];
  }
  return [{ type: 'response', args: decision.feedback ?? '' }];
}

/** The pending interrupts of a graph state: listed in `tasks`, not yet answered (`result` unset). */
export function pendingInterrupts(state: StateSnapshot): { id: string; value: unknown }[] {
  return state.tasks
    .filter((t) => (t as { result?: unknown }).result === undefined)
    .flatMap((t) => t.interrupts.map((i) => ({ id: i.id as string, value: i.value })));
}

/**
 * Whether words alone may answer this tool call: an Agent Inbox interrupt that allows `respond`
 * and not `edit`, where a revise with feedback is sent as the agent's response (see resumeValue).
 * Everywhere else a revise of a tool call is an edit of its arguments, which words never make.
 */
export function answeredWithWords(request: ReviewRequest): boolean {
  if (request.origin?.format !== 'agent_inbox') return false;
  const first = inboxSchema.safeParse(request.origin.value).data?.[0];
  return Boolean(first?.config.allow_respond && !first.config.allow_edit);
}
