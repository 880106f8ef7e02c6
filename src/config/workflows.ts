/**
 * The workflow config file (YAML): which workflows are on, who reviews each checkpoint, timeouts,
 * agents' models and prompts, loop limits. Every field is optional; no file at all means defaults.
 * Errors name the file, the line, the field's path and what was expected.
 */
import { z } from 'zod';
import { BUILT_IN_CHECKPOINTS, BUILT_IN_NAMES, builtInAgents } from '../workflows/catalog.js';
import { checkStages, stageSchema } from '../workflows/declared/stages.js';
import { TOOL_CALL_KIND } from '../workflows/protocol/requests.js';
import { durationSeconds } from './duration.js';
import { unknownName } from './names.js';
import { parseYamlFile } from './yaml-file.js';

/** "90s", "30m", "2h", "1d", or a number of seconds → seconds. */
const duration = z.union([z.number().positive(), z.string()]).transform((v, ctx) => {
  if (typeof v === 'number') return v;
  const seconds = durationSeconds(v);
  if (seconds === undefined) {
    ctx.addIssue({ code: 'custom', message: 'expected a duration such as 90s, 30m, 2h or 1d' });
    return z.NEVER;
  }
  return seconds;
});

/** A user id (U…/W…) or a user group id (S…). */
const userOrGroup = z
  .string()
  .regex(/^([UW][A-Z0-9]{2,}|S[A-Z0-9]{2,})$/, 'expected a user id (U…) or a user group id (S…)');

/** `requester`, `anyone` (anyone in the channel), a user id (U…/W…) or a user group id (S…). */
const reviewer = z
  .string()
  .regex(
    /^(requester|anyone|[UW][A-Z0-9]{2,}|S[A-Z0-9]{2,})$/,
    'expected requester, anyone, a user id (U…) or a user group id (S…)',
  );

/** What a reply in the thread does at a review (see `replies` below). */
export const REPLY_MODES = ['ask', 'feedback', 'ignore'] as const;
const ON_TIMEOUT = ['approve', 'reject', 'cancel', 'remind', 'escalate'] as const;
const FINAL_ACTIONS = ['approve', 'reject', 'cancel', 'remind'] as const;

/**
 * A checkpoint's rules resolved: what `checkpointSchema` makes of the file's words (durations in
 * seconds, escalation as steps), and what a review keeps of them when it opens (the engine's
 * review settings are this shape).
 */
export const checkpointSettingsSchema = z.object({
  reviewers: z.array(z.string()),
  allowSelfApproval: z.boolean(),
  allowExternal: z.boolean(),
  timeoutSeconds: z.number().optional(),
  onTimeout: z.enum(ON_TIMEOUT),
  /** With `onTimeout: escalate`: each step's reviewers added and wait, and what applies after the last. */
  escalation: z
    .object({
      steps: z.array(z.object({ to: z.array(z.string()), afterSeconds: z.number() })),
      finalAction: z.enum(FINAL_ACTIONS),
    })
    .optional(),
  approvals: z.number().int().min(1),
  /** Reminder pings, in seconds before the deadline; absent means one at half time. */
  remindersBeforeSeconds: z.array(z.number()).optional(),
  allowSkip: z.boolean(),
  dmReviewers: z.boolean(),
  notify: z.array(z.string()),
  feedback: z.object({ minLength: z.number().int(), maxLength: z.number().int() }),
  replies: z.enum(REPLY_MODES),
});
export type CheckpointSettings = z.infer<typeof checkpointSettingsSchema>;

