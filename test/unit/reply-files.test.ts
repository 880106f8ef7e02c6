/** The line that names a reply's files for the agents (reply-files.ts), from what Slack sends. */
import { describe, expect, it } from 'vitest';
import { filesLine, filesOf, withFiles } from '../../src/slack/inbound/reply-files.js';
import { sharedFromElsewhere, uploaded } from '../helpers/slack-files.js';

const TAIL = 'The agents cannot open files; only these words reach them.)';

describe('files on a reply', () => {
  it('names uploads by name, counts files Slack sends without one (Slack Connect), and lists at most five', () => {
    expect(filesLine(filesOf({ files: [uploaded('a.png', 'U0ANN')] }))).toBe(
      `(Attached in Slack: a.png. ${TAIL}`,
    );
    expect(filesLine(filesOf({ files: [sharedFromElsewhere(), sharedFromElsewhere()] }))).toBe(
      `(Attached in Slack: 2 files. ${TAIL}`,
    );
    const seven = ['1', '2', '3', '4', '5', '6'].map((n) => uploaded(`${n}.png`, 'U0ANN'));
    expect(filesLine(filesOf({ files: [...seven, sharedFromElsewhere()] }))).toBe(
      `(Attached in Slack: 1.png, 2.png, 3.png, 4.png, 5.png and 2 more. ${TAIL}`,
    );
  });

  it('a name is one short line: control characters and newlines go, a long one is cut', () => {
    const [odd] = filesOf({ files: [{ name: 'a\nb\u0007\u009bc.png' }] });
    expect(odd?.name).toBe('a b c.png');
    const [long] = filesOf({ files: [{ name: `${'x'.repeat(200)}.png` }] });
    expect(long?.name).toHaveLength(80);
    expect(long?.name?.endsWith('…')).toBe(true);
    // The title stands in when Slack sends no name.
    expect(filesOf({ files: [{ title: 'Whiteboard' }] })).toEqual([{ name: 'Whiteboard' }]);
  });

  it('no files or something that is not a list of files: the words stand alone', () => {
    expect(filesOf({})).toEqual([]);
    expect(filesOf({ files: 'F0123' })).toEqual([]);
    expect(filesOf({ files: [42, null] })).toEqual([{}, {}]);
    expect(withFiles('make it blue', [])).toBe('make it blue');
    expect(withFiles('make it blue', [{ name: 'a.png' }])).toBe(
      `make it blue\n\n(Attached in Slack: a.png. ${TAIL}`,
    );
  });
});
