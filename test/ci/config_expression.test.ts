// Unit tests of the `rules:if` expression language, the glob matcher and the duration parser
// of the CI file parser (pure code: no database).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { evaluateExpression, isTruthful, isValidExpression } from '../../src/ci/config/expression.js';
import { globMatch } from '../../src/ci/config/glob.js';

const vars = {
  BRANCH: 'main',
  EMPTY: '',
  BLANK: '   ',
  OTHER: 'main',
  FEATURE: 'feature/login',
  PATTERN: '/^feature\\//',
  PLAIN: 'xfeaturex',
  SOURCE: 'push',
};

describe('rules:if expressions', () => {
  it('a bare variable is true when it is set and not blank', () => {
    assert.equal(isTruthful('$BRANCH', vars), true);
    assert.equal(isTruthful('$EMPTY', vars), false);
    assert.equal(isTruthful('$BLANK', vars), false);
    assert.equal(isTruthful('$UNDEFINED', vars), false);
  });

  it('== and != compare strings in double or single quotes', () => {
    assert.equal(isTruthful('$BRANCH == "main"', vars), true);
    assert.equal(isTruthful("$BRANCH == 'main'", vars), true);
    assert.equal(isTruthful('$BRANCH == "dev"', vars), false);
    assert.equal(isTruthful('$BRANCH != "dev"', vars), true);
    assert.equal(isTruthful('"main" == $BRANCH', vars), true);
  });

  it('an undefined variable is null; an empty one is not', () => {
    assert.equal(isTruthful('$UNDEFINED == null', vars), true);
    assert.equal(isTruthful('$EMPTY == null', vars), false);
    assert.equal(isTruthful('$EMPTY == ""', vars), true);
    assert.equal(isTruthful('$BRANCH != null', vars), true);
    assert.equal(isTruthful('null == $UNDEFINED', vars), true);
  });

  it('compares a variable with another variable', () => {
    assert.equal(isTruthful('$BRANCH == $OTHER', vars), true);
    assert.equal(isTruthful('$BRANCH == $FEATURE', vars), false);
    assert.equal(isTruthful('$UNDEFINED == $ALSO_UNDEFINED', vars), true);
  });

  it('=~ and !~ match regexps, with flags', () => {
    assert.equal(isTruthful('$FEATURE =~ /^feature\\//', vars), true);
    assert.equal(isTruthful('$FEATURE =~ /^FEATURE/', vars), false);
    assert.equal(isTruthful('$FEATURE =~ /^FEATURE/i', vars), true);
    assert.equal(isTruthful('$FEATURE !~ /^release/', vars), true);
    assert.equal(isTruthful('$FEATURE !~ /login$/', vars), false);
    assert.equal(isTruthful('$UNDEFINED =~ /.*/', vars), true, 'an undefined variable matches as an empty string');
    assert.equal(isTruthful('$UNDEFINED =~ /.+/', vars), false);
  });

  it('=~ with a variable holding /regexp/ uses it as a regexp; with null it is false', () => {
    assert.equal(isTruthful('$FEATURE =~ $PATTERN', vars), true);
    assert.equal(isTruthful('$BRANCH =~ $PATTERN', vars), false);
    assert.equal(isTruthful('$FEATURE =~ $UNDEFINED', vars), false);
    assert.equal(isTruthful('$FEATURE !~ $UNDEFINED', vars), true);
  });

  it('&& binds tighter than ||', () => {
    // false && false || true → true; with || first it would be false.
    assert.equal(isTruthful('$BRANCH == "x" && $BRANCH == "y" || $SOURCE == "push"', vars), true);
    // true || false && false → true (&& first); left-to-right would be false.
    assert.equal(isTruthful('$SOURCE == "push" || $BRANCH == "x" && $BRANCH == "y"', vars), true);
    assert.equal(isTruthful('$SOURCE == "web" || $BRANCH == "main" && $SOURCE == "api"', vars), false);
  });

  it('parentheses group', () => {
    assert.equal(isTruthful('($SOURCE == "push" || $BRANCH == "x") && $BRANCH == "y"', vars), false);
    assert.equal(isTruthful('($SOURCE == "push" || $BRANCH == "x") && ($BRANCH == "main")', vars), true);
    assert.equal(isTruthful('(($BRANCH))', vars), true);
  });

  it('&& and || return their operands as Ruby does', () => {
    assert.equal(evaluateExpression('$BRANCH && $SOURCE', vars), 'push');
    assert.equal(evaluateExpression('$UNDEFINED || $SOURCE', vars), 'push');
    assert.equal(evaluateExpression('$UNDEFINED && $SOURCE', vars), null);
    // An empty string is truthy for && (Ruby), so the right side decides.
    assert.equal(isTruthful('$EMPTY && $BRANCH', vars), true);
    assert.equal(isTruthful('$BRANCH && $EMPTY', vars), false);
  });

  it('a literal string is present unless blank', () => {
    assert.equal(isTruthful('"x"', vars), true);
    assert.equal(isTruthful('""', vars), false);
  });

  it('rejects bad syntax (and an invalid statement is never true)', () => {
    for (const bad of ['', '== null', '$A ==', '$A $B', '($A == "x"', '$A == "x")', 'true', '$A = "x"', '$A == "x" &&', 'nullable', '$A =~ /(/']) {
      assert.equal(isValidExpression(bad), false, bad);
      assert.equal(isTruthful(bad, vars), false, bad);
    }
    assert.equal(isValidExpression(5 as unknown as string), false);
    for (const good of ['$A', '$A == null', '$A =~ /x/i && ($B || $C)', "$A == 'it'"]) {
      assert.equal(isValidExpression(good), true, good);
    }
  });

  it('limits the number of tokens', () => {
    const long = Array.from({ length: 60 }, () => '$A').join(' && ');
    assert.equal(isValidExpression(long), false);
    const ok = Array.from({ length: 20 }, () => '$A').join(' && ');
    assert.equal(isValidExpression(ok), true);
  });
});

describe('glob matcher', () => {
  const cases: Array<[string, string, boolean]> = [
    ['README.md', 'README.md', true],
    ['README.md', 'docs/README.md', false],
    ['*.md', 'README.md', true],
    ['*.md', 'docs/README.md', false],
    ['docs/*', 'docs/a.md', true],
    ['docs/*', 'docs/a/b.md', false],
    ['docs/**/*', 'docs/a.md', true],
    ['docs/**/*', 'docs/a/b/c.md', true],
    ['**/*.md', 'a.md', true],
    ['**/*.md', 'x/y/a.md', true],
    ['**/*.md', 'x/y/a.txt', false],
    ['a/**/**/b', 'a/b', true],
    ['a/**/**/b', 'a/x/y/b', true],
    ['src/?.ts', 'src/a.ts', true],
    ['src/?.ts', 'src/ab.ts', false],
    ['*.{js,ts}', 'a.ts', true],
    ['*.{js,ts}', 'a.rb', false],
    ['{src,lib}/**/*.{js,ts}', 'lib/x/y.js', true],
    ['[ab].txt', 'a.txt', true],
    ['[!ab].txt', 'a.txt', false],
    ['[!ab].txt', 'c.txt', true],
    ['*', '.hidden', true],
    ['.gitlab/*.yml', '.gitlab/ci.yml', true],
    ['a\\*b', 'a*b', true],
    ['a\\*b', 'axb', false],
    ['file.txt', 'fileXtxt', false],
  ];
  for (const [glob, path, expected] of cases) {
    it(`${glob} ${expected ? 'matches' : 'does not match'} ${path}`, () => {
      assert.equal(globMatch(glob, path), expected);
    });
  }
});
