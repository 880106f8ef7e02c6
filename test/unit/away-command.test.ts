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
        'Slack sent "@dan" as plain text, not as a person: pick them below.',
        'I could not read "next friday": pick the day and the person below (write a day as 2026-11-29).',
      ],
    });
    // A date that is no day at all.
    expect(read('until 2026-13-45').notes).toEqual([
      '"2026-13-45" is not a day after today: pick the day you are back below.',
    ]);
  });

  it('what is more than one, or no day at all, is said too: two people, two days, February 30th', () => {
    expect(read('to <@U0DAN> <@U0EVE> until 2026-12-05')).toEqual({
      day: '2026-12-05',
      notes: ['Name one person to take your reviews: pick them below.'],
    });
    expect(read('2026-12-05 2026-12-06').notes).toEqual([
      'Name one day, not 2026-12-05 and 2026-12-06: pick the day you are back below.',
    ]);
    expect(read('until 2027-02-30')).toEqual({
      day: '2026-11-29',
      notes: ['"2027-02-30" is not a day after today: pick the day you are back below.'],
    });
    expect(read('<@U0DAN> and @eve').notes).toEqual([
      'Slack sent "@eve" as plain text, not as a person: pick them below.',
      'I could not read "and": pick the day and the person below (write a day as 2026-11-29).',
    ]);
  });
});
