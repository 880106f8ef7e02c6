import { AIMessage, HumanMessage, SystemMessage } from '@langchain/core/messages';
import { END } from '@langchain/langgraph';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { formatReview } from '../../src/cli/printer.js';
import type { Review } from '../../src/engine/types.js';
import { decisionSchema, reviewRequestSchema } from '../../src/engine/types.js';
import { OFFLINE_MARK, ScriptedChatModel, scriptedReply } from '../../src/llm/scripted.js';
import { askWorkflow } from '../../src/workflows/ask/ask-graph.js';
import { askReviewRequest } from '../../src/workflows/ask/ask-request.js';
import {
  afterGoalReview,
  afterPlanReview,
  afterStep,
} from '../../src/workflows/goal-plan/goal-plan-graph.js';
import { nextAfterReview, nextAfterTurn } from '../../src/workflows/pair/pair-graph.js';
import { afterChair, afterInsight } from '../../src/workflows/proposal/proposal-graph.js';
import { dedupeQueries } from '../../src/workflows/proposal/proposal-state.js';
import { refusedRevise } from '../../src/workflows/protocol/refused-words.js';
import { toReviewRequest } from '../../src/workflows/protocol/review-request.js';
import { renderHistory } from '../../src/workflows/specialist/prompts.js';
import {
  afterFailure,
  afterPlanner,
  afterReview,
  afterSpecialist,
  routingSchema,
} from '../../src/workflows/specialist/specialist-graph.js';

describe('review request schema', () => {
  it('fills defaults: all three actions, round 1, no fields', () => {
    expect(reviewRequestSchema.parse({ kind: 'review', title: 'Check', body: 'x' })).toEqual({
      kind: 'review',
      title: 'Check',
      body: 'x',
      actions: ['approve', 'revise', 'reject'],
      labels: {},
      round: 1,
      fields: [],
    });
  });
  it('rejects unknown actions, empty titles and bad kinds', () => {
    expect(
      reviewRequestSchema.safeParse({ kind: 'review', title: 'x', body: '', actions: ['ship'] }).success,
    ).toBe(false);
    expect(reviewRequestSchema.safeParse({ kind: 'review', title: '', body: '' }).success).toBe(false);
    expect(reviewRequestSchema.safeParse({ kind: 'Goal Review', title: 't', body: '' }).success).toBe(false);
  });
  it('shows a foreign interrupt value as JSON with the standard actions', () => {
    const r = toReviewRequest({ question: 'deploy?' });
    expect(r.body).toContain('"question": "deploy?"');
    expect(r.actions).toEqual(['approve', 'revise', 'reject']);
  });
  it('decisions need an action and who made it', () => {
    expect(decisionSchema.safeParse({ action: 'approve', by: 'U1', at: 'now' }).success).toBe(true);
    expect(decisionSchema.safeParse({ action: 'approve', at: 'now' }).success).toBe(false);
  });
});

describe('pair routing (seed 000)', () => {
  it('alternates agents for maxIterations turns, then asks for review', () => {
    expect([1, 2, 3].map((t) => nextAfterTurn(t, 3))).toEqual(['agent2', 'agent1', 'review']);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 20 }), fc.integer({ min: 1, max: 20 }), (turn, max) => {
        const next = nextAfterTurn(turn, max);
        expect(next).toBe(turn >= max ? 'review' : turn % 2 === 1 ? 'agent2' : 'agent1');
      }),
    );
  });
  it('feedback loops to agent 1; approval or rejection ends', () => {
    expect(nextAfterReview({ outcome: null })).toBe('agent1');
    expect(nextAfterReview({ outcome: 'done' })).toBe(END);
    expect(nextAfterReview({ outcome: 'rejected' })).toBe(END);
  });
});

