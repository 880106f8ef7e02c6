/**
 * What streamed words may carry (slack/outbound/live-text.ts) and which stream an agent's saved
 * words are paired with (engine/live.ts): the pieces a model writes, however they are split, can
 * neither ping, nor hide a link, nor show one agent's words under another's name.
 */
import { describe, expect, it } from 'vitest';
import { createWordStreams, type LiveRun } from '../../src/engine/live.js';
import { defuse, ripe } from '../../src/slack/outbound/live-text.js';

/** What Slack would render from `text` sent in pieces cut at every position given, as the streamer cuts them. */
function streamed(text: string, cuts: number[]): string {
  const pieces = [...cuts, text.length].map((end, i, all) => text.slice(i === 0 ? 0 : all[i - 1], end));
  let pending = '';
  let shown = '';
  for (const [i, piece] of pieces.entries()) {
    pending += piece;
    const { now, later } = ripe(pending, i === pieces.length - 1);
    shown += defuse(now);
    pending = later;
  }
  return shown;
}

const EVERY_CUT = (text: string) => Array.from({ length: text.length - 1 }, (_, i) => [i + 1]);

describe('streamed words', () => {
  it.each([
    ['a mention', 'hi <@U0ADMIN> there', /<@U/],
    ['a broadcast', 'ping @channel now', /@channel/],
    ['a Slack link', 'see <https://evil.example|the docs> now', /<https/],
    ['a Markdown link', 'read [the docs](https://evil.example) now', /\]\(/],
    ['a reference link', '[docs]: https://evil.example', /\]:/],
  ])('never carry %s, wherever the model’s pieces are cut', (_, text, forbidden) => {
    for (const cuts of [[], ...EVERY_CUT(text)]) expect(streamed(text, cuts)).not.toMatch(forbidden);
  });

  it('drop direction overrides, which could show an address reordered', () => {
    expect(defuse('a\u202egro.live\u202c b')).toBe('agro.live b');
  });

  it('go out a whole word at a time: what follows the last space waits for the rest of its word', () => {
    expect(ripe('one two thr')).toEqual({ now: 'one two ', later: 'thr' });
    expect(ripe('one two thr', true)).toEqual({ now: 'one two thr', later: '' });
  });
});

/** A live view that records what it is told. */
function recorder() {
  const told: string[] = [];
  const live: LiveRun = {
    words: (stream, agent, delta) => void told.push(`${stream} ${agent}: ${delta}`),
    kept: (ids) => void told.push(`kept ${ids.join(',')}`),
    dropped: (ids) => void told.push(`dropped ${ids.join(',')}`),
    close: async () => undefined,
  };
  return { live, told };
}
const chunk = (content: string, id: string, meta: Record<string, unknown>) => [{ content, id }, meta];

describe('pairing an agent’s saved words with the stream that showed them', () => {
  it('pairs parallel runs of one node each with its own stream, by graph task', () => {
    const { live } = recorder();
    const words = createWordStreams(live, 'run');
    words.message(
      chunk('A', 'm1', { langgraph_checkpoint_ns: 'n:1', langgraph_node: 'n', signoff_agent: 'Ann' }),
    );
    words.message(
      chunk('B', 'm2', { langgraph_checkpoint_ns: 'n:2', langgraph_node: 'n', signoff_agent: 'Bob' }),
    );
    expect(words.pair({ ns: 'n:2', node: 'n', agent: 'Bob' })).toBe('run.1');
    expect(words.pair({ ns: 'n:1', node: 'n', agent: 'Ann' })).toBe('run.0');
  });

  it('pairs a node’s two calls with its two says in order, and never with another agent’s call', () => {
    const { live } = recorder();
    const words = createWordStreams(live, 'run');
    const meta = { langgraph_checkpoint_ns: 'n:1', langgraph_node: 'n', signoff_agent: 'Ann' };
    words.message(chunk('first', 'm1', meta));
    words.message(chunk('second', 'm2', meta));
    expect(words.pair({ ns: 'n:1', node: 'n', agent: 'Zed' })).toBeUndefined();
    expect(words.pair({ ns: 'n:1', node: 'n', agent: 'Ann' })).toBe('run.0');
    expect(words.pair({ ns: 'n:1', node: 'n', agent: 'Ann' })).toBe('run.1');
  });

  it('drops, at the step’s end, a stream no say was paired with', () => {
    const { live, told } = recorder();
    const words = createWordStreams(live, 'run');
    words.message(chunk('thinking out loud', 'm1', { langgraph_checkpoint_ns: 'n:1', langgraph_node: 'n' }));
    words.stepEnded();
    expect(told.at(-1)).toBe('dropped run.0');
  });

  it('ignores pieces without words (a tool call’s, a structured answer’s)', () => {
    const { live, told } = recorder();
    createWordStreams(live, 'run').message(chunk('', 'm1', { langgraph_node: 'n' }));
    expect(told).toEqual([]);
  });

  it('pairs your own graph’s messages (which name no graph task) by node', () => {
    const { live } = recorder();
    const words = createWordStreams(live, 'run');
    words.message(
      chunk('hi', 'm1', { langgraph_checkpoint_ns: 'n:1', langgraph_node: 'n', signoff_agent: 'x' }),
    );
    expect(words.pair({ node: 'n', agent: 'my-graph' })).toBe('run.0');
  });
});
