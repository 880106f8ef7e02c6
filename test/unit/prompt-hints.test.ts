/**
 * A command's hints name it as it is typed where they are read: `npx signoff events …` in the
 * shell, `events …` (and `pair …` for a task) at the interactive prompt. One prefix says which.
 */
import { describe, expect, it } from 'vitest';
import { AT_THE_PROMPT } from '../../src/cli/help.js';
import { usageError } from '../../src/cli/usage.js';

const WORKFLOWS = ['pair', 'specialist'];
const WRONG = [
  'run',
  'run pair',
  'events',
  'resume',
  'redirect',
  'cancel cli-1a2b3c4d cli-5e6f7a8b',
  'retry cli-1a2b3c4d extra words',
  'tasks cli-1a2b3c4d',
  'tasks --all',
  'status cli-1a2b3c4d',
  'list',
  'rules approve',
  'docs',
  'run pair --verbose',
  'cancel --force cli-1a2b3c4d',
].map((line) => line.split(' '));

describe("a command's hints", () => {
  it('at the prompt never name the shell\'s "npx signoff", and say the same as in the shell otherwise', () => {
    for (const argv of WRONG) {
      const shell = usageError(argv, WORKFLOWS);
      const prompt = usageError(argv, WORKFLOWS, AT_THE_PROMPT);
      expect([argv.join(' '), prompt]).not.toEqual([argv.join(' '), expect.stringContaining('signoff')]);
      expect([argv.join(' '), shell]).toEqual([argv.join(' '), expect.stringContaining('npx signoff ')]);
      // A task is started at the prompt by the workflow's name, as the prompt asks for it.
      if (argv.join(' ') !== 'run pair')
        expect(prompt).toBe(shell?.replaceAll('npx signoff ', '').replace(/\brun <workflow>/, '<workflow>'));
    }
  });

  it("say a task is started at the prompt as the prompt takes it, and in the shell as the shell's", () => {
    expect(usageError(['run', 'pair'], WORKFLOWS, AT_THE_PROMPT)).toBe(
      "Describe the task after the workflow's name: pair summarise Q3 invoices",
    );
    expect(usageError(['run', 'pair'], WORKFLOWS)).toBe(
      'Describe the task after the workflow\'s name: npx signoff run pair "summarise Q3 invoices"',
    );
    expect(usageError(['events'], WORKFLOWS, AT_THE_PROMPT)).toBe(
      'Name the task, e.g. events cli-1a2b3c4d (see: tasks).',
    );
  });
});