/** A checkpoint as the file says it; `checkpointSchema` resolves it. */
const checkpointFileSchema = z
  .object({
    reviewers: z.array(reviewer).min(1).default(['anyone']),
    /** May the person who started the task approve its own work? */
    allowSelfApproval: z.boolean().default(true),
    /**
     * May people from another organization (Slack Connect) and the workspace's guests decide this
     * step? Not by default, even where `anyone`, `requester` or a user group would take them in.
     * A user id listed in `reviewers` is vouched for by this file: it decides whatever its
     * surface says of it (see authorize.ts).
     */
    allowExternal: z.boolean().default(false),
    timeout: duration.optional(),
    /**
     * What the deadline does: approve or reject (recorded as automatic), cancel the task, remind
     * once more and keep waiting, or escalate: add `escalateTo` as reviewers, ping them, and wait
     * `escalateAfter` more before `finalAction`.
     */
    onTimeout: z.enum(ON_TIMEOUT).default('remind'),
    /** Users or user groups added as reviewers when the deadline escalates (one step). */
    escalateTo: z.array(userOrGroup).min(1).optional(),
    /** How long the escalated review waits before `finalAction` (default: the timeout again). */
    escalateAfter: duration.optional(),
    /** Several steps instead (each adds `to` and waits `after`), in order; then `finalAction`. */
    escalation: z
      .array(z.object({ to: z.array(userOrGroup).min(1), after: duration.optional() }).strict())
      .min(1)
      .max(5)
      .optional(),
    /** What applies once escalation, too, found nobody. */
    finalAction: z.enum(FINAL_ACTIONS).default('remind'),
    /** How many different people must approve (N of M); any reject ends the review. */
    approvals: z.number().int().min(1).max(10).default(1),
    /** Reminder pings before the deadline (seconds each); default: one at half time. */
    reminders: z.array(duration).optional(),
    /**
     * May this step pass without a person (seed 004's allow_skip)? When false, a timeout can
     * remind, reject or cancel, but never approve on nobody's behalf.
     */
    allowSkip: z.boolean().default(true),
    /** Also message reviewers directly with a link to the thread. */
    dmReviewers: z.boolean().default(false),
    /**
     * Who is mentioned on the card and in its reminders besides the reviewers it names, so that
     * someone always hears the agents paused (with `reviewers: [anyone]` nobody is named).
     */
    notify: z
      .array(
        z
          .string()
          .regex(
            /^(requester|[UW][A-Z0-9]{2,}|S[A-Z0-9]{2,})$/,
            'expected requester, a user id (U…) or a user group id (S…)',
          ),
      )
      .default(['requester']),
    /**
     * What a reply in the task's thread means while this review waits. `ask` (the default): a
     * reply addressed to the bot (a mention or "revise:") is revise feedback; any other reply
     * gets its author a private question (use it as feedback, approve, reject, or ignore it).
     * `feedback`: every reply from someone who may revise is feedback. `ignore`: replies never
     * decide; only the card does. A tool call is never approved or edited by words, whatever this says.
     */
    replies: z.enum(REPLY_MODES).default('ask'),
    /** Limits on typed feedback (seed 004's validation). */
    feedback: z
      .object({
        minLength: z.number().int().min(0).default(1),
        maxLength: z.number().int().min(1).max(3000).default(3000),
      })
      .strict()
      .default({ minLength: 1, maxLength: 3000 }),
  })
  .strict()
  .superRefine((c, ctx) => {
    const noSkip =
      'allowSkip is false, so this step may not pass without a person: use remind, reject or cancel';
    if (!c.allowSkip && c.onTimeout === 'approve') {
      ctx.addIssue({ code: 'custom', path: ['onTimeout'], message: noSkip });
    }
    if (!c.allowSkip && c.onTimeout === 'escalate' && c.finalAction === 'approve') {
      ctx.addIssue({ code: 'custom', path: ['finalAction'], message: noSkip });
    }
    if (c.onTimeout === 'escalate' && (!c.timeout || !(c.escalateTo || c.escalation))) {
      ctx.addIssue({
        code: 'custom',
        path: ['onTimeout'],
        message: 'escalate needs a timeout and escalateTo (the users or groups to add as reviewers)',
      });
    }
    if (c.onTimeout !== 'escalate' && (c.escalateTo || c.escalateAfter || c.escalation)) {
      ctx.addIssue({
        code: 'custom',
        path: ['onTimeout'],
        message: `escalation is set but onTimeout is ${c.onTimeout}: set onTimeout: escalate, or remove the escalation`,
      });
    }
    // A two-person rule that a timer could pass with fewer is no rule.
    const approving = timerApproves(c);
    if (c.approvals > 1 && approving) {
      ctx.addIssue({
        code: 'custom',
        path: [approving],
        message: `${c.approvals} approvals are needed, so a timeout may remind, reject, cancel or escalate, never approve`,
      });
    }
    if (c.escalation && (c.escalateTo || c.escalateAfter)) {
      ctx.addIssue({
        code: 'custom',
        path: ['escalation'],
        message: 'use escalateTo and escalateAfter for one step, or escalation for several, not both',
      });
    }
    // Only named people can be counted: `anyone`, groups and the requester may be many.
    const open = c.reviewers.some(
      (r) => r === 'anyone' || r.startsWith('S') || (r === 'requester' && c.allowSelfApproval),
    );
    const added = [...(c.escalateTo ?? []), ...(c.escalation ?? []).flatMap((e) => e.to)];
    const people = new Set([...c.reviewers, ...added].filter((r) => /^[UW]/.test(r))).size;
    if (!open && !added.some((r) => r.startsWith('S')) && c.approvals > people) {
      ctx.addIssue({
        code: 'custom',
        path: ['approvals'],
        message: `${c.approvals} approvals are needed but only ${people} ${people === 1 ? 'person is' : 'people are'} named as reviewers`,
      });
    }
  });

