// The one duration parser (src/shared/duration.ts), read as the reference's ChronicDuration:
// the edges where the three parsers it replaced disagreed. Pure: runs once, not per dialect.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { durationSeconds, isNever, parseDuration } from '../../src/shared/duration.js';

const DAY = 86400;

describe('parseDuration', () => {
  it('reads the forms the reference reads', () => {
    const cases: [string, number][] = [
      ['42', 42],
      ['3600', 3600],
      ['1.5', 1.5],
      ['3 mins 4 sec', 184],
      ['2 hrs 20 min', 8400],
      ['2h20min', 8400],
      ['1h 30m', 5400],
      ['90 minutes', 5400],
      ['1.5 hours', 5400],
      ['1 hour and 30 minutes', 5400],
      ['1 day and 2 hours', DAY + 7200],
      ['1 day with 2 hours plus 3 minutes', DAY + 7200 + 180],
      ['2 weeks 3 days', 17 * DAY],
      ['2 weeks, 1 day', 15 * DAY],
      ['1 wk', 7 * DAY],
      ['30 days', 30 * DAY],
      ['1 month', 30 * DAY],
      ['6 mos 1 day', 181 * DAY],
      ['1 year', 31557600], // 365.25 days
      ['47 yrs 6 mos and 4d', 47 * 31557600 + 184 * DAY],
      ['day', DAY], // a unit alone counts once
      ['  5 Seconds  ', 5],
      ['01:30', 90],
      ['1:00:00', 3600],
      ['1:02:03:04', DAY + 2 * 3600 + 3 * 60 + 4],
      ['1:0:0:0:0', 30 * DAY], // clocks skip weeks: days then months
      ['1 2', 2], // a number followed by a number counts nothing
    ];
    for (const [text, seconds] of cases) assert.equal(parseDuration(text), seconds, text);
  });

  it('a zero total is 0, not an error', () => {
    for (const text of ['0', '0 seconds', '0 days', '', '   ']) assert.equal(parseDuration(text), 0, text);
  });

  it('a word that is no number, unit or joining word makes it no duration', () => {
    for (const text of ['never', 'garbage', 'foo', '3 foos', '7 elephants', 'not-a-number', '-5', 'abc 1 day', '1 day , 2 hours', 'constructor', '1:2:3:4:5:6:7']) {
      assert.equal(parseDuration(text), null, text);
    }
  });
});

describe('durationSeconds (start_in, timeout, archive_builds_in_human_readable)', () => {
  it('a positive number of seconds, else null: zero is no duration there', () => {
    assert.equal(durationSeconds('1 day and 2 hours'), DAY + 7200);
    assert.equal(durationSeconds('1 year'), 31557600);
    for (const text of ['0 seconds', '0', '', 'never', 'garbage']) assert.equal(durationSeconds(text), null, text);
  });
});

describe('isNever (artifacts:expire_in)', () => {
  it('never, in any case', () => {
    assert.equal(isNever('never'), true);
    assert.equal(isNever('NEVER'), true);
    assert.equal(isNever('1 day'), false);
  });
});
