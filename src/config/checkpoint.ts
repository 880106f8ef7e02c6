/**
 * A checkpoint of the workflow config file: who reviews it, its deadline and what the deadline
 * does, reminders, escalation, approvals needed, what replies mean. `checkpointSchema` checks the
 * file's words and resolves them into `CheckpointSettings`, the shape a review keeps.
 */
import { z } from 'zod';
import { conditionError } from './conditions.js';
import { durationSeconds } from './duration.js';

/** N of M where fewer than N people are named: said in words that read right for any N and M. */
const tooFewNamed = (approvals: number, people: number) =>
  `${approvals} ${approvals === 1 ? 'approval is' : 'approvals are'} needed but ${
    people === 0 ? 'nobody is' : `only ${people} ${people === 1 ? 'person is' : 'people are'}`
  } named as reviewers`;

/** "90s", "30m", "2h", "1d", or a number of seconds → seconds. */
export const duration = z.union([z.number().positive(), z.string()]).transform((v, ctx) => {
  if (typeof v === 'number') return v;
  const seconds = durationSeconds(v);
  if (seconds === undefined) {
    ctx.addIssue({ code: 'custom', message: 'expected a duration such as 90s, 30m, 2h or 1d' });
    return z.NEVER;
  }
  return seconds;
});

/** Whether a reviewer is a person named by id (U…/W…), not a group, `requester` or `anyone`. */
export const isPersonId = (reviewer: string) => /^[UW][A-Z0-9]{2,}$/.test(reviewer);

/** A user id (U…/W…) or a user group id (S…). */
const userOrGroup = z
  .string()
  .regex(/^([UW][A-Z0-9]{2,}|S[A-Z0-9]{2,})$/, 'expected a user id (U…) or a user group id (S…)');

/** `requester`, `anyone` (anyone in the channel), a user id (U…/W…) or a user group id (S…). */
export const reviewer = z
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
 * A rule on what a review asks (`checkpoints.<name>.rules`): when its condition holds on the
 * review's content, the review needs other approvals or reviewers, or is approved at once by the
 * rule (sign-off-rules.ts `applyRules` says how several combine). Kept as the file says it: the
 * condition is CEL source, checked when the file loads and compiled once when first used.
 */
export const reviewRuleSchema = z.object({
  name: z
    .string({ error: 'give the rule a name (name: …), as the audit and the cards call it' })
    .trim()
    .min(1)
    .max(80),
  when: z.string().min(1).max(2000),
  approvals: z.number().int().min(1).max(10).optional(),
  reviewers: z.array(z.string()).min(1).optional(),
  approve: z.literal(true, { error: 'write approve: true (or leave it out)' }).optional(),
});
export type ReviewRule = z.infer<typeof reviewRuleSchema>;

const ruleFileSchema = reviewRuleSchema
  .extend({
    when: reviewRuleSchema.shape.when.superRefine((source, ctx) => {
      const error = conditionError(source);
      if (error) ctx.addIssue({ code: 'custom', message: error });
    }),
    reviewers: z.array(reviewer).min(1).optional(),
  })
  .strict()
  .superRefine((r, ctx) => {
    if (r.approve && (r.approvals !== undefined || r.reviewers))
      ctx.addIssue({
        code: 'custom',
        path: ['approve'],
        message: 'a rule either approves (approve: true) or asks for people (approvals, reviewers), not both',
      });
    if (!r.approve && r.approvals === undefined && !r.reviewers)
      ctx.addIssue({
        code: 'custom',
        path: ['when'],
        message: 'say what the rule does: approvals, reviewers, or approve: true',
      });
  });

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
  /** While a review is claimed, only its claimer decides it, hands it over or releases it. */
  exclusiveClaims: z.boolean(),
  /**
   * What the agents may spend (USD) between one review at this checkpoint and the next: each
   * decision here gives the task that much more from what it has spent (usage.ts).
   */
  budget: z.number().optional(),
  dmReviewers: z.boolean(),
  notify: z.array(z.string()),
  feedback: z.object({ minLength: z.number().int(), maxLength: z.number().int() }),
  replies: z.enum(REPLY_MODES),
  /** Rules on what is asked, in the file's order. */
  rules: z.array(reviewRuleSchema),
});
export type CheckpointSettings = z.infer<typeof checkpointSettingsSchema>;

/** A checkpoint as the file says it; `checkpointSchema` resolves it. */
const checkpointFileBase = z
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
     * "I'll take it" on a card claims the review: reminders go to the claimer. Exclusive: while
     * it is claimed, only the claimer decides (they can release it or hand it to someone).
     */
    exclusiveClaims: z.boolean().default(false),
    /**
     * What the agents may spend on their models (USD) between one review here and the next (and
     * before the first): at it the task pauses with a review at `checkpoints.budget`. Beside a
     * workflow's `budget` (its whole), this is a round's.
     */
    budget: z.number().positive().max(1_000_000).optional(),
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
    /**
     * Rules on what is asked, each with a CEL condition (`when`) on the review's content (a
     * tool's `args`, the `channel`, …: conditions.ts) and what it does: `approvals` and
     * `reviewers` instead of this checkpoint's, or `approve: true` (approved at once, by the rule).
     */
    rules: z.array(ruleFileSchema).max(50).default([]),
  })
  .strict();

