// Coverage extraction from a job log (src/ci/reports/coverage.ts). Pure: runs once, not per dialect.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { extractCoverage, rubyRegexToJs } from '../../src/ci/reports/coverage.js';

describe('extractCoverage', () => {
  it('takes the last matching line of the log', () => {
    const trace = 'Coverage: 10.0%\nother\nCoverage: 85.5%\ntrailing line\n';
    assert.equal(extractCoverage(trace, 'Coverage: \\d+\\.\\d+%'), 85.5);
  });

  it('takes the number from the first capture group', () => {
    assert.equal(extractCoverage('Lines: 77.25% of 100 lines\n', 'Lines: (\\d+\\.\\d+)% of \\d+'), 77.25);
  });

  it('takes the last group of the last match on the line', () => {
    assert.equal(extractCoverage('covered 5 of 10\n', '(\\d+) of (\\d+)'), 10);
    assert.equal(extractCoverage('a 1% b 2%\n', '\\d+%'), 2);
  });

  it('passes over a match without digits to an earlier line', () => {
    assert.equal(extractCoverage('Coverage: 50%\nCoverage: n/a\n', 'Coverage: \\S+'), 50);
  });

  it('returns the integer part when there is no fraction, and the first number of the match', () => {
    assert.equal(extractCoverage('TOTAL    123   12    90%\n', '^TOTAL.+?(\\d+\\%)$'), 90);
    assert.equal(extractCoverage('All files |   83.33 |    50 |\n', 'All files[^|]*\\|[^|]*\\s+([\\d\\.]+)'), 83.33);
  });

  it('gives null without a match, with an empty or invalid regex, or an empty log', () => {
    assert.equal(extractCoverage('nothing here\n', 'Coverage: (\\d+)'), null);
    assert.equal(extractCoverage('Coverage: 5\n', ''), null);
    assert.equal(extractCoverage('Coverage: 5\n', '(unclosed'), null);
    assert.equal(extractCoverage('', 'Coverage: (\\d+)'), null);
  });

  it('reads Ruby anchors, slashes, \\h, POSIX classes and (?i)', () => {
    assert.equal(extractCoverage('Total: 93%\n', '\\ATotal: (\\d+)%\\z'), 93);
    assert.equal(extractCoverage('xTotal: 93%\n', '\\ATotal: (\\d+)%\\z'), null);
    assert.equal(extractCoverage('Total: 12\n', '/Total: (\\d+)/'), 12);
    assert.equal(extractCoverage('Total: 12\n', 'Total: ([[:digit:]]+)'), 12);
    assert.equal(extractCoverage('id=deadBEEF cov=66\n', 'id=\\h+ cov=(\\d+)'), 66);
    assert.equal(extractCoverage('COVERAGE: 21\n', '(?i)coverage: (\\d+)'), 21);
  });

  it('matches per line, ignoring carriage returns and colour codes around the number', () => {
    assert.equal(extractCoverage('Coverage: 42%\r\nend\r\n', 'Coverage: (\\d+)%$'), 42);
    assert.equal(extractCoverage('\x1b[32;1mCoverage: 61.5%\x1b[0;m\n', 'Coverage: (\\d+\\.\\d+)'), 61.5);
  });

  it('gives up (null) on a regex that backtracks without end', () => {
    assert.equal(extractCoverage(`${'a'.repeat(40)}!\n`, '(a+)+$'), null);
  });
});

describe('rubyRegexToJs', () => {
  it('translates the Ruby-only parts', () => {
    assert.deepEqual(rubyRegexToJs('\\Afoo\\z'), { source: '^foo$', flags: '' });
    assert.deepEqual(rubyRegexToJs('/a.b/i'), { source: 'a.b', flags: 'i' });
    assert.deepEqual(rubyRegexToJs('[[:alpha:]_]+'), { source: '[a-zA-Z_]+', flags: '' });
    assert.deepEqual(rubyRegexToJs('[\\h]'), { source: '[0-9a-fA-F]', flags: '' });
    assert.deepEqual(rubyRegexToJs('\\\\A'), { source: '\\\\A', flags: '' }, 'an escaped backslash is not an anchor');
    assert.equal(rubyRegexToJs('(?<name'), null);
  });
});