describe('specialist routing (seed 002)', () => {
  it('routes planner → specialist → review, revise → specialist, failures → retry review', () => {
    expect(afterPlanner({ failure: null })).toBe('specialist_agent');
    expect(afterPlanner({ failure: { agent: 'planner', message: 'x' } })).toBe('failed');
    expect(afterSpecialist({ failure: null }, true)).toBe('review');
    expect(afterSpecialist({ failure: null }, false)).toBe(END);
    expect(afterReview({ outcome: null })).toBe('specialist_agent');
    expect(afterReview({ outcome: 'done' })).toBe(END);
    expect(afterFailure({ outcome: null, specialist: null })).toBe('planner');
    expect(afterFailure({ outcome: null, specialist: 'audit' })).toBe('specialist_agent');
    expect(afterFailure({ outcome: 'rejected', specialist: 'audit' })).toBe(END);
  });
  it('takes a routing only to a configured specialist', () => {
    const schema = routingSchema(['invoice', 'closing', 'audit']);
    expect(schema.parse({ specialist: 'closing' })).toEqual({ specialist: 'closing' });
    expect(schema.safeParse({ specialist: 'Closing.' }).success).toBe(false);
    expect(schema.safeParse({ specialist: 'tax' }).success).toBe(false);
  });
  it('renders the original task and every feedback in order', () => {
    const text = renderHistory('pay suppliers', [
      { iteration: 1, agent: 'Invoice specialist', result: 'draft' },
      { iteration: 1, agent: 'HITL', userFeedback: 'add dates' },
    ]);
    expect(text).toBe(
      'Task: pay suppliers\n\nHistory:\n[round 1] Invoice specialist: draft\n[round 1] Human feedback: add dates',
    );
  });
});

describe('the offline model', () => {
  it('is deterministic, marked, and reports how much context it was given', async () => {
    const messages = [
      new SystemMessage('You are the Author.'),
      new HumanMessage('write a limerick'),
      new AIMessage('There once…'),
      new HumanMessage('Feedback: funnier'),
    ];
    const a = scriptedReply(messages, 'Author');
    expect(a).toBe(scriptedReply(messages, 'Author'));
    expect(a.startsWith(OFFLINE_MARK)).toBe(true);
    expect(a).toContain('"write a limerick"');
    expect(a).toContain('address the feedback "funnier"');
    // Words, not messages: "write a limerick", "There once…", "Feedback: funnier".
    expect(a).toContain('(read 7 words of context)');
  });
  it('counts the words of a history rendered into one message, not the one message', () => {
    const history = renderHistory('pay suppliers', [
      { iteration: 1, agent: 'Invoice specialist', result: 'a draft of ten words, give or take a few more' },
      { iteration: 1, agent: 'HITL', userFeedback: 'add dates' },
    ]);
    const reply = scriptedReply(
      [new SystemMessage('You are the specialist.'), new HumanMessage(history)],
      'Invoice specialist',
    );
    expect(reply).toContain(`(read ${history.split(/\s+/).length} words of context)`);
    expect(reply).not.toContain('1 message');
  });
  it('answers a choice (an enum) with the option the latest human message names, else the first', async () => {
    const route = (task: string) =>
      new ScriptedChatModel({ agent: 'Planner' })
        .withStructuredOutput(z.object({ specialist: z.enum(['invoice', 'closing', 'audit']) }))
        .invoke([new SystemMessage('Route the task.'), new HumanMessage(task)]);
    expect(await route('prepare the closing')).toEqual({ specialist: 'closing' });
    expect(await route('something else')).toEqual({ specialist: 'invoice' });
    expect(await route('the auditors met')).toEqual({ specialist: 'invoice' }); // whole words only
  });
  it('stops thinking when its call is aborted', async () => {
    const controller = new AbortController();
    const call = new ScriptedChatModel({ delayMs: 5000 }).invoke('hi', { signal: controller.signal });
    controller.abort(new Error('redirected'));
    await expect(call).rejects.toThrow();
  });
});

