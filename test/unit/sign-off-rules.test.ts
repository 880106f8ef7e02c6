/** The sign-off rules as pure functions: what one more approval does, and what a deadline does. */
import { describe, expect, it } from 'vitest';
import { checkpointSettings, parseWorkflowConfig } from '../../src/config/workflows.js';
import {
  addApproval,
  applyRules,
  atDeadline,
  escalatedReviewers,
  narrowRules,
  timerMayNotApprove,
} from '../../src/engine/sign-off-rules.js';
import type { ReviewSettings } from '../../src/engine/types.js';

const approval = (by: string) => ({ by, at: '2026-11-25T10:00:00.000Z', contentHash: 'h' });
const settings = (over: Partial<ReviewSettings> = {}) =>
  ({ onTimeout: 'remind', timeoutSeconds: 7200, ...over }) as ReviewSettings;

describe('quorum', () => {
  it('counts different people until the quorum, then reports it with every approver in order', () => {
    const review = { settings: settings({ approvals: 2 }), approvals: [] };
    const first = addApproval(review, approval('U0A'));
    expect(first).toMatchObject({ kind: 'counted', needed: 2 });
    const second = addApproval({ ...review, approvals: [approval('U0A')] }, approval('U0B'));
    expect(second).toEqual({ kind: 'quorum', approvals: [approval('U0A'), approval('U0B')] });
  });

  it('counts someone away and the one deciding in their place as one person', () => {
    const review = {
      settings: { ...settings({ approvals: 2 }), delegates: { U0ANN: 'U0DAN' } },
      approvals: [approval('U0ANN')],
    };
    expect(addApproval(review, approval('U0DAN'))).toMatchObject({ kind: 'counted_already' });
    expect(addApproval(review, approval('U0BOB')).kind).toBe('quorum');
  });

  it('keeps the seat a stand-in filled: another stand-in, or the person once back, counts no more', () => {
    const dan = { ...approval('U0DAN'), for: 'U0ANN' };
    const later = { settings: settings({ approvals: 3 }), approvals: [dan] };
    expect(
      addApproval(
        { ...later, settings: { ...later.settings, delegates: { U0ANN: 'U0EVE' } } },
        { ...approval('U0EVE'), for: 'U0ANN' },
      ).kind,
    ).toBe('counted_already');
    expect(addApproval(later, approval('U0ANN')).kind).toBe('counted_already');
    expect(addApproval(later, approval('U0BOB')).kind).toBe('counted');
  });

  it('counts a person once: their second approval changes nothing', () => {
    const review = { settings: settings({ approvals: 3 }), approvals: [approval('U0A')] };
    expect(addApproval(review, approval('U0A'))).toEqual({ kind: 'counted_already', count: 1, needed: 3 });
  });

  it('one approval decides a review that sets no quorum (reviews opened before approvals existed)', () => {
    expect(addApproval({ settings: settings(), approvals: [] }, approval('U0A')).kind).toBe('quorum');
  });
});

describe('deadline', () => {
  const escalation = {
    steps: [
      { to: ['S0LEADS'], afterSeconds: 3600 },
      { to: ['U0CTO'], afterSeconds: 86400 },
    ],
    finalAction: 'reject' as const,
  };
  it('takes each escalation step in turn, then applies the final action, counting the whole wait', () => {
    const s = settings({ onTimeout: 'escalate', escalation });
    expect(atDeadline(s)).toEqual({
      kind: 'escalate',
      step: 1,
      to: ['S0LEADS'],
      afterSeconds: 3600,
      waitedSeconds: 7200,
    });
    expect(atDeadline({ ...s, escalated: 1 })).toEqual({
      kind: 'escalate',
      step: 2,
      to: ['U0CTO'],
      afterSeconds: 86400,
      waitedSeconds: 10800,
    });
    expect(atDeadline({ ...s, escalated: 2 })).toEqual({
      kind: 'act',
      action: 'reject',
      waitedSeconds: 97200,
    });
  });

  it('a checkpoint that does not escalate acts at once', () => {
    expect(atDeadline(settings({ onTimeout: 'approve' }))).toEqual({
      kind: 'act',
      action: 'approve',
      waitedSeconds: 7200,
    });
  });

  it('escalated reviewers keep the old ones and add each new one once', () => {
    expect(escalatedReviewers(['U0A', 'S0OPS'], ['S0OPS', 'U0LEAD'])).toEqual(['U0A', 'S0OPS', 'U0LEAD']);
  });
});