/** A checkpoint of the file, resolved (`CheckpointSettings`): read once, where the file is. */
export const checkpointSchema = checkpointFileSchema.transform(
  (c): CheckpointSettings => ({
    reviewers: c.reviewers,
    allowSelfApproval: c.allowSelfApproval,
    allowExternal: c.allowExternal,
    timeoutSeconds: c.timeout,
    onTimeout: c.onTimeout,
    ...(c.onTimeout === 'escalate' && {
      escalation: {
        steps: (c.escalation ?? [{ to: c.escalateTo ?? [], after: c.escalateAfter }]).map((step) => ({
          to: step.to,
          afterSeconds: step.after ?? c.timeout ?? 0,
        })),
        finalAction: c.finalAction,
      },
    }),
    approvals: c.approvals,
    remindersBeforeSeconds: c.reminders,
    allowSkip: c.allowSkip,
    dmReviewers: c.dmReviewers,
    notify: c.notify,
    feedback: c.feedback,
    replies: c.replies,
  }),
);

/** The key by which a checkpoint's deadline approves (`onTimeout` or `finalAction`), if it does. */
function timerApproves(c: {
  onTimeout: CheckpointSettings['onTimeout'];
  finalAction?: (typeof FINAL_ACTIONS)[number];
}) {
  if (c.onTimeout === 'approve') return 'onTimeout';
  if (c.onTimeout === 'escalate' && c.finalAction === 'approve') return 'finalAction';
  return undefined;
}

/**
 * A workflow's tool calls (its graph's standard interrupts, reviewed at `checkpoints.tool_call`)
 * run only when a person approves them: a deadline that would approve them is refused here, at
 * its line (the timer refuses it too, for a default that reaches them).
 */
function checkToolCallTimer(w: { checkpoints: Record<string, CheckpointSettings> }, ctx: z.RefinementCtx) {
  const c = w.checkpoints[TOOL_CALL_KIND];
  const key = c && timerApproves({ onTimeout: c.onTimeout, finalAction: c.escalation?.finalAction });
  if (!key) return;
  ctx.addIssue({
    code: 'custom',
    path: ['checkpoints', TOOL_CALL_KIND, key],
    message:
      'a tool call goes ahead only when a person approves it, so a timeout may remind, reject, cancel or escalate, never approve',
  });
}