describe('goal-plan routing (seed 001)', () => {
  it('refines the goal on feedback, else plans', () => {
    expect(afterGoalReview({ phase: 'refine_goal' })).toBe('refine_goal');
    expect(afterGoalReview({ phase: 'plan' })).toBe('generate_plan');
  });
  it('revises, executes or ends after the plan review', () => {
    expect(afterPlanReview({ phase: 'revise_plan' })).toBe('revise_plan');
    expect(afterPlanReview({ phase: 'execute' })).toBe('execute');
    expect(afterPlanReview({ phase: 'rejected' })).toBe(END);
  });
  it('executes every step, then summarises', () => {
    expect(afterStep({ plan: ['a', 'b'], stepResults: ['x'] })).toBe('execute');
    expect(afterStep({ plan: ['a', 'b'], stepResults: ['x', 'y'] })).toBe('summarize');
  });
});

describe('proposal routing and queries (seed 004)', () => {
  it('dedupes queries keeping their order, case, spacing and punctuation aside (the search reads them alike)', () => {
    expect(
      dedupeQueries([
        'AI safety',
        'machine learning',
        'ai  safety',
        'AI safety.',
        '"machine-learning"',
        'neural networks',
      ]),
    ).toEqual(['AI safety', 'machine learning', 'neural networks']);
  });
  it('a typed query that differs from one searched only by case, spacing or punctuation is refused', () => {
    const request = toReviewRequest({
      kind: 'query_review',
      title: 'Search for this?',
      body: 'Continue, or type the query to search instead.',
      actions: ['approve', 'revise'],
      refusedWords: {
        words: ['battery degradation in cold climates overview'],
        because: 'was searched before',
      },
    });
    expect(refusedRevise(request, 'Battery Degradation in cold climates overview.')).toBe(
      'Nothing was recorded: "Battery Degradation in cold climates overview." was searched before.',
    );
    expect(refusedRevise(request, 'battery degradation in hot climates')).toBeUndefined();
  });
  it('the chair: approved ends; not approved loops to a person until the limit', () => {
    expect(afterChair({ isApproved: true, revisions: 0 }, 3)).toBe(END);
    expect(afterChair({ isApproved: false, revisions: 2 }, 3)).toBe('human_review');
    expect(afterChair({ isApproved: false, revisions: 3 }, 3)).toBe(END);
  });
  it('insight review: on to the plan, or another search cycle', () => {
    expect(afterInsight({ next: 'plan' })).toBe('formulate_plan');
    expect(afterInsight({ next: 'search' })).toBe('generate_query');
  });
  it('the offline model never repeats an earlier query, answering through withStructuredOutput', async () => {
    const earlier = ['solar overview', 'solar methods'];
    const prompt = [
      new HumanMessage(`Topic: solar\n\nEarlier queries:\n${earlier.map((q) => `- ${q}`).join('\n')}`),
    ];
    const model = new ScriptedChatModel({ agent: 'Q' });
    const next = await model.withStructuredOutput(z.object({ query: z.string() })).invoke(prompt);
    expect(earlier).not.toContain(next.query);
  });
});

describe('how an ask ends', () => {
  it("a revised ask is done, saying in plain words that the asker got the reviewer's words back", () => {
    const outcome = askWorkflow.outcome({
      answer: { action: 'revise', feedback: 'wait for the fix', by: 'cli:ann', at: '2026-11-29T10:00:00Z' },
    });
    expect(outcome).toEqual({
      status: 'done',
      reason: "the asker got the reviewer's words back: wait for the fix",
    });
    expect(
      askWorkflow.outcome({ answer: { action: 'approve', by: 'cli:ann', at: '2026-11-29T10:00:00Z' } }),
    ).toEqual({ status: 'done' });
  });
});

describe('an ask with no details', () => {
  it('shows a sentence saying the asker gave none, never a blank body (the terminal and the Slack card render this body)', () => {
    for (const content of ['', '  \n ']) {
      const request = askReviewRequest({ title: 'Ship 2.3 tonight?', content });
      expect(request.body).toBe('The asker gave no details beyond the title above.');
      const shown = formatReview({ request, settings: {}, approvals: [] } as unknown as Review);
      expect(shown).toContain('│ The asker gave no details beyond the title above.');
      expect(shown).not.toMatch(/│\s*\n/);
    }
    expect(askReviewRequest({ title: 'Ship?', content: 'Notes: **green**' }).body).toBe('Notes: **green**');
  });
});
