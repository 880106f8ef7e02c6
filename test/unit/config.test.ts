import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemorySaver } from '@langchain/langgraph';
import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createClientAuth } from '../../src/api/clients.js';
import { loadConfig, NO_KEY_PLACEHOLDER } from '../../src/config/config.js';
import { checkpointSettings, parseWorkflowConfig, workflowSettings } from '../../src/config/workflows.js';
import { ScriptedChatModel } from '../../src/llm/scripted.js';
import { BUILT_IN_NAMES, builtInAgents } from '../../src/workflows/catalog.js';
import { BUILT_IN_WORKFLOWS } from '../../src/workflows/index.js';

const problems = (env: Record<string, string>) => {
  try {
    loadConfig(env, '/tmp');
    return [];
  } catch (error) {
    return (error as Error).message.split('\n');
  }
};

/** The error lines a config file gets, in the order they are given. */
const errorLines = (yaml: string) => {
  try {
    parseWorkflowConfig(yaml, 'team.yml');
    return [];
  } catch (error) {
    return (error as Error).message.split('\n');
  }
};

describe('loadConfig', () => {
  it('runs on embedded defaults with an empty environment', () => {
    const c = loadConfig({}, '/srv/app');
    expect(c.slack).toBeUndefined();
    expect(c.database).toEqual({ url: undefined, dataDir: '/srv/app/.data' });
    expect(c.model.apiKey).toBeUndefined();
    expect(c.port).toBe(3000);
    expect(c.workflows.workflows).toEqual({});
  });

  it('picks HTTP mode with a bot token and signing secret, Socket Mode with an app token', () => {
    expect(
      loadConfig({ SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: 's', PORT: '8080' }).slack?.mode,
    ).toEqual({
      kind: 'http',
      signingSecret: 's',
      port: 8080,
    });
    expect(loadConfig({ SLACK_BOT_TOKEN: 'xoxb-1', SLACK_APP_TOKEN: 'xapp-1' }).slack?.mode.kind).toBe(
      'socket',
    );
  });

  it('lists every problem, one line each', () => {
    expect(
      problems({ PORT: '70000', LOG_LEVEL: 'loud', DATABASE_URL: 'mysql://x', SLACK_SIGNING_SECRET: 's' }),
    ).toEqual([
      'DATABASE_URL must be a postgres:// URL',
      'PORT must be at most 65535',
      'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent',
      'SLACK_BOT_TOKEN is missing: Slack needs the bot token (xoxb-…) as well',
    ]);
  });

  it('an OPENAI_BASE_URL without OPENAI_API_KEY uses that server (with a placeholder key), not the offline model', () => {
    const local = loadConfig({ OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1' }).model;
    expect(local.baseUrl).toBe('http://127.0.0.1:11434/v1');
    expect(local.apiKey).toBe(NO_KEY_PLACEHOLDER);
    // A key given is the key sent.
    expect(loadConfig({ OPENAI_BASE_URL: 'http://h/v1', OPENAI_API_KEY: 'sk-1' }).model.apiKey).toBe('sk-1');
  });

  it('a URL that is not one is echoed in its sentence', () => {
    expect(problems({ OPENAI_BASE_URL: 'localhost:11434' })).toEqual([
      'OPENAI_BASE_URL must be a URL such as http://127.0.0.1:11434/v1, not "localhost:11434"',
    ]);
    expect(problems({ SLACK_API_URL: 'slack' })).toEqual([
      'SLACK_API_URL must be a URL such as https://slack.com/api/, not "slack"',
    ]);
  });

  it('a half-configured Slack is no Slack, with the sentence naming the variable missing (for what needs Slack to refuse with)', () => {
    const httpHalf = loadConfig({ SLACK_BOT_TOKEN: 'xoxb-1' });
    expect(httpHalf.slack).toBeUndefined();
    expect(httpHalf.slackMissing).toBe(
      'SLACK_SIGNING_SECRET is missing: HTTP mode needs it (or set SLACK_APP_TOKEN for Socket Mode)',
    );
    const noBot = loadConfig({ SLACK_APP_TOKEN: 'xapp-1' });
    expect(noBot.slack).toBeUndefined();
    expect(noBot.slackMissing).toBe('SLACK_BOT_TOKEN is missing: Slack needs the bot token (xoxb-…) as well');
    expect(loadConfig({ SLACK_BOT_TOKEN: 'xoxb-1', SLACK_APP_TOKEN: 'xapp-1' }).slackMissing).toBeUndefined();
    expect(loadConfig({}).slackMissing).toBeUndefined();
    // A token of the wrong kind is a wrong value, refused like any other.
    expect(problems({ SLACK_BOT_TOKEN: 'xoxp-user' })[0]).toContain(
      'must be a bot token starting with xoxb-',
    );
  });

  it('reads the workflow file named by SIGNOFF_CONFIG and names a missing one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'signoff-config-'));
    writeFileSync(join(dir, 'signoff.yml'), 'workflows:\n  pair:\n    maxIterations: 5\n');
    expect(loadConfig({ SIGNOFF_CONFIG: 'signoff.yml' }, dir).workflows.workflows.pair?.maxIterations).toBe(
      5,
    );
    expect(problems({ SIGNOFF_CONFIG: '/nonexistent/signoff.yml' })[0]).toMatch(
      /^SIGNOFF_CONFIG: cannot read \/nonexistent\/signoff.yml/,
    );
  });
});

describe('the embedded database’s folder', () => {
  it('is the project’s from any of its subfolders, as git finds .git, made there first; never one past the project; outside any, this folder’s', () => {
    const top = mkdtempSync(join(tmpdir(), 'signoff-data-'));
    const project = join(top, 'project');
    mkdirSync(join(project, 'examples', 'declared'), { recursive: true });
    writeFileSync(join(project, 'package.json'), '{}');
    const sub = join(project, 'examples', 'declared');
    // No database yet: the first start makes it in the project's folder, where the next ones look.
    expect(loadConfig({}, sub).database.dataDir).toBe(join(project, '.data'));
    // Outside any project: this folder's.
    const loose = mkdtempSync(join(tmpdir(), 'signoff-loose-'));
    expect(loadConfig({}, loose).database.dataDir).toBe(join(loose, '.data'));
    mkdirSync(join(project, '.data', 'pg'), { recursive: true });
    writeFileSync(join(project, '.data', 'pg', 'PG_VERSION'), '18\n');
    expect(loadConfig({}, sub).database.dataDir).toBe(join(project, '.data'));
    expect(loadConfig({}, project).database.dataDir).toBe(join(project, '.data'));
    // Another project below the top has its own, even with a database above it.
    mkdirSync(join(top, '.data', 'pg'), { recursive: true });
    writeFileSync(join(top, '.data', 'pg', 'PG_VERSION'), '18\n');
    const other = join(top, 'other');
    mkdirSync(other);
    writeFileSync(join(other, 'package.json'), '{}');
    expect(loadConfig({}, other).database.dataDir).toBe(join(other, '.data'));
    // SIGNOFF_DATA_DIR decides, from where the command runs.
    expect(loadConfig({ SIGNOFF_DATA_DIR: 'mine' }, sub).database.dataDir).toBe(join(sub, 'mine'));
  });
});

describe('API clients in the config file', () => {
  it('refuses a token hash anyone can send (that of "password", in earlier examples), saying what to do', () => {
    const file = (hash: string) =>
      `api:\n  clients:\n    deploy-bot:\n      tokenSha256: ${hash}\n      channels: [C0123ABCD]\n`;
    expect(() =>
      parseWorkflowConfig(
        file('5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8'),
        'signoff.yml',
      ),
    ).toThrow(
      /signoff.yml:4:7 api.clients.deploy-bot.tokenSha256: .*SHA-256 of "password".*openssl rand -hex 24/,
    );
    expect(parseWorkflowConfig(file('b'.repeat(64)), 'signoff.yml').api.clients['deploy-bot']).toBeDefined();
  });
});

describe('rotating an API token', () => {
  const sha = (t: string) => createHash('sha256').update(t).digest('hex');
  const yaml = (hashes: string) =>
    `api:\n  clients:\n    deploy-bot:\n      tokenSha256: ${hashes}\n      channels: [C0123ABCD]\n`;
  const auth = (hashes: string) =>
    createClientAuth({} as pg.Pool, parseWorkflowConfig(yaml(hashes), 'signoff.yml').api);

  it('lets both the old token and the new one in, as the same client, while the file lists both', () => {
    const both = auth(`[${sha('old-token-0123456789')}, ${sha('new-token-0123456789')}]`);
    expect(both.authenticate('Bearer old-token-0123456789')?.name).toBe('deploy-bot');
    expect(both.authenticate('Bearer new-token-0123456789')?.name).toBe('deploy-bot');
    expect(both.authenticate('Bearer another-token-0123')).toBeUndefined();
    // Once the old hash is removed, only the new token is let in.
    const rotated = auth(sha('new-token-0123456789'));
    expect(rotated.authenticate('Bearer old-token-0123456789')).toBeUndefined();
    expect(rotated.authenticate('Bearer new-token-0123456789')?.name).toBe('deploy-bot');
  });

  it('checks each hash of the list as it checks one', () => {
    expect(() =>
      auth(
        `[${sha('new-token-0123456789')}, 5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8]`,
      ),
    ).toThrow(/api.clients.deploy-bot.tokenSha256.1: .*SHA-256 of "password"/);
    expect(() => auth(`[${sha('a-token-0123456789')}, ${sha('a-token-0123456789')}]`)).toThrow(
      /the same token twice/,
    );
  });
});

describe('the workflow config file', () => {
  it('names file, line, field path and expectation for each error', () => {
    const yaml = [
      'workflows:',
      '  pair:',
      '    maxIterations: lots',
      '    checkpoints:',
      '      review:',
      '        reviewers: [bob]',
      '        timeout: soon',
      '    colour: blue',
    ].join('\n');
    expect(() => parseWorkflowConfig(yaml, 'signoff.yml')).toThrow();
    try {
      parseWorkflowConfig(yaml, 'signoff.yml');
    } catch (error) {
      const lines = (error as Error).message.split('\n');
      expect(lines).toContain(
        'signoff.yml:3:5 workflows.pair.maxIterations: Invalid input: expected number, received string',
      );
      expect(lines).toContain(
        'signoff.yml:6:21 workflows.pair.checkpoints.review.reviewers.0: expected requester, anyone, a user id (U…) or a user group id (S…)',
      );
      expect(lines).toContain(
        'signoff.yml:7:9 workflows.pair.checkpoints.review.timeout: expected a duration such as 90s, 30m, 2h or 1d',
      );
      expect(lines).toContain(
        'signoff.yml:8:5 workflows.pair.colour: unknown key "colour"; the keys here are enabled, description, channels, durability, review, maxIterations, maxRevisions, specialists, module, remote, budget, collection, agents, checkpoints, redirect, stages',
      );
    }
  });

  it('a misspelt key whose value is on the lines below is reported at the key, not at its value', () => {
    const yaml = 'workflows:\n  pair:\n    checkpoint:\n      review:\n        timeout: 2h\n';
    expect(() => parseWorkflowConfig(yaml, 'signoff.yml')).toThrow(
      'signoff.yml:3:5 workflows.pair.checkpoint: unknown key "checkpoint" (did you mean checkpoints?)',
    );
  });

  it('a file with a wrong value and a misspelt workflow reports both, one per line', () => {
    const yaml = 'workflows:\n  pairs:\n    maxIterations: 2\n  pair:\n    maxIterations: two\n';
    let message = '';
    try {
      parseWorkflowConfig(yaml, 'signoff.yml');
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message.split('\n').sort()).toEqual([
      expect.stringMatching(/^signoff\.yml:2:3 workflows\.pairs: there is no workflow "pairs"/),
      'signoff.yml:5:5 workflows.pair.maxIterations: Invalid input: expected number, received string',
    ]);
  });

  it('a step that may not be skipped may not approve itself at its deadline', () => {
    expect(() =>
      parseWorkflowConfig(
        'workflows:\n  proposal:\n    checkpoints:\n      final_review:\n        timeout: 15m\n        allowSkip: false\n        onTimeout: approve\n',
        'signoff.yml',
      ),
    ).toThrow(
      'signoff.yml:7:9 workflows.proposal.checkpoints.final_review.onTimeout: allowSkip is false, so this step may not pass without a person: use remind, reject or cancel',
    );
  });

  it('a tool call is never approved by its deadline: onTimeout or finalAction approve on checkpoints.tool_call is refused at its line', () => {
    const refused = (checkpoint: string) => {
      try {
        parseWorkflowConfig(
          `workflows:\n  mailer:\n    module: ./graph.ts\n    checkpoints:\n      tool_call:\n${checkpoint}`,
          'signoff.yml',
        );
        return undefined;
      } catch (error) {
        return (error as Error).message;
      }
    };
    const why =
      'a tool call goes ahead only when a person approves it, so a timeout may remind, reject, cancel or escalate, never approve';
    expect(refused('        timeout: 2h\n        onTimeout: approve\n')).toBe(
      `signoff.yml:7:9 workflows.mailer.checkpoints.tool_call.onTimeout: ${why}`,
    );
    expect(
      refused(
        '        timeout: 2h\n        onTimeout: escalate\n        escalateTo: [S0LEADS]\n        finalAction: approve\n',
      ),
    ).toBe(`signoff.yml:9:9 workflows.mailer.checkpoints.tool_call.finalAction: ${why}`);
    expect(refused('        timeout: 2h\n        onTimeout: reject\n')).toBeUndefined();
    // Another checkpoint of the same workflow may still approve on timeout.
    expect(
      parseWorkflowConfig(
        'workflows:\n  pair:\n    checkpoints:\n      review: { timeout: 2h, onTimeout: approve }\n',
        'signoff.yml',
      ).workflows.pair?.checkpoints.review?.onTimeout,
    ).toBe('approve');
  });

  it('a checkpoint says what a reply in the thread means: ask by default, feedback or ignore, nothing else', () => {
    const c = parseWorkflowConfig(
      'workflows:\n  pair:\n    checkpoints:\n      review:\n        replies: ignore\n',
      'x.yml',
    );
    expect(checkpointSettings(c, 'pair', 'review').replies).toBe('ignore');
    expect(checkpointSettings(c, 'goal-plan', 'goal').replies).toBe('ask');
    expect(() =>
      parseWorkflowConfig('defaults:\n  checkpoint:\n    replies: approve\n', 'signoff.yml'),
    ).toThrow(/^signoff\.yml:3:5 defaults\.checkpoint\.replies: .*"ask"\|"feedback"\|"ignore"/);
  });

  it("refuses a built-in workflow's checkpoint that does not exist (a typo would configure nothing), at its line", () => {
    const yaml = ['workflows:', '  pair:', '    checkpoints:', '      reveiw: { approvals: 2 }'].join('\n');
    expect(() => parseWorkflowConfig(yaml, 'team.yml')).toThrow(
      /^team\.yml:4:\d+ workflows\.pair\.checkpoints\.reveiw: pair has no checkpoint "reveiw" \(did you mean review\?\); its checkpoints are review, budget$/,
    );
    const ok = parseWorkflowConfig(yaml.replace('reveiw', 'review'), 'team.yml');
    expect(checkpointSettings(ok, 'pair', 'review').approvals).toBe(2);
  });

  it('refuses a workflow that does not exist, listing the built-in, declared and module ones', () => {
    const yaml = [
      'workflows:',
      '  pairs:',
      '    maxIterations: 2',
      '  notes:',
      '    agents: { writer: {} }',
      '    stages: [{ id: draft, agents: [writer] }]',
      '  mailer:',
      '    module: ./graph.ts',
    ].join('\n');
    expect(() => parseWorkflowConfig(yaml, 'team.yml')).toThrow(
      'team.yml:2:3 workflows.pairs: there is no workflow "pairs" (did you mean pair?); the workflows are pair, specialist, goal-plan, proposal, ask, notes, mailer (a new one needs stages, a module or a remote graph)',
    );
    expect(Object.keys(parseWorkflowConfig(yaml.replace('pairs', 'pair'), 'team.yml').workflows)).toEqual([
      'pair',
      'notes',
      'mailer',
    ]);
  });

  it('keeps the words of commands for commands', () => {
    expect(() =>
      parseWorkflowConfig(
        'workflows:\n  help:\n    stages: [{ id: a, agents: [x] }]\n    agents: { x: {} }\n',
        'team.yml',
      ),
    ).toThrow(
      'team.yml:2:3 workflows.help: "help" is a command (help, list, tasks, rules, away are): give the workflow another name',
    );
  });

  it("refuses a built-in workflow's agent that does not exist, naming the close one and the agents it has", () => {
    const yaml = [
      'workflows:',
      '  pair:',
      '    agents:',
      '      agent1: { name: Author }',
      '      Agent2: { name: Reviewer }',
      '  specialist:',
      '    specialists: [tax]',
      '    agents:',
      '      tax: {}',
      '      invoice: {}',
    ].join('\n');
    expect(errorLines(yaml)).toEqual([
      'team.yml:5:7 workflows.pair.agents.Agent2: pair has no agent "Agent2" (did you mean agent2?); its agents are agent1, agent2',
      'team.yml:10:7 workflows.specialist.agents.invoice: specialist has no agent "invoice"; its agents are planner, tax',
    ]);
  });

  it('names the built-in agents as their graphs read them from the config file', () => {
    for (const definition of BUILT_IN_WORKFLOWS) {
      const read = new Set<string>();
      const settings = workflowSettings(parseWorkflowConfig('', 'x.yml'), definition.name);
      const agents = new Proxy(settings.agents, {
        get: (target, key) => {
          if (typeof key === 'string') read.add(key);
          return Reflect.get(target, key);
        },
      });
      definition.build({
        modelFor: ({ name }) => new ScriptedChatModel({ agent: name }),
        settings: { ...settings, agents },
        checkpointer: new MemorySaver(),
        documents: { search: async () => [], count: async () => 0 },
      });
      expect([...read].sort()).toEqual([...(builtInAgents(definition.name) ?? [])].sort());
    }
  });

  it('names its built-in workflows as their definitions do', () => {
    expect(BUILT_IN_NAMES).toEqual(BUILT_IN_WORKFLOWS.map((w) => w.name));
  });

  it('a misspelt key, option, workflow or checkpoint names the close one it meant (did you mean)', () => {
    const yaml = [
      'workflows:', // 1
      '  pair:', // 2
      '    agents:', // 3
      '      agent1:', // 4
      '        promt: be short', // 5
      '    checkpoints:', // 6
      '      review:', // 7
      '        timout: 2h', // 8
      '        onTimeout: aprove', // 9
      '      reveiw: {}', // 10
      '  propsal: { maxIterations: 2 }', // 11
    ].join('\n');
    expect(errorLines(yaml)).toEqual([
      'team.yml:5:9 workflows.pair.agents.agent1.promt: unknown key "promt" (did you mean prompt?)',
      'team.yml:8:9 workflows.pair.checkpoints.review.timout: unknown key "timout" (did you mean timeout?)',
      'team.yml:9:9 workflows.pair.checkpoints.review.onTimeout: Invalid option: expected one of "approve"|"reject"|"cancel"|"remind"|"escalate" (did you mean approve?)',
      'team.yml:10:7 workflows.pair.checkpoints.reveiw: pair has no checkpoint "reveiw" (did you mean review?); its checkpoints are review, budget',
      'team.yml:11:3 workflows.propsal: there is no workflow "propsal" (did you mean proposal?); the workflows are pair, specialist, goal-plan, proposal, ask (a new one needs stages, a module or a remote graph)',
    ]);
  });

  it("lists its errors in the order of the file's lines, whichever check found them", () => {
    const yaml = [
      'workflows:', // 1
      '  pair:', // 2
      '    colour: blue', // 3
      '    maxIterations: lots', // 4
      '    checkpoints:', // 5
      '      review:', // 6
      '        timout: 2h', // 7
      '        approvals: none', // 8
      '  pairs: {}', // 9
      'starts:', // 10
      '  perPerson: 0', // 11
    ].join('\n');
    const lines = errorLines(yaml).map((l) => Number(l.split(':')[1]));
    expect(lines).toEqual([3, 4, 7, 8, 9, 11]);
  });

  it('reports YAML syntax errors with their position', () => {
    expect(() => parseWorkflowConfig('workflows:\n  pair: [1,\n', 'bad.yml')).toThrow(/^bad\.yml:\d+:\d+ /);
  });

  it('resolves checkpoint settings: workflow, then file default, then built-in', () => {
    const c = parseWorkflowConfig(
      'defaults:\n  checkpoint:\n    timeout: 2h\nworkflows:\n  pair:\n    checkpoints:\n      review:\n        reviewers: [requester, S0TEAM]\n        timeout: 30m\n        onTimeout: approve\n',
      'x.yml',
    );
    expect(checkpointSettings(c, 'pair', 'review')).toMatchObject({
      reviewers: ['requester', 'S0TEAM'],
      timeoutSeconds: 1800,
      onTimeout: 'approve',
    });
    expect(checkpointSettings(c, 'specialist', 'review')).toMatchObject({
      reviewers: ['anyone'],
      timeoutSeconds: 7200,
    });
    const builtIn = checkpointSettings(parseWorkflowConfig('', 'y'), 'pair', 'review');
    expect(builtIn.reviewers).toEqual(['anyone']);
    expect(builtIn.timeoutSeconds).toBeUndefined();
  });

  it('start limits default to 10 tasks in hand per person and 30 per channel, as the example file says; 0 is refused at its line', async () => {
    expect(parseWorkflowConfig('', 'y').starts).toEqual({ perPerson: 10, perChannel: 30 });
    const { readFileSync } = await import('node:fs');
    const text = readFileSync(join(import.meta.dirname, '..', '..', 'signoff.example.yml'), 'utf8');
    expect(parseWorkflowConfig(text, 'signoff.example.yml').starts).toEqual({
      perPerson: 10,
      perChannel: 30,
    });
    expect(() => parseWorkflowConfig('starts:\n  perPerson: 0\n', 'signoff.yml')).toThrow(
      /signoff\.yml:2:\d+ starts\.perPerson/,
    );
  });

  it('accepts the documented example file', async () => {
    const { readFileSync } = await import('node:fs');
    const text = readFileSync(join(import.meta.dirname, '..', '..', 'signoff.example.yml'), 'utf8');
    const c = parseWorkflowConfig(text, 'signoff.example.yml');
    expect(Object.keys(c.workflows)).toEqual([
      'pair',
      'specialist',
      'goal-plan',
      'proposal',
      'ask',
      'release-notes',
    ]);
    expect(Object.keys(c.api.clients)).toEqual(['deploy-bot']);
    expect(c.workflows['release-notes']?.stages?.map((s) => s.id)).toEqual(['draft', 'checks', 'final']);
  });
});
