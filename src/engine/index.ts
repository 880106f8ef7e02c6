/**
 * The engine's front door: everything a surface (Slack, the terminal) or the wiring in main.ts may
 * use. Nothing outside src/engine imports another file of it (Biome's noRestrictedImports keeps it
 * so), so what lies behind this list can be rearranged without touching a surface.
 */

// What an agent asking through a door (the API, MCP) sends, and what it gets back.
export { type AskAnswer, askAnswer } from '../workflows/ask/ask-answer.js';
export {
  type AskInput,
  askInputSchema,
  oneOfContentOrCall,
  toolCallSchema,
} from '../workflows/ask/ask-request.js';
// What a review asks and how it may be answered, for surfaces that draw and read its form.
export { canonicalJson, sameJsonText, shownJson } from '../workflows/protocol/canonical-json.js';
export { contentHash } from '../workflows/protocol/content-hash.js';
export { requestRulesSchema, takesWords } from '../workflows/protocol/requests.js';
export { FORM, invalidEdit } from '../workflows/protocol/review-form.js';
export { titleNamesRound, titleWithRound } from '../workflows/protocol/review-title.js';
export { answeredWithWords, asDecided } from '../workflows/protocol/standard-interrupts.js';
export { scopeInWords } from './allow-rules.js';
// Commands in, queries out: the engine's API.
export type {
  ClaimControls,
  Controls,
  Decided,
  DecideInput,
  DecisionRefusal,
  Engine,
  RuleControls,
  Runner,
  StartInput,
  WaitingPage,
  WaitingQuery,
} from './api.js';
export { DecisionRefused, MAX_TASK_LENGTH } from './api.js';
export type { AuditEntry, AuditFilter } from './audit-trail.js';
// The parts main.ts wires together.
export type { ChannelStart, ChannelStarts } from './channel-starts.js';
export { setupCheckpointer } from './checkpointer.js';
export { invalidDecision } from './decision-input.js';
export { createDelivery } from './delivery.js';
// A Slack post is sent only while its run still holds the task (the client checks before each call).
export { assertDeliveryHeld } from './delivery-guard.js';
export { createEngine } from './engine.js';
export type { EventRecord } from './event-store.js';
// What a surface shows of a run while it goes: words as the models write them.
export { AGENT_METADATA_KEY, type LiveRun, type LiveRunInfo, type LiveView, type RunEnd } from './live.js';
export { createMetrics, type Metrics } from './metrics.js';
// What the models use, counted by a handler on each model (main.ts puts it there).
export { createUsageCounter } from './model-usage.js';
export type { Purger } from './retention.js';
export type { ReviewTimes } from './review-stats.js';
export { median } from './review-stats.js';
export { createRunner, type LoadedWorkflow } from './runner.js';
export { createRuntime, type Runtime } from './runtime/index.js';
export {
  approvalsNeeded,
  approversLeft,
  atDeadline,
  narrowRules,
  seatFilled,
  timerMayNotApprove,
} from './sign-off-rules.js';
// What tasks, reviews and events are (the review protocol is the workflows', re-exported here).
export * from './types.js';
export { usageInWords } from './usage.js';