const agentSchema = z
  .object({
    /** Shown as the author of the agent's messages. */
    name: z.string().min(1).max(80).optional(),
    model: z.string().min(1).optional(),
    prompt: z.string().min(1).optional(),
    temperature: z.number().min(0).max(2).optional(),
  })
  .strict();
export type AgentConfig = z.infer<typeof agentSchema>;

export const REDIRECT_WHO = ['requester', 'reviewers', 'anyone', 'nobody'] as const;
export type RedirectWho = (typeof REDIRECT_WHO)[number];

/**
 * A reply in a task's thread while its agents work gives them a new goal (seed 003) only when
 * it means to: from `who` (the requester by default; `reviewers` adds the workflow's reviewers;
 * `anyone` in the channel, people from outside the organization only where a checkpoint of the
 * task lets them decide; `nobody`), and, with `how: addressed`, only a reply that mentions the
 * bot or starts with "redirect:". Other replies while agents work are left alone.
 */
const redirectSchema = z
  .object({
    who: z.enum(REDIRECT_WHO).default('requester'),
    how: z.enum(['addressed', 'any-reply']).default('addressed'),
  })
  .strict();

const workflowSchema = z
  .object({
    enabled: z.boolean().default(true),
    description: z.string().optional(),
    /** Slack channel ids where the workflow may start; absent = everywhere. */
    channels: z
      .array(z.string().regex(/^[CGD][A-Z0-9]{2,}$/, 'expected a channel id such as C0123ABC'))
      .optional(),
    /** When graph state is saved during a run (see WorkflowDefinition.durability); default per workflow. */
    durability: z.enum(['exit', 'async', 'sync']).optional(),
    /** Switch human review off for this workflow (seed 002, property 5). */
    review: z.boolean().default(true),
    maxIterations: z.number().int().min(1).max(50).optional(),
    maxRevisions: z.number().int().min(1).max(100).optional(),
    specialists: z
      .array(z.string().regex(/^[a-z][a-z0-9_-]*$/, 'expected a lowercase name'))
      .min(1)
      .optional(),
    /**
     * A bring-your-own graph: a module (relative to the config file) exporting
     * `createGraph({ model, modelFor, checkpointer })` that returns a compiled LangGraph graph.
     */
    module: z.string().min(1).optional(),
    /** The document collection a workflow searches (`signoff docs add <folder>` names it). */
    collection: z.string().min(1).max(100).optional(),
    agents: z.record(z.string(), agentSchema).default({}),
    checkpoints: z.record(z.string(), checkpointSchema).default({}),
    redirect: redirectSchema.default({ who: 'requester', how: 'addressed' }),
    /** A declared workflow's stages (workflow-stages.ts): agents, order, reviews, revisions. */
    stages: z.array(stageSchema).min(1).optional(),
  })
  .strict()
  .superRefine(checkStages)
  .superRefine(checkToolCallTimer);
export type WorkflowConfig = z.infer<typeof workflowSchema>;

/**
 * How many tasks the agents may have in hand at once (running, or queued to run: status
 * `working`) for one person, and in one channel. A start past either is refused with a sentence
 * saying what to do; a task waiting for a review, finished or failed does not count. One person
 * starting a hundred tasks would otherwise hold every worker while everyone else's starts wait
 * (decisions go ahead of starts in the queue either way).
 */
const startsSchema = z
  .object({
    perPerson: z.number().int().min(1).max(100_000).default(10),
    perChannel: z.number().int().min(1).max(100_000).default(30),
  })
  .strict();
export type StartLimits = z.infer<typeof startsSchema>;

/** Words `/signoff` and the terminal's prompt take as commands: no workflow can be called so. */
const COMMAND_WORDS = ['help', 'list', 'tasks'];

