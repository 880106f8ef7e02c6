/** A worker-role signoff for the ack benchmark: runs Slack tasks' graphs and posts their output. */
import { loadConfig } from '../src/config/config.js';
import { parseWorkflowConfig } from '../src/config/workflows.js';
import { createLogger } from '../src/logger.js';
import { startSlack } from '../src/main.js';

const config = loadConfig();
await startSlack(
  { ...config, workflows: parseWorkflowConfig('workflows:\n  pair:\n    maxIterations: 1\n', 'bench') },
  { logger: createLogger('silent') },
);
process.stdout.write('ready\n');
setInterval(() => undefined, 60_000);
