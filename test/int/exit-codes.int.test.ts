import { describe, expect, it } from 'vitest';
import { runScript } from '../helpers/processes.js';

describe('exit codes', () => {
  it.each([0, 1, 3])(
    'a process that ran the embedded PostgreSQL exits with the code it set (%i)',
    async (code) => {
      const run = await runScript('test/fixtures/exit-code.ts', { EXIT_CODE: String(code) });
      expect(run.stderr).toBe('');
      expect(run.code).toBe(code);
    },
  );
});