const fileSchema = z
  .object({
    /**
     * The checkpoint used wherever a workflow does not configure its own: replaced whole by a
     * workflow's, not merged field by field. Absent, every field has its built-in default.
     */
    defaults: z
      .object({ checkpoint: checkpointSchema.prefault({}) })
      .strict()
      .prefault({}),
    starts: startsSchema.default({ perPerson: 10, perChannel: 30 }),
    workflows: z
      .record(z.string().regex(/^[a-z][a-z0-9-]*$/, 'expected a lowercase workflow name'), workflowSchema)
      .default({}),
  })
  .strict()
  // Run even when a value elsewhere is wrong (zod skips a refinement after a type error): a file
  // with a misspelt workflow and a bad value hears of both at once. So the value read here may
  // be the file's own, unchecked: only its keys and whether a workflow has stages or a module.
  .superRefine(
    (file, ctx) => {
      const workflows = objectOr(file?.workflows);
      // A misspelt name (`pairs:`) would configure nothing, silently: a new workflow needs stages or a module.
      const valid = [
        ...BUILT_IN_NAMES,
        ...Object.entries(workflows)
          .filter(([, w]) => objectOr(w).stages || objectOr(w).module)
          .map(([name]) => name),
      ];
      for (const name of Object.keys(workflows)) {
        if (COMMAND_WORDS.includes(name)) {
          ctx.addIssue({
            code: 'custom',
            path: ['workflows', name],
            message: `"${name}" is a command (${COMMAND_WORDS.join(', ')} are): give the workflow another name`,
          });
          continue;
        }
        if (valid.includes(name)) {
          checkBuiltInNames(name, objectOr(workflows[name]), ctx);
          continue;
        }
        ctx.addIssue({
          code: 'custom',
          path: ['workflows', name],
          message: `${unknownName(name, valid, 'workflow')} (a new one needs stages or a module)`,
        });
      }
    },
    { when: () => true },
  );
export type WorkflowsConfig = z.infer<typeof fileSchema>;

/** A value that should be a map, as one: anything else (a wrong type, nothing) is an empty one. */
export const objectOr = (value: unknown): Record<string, unknown> =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};

/**
 * A built-in workflow's checkpoints and agents are known: a name that is not one of them
 * (`reveiw:`, `writter:`) would configure nothing, silently. A declared workflow's are checked
 * against its stages; your own graph's are its own to name. Reads the file as written (it may
 * hold other mistakes too).
 */
function checkBuiltInNames(name: string, w: Record<string, unknown>, ctx: z.RefinementCtx) {
  if (w.stages || w.module) return;
  const known = {
    checkpoints: BUILT_IN_CHECKPOINTS[name as keyof typeof BUILT_IN_CHECKPOINTS],
    agents: builtInAgents(name, w.specialists),
  };
  for (const [key, what] of [
    ['checkpoints', 'checkpoint'],
    ['agents', 'agent'],
  ] as const) {
    const valid = known[key];
    if (!valid) continue;
    for (const given of Object.keys(objectOr(w[key])).filter((n) => !valid.includes(n))) {
      ctx.addIssue({
        code: 'custom',
        path: ['workflows', name, key, given],
        message: unknownName(given, valid, what, { of: name }),
      });
    }
  }
}

/**
 * Settings for one checkpoint: the workflow's own, else the file's default (resolved, built-in
 * defaults where the file is silent).
 */
export function checkpointSettings(
  config: WorkflowsConfig,
  workflow: string,
  checkpoint: string,
): CheckpointSettings {
  return config.workflows[workflow]?.checkpoints[checkpoint] ?? config.defaults.checkpoint;
}

/** A workflow the file does not name: every setting its default. */
const UNNAMED_WORKFLOW = workflowSchema.parse({});

export function workflowSettings(config: WorkflowsConfig, workflow: string): WorkflowConfig {
  return config.workflows[workflow] ?? UNNAMED_WORKFLOW;
}

export function parseWorkflowConfig(text: string, file: string): WorkflowsConfig {
  return parseYamlFile(fileSchema, text, file);
}