describe('config', () => {
  const parse = (checkpoint: string) => () =>
    parseWorkflowConfig(`workflows:\n  pair:\n    checkpoints:\n      review:\n${checkpoint}`, 'team.yml');

  it('refuses more approvals than the people named can give', () => {
    expect(parse('        reviewers: [U0A, U0B]\n        approvals: 3\n')).toThrow(
      /approvals.*3 approvals are needed but only 2 people are named/s,
    );
    expect(parse('        reviewers: [U0A, S0FIN]\n        approvals: 3\n')).not.toThrow();
  });

  it('reads one step (escalateTo, escalateAfter) or several (escalation), never both', () => {
    const one = parse('        timeout: 2h\n        onTimeout: escalate\n        escalateTo: [S0LEADS]\n')();
    expect(checkpointSettings(one, 'pair', 'review').escalation).toEqual({
      steps: [{ to: ['S0LEADS'], afterSeconds: 7200 }],
      finalAction: 'remind',
    });
    const two = parse(
      '        timeout: 2h\n        onTimeout: escalate\n        escalation:\n          - { to: [S0LEADS], after: 1h }\n          - { to: [U0CTO] }\n        finalAction: reject\n',
    )();
    expect(checkpointSettings(two, 'pair', 'review').escalation).toEqual({
      steps: [
        { to: ['S0LEADS'], afterSeconds: 3600 },
        { to: ['U0CTO'], afterSeconds: 7200 },
      ],
      finalAction: 'reject',
    });
    expect(
      parse(
        '        timeout: 2h\n        onTimeout: escalate\n        escalateTo: [S0LEADS]\n        escalation: [{ to: [U0CTO] }]\n',
      ),
    ).toThrow(/escalation.*not both/s);
  });

  it('refuses escalation settings without onTimeout: escalate, and a timer that approves a review needing several approvals', () => {
    expect(parse('        timeout: 2h\n        onTimeout: reject\n        escalateTo: [S0LEADS]\n')).toThrow(
      /escalation is set but onTimeout is reject/,
    );
    expect(parse('        timeout: 2h\n        onTimeout: approve\n        approvals: 2\n')).toThrow(
      /onTimeout: 2 approvals are needed, so a timeout may remind, reject, cancel or escalate, never approve/,
    );
    expect(
      parse(
        '        timeout: 2h\n        onTimeout: escalate\n        escalateTo: [S0LEADS]\n        finalAction: approve\n        approvals: 2\n',
      ),
    ).toThrow(/finalAction: 2 approvals are needed/);
  });

  it('refuses escalate without a timeout or without whom to escalate to', () => {
    expect(parse('        onTimeout: escalate\n        escalateTo: [U0LEAD]\n')).toThrow(
      /escalate needs a timeout/,
    );
    expect(parse('        timeout: 2h\n        onTimeout: escalate\n')).toThrow(
      /escalate needs a timeout and escalateTo/,
    );
  });

  it("refuses a final action that approves on nobody's behalf where the step may not be skipped", () => {
    expect(
      parse(
        '        timeout: 2h\n        onTimeout: escalate\n        escalateTo: [U0LEAD]\n        allowSkip: false\n        finalAction: approve\n',
      ),
    ).toThrow(/finalAction.*allowSkip is false/s);
  });
});

