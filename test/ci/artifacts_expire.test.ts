// expire_in / start_in durations and the artifact size limit (src/ci/artifacts/expire.ts).
// Pure: runs once, not per dialect.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { artifactsExpireAt, exceedsArtifactLimit, MEGABYTE, parseDuration, parseExpireIn } from '../../src/ci/artifacts/expire.js';

describe('parseDuration', () => {
  it('reads the forms the reference documents', () => {
    const cases: [string, number][] = [
      ['42', 42],
      ['3 mins 4 sec', 184],
      ['2 hrs 20 min', 8400],
      ['2h20min', 8400],
      ['6 mos 1 day', 6 * 2592000 + 86400],
      ['47 yrs 6 mos and 4d', 47 * 31557600 + 6 * 2592000 + 4 * 86400],
      ['30 days', 2592000],
      ['1 week', 604800],
      ['2 weeks, 1 day', 2 * 604800 + 86400],
      ['1 month', 2592000],
      ['1 year', 31557600],
      ['1.5 hours', 5400],
      ['1h30m', 5400],
      ['30 minutes', 1800],
      ['day', 86400],
      ['01:30', 90],
      ['1:00:00', 3600],
      ['1:02:03:04', 86400 + 2 * 3600 + 3 * 60 + 4],
      ['  5 Seconds  ', 5],
    ];
    for (const [text, seconds] of cases) assert.equal(parseDuration(text), seconds, text);
  });

  it('gives null for what is not a duration', () => {
    for (const text of ['', '   ', 'never', 'foo', '3 foos', '1 2', '0', '0 days', '1:2:3:4:5', 'abc 1 day']) {
      assert.equal(parseDuration(text), null, text);
    }
  });
});

describe('expire_in', () => {
  it('never keeps forever; invalid is null', () => {
    assert.equal(parseExpireIn('never'), 'never');
    assert.equal(parseExpireIn(' Never '), 'never');
    assert.equal(parseExpireIn('1 week'), 604800);
    assert.equal(parseExpireIn('soon'), null);
  });

  it('computes the expiry time, falling back to the instance default', () => {
    const now = new Date('2024-01-01T00:00:00.000Z');
    assert.equal(artifactsExpireAt('1 day', '30 days', now), '2024-01-02T00:00:00.000Z');
    assert.equal(artifactsExpireAt(null, '30 days', now), '2024-01-31T00:00:00.000Z');
    assert.equal(artifactsExpireAt('bogus', '1 hour', now), '2024-01-01T01:00:00.000Z');
    assert.equal(artifactsExpireAt('never', '30 days', now), null);
    assert.equal(artifactsExpireAt(null, 'never', now), null);
    assert.equal(artifactsExpireAt(null, null, now), null);
  });
});

describe('artifact size limit', () => {
  it('compares against max_artifacts_size in MB; 0 or null is no limit', () => {
    assert.equal(exceedsArtifactLimit(100 * MEGABYTE, 100), false);
    assert.equal(exceedsArtifactLimit(100 * MEGABYTE + 1, 100), true);
    assert.equal(exceedsArtifactLimit(10 ** 12, 0), false);
    assert.equal(exceedsArtifactLimit(10 ** 12, null), false);
  });
});
