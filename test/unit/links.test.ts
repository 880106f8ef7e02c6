/**
 * Links never lie: in a `markdown` block the product sends, a link's label is never a different
 * address from its target. Agent words, documents and card bodies are written by models and by
 * whoever wrote what they read, so every way Markdown (or Slack) could hide a target is tried.
 */
import fc from 'fast-check';
import type { Nodes } from 'mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { toString as plainText } from 'mdast-util-to-string';
import { describe, expect, it } from 'vitest';
import type { Review } from '../../src/engine/types.js';
import { agentMessages } from '../../src/slack/blocks/messages.js';
import { reviewCard } from '../../src/slack/blocks/review-card.js';
import { LIMITS, neutralizeMarkdown } from '../../src/slack/blocks/text.js';

const ZWSP = '\u200b';
const EVIL = 'https://evil.example/login';

/** Parsing Markdown is slow on a busy machine: the tests that parse a block's worth get time. */
const HEAVY = 60_000;

/** How a CommonMark reader sees the text: every link, image or reference whose label is not its address. */
function lies(markdown: string): string[] {
  const found: string[] = [];
  const stack: Nodes[] = [fromMarkdown(markdown)];
  for (let node = stack.pop(); node; node = stack.pop()) {
    if (['image', 'imageReference', 'linkReference', 'definition'].includes(node.type)) found.push(node.type);
    if (node.type === 'link') {
      const label = plainText(node);
      if (node.url !== label && node.url !== `mailto:${label}`) found.push(`[${label}](${node.url})`);
    }
    if ('children' in node) stack.push(...(node.children as Nodes[]));
  }
  return found;
}

describe('a link whose label is not its address shows where it goes', () => {
  it('a label that looks like another address becomes "label (url)"', () => {
    expect(neutralizeMarkdown(`Pay here: [https://pay.example.com/approve](${EVIL})`)).toBe(
      `Pay here: https://pay.example.com/approve (${EVIL})`,
    );
  });

  it('any other label too: the reader sees the address', () => {
    expect(neutralizeMarkdown('See [the guide](https://docs.example.com/guide) first.')).toBe(
      'See the guide (https://docs.example.com/guide) first.',
    );
  });

  it('a label equal to its URL stays a link, and so does an autolink', () => {
    const same = 'Open [https://example.com/a](https://example.com/a) or <https://example.com/b>.';
    expect(neutralizeMarkdown(same)).toBe(same);
  });

  it('a title or formatting in the label does not keep a lying link', () => {
    expect(neutralizeMarkdown(`[**https://pay.example.com**](${EVIL} "Pay")`)).toBe(
      `https://pay.example.com (${EVIL})`,
    );
  });

  it('nested brackets: the label keeps its brackets as text, and no outer link appears', () => {
    expect(neutralizeMarkdown(`[[https://pay.example.com]](${EVIL})`)).toBe(
      `\\[https://pay.example.com\\] (${EVIL})`,
    );
    // The inner link is rewritten; the outer brackets, which were text, must stay text.
    expect(neutralizeMarkdown(`[see [x](https://a.example)](${EVIL})`)).toBe(
      `[see x (https://a.example)\\](${EVIL})`,
    );
  });

  it('brackets that are not a link in CommonMark cannot become one in a laxer reader', () => {
    expect(neutralizeMarkdown(`[pay here](${EVIL} now)`)).toBe(`[pay here\\](${EVIL} now)`);
  });

  it('an address hidden in the URL by invisible or special characters is shown, not interpreted', () => {
    expect(neutralizeMarkdown('[a](<https://pay.example.com\u202e/moc.live>)')).toBe(
      'a (https://pay.example.com%E2%80%AE/moc.live)',
    );
    expect(neutralizeMarkdown('[a](https://x.example/a_b*c*)')).toBe('a (https://x.example/a\\_b\\*c\\*)');
  });

  it('a label that is its address but formatted shows the address once; an email autolink stays', () => {
    expect(neutralizeMarkdown('[**https://x.example/a**](https://x.example/a)')).toBe('https://x.example/a');
    expect(neutralizeMarkdown('Write to <ops@example.com>.')).toBe('Write to <ops@example.com>.');
  });

  it('a right-to-left override cannot turn the shown address around', () => {
    const out = neutralizeMarkdown(`\u202e[pay](${EVIL}) \u2067x\u2069 \`\u202e\``);
    expect(out).toBe(`pay (${EVIL}) x \`\``);
  });
});