describe('rules a request asks (narrowRules)', () => {
  const base = settings({ reviewers: ['U0A', 'U0B', 'S0OPS'], approvals: 1 });

  it('applies what is stricter: named reviewers among the checkpoint’s, more approvals, an earlier deadline', () => {
    const { settings: out, refused } = narrowRules(base, {
      reviewers: ['U0A', 'U0B'],
      approvals: 2,
      timeoutSeconds: 600,
    });
    expect(refused).toEqual([]);
    expect(out).toMatchObject({ reviewers: ['U0A', 'U0B'], approvals: 2, timeoutSeconds: 600 });
  });

  it('refuses what is looser: a reviewer the checkpoint does not name, fewer approvals, a later deadline', () => {
    const { settings: out, refused } = narrowRules(settings({ ...base, approvals: 2 }), {
      reviewers: ['U0A', 'U0EVE'],
      approvals: 1,
      timeoutSeconds: 9000,
    });
    expect(refused.join(' ')).toMatch(/U0EVE is not a reviewer.*at least 2 approvals.*at most 7200 seconds/);
    // Only what was allowed applies: U0EVE is dropped, the rest stays the checkpoint's.
    expect(out).toMatchObject({ reviewers: ['U0A'], approvals: 2, timeoutSeconds: 7200 });
  });

  it('where the deadline approves, refuses an earlier deadline (a sooner approval) and a quorum (the timer passes it with none)', () => {
    for (const approving of [
      settings({ ...base, onTimeout: 'approve' }),
      settings({ ...base, onTimeout: 'escalate', escalation: { steps: [], finalAction: 'approve' } }),
    ]) {
      const { settings: out, refused } = narrowRules(approving, { approvals: 2, timeoutSeconds: 600 });
      expect(refused).toHaveLength(2);
      expect(out).toMatchObject({ approvals: 1, timeoutSeconds: 7200 });
    }
  });

  it('refuses a quorum larger than the people it names', () => {
    const { refused } = narrowRules(base, { reviewers: ['U0A'], approvals: 2 });
    expect(refused.join(' ')).toContain('2 approvals need at least as many reviewers; 1 is named');
  });
});

