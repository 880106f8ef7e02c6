/**
 * Links never lie: in a `markdown` block the product sends, a link's label is never a different
 * address from its target. Agent words, documents and card bodies are written by models and by
 * whoever wrote what they read, so every way Markdown (or Slack) could hide a target is tried.
 */
import { describe, expect, it } from 'vitest';
import { agentMessages } from '../../src/slack/blocks/messages.js';
import { LIMITS, neutralizeMarkdown } from '../../src/slack/blocks/text.js';

const ZWSP = '\u200b';
const EVIL = 'https://evil.example/login';

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

  it('a 100,000-character body of nasty fragments is handled, and no lying link is left', () => {
    let body = '';
    for (let i = 0; body.length < 100_000; i++) body += nasty[(i * 7) % nasty.length];
    const out = neutralizeMarkdown(body);
    expect(typeof out).toBe('string');
    expect(out).not.toContain(`[https://pay.example.com](${EVIL})`);
  });

  it('pathological nesting of 100,000 brackets is handled', () => {
    const out = neutralizeMarkdown(`${'['.repeat(50_000)}x${'](y)'.repeat(12_500)}`);
    expect(typeof out).toBe('string');
  });

  it('an agent message with a lying link is posted with the address visible, in every part', () => {
    const words = `${'Some words. '.repeat(1500)}[https://pay.example.com](${EVIL})`;
    const parts = agentMessages(words);
    expect(parts.length).toBeGreaterThan(1);
    const md = parts.map((p) => (p.blocks[0] as { text: string }).text).join('\n');
    expect(md).not.toContain(`](${EVIL})`);
    expect(md).toContain(`https://pay.example.com (${EVIL})`);
    for (const p of parts)
      expect((p.blocks[0] as { text: string }).text.length).toBeLessThanOrEqual(LIMITS.markdownPerPayload);
  });
});