describe('images, references and Slack-style links hide no target either', () => {
  it('an image becomes its text and visible URL, never an embedded image', () => {
    expect(neutralizeMarkdown('![Logo](https://evil.example/p.png)')).toBe(
      'Logo (https://evil.example/p.png)',
    );
    expect(neutralizeMarkdown('![](https://evil.example/p.png)')).toBe('image (https://evil.example/p.png)');
    expect(neutralizeMarkdown(`[![https://pay.example.com](https://pay.example.com/b.png)](${EVIL})`)).toBe(
      `https://pay.example.com (${EVIL})`,
    );
  });

  it('a reference link and its definition show as text', () => {
    expect(neutralizeMarkdown(`[pay here][1]\n\n[1]: ${EVIL}`)).toBe(
      `\\[pay here\\]\\[1\\]\n\n\\[1\\]: ${EVIL}`,
    );
    expect(neutralizeMarkdown(`[pay here]\n\n[pay here]: ${EVIL} "[x](${EVIL})"`)).toBe(
      `\\[pay here\\]\n\n\\[pay here\\]: ${EVIL} "\\[x\\](${EVIL})"`,
    );
  });

  it("Slack's own <url|label> form is broken, whether or not Markdown reads it as an autolink", () => {
    expect(neutralizeMarkdown(`<${EVIL}|https://pay.example.com>`)).toBe(
      `<${ZWSP}${EVIL}|https://pay.example.com>`,
    );
    expect(neutralizeMarkdown(`Go <${EVIL}|pay here> now`)).toBe(`Go <${ZWSP}${EVIL}|pay here> now`);
  });
});

describe('what is not a link is left alone', () => {
  it('a link inside a code span or a code fence stays as code, untouched', () => {
    const code = `Run \`[a](${EVIL})\` and\n\n\`\`\`\n[b](${EVIL}) <${EVIL}|x>\n![c](${EVIL})\n\`\`\`\n`;
    expect(neutralizeMarkdown(code)).toBe(code);
  });

  it("a code span cut by a table's pipes frees no link from it", () => {
    // GFM splits table cells at `|` even inside code, which CommonMark's reading does not see.
    const table = `| a | b |\n| - | - |\n| \`x | [pay](${EVIL}) |\` | y |\n`;
    const out = neutralizeMarkdown(table);
    expect(out).not.toContain(`](${EVIL})`);
    expect(out.replaceAll(ZWSP, '')).toBe(table);
  });

  it('ordinary Markdown without links comes back as it was', () => {
    const text = '# Plan\n\n- [ ] draft **bold** _it_\n- [x] done\n\n> quote a[0] and [b]\n\n1. one\n';
    expect(neutralizeMarkdown(text)).toBe(text);
  });

  it('mentions and broadcasts are still broken, including ones a rewrite would bring together', () => {
    expect(neutralizeMarkdown('hi <@U0ADMIN> <!channel> @here')).toBe(
      `hi <${ZWSP}@U0ADMIN> <${ZWSP}!channel> @${ZWSP}here`,
    );
    expect(neutralizeMarkdown('@[here](https://x.example)')).toBe(`@${ZWSP}here (https://x.example)`);
    expect(neutralizeMarkdown('[&lt;@U0ADMIN&gt;](https://x.example)')).not.toMatch(/<@U0ADMIN>/);
  });

  it('breaking a mention cannot turn code into a paragraph that holds a link', () => {
    // `<!---->` is an HTML block, so the indented line under it is code; `<​!---->` is text,
    // and the line would join its paragraph, link and all, were it not checked again.
    const out = neutralizeMarkdown(`<!---->\n    [pay](${EVIL})`);
    expect(lies(out)).toEqual([]);
    expect(out).toContain(EVIL);
  });
});