describe('rules on what is asked, as the config file says them', () => {
  const parse =
    (rules: string, more = '') =>
    () =>
      parseWorkflowConfig(
        `workflows:\n  pair:\n    checkpoints:\n      review:\n        reviewers: [U0A, U0B]\n${more}        rules:\n${rules}`,
        'team.yml',
      );

  it('names the line of a condition that does not parse, names an unknown fact, or is not true or false', () => {
    expect(
      parse('          - name: big\n            when: args.amount >\n            approvals: 2\n'),
    ).toThrow(/team\.yml:8:13 workflows\.pair\.checkpoints\.review\.rules\.0\.when: Unexpected token/);
    expect(
      parse('          - name: big\n            when: amount > 1000\n            approvals: 2\n'),
    ).toThrow(
      /rules\.0\.when: Unknown variable: amount \(a condition may use workflow, checkpoint, channel, .*args/,
    );
    expect(parse('          - name: big\n            when: tool\n            approvals: 2\n')).toThrow(
      /a condition must be true or false; this one is a string/,
    );
  });

  it('refuses a rule that does nothing, one that both approves and asks for people, and two of one name', () => {
    expect(parse('          - name: big\n            when: "true"\n')).toThrow(/say what the rule does/);
    expect(
      parse(
        '          - name: big\n            when: "true"\n            approve: true\n            approvals: 2\n',
      ),
    ).toThrow(/rules\.0\.approve: a rule either approves/);
    expect(
      parse(
        '          - { name: a, when: "true", approvals: 2 }\n          - { name: a, when: "false", approvals: 2 }\n',
      ),
    ).toThrow(/rules\.1\.name: two rules are called "a"/);
  });

  it("checks what a rule makes of the checkpoint as the checkpoint's own keys are checked", () => {
    expect(parse('          - { name: big, when: "true", approvals: 3 }\n')).toThrow(
      /rules\.0\.approvals: 3 approvals are needed but only 2 people are named/,
    );
    expect(
      parse('          - { name: big, when: "true", approvals: 3, reviewers: [S0FIN] }\n'),
    ).not.toThrow();
    expect(
      parse('          - { name: small, when: "true", approve: true }\n', '        allowSkip: false\n'),
    ).toThrow(/rules\.0\.approve: allowSkip is false/);
    expect(
      parse(
        '          - { name: big, when: "true", approvals: 2 }\n',
        '        timeout: 1h\n        onTimeout: approve\n',
      ),
    ).toThrow(/rules\.0\.approvals: 2 approvals are needed, so a timeout may .* never approve/);
  });
});

describe('rules that cannot be told', () => {
  const parse = (yaml: string) => parseWorkflowConfig(yaml, 'team.yml');
  it('raise the bar but never open a review to people the checkpoint does not name', () => {
    const config = parse(
      'workflows:\n  ask:\n    checkpoints:\n      tool_call:\n        reviewers: [U0LEAD]\n        rules:\n          - { name: wide, when: args.amount > 10, approvals: 1, reviewers: [anyone] }\n          - { name: high, when: args.amount > 1000, reviewers: [U0LEAD, U0CFO], approvals: 2 }\n',
    );
    const facts = [
      {
        workflow: 'ask',
        checkpoint: 'tool_call',
        channel: '',
        requester: 'r',
        door: '',
        title: 't',
        body: '',
        tool: 'pay',
        args: {},
        input: {},
        output: {},
      },
    ];
    const ruled = applyRules(checkpointSettings(config, 'ask', 'tool_call'), facts);
    expect(ruled.settings.reviewers).toEqual(['U0LEAD']);
    expect(ruled.settings.approvals).toBe(2);
    expect(ruled.fired.map((f) => f.name)).toEqual(['wide', 'high']);
  });

  it("refuse a workflow's budget beside its checkpoints' (a round's would lift the whole's)", () => {
    expect(() =>
      parse('workflows:\n  pair:\n    budget: 5\n    checkpoints:\n      review: { budget: 2 }\n'),
    ).toThrow(
      /workflows\.pair\.budget: a workflow's budget \(the whole task's\) or its checkpoints' \(a round's\), not both/,
    );
  });

  it('N of M with too few named people reads right for one approval and for nobody, and says why the requester does not count', () => {
    expect(() =>
      parse(
        'workflows:\n  pair:\n    checkpoints:\n      review: { reviewers: [requester], allowSelfApproval: false }\n',
      ),
    ).toThrow(
      /1 approval is needed but nobody is named as reviewers \(the requester approves their own work only with allowSelfApproval: true\)/,
    );
  });

  it('refuse a budget that could never pause a task: no prices, a remote graph, a default that reaches one', () => {
    expect(() => parse('workflows:\n  pair:\n    budget: 5\n')).toThrow(
      /workflows\.pair\.budget: a budget needs prices, and `prices:` lists no model, so no task would ever cost anything/,
    );
    const prices = 'prices:\n  gpt-4o: { input: 2.5, output: 10 }\n';
    expect(() => parse(`${prices}workflows:\n  pair:\n    budget: 5\n`)).not.toThrow();
    const remote = '  release:\n    remote: { url: "http://localhost:2024", graph: release }\n';
    expect(() => parse(`${prices}workflows:\n${remote}    budget: 5\n`)).toThrow(
      /workflows\.release\.budget: a remote graph's models run on its LangGraph server, where signoff cannot count/,
    );
    expect(() => parse(`${prices}defaults:\n  checkpoint: { budget: 2 }\nworkflows:\n${remote}`)).toThrow(
      /defaults\.checkpoint\.budget: it would apply to workflow "release", a remote graph/,
    );
  });
});

describe('what a timer may approve', () => {
  it('never a tool call, a card that could not show its content, or content an edit changed (whose card is not known to have shown)', () => {
    expect(timerMayNotApprove({}, true)).toBeUndefined();
    expect(timerMayNotApprove({}, false)).toMatch(/nobody saw/);
    expect(timerMayNotApprove({ origin: { format: 'hitl', value: {} } } as never, true)).toMatch(/tool call/);
    const edit = { by: 'U0BOB', at: '2026-11-22T10:00:00.000Z', n: 1, values: { body: 'changed' } };
    expect(timerMayNotApprove({ edit }, true)).toMatch(/an edit changed what it asks/);
  });
});
