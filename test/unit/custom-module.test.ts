/** Your own graph's `module:`: a path that leads nowhere says where paths are read from. */
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseWorkflowConfig, workflowSettings } from '../../src/config/workflows.js';
import { loadCustomWorkflow } from '../../src/workflows/custom.js';

const settings = (module: string) =>
  workflowSettings(parseWorkflowConfig(`workflows:\n  mine:\n    module: ${module}\n`, 'x.yml'), 'mine');

const refusal = (module: string, configPath: string) =>
  loadCustomWorkflow('mine', settings(module), configPath).then(
    () => 'loaded',
    (error: Error) => error.message,
  );

describe('a module that is not found', () => {
  it("says module paths are read from the config file's folder, naming it", async () => {
    const folder = mkdtempSync(join(tmpdir(), 'signoff-module-'));
    expect(await refusal('./examples/graph.ts', join(folder, 'team.yml'))).toBe(
      `workflows.mine.module: cannot load ${join(folder, 'examples', 'graph.ts')}: there is no such file (module paths are relative to the config file's folder, ${folder})`,
    );
  });

  it('written from where signoff was started, it says how to write it from the config file', async () => {
    const folder = join(mkdtempSync(join(tmpdir(), 'signoff-module-')), 'config');
    mkdirSync(folder);
    const example = join(process.cwd(), 'examples', 'approval-agent', 'graph.ts');
    const message = await refusal('./examples/approval-agent/graph.ts', join(folder, 'team.yml'));
    expect(message).toContain(`module paths are relative to the config file's folder, ${folder})`);
    expect(message).toContain(`; to load ${example}, write module: ${relative(folder, example)}`);
    // Written so, it loads.
    expect(await refusal(relative(folder, example), join(folder, 'team.yml'))).toBe('loaded');
  });
});