describe('any input', () => {
  const nasty = [
    `[https://pay.example.com](${EVIL}) `,
    '[[[[[[',
    ']]]]](((',
    '![',
    '`',
    '```\n',
    `<${EVIL}|x>`,
    '[a]: https://x\n',
    '\\',
    '&#91;',
    '<div>\n',
    '\n\n',
    '    ',
    '*_~',
    '\u0000\ud800',
  ];

  it(
    'a 100,000-character body of nasty fragments is handled, and no lying link is left',
    () => {
      let body = '';
      for (let i = 0; body.length < 100_000; i++) body += nasty[(i * 7) % nasty.length];
      const out = neutralizeMarkdown(body);
      expect(typeof out).toBe('string');
      expect(out).not.toContain(`[https://pay.example.com](${EVIL})`);
    },
    HEAVY,
  );

  it(
    'a body as long as a block, of the same fragments, is read, rewritten and has no lying link',
    () => {
      let body = '';
      for (let i = 0; body.length < LIMITS.markdownPerPayload; i++) body += nasty[(i * 7) % nasty.length];
      expect(lies(body).length).toBeGreaterThan(0);
      const out = neutralizeMarkdown(body);
      expect(lies(out)).toEqual([]);
      expect(out).toContain(`https://pay.example.com (${EVIL})`);
    },
    HEAVY,
  );

  it(
    'whatever the text, a CommonMark reader finds no link whose label is not its address',
    () => {
      const fragment = fc.constantFrom(
        ...nasty,
        `[https://pay.example.com](${EVIL})`,
        '[a](https://a.example)',
        '[https://a.example](https://a.example)',
        '![i](u)',
        '[r][x]',
        '[x]: https://evil.example',
        '<https://a.example|b>',
        '<https://a.example>',
        '[*a*](<u v>)',
        '`a|b](c)`',
        '<!---->',
        '<@U1>',
        '\u202e',
        '[',
        ']',
        '(',
        ')',
        '](',
        '!',
        '<',
        '>',
        '|',
        ' ',
        '\n',
        'a',
      );
      fc.assert(
        fc.property(fc.array(fragment, { maxLength: 40 }), (parts) => {
          expect(lies(neutralizeMarkdown(parts.join('')))).toEqual([]);
        }),
        { numRuns: 200 },
      );
    },
    HEAVY,
  );

  it(
    'a card body that grows when its addresses are shown still fits the card',
    () => {
      const body = `[a](<https://x.example/${'\u200b'.repeat(40)}>) `.repeat(300);
      const card = reviewCard(review(body), 'U0ANN');
      const md = card.blocks.filter((b) => b.type === 'markdown').map((b) => (b as { text: string }).text);
      expect(md.join('').length).toBeLessThanOrEqual(LIMITS.markdownPerPayload);
      expect(md[0]).toContain('a (https://x.example/%E2%80%8B');
      expect(md[0]).toContain('more characters are not shown here');
    },
    HEAVY,
  );

  it(
    'pathological nesting of 100,000 brackets is handled',
    () => {
      const out = neutralizeMarkdown(`${'['.repeat(50_000)}x${'](y)'.repeat(12_500)}`);
      expect(typeof out).toBe('string');
    },
    HEAVY,
  );

  it(
    'an agent message with a lying link is posted with the address visible, in every part',
    () => {
      const words = `${'Some words. '.repeat(1500)}[https://pay.example.com](${EVIL})`;
      const parts = agentMessages(words);
      expect(parts.length).toBeGreaterThan(1);
      const md = parts.map((p) => (p.blocks[0] as { text: string }).text).join('\n');
      expect(md).not.toContain(`](${EVIL})`);
      expect(md).toContain(`https://pay.example.com (${EVIL})`);
      for (const p of parts)
        expect((p.blocks[0] as { text: string }).text.length).toBeLessThanOrEqual(LIMITS.markdownPerPayload);
    },
    HEAVY,
  );
});

function review(body: string): Review {
  return {
    id: 'r1',
    taskId: 't1',
    checkpoint: 'review',
    request: { kind: 'review', title: 'Pay?', body, actions: ['approve'], labels: {}, round: 1, fields: [] },
    settings: {
      reviewers: ['anyone'],
      allowSelfApproval: true,
      onTimeout: 'remind',
      allowSkip: false,
      dmReviewers: false,
      feedback: { minLength: 1, maxLength: 3000 },
    },
    status: 'pending',
    decision: null,
    decidedBy: null,
    decidedAt: null,
    dueAt: null,
    createdAt: '2026-11-22T10:00:00.000Z',
    approvals: [],
    claimedBy: null,
    claimedAt: null,
  };
}
