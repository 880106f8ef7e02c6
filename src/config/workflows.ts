/**
 * The workflow config file (YAML): which workflows are on, who reviews each checkpoint, timeouts,
 * agents' models and prompts, loop limits. Every field is optional; no file at all means defaults.
 * Errors name the file, the line, the field's path and what was expected.
 */
import { z } from 'zod';
import { BUILT_IN_CHECKPOINTS, BUILT_IN_NAMES, builtInAgents } from '../workflows/catalog.js';
import { checkStages, stageSchema } from '../workflows/declared/stages.js';
import { BUDGET_CHECKPOINT, TOOL_CALL_KIND } from '../workflows/protocol/requests.js';
import { apiSchema } from './api-clients.js';
import {
  type AlwaysAllow,
  alwaysAllowSchema,
  type CheckpointSettings,
  checkpointSchema,
  timerApproves,
} from './checkpoint.js';
import { unknownName } from './names.js';
import { parseYamlFile } from './yaml-file.js';

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

const remoteSchema = z
  .object({
    url: z.url({ protocol: /^https?$/, error: 'expected the http(s) address of a LangGraph server' }),
    graph: z.string().min(1),
    apiKey: z.string().min(1).optional(),
    /** How long a request, or a run that says nothing, may wait for the server. */
    timeoutSeconds: z.number().int().min(1).max(3600).default(30),
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
    /** A graph on a LangGraph server (workflows/remote/): where, which graph, and signoff's key there. */
    remote: remoteSchema.optional(),
    /**
     * What a task may spend on its models (USD, at `prices`) before it pauses with a review at
     * `checkpoints.budget`: continue with as much again, or stop.
     */
    budget: z.number().positive().max(1_000_000).optional(),
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
  .superRefine((w, ctx) => {
    if (w.remote && (w.module || w.stages))
      ctx.addIssue({
        code: 'custom',
        path: ['remote'],
        message: 'a workflow runs one graph: a remote graph, a module or stages, not two of them',
      });
  })
  .superRefine(checkToolCallTimer)
  .superRefine((w, ctx) => {
    // A checkpoint with a round's budget, if one has it.
    const round = Object.entries(w.checkpoints).find(([, c]) => c.budget !== undefined)?.[0];
    // One budget a task: the whole task's, or a round's at its checkpoints (which would lift it).
    if (w.budget !== undefined && round)
      ctx.addIssue({
        code: 'custom',
        path: ['budget'],
        message: "a workflow's budget (the whole task's) or its checkpoints' (a round's), not both",
      });
    // A budget that could never pause anything would be a promise the file does not keep.
    if (w.remote && (w.budget !== undefined || round))
      ctx.addIssue({
        code: 'custom',
        path: w.budget !== undefined || !round ? ['budget'] : ['checkpoints', round, 'budget'],
        message:
          "a remote graph's models run on its LangGraph server, where signoff cannot count what they spend: remove the budget",
      });
  });
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
const COMMAND_WORDS = ['help', 'list', 'tasks', 'rules', 'away'];

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
    /**
     * Model prices in USD per million tokens (`input`, `output`), by model name: a task's cost is
     * counted from its models' token usage at these. A model answering with a longer name
     * ("gpt-4o-mini-2024-07-18") takes the price of the longest name it starts with.
     */
    prices: z
      .record(z.string().min(1), z.object({ input: z.number().min(0), output: z.number().min(0) }).strict())
      .default({}),
    /** Who signs off a rule proposed with "Approve and always allow…" (checkpoint.ts); absent: none may be. */
    alwaysAllow: alwaysAllowSchema.optional(),
    /** Clients of the HTTP API and MCP over HTTP (api-clients.ts). */
    api: apiSchema.prefault({}),
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
          .filter(([, w]) => objectOr(w).stages || objectOr(w).module || objectOr(w).remote)
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
          message: `${unknownName(name, valid, 'workflow')} (a new one needs stages, a module or a remote graph)`,
        });
      }
    },
    { when: () => true },
  )
  // Without a price, what a model uses costs nothing here: a budget would never pause a task.
  .superRefine((file, ctx) => {
    const remote = Object.entries(file.workflows).find(([, w]) => w.remote)?.[0];
    if (remote && file.defaults.checkpoint.budget !== undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['defaults', 'checkpoint', 'budget'],
        message: `it would apply to workflow "${remote}", a remote graph whose spending signoff cannot count: set budgets on each workflow instead`,
      });
    if (Object.keys(file.prices).length) return;
    // Each budget is told, at its own line.
    const budgets = [
      ...(file.defaults.checkpoint.budget === undefined ? [] : [['defaults', 'checkpoint', 'budget']]),
      ...Object.entries(file.workflows).flatMap(([name, w]) => [
        ...(w.budget === undefined ? [] : [['workflows', name, 'budget']]),
        ...Object.entries(w.checkpoints).flatMap(([c, v]) =>
          v.budget === undefined ? [] : [['workflows', name, 'checkpoints', c, 'budget']],
        ),
      ]),
    ];
    for (const path of budgets)
      ctx.addIssue({
        code: 'custom',
        path,
        message:
          "a budget needs prices, and `prices:` lists no model, so no task would ever cost anything: add each model's price (USD per million tokens) under prices:",
      });
  });
export type WorkflowsConfig = z.infer<typeof fileSchema>;
export type { AlwaysAllow };

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
  if (w.stages || w.module || w.remote) return;
  const known = {
    checkpoints: BUILT_IN_CHECKPOINTS[name as keyof typeof BUILT_IN_CHECKPOINTS]?.concat(BUDGET_CHECKPOINT),
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
