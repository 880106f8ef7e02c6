import { describe, expect, it } from 'vitest';
import { readAwayCommand } from '../../src/slack/inbound/away-command.js';

const now = new Date('2026-11-28T09:00:00Z');
const read = (text: string) => readAwayCommand(text, now);

describe('/signoff away …, read for its form', () => {
  it('a day after today and a mention Slack sent as an id fill the form, in any case and order, with nothing to say', () => {
    for (const text of [
      'until 2026-12-05 to <@U0DAN|dan>',
      'Until 2026-12-05 To <@U0DAN|dan smith>',
      'to <@U0DAN> until 2026-12-05',
      '2026-12-05 <@U0DAN>',
    ])
      expect(read(text)).toEqual({ day: '2026-12-05', delegate: 'U0DAN', notes: [] });
    expect(read('')).toEqual({ day: '2026-11-29', notes: [] });
    expect(read('until')).toEqual({ day: '2026-11-29', notes: [] });
  });

  it('what names nothing for certain is said, never dropped: a past day, words, a typed @name', () => {
    expect(read('until 2026-01-05')).toEqual({
      day: '2026-11-29',
      notes: ['"2026-01-05" is not a day after today: pick the day you are back below.'],
    });
    expect(read('until next friday to @dan')).toEqual({
      day: '2026-11-29',
      notes: [
        'I could not read "next friday": pick the day below (typed, a day reads 2026-11-29).',
        'Slack sent "@dan" as plain text, not as a person: pick them below.',
      ],
    });
    // A date that is no day at all.
    expect(read('until 2026-13-45').notes).toEqual([
      '"2026-13-45" is not a day after today: pick the day you are back below.',
    ]);
  });
});
