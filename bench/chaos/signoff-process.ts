/**
 * One signoff process of the chaos checker's cluster (web or worker, from SIGNOFF_ROLE), in the
 * production shape: `startSlack` with the environment's config. Prints `ready` once started.
 * It installs no handler of its own: an unhandled rejection must crash it, as it would in
 * production, so that the checker sees it.
 */
import { loadConfig } from '../../src/config/config.js';
import { parseWorkflowConfig } from '../../src/config/workflows.js';
import { createLogger } from '../../src/logger.js';
import { startSlack } from '../../src/main.js';
import { chaosApiConfig } from './asks.js';
import { CHANNELS } from './scenario.js';

/**
 * Short loops, so that a run sees many tasks reach their end; specialist's review needs both
 * reviewers (N of M), so that approvals racing crashes are checked too.
 */
export const CHAOS_WORKFLOWS = [
  // Rules a reviewer proposes from a card, signed off by the other; short-lived, so that each
  // run's rules meet its own reviews rather than approve every later run's.
  'alwaysAllow:',
  '  reviewers: [U0BOB, U0CAT]',
  '  expiresAfter: 45s',
  'workflows:',
  '  pair:',
  '    maxIterations: 1',
  '  specialist:',
  '    checkpoints:',
  '      review: { reviewers: [U0BOB, U0CAT], approvals: 2 }',
  chaosApiConfig(CHANNELS),
  '',
].join('\n');

const config = loadConfig();
await startSlack(
  { ...config, workflows: parseWorkflowConfig(CHAOS_WORKFLOWS, 'chaos') },
  { logger: createLogger(config.logLevel ?? 'warn') },
);
process.stdout.write('ready\n');
// Keeps the process up whatever its role holds open; it ends when the checker kills it.
setInterval(() => undefined, 60_000);