const checkpointFileSchema = checkpointFileBase.superRefine((c, ctx) => {
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
  if (c.escalation && (c.escalateTo || c.escalateAfter)) {
    ctx.addIssue({
      code: 'custom',
      path: ['escalation'],
      message: 'use escalateTo and escalateAfter for one step, or escalation for several, not both',
    });
  }
  checkPeople(c, ctx, []);
  const names = new Set<string>();
  c.rules.forEach((rule, i) => {
    if (names.has(rule.name))
      ctx.addIssue({
        code: 'custom',
        path: ['rules', i, 'name'],
        message: `two rules are called "${rule.name}"`,
      });
    names.add(rule.name);
    if (rule.approve && !c.allowSkip)
      ctx.addIssue({ code: 'custom', path: ['rules', i, 'approve'], message: noSkip });
    if (!rule.approve)
      checkPeople(
        { ...c, approvals: rule.approvals ?? c.approvals, reviewers: rule.reviewers ?? c.reviewers },
        ctx,
        ['rules', i],
      );
  });
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
    exclusiveClaims: c.exclusiveClaims,
    budget: c.budget,
    dmReviewers: c.dmReviewers,
    notify: c.notify,
    feedback: c.feedback,
    replies: c.replies,
    rules: c.rules,
  }),
);

/**
 * Whether a checkpoint (or one as a rule makes it) can pass as it says: a quorum a timer could
 * pass with fewer is no rule, and a quorum needs at least as many people as it names. `at`: where
 * the approvals are written (a rule's own `approvals` when it sets them).
 */
function checkPeople(c: z.infer<typeof checkpointFileBase>, ctx: z.RefinementCtx, at: (string | number)[]) {
  const approving = timerApproves(c);
  if (c.approvals > 1 && approving) {
    ctx.addIssue({
      code: 'custom',
      path: at.length ? [...at, 'approvals'] : [approving],
      message: `${c.approvals} approvals are needed, so a timeout may remind, reject, cancel or escalate, never approve`,
    });
  }
  // Only named people can be counted: `anyone`, groups and the requester may be many.
  const open = c.reviewers.some(
    (r) => r === 'anyone' || r.startsWith('S') || (r === 'requester' && c.allowSelfApproval),
  );
  const added = [...(c.escalateTo ?? []), ...(c.escalation ?? []).flatMap((e) => e.to)];
  const people = new Set([...c.reviewers, ...added].filter(isPersonId)).size;
  if (!open && !added.some((r) => r.startsWith('S')) && c.approvals > people) {
    ctx.addIssue({
      code: 'custom',
      path: [...at, 'approvals'],
      message: `${tooFewNamed(c.approvals, people)}${
        c.reviewers.includes('requester')
          ? ' (the requester approves their own work only with allowSelfApproval: true)'
          : ''
      }`,
    });
  }
}

/** The key by which a checkpoint's deadline approves (`onTimeout` or `finalAction`), if it does. */
export function timerApproves(c: {
  onTimeout: CheckpointSettings['onTimeout'];
  finalAction?: (typeof FINAL_ACTIONS)[number];
}) {
  if (c.onTimeout === 'approve') return 'onTimeout';
  if (c.onTimeout === 'escalate' && c.finalAction === 'approve') return 'finalAction';
  return undefined;
}

/**
 * Who signs off a rule proposed with "Approve and always allow…" (`alwaysAllow` in the config
 * file), and how long a rule lasts. Absent: nobody may propose one (the choice is not offered).
 * Its reviewers are named on purpose (no default): a rule approves every review it matches.
 */
export const alwaysAllowSchema = z
  .object({
    reviewers: z.array(reviewer).min(1),
    /** How many different people must approve the rule (N of M). */
    approvals: z.number().int().min(1).max(10).default(1),
    /** May the person who proposed the rule approve it too? Not by default. */
    allowSelfApproval: z.boolean().default(false),
    allowExternal: z.boolean().default(false),
    /** How long a rule applies once signed off; unset: until revoked. */
    expiresAfter: duration.optional(),
  })
  .strict()
  .superRefine((a, ctx) => {
    const open = a.reviewers.some((r) => r === 'anyone' || r.startsWith('S') || r === 'requester');
    const people = new Set(a.reviewers.filter(isPersonId)).size;
    if (!open && a.approvals > people)
      ctx.addIssue({
        code: 'custom',
        path: ['approvals'],
        message: tooFewNamed(a.approvals, people),
      });
  });
export type AlwaysAllow = z.infer<typeof alwaysAllowSchema>;
