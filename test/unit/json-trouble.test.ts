/** Where typed JSON fails to parse, said in words a person can use, and short whatever was typed. */
import { expect, it } from 'vitest';
import { jsonTrouble } from '../../src/workflows/protocol/json-trouble.js';

const troubleOf = (text: string) => {
  try {
    JSON.parse(text);
  } catch (error) {
    return jsonTrouble(text, error);
  }
  throw new Error('it parsed');
};

it('names the line and column where the typed text spans lines (a pasted block), not a character offset', () => {
  expect(troubleOf('{\n  "to": "ops@example.com",\n  "subject" "Launch"\n}')).toBe(
    'unexpected string on line 3, column 13',
  );
});

it('quotes the bit it stopped at in one line, at most 20 characters of it', () => {
  expect(troubleOf('{"to": "ops@example.com", subject: "Launch", "body": "We ship today."}')).toBe(
    'expected double-quoted property name at “subject: "Launch", "…”',
  );
  expect(troubleOf('{"to": 1} x')).toBe('unexpected non-whitespace character after JSON at “x”');
  expect(troubleOf('{"to": "ops@example.com", "subj')).toBe('unterminated string at the end');
});

it("never says the whole text back: V8's message that quotes it is cut to its complaint, and any complaint is short", () => {
  const long = `{"body": "${'We ship today. '.repeat(300)}", "to": tru}`;
  const said = troubleOf(long);
  expect(said).toBe("unexpected token '}'");
  expect(said).not.toContain('We ship today');
  for (const text of [long, `{"a": "${'x'.repeat(5000)}" "b": 1}`, '{'.repeat(3000)])
    expect(troubleOf(text).length).toBeLessThanOrEqual(100);
});
