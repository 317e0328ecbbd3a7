// The CI file parser: one case per keyword and per error case, asserting what the planner reads
// (pure code: no database, so no DIALECTS loop).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { childPipelineText } from '../../src/ci/config/index.js';
import { assertError, ctxOf, errorsOf, job, names, plan, result } from './config_fixtures.js';

describe('CI config: the file', () => {
  it('a minimal job gets the reference defaults', async () => {
    const p = await plan('rspec:\n  script: rspec\n');
    assert.deepEqual(p.stages, ['.pre', 'build', 'test', 'deploy', '.post']);
    assert.deepEqual(p.variables, {});
    assert.deepEqual(p.jobs, [
      {
        name: 'rspec',
        stage: 'test',
        stageIdx: 2,
        type: 'build',
        when: 'on_success',
        startIn: null,
        allowFailure: false,
        allowFailureExitCodes: null,
        beforeScript: [],
        script: ['rspec'],
        afterScript: [],
        image: null,
        variables: {},
        needs: null,
        dependencies: null,
        artifacts: null,
        coverage: null,
        retry: { max: 0, when: ['always'] },
        timeout: null,
        tags: [],
        environment: null,
        interruptible: false,
        trigger: null,
      },
    ]);
  });

  it('blank content', async () => {
    assert.deepEqual(await errorsOf('  \n'), ['Please provide content of .gitlab-ci.yml']);
  });

  it('a root that is not a hash is an invalid format', async () => {
    assert.deepEqual(await errorsOf('invalid_yaml'), ['Invalid configuration format']);
    assert.deepEqual(await errorsOf('- a\n- b\n'), ['Invalid configuration format']);
    assert.deepEqual(await errorsOf('# only a comment\n'), ['Invalid configuration format']);
  });

  it('invalid YAML gives one error with its line and column', async () => {
    const errors = await errorsOf('rspec:\n  script: echo\nbad: yaml: here\n');
    assert.equal(errors.length, 1);
    assert.match(errors[0]!, /^\(<unknown>\): mapping values are not allowed in this context at line 3 column \d+$/);
    const quote = await errorsOf('a:\n  script: "echo\n');
    assert.match(quote[0]!, /^\(<unknown>\): .* at line \d+ column \d+$/);
  });

  it('an unknown alias', async () => {
    assert.deepEqual(await errorsOf('rspec:\n  script: *bad_alias\n'), ['Unknown alias: bad_alias']);
  });

  it('no visible job', async () => {
    await assertError('before_script: [ls]\n', 'jobs config should contain at least one visible job');
    await assertError('.hidden:\n  script: ls\n', 'jobs config should contain at least one visible job');
  });

  it('reserved top-level keys are not jobs; `pages` is', async () => {
    const p = await plan(`
image: ruby:3
services: [postgres]
cache: {paths: [vendor/]}
variables: {A: "1"}
before_script: [echo hi]
after_script: [echo bye]
pages:
  script: make site
`);
    assert.deepEqual(names(p), ['pages']);
  });

  it('a key that is not a job definition', async () => {
    await assertError('rspec:\n  script: ls\nextra: bundle update\n', 'jobs extra config should implement a script: or a trigger: keyword');
    await assertError('rspec:\n  before_script: [ls]\n', 'jobs rspec config should implement a script: or a trigger: keyword');
  });

  it('unknown job keys', async () => {
    await assertError('rspec:\n  script: ls\n  scirpt: x\n  foo: 1\n', 'jobs:rspec config contains unknown keys: scirpt, foo');
  });

  it('entry errors are lower-cased as the reference does', async () => {
    await assertError('Rspec:\n  script: ls\n  Foo: 1\n', 'jobs:rspec config contains unknown keys: foo');
  });

  it('returns every entry error, in a stable order', async () => {
    const yml = 'a:\n  script: ls\n  tags: mysql\nb:\n  script: ls\n  when: sometimes\n';
    const first = await errorsOf(yml);
    assert.deepEqual(first, ['jobs:a:tags config should be an array of strings', 'jobs:b when should be one of: on_success, on_failure, always, manual, delayed']);
    assert.deepEqual(await errorsOf(yml), first);
  });
});

describe('CI config: stages', () => {
  it('declared stages keep their order, between .pre and .post', async () => {
    const p = await plan('stages: [lint, build, ship]\nl:\n  stage: lint\n  script: x\ns:\n  stage: ship\n  script: x\n');
    assert.deepEqual(p.stages, ['.pre', 'lint', 'build', 'ship', '.post']);
    assert.equal(job(p, 'l').stageIdx, 1);
    assert.equal(job(p, 's').stageIdx, 3);
  });

  it('.pre and .post listed explicitly are still first and last', async () => {
    const p = await plan('stages: [.post, build, .pre]\nb:\n  stage: build\n  script: x\n');
    assert.deepEqual(p.stages, ['.pre', 'build', '.post']);
  });

  it('jobs in .pre and .post', async () => {
    const p = await plan('first:\n  stage: .pre\n  script: x\nmid:\n  script: x\nlast:\n  stage: .post\n  script: x\n');
    assert.equal(job(p, 'first').stageIdx, 0);
    assert.equal(job(p, 'last').stageIdx, 4);
  });

  it('the deprecated `types` and job `type`', async () => {
    const p = await plan('types: [one, two]\nj:\n  type: two\n  script: x\n');
    assert.deepEqual(p.stages, ['.pre', 'one', 'two', '.post']);
    assert.equal(job(p, 'j').stage, 'two');
  });

  it('an unknown stage', async () => {
    await assertError('rspec:\n  stage: acceptance\n  script: x\n', 'rspec job: chosen stage does not exist; available stages are .pre, build, test, deploy, .post');
    await assertError('stages: [build]\nrspec:\n  script: x\n', 'rspec job: chosen stage does not exist; available stages are .pre, build, .post');
  });

  it('stages must be strings', async () => {
    await assertError('stages: test\nrspec:\n  script: x\n', 'stages config should be an array of strings');
    await assertError('stages: [true, test]\nrspec:\n  script: x\n', 'stages config should be an array of strings');
    await assertError('rspec:\n  stage: 1\n  script: x\n', 'jobs:rspec:stage config should be a string');
  });
});

describe('CI config: variables', () => {
  it('global variables, the {value, description} form, numbers as strings', async () => {
    const p = await plan('variables:\n  A: one\n  B: 2\n  C:\n    value: three\n    description: the third\nj:\n  script: x\n');
    assert.deepEqual(p.variables, { A: 'one', B: '2', C: 'three' });
    assert.deepEqual(job(p, 'j').variables, {});
  });

  it('job variables stay on the job', async () => {
    const p = await plan('variables:\n  A: global\nj:\n  script: x\n  variables:\n    A: job\n    B: "b"\n');
    assert.deepEqual(p.variables, { A: 'global' });
    assert.deepEqual(job(p, 'j').variables, { A: 'job', B: 'b' });
  });

  it('an empty job variables key is no variables', async () => {
    const p = await plan('j:\n  script: x\n  variables:\n');
    assert.deepEqual(job(p, 'j').variables, {});
  });

  it('invalid variables', async () => {
    await assertError('variables: test\nj:\n  script: x\n', 'variables config should be a hash of key value pairs, value can be a hash');
    await assertError('variables:\n  A: false\nj:\n  script: x\n', 'variables config should be a hash of key value pairs, value can be a hash');
    await assertError('variables:\n  VERSION: 1.10\nj:\n  script: x\n', 'variables config should be a hash of key value pairs, value can be a hash');
    await assertError('j:\n  script: x\n  variables: [A, b]\n', 'jobs:j:variables config should be a hash of key value pairs');
  });
});

describe('CI config: default and the old top-level keys', () => {
  it('default: before_script, after_script, image, tags, timeout, retry, interruptible, artifacts', async () => {
    const p = await plan(`
default:
  before_script: [setup]
  after_script: [cleanup]
  image: ruby:3.1
  tags: [docker]
  timeout: 10m
  retry: 1
  interruptible: true
  artifacts:
    paths: [log/]
j:
  script: x
own:
  script: x
  before_script: mine
  image: {name: node:20, entrypoint: [""]}
  tags: []
  timeout: 1h
  retry: {max: 2}
  interruptible: false
  artifacts: {paths: [out/]}
`);
    const j = job(p, 'j');
    assert.deepEqual(j.beforeScript, ['setup']);
    assert.deepEqual(j.afterScript, ['cleanup']);
    assert.equal(j.image, 'ruby:3.1');
    assert.deepEqual(j.tags, ['docker']);
    assert.equal(j.timeout, 600);
    assert.deepEqual(j.retry, { max: 1, when: ['always'] });
    assert.equal(j.interruptible, true);
    assert.deepEqual(j.artifacts?.paths, ['log/']);
    const own = job(p, 'own');
    assert.deepEqual(own.beforeScript, ['mine']);
    assert.deepEqual(own.afterScript, ['cleanup']);
    assert.equal(own.image, 'node:20');
    assert.deepEqual(own.tags, []);
    assert.equal(own.timeout, 3600);
    assert.deepEqual(own.retry, { max: 2, when: ['always'] });
    assert.equal(own.interruptible, false);
    assert.deepEqual(own.artifacts?.paths, ['out/']);
  });

  it('top-level before_script, after_script and image', async () => {
    const p = await plan('before_script: [a, [b, c]]\nafter_script: z\nimage: alpine\nj:\n  script: x\n');
    const j = job(p, 'j');
    assert.deepEqual(j.beforeScript, ['a', 'b', 'c']);
    assert.deepEqual(j.afterScript, ['z']);
    assert.equal(j.image, 'alpine');
  });

  it('the same key at the top level and in default', async () => {
    await assertError('before_script: [a]\ndefault:\n  before_script: [b]\nj:\n  script: x\n', 'before_script is defined in top-level and `default:` entry');
  });

  it('unknown default keys', async () => {
    await assertError('default:\n  script: [x]\nj:\n  script: x\n', 'default config contains unknown keys: script');
  });

  it('inherit:default false or a list, inherit:variables false or a list', async () => {
    const p = await plan(`
variables: {A: "1", B: "2"}
default:
  before_script: [setup]
  image: ruby
none:
  script: x
  inherit: {default: false, variables: false}
some:
  script: x
  inherit: {default: [image], variables: [B]}
all:
  script: x
`);
    assert.deepEqual(job(p, 'none').beforeScript, []);
    assert.equal(job(p, 'none').image, null);
    assert.equal(job(p, 'none').inheritVariables, false);
    assert.deepEqual(job(p, 'some').beforeScript, []);
    assert.equal(job(p, 'some').image, 'ruby');
    assert.deepEqual(job(p, 'some').inheritVariables, ['B']);
    assert.equal(job(p, 'all').inheritVariables, undefined);
    assert.deepEqual(job(p, 'all').beforeScript, ['setup']);
  });
});

describe('CI config: hidden jobs, extends, anchors, !reference', () => {
  it('hidden jobs are not planned, with or without a script', async () => {
    const p = await plan('.a:\n  script: x\n.b:\n  image: ruby\nj:\n  script: x\n');
    assert.deepEqual(names(p), ['j']);
  });

  it('extends a hidden job; the job wins', async () => {
    const p = await plan('.t:\n  script: test\n  image: ruby\nj:\n  extends: .t\n  image: alpine\n');
    assert.deepEqual(job(p, 'j').script, ['test']);
    assert.equal(job(p, 'j').image, 'alpine');
  });

  it('multi-level extends; hashes merge deeply, arrays are replaced', async () => {
    const p = await plan(`
.base:
  before_script: [bundle install]
  variables: {A: base, B: base}
  script: [base]
  artifacts: {paths: [a/], when: always}
.test:
  extends: .base
  variables: {B: test, C: test}
  script: [test1, test2]
rspec:
  extends: .test
  script: [rspec]
  artifacts: {paths: [b/]}
  when: always
`);
    const j = job(p, 'rspec');
    assert.deepEqual(j.beforeScript, ['bundle install']);
    assert.deepEqual(j.variables, { A: 'base', B: 'test', C: 'test' });
    assert.deepEqual(j.script, ['rspec']);
    assert.deepEqual(j.artifacts?.paths, ['b/']);
    assert.equal(j.artifacts?.when, 'always');
    assert.equal(j.when, 'always');
  });

  it('extends a list: later templates win', async () => {
    const p = await plan('.a:\n  script: a\n  image: a\n.b:\n  script: b\nj:\n  extends: [.a, .b]\n');
    assert.deepEqual(job(p, 'j').script, ['b']);
    assert.equal(job(p, 'j').image, 'a');
  });

  it('extends a visible job', async () => {
    const p = await plan('a:\n  script: a\n  stage: build\nb:\n  extends: a\n');
    assert.equal(job(p, 'b').stage, 'build');
    assert.deepEqual(names(p), ['a', 'b']);
  });

  it('an unknown key in extends', async () => {
    assert.deepEqual(await errorsOf('rspec:\n  extends: something\n  script: test\n'), ['rspec: unknown keys in `extends` (something)']);
  });

  it('circular and too deep extends', async () => {
    await assertError('.a:\n  extends: .b\n.b:\n  extends: .a\nj:\n  extends: .a\n  script: x\n', '.a: circular dependency detected in `extends`');
    const chain = (n: number): string => {
      let y = '.t0:\n  script: x\n';
      for (let i = 1; i <= n; i++) y += `.t${i}:\n  extends: .t${i - 1}\n`;
      return `${y}j:\n  extends: .t${n}\n`;
    };
    const ok = await plan(chain(10));
    assert.deepEqual(job(ok, 'j').script, ['x']);
    const errors = await errorsOf(chain(11));
    assert.ok(errors.some((e) => /nesting too deep in `extends`/.test(e)), JSON.stringify(errors));
  });

  it('YAML anchors, aliases and << merge keys', async () => {
    const p = await plan(`
.template: &tpl
  stage: build
  script: execute
job1: *tpl
job2:
  <<: *tpl
  script: other
`);
    assert.equal(job(p, 'job1').stage, 'build');
    assert.deepEqual(job(p, 'job1').script, ['execute']);
    assert.equal(job(p, 'job2').stage, 'build');
    assert.deepEqual(job(p, 'job2').script, ['other']);
  });

  it('!reference tags', async () => {
    const p = await plan(`
.setup:
  script: [echo setup, echo more]
  variables: {A: "1"}
.rules:
  rules:
    - if: $CI_COMMIT_BRANCH
j:
  script:
    - !reference [.setup, script]
    - echo own
  variables: !reference [.setup, variables]
  rules:
    - !reference [.rules, rules]
`);
    assert.deepEqual(job(p, 'j').script, ['echo setup', 'echo more', 'echo own']);
    assert.deepEqual(job(p, 'j').variables, { A: '1' });
  });

  it('a !reference that does not exist', async () => {
    assert.deepEqual(await errorsOf('j:\n  script: !reference [.nope, script]\n'), ['!reference [".nope", "script"] could not be found']);
  });
});

describe('CI config: include', () => {
  const files = {
    'ci/build.yml': 'build:\n  stage: build\n  script: make\n  variables: {FROM: include}\n',
    'ci/test.yml': 'include: ci/nested.yml\ntest:\n  script: test\n',
    'ci/nested.yml': 'variables: {NESTED: "yes"}\nnested:\n  script: nested\n',
    'ci/a.yml': 'wild_a:\n  script: a\n',
    'ci/b.yml': 'wild_b:\n  script: b\n',
    'ci/main.yml': 'onmain:\n  script: main\n',
    'ci/bad.yml': 'a: b: c\n',
    'ci/empty.yml': '\n',
  };

  it('include: a path', async () => {
    const p = await plan("include: 'ci/build.yml'\nown:\n  script: x\n", ctxOf({ files }));
    assert.deepEqual(names(p), ['build', 'own']);
    assert.equal(job(p, 'build').stage, 'build');
  });

  it('include: a list of paths and {local}, nested includes, a leading slash', async () => {
    const p = await plan('include:\n  - /ci/build.yml\n  - local: ci/test.yml\nown:\n  script: x\n', ctxOf({ files }));
    assert.deepEqual(names(p), ['build', 'nested', 'test', 'own']);
    assert.deepEqual(p.variables, { NESTED: 'yes' });
  });

  it('include: {local} alone', async () => {
    const p = await plan('include:\n  local: ci/build.yml\n', ctxOf({ files }));
    assert.deepEqual(names(p), ['build']);
  });

  it('the including file wins over included ones (deep merge)', async () => {
    const p = await plan('include: ci/build.yml\nbuild:\n  script: own\n', ctxOf({ files }));
    const b = job(p, 'build');
    assert.deepEqual(b.script, ['own']);
    assert.equal(b.stage, 'build');
    assert.deepEqual(b.variables, { FROM: 'include' });
  });

  it('included templates can be extended', async () => {
    const p = await plan('include: ci/nested.yml\nj:\n  extends: nested\n', ctxOf({ files }));
    assert.deepEqual(job(p, 'j').script, ['nested']);
  });

  it('wildcards and $VARIABLES in paths', async () => {
    const p = await plan('include:\n  - local: ci/[ab].yml\n  - local: ci/$CI_COMMIT_REF_NAME.yml\n', ctxOf({ files }));
    assert.deepEqual(names(p), ['wild_a', 'wild_b', 'onmain']);
  });

  it('include rules', async () => {
    const yml = 'include:\n  - local: ci/a.yml\n    rules:\n      - if: $CI_COMMIT_BRANCH == "main"\n  - local: ci/b.yml\n    rules:\n      - exists: [nothing.txt]\nown:\n  script: x\n';
    assert.deepEqual(names(await plan(yml, ctxOf({ files }))), ['wild_a', 'own']);
    assert.deepEqual(names(await plan(yml, ctxOf({ files, ref: 'dev' }))), ['own']);
  });

  it('a missing file', async () => {
    assert.deepEqual(await errorsOf('include: ci/missing.yml\nj:\n  script: x\n', ctxOf({ files })), ['Local file `ci/missing.yml` does not exist!']);
  });

  it('an included file with invalid YAML, an empty one, a non-YAML one, a remote one', async () => {
    assert.deepEqual(await errorsOf('include: ci/bad.yml\nj:\n  script: x\n', ctxOf({ files })), ['Included file `ci/bad.yml` does not have valid YAML syntax!']);
    assert.deepEqual(await errorsOf('include: ci/empty.yml\nj:\n  script: x\n', ctxOf({ files })), ['Local file `ci/empty.yml` is empty!']);
    assert.deepEqual(await errorsOf('include: ci/file.txt\nj:\n  script: x\n', ctxOf({ files })), ['Included file `ci/file.txt` does not have YAML extension!']);
    const remote = await errorsOf('include: https://example.com/ci.yml\nj:\n  script: x\n', ctxOf({ files }));
    assert.match(remote[0]!, /only local includes are supported/);
    await assertError('include:\n  - yolo: x.yml\nj:\n  script: x\n', 'Include `{"yolo":"x.yml"}` needs to match exactly one accessor!', ctxOf({ files }));
  });

  it('an include loop stops at the limit', async () => {
    const loop = { 'loop.yml': 'include: loop.yml\nj:\n  script: x\n' };
    assert.deepEqual(await errorsOf('include: loop.yml\n', ctxOf({ files: loop })), ['Maximum of 100 nested includes are allowed!']);
  });
});

describe('CI config: script keywords', () => {
  it('script as a string, a list, nested lists flattened', async () => {
    const p = await plan('a:\n  script: one\nb:\n  script: [one, two]\nc:\n  script: [[one], [two, three], four]\n');
    assert.deepEqual(job(p, 'a').script, ['one']);
    assert.deepEqual(job(p, 'b').script, ['one', 'two']);
    assert.deepEqual(job(p, 'c').script, ['one', 'two', 'three', 'four']);
  });

  it('a blank script', async () => {
    await assertError('rspec:\n  script: []\n', "jobs:rspec script can't be blank");
    await assertError('rspec:\n  script:\n', "jobs:rspec script can't be blank");
  });

  it('script, before_script and after_script types', async () => {
    await assertError('rspec:\n  script: [1, x]\n', 'jobs:rspec:script config should be a string or a nested array of strings up to 10 levels deep');
    await assertError('rspec:\n  script: x\n  before_script: {a: 1}\n', 'jobs:rspec:before_script config should be a string or a nested array of strings up to 10 levels deep');
    await assertError('rspec:\n  script: x\n  after_script: [true]\n', 'jobs:rspec:after_script config should be a string or a nested array of strings up to 10 levels deep');
    await assertError('before_script: {a: 1}\nrspec:\n  script: x\n', 'before_script config should be a string or a nested array of strings up to 10 levels deep');
  });
});

describe('CI config: when, start_in, allow_failure', () => {
  for (const when of ['on_success', 'on_failure', 'always', 'manual'] as const) {
    it(`when: ${when}`, async () => {
      const j = job(await plan(`j:\n  script: x\n  when: ${when}\n`), 'j');
      assert.equal(j.when, when);
      assert.equal(j.allowFailure, when === 'manual');
    });
  }

  it('when: delayed with start_in', async () => {
    const j = job(await plan('j:\n  script: x\n  when: delayed\n  start_in: 30 minutes\n'), 'j');
    assert.equal(j.when, 'delayed');
    assert.equal(j.startIn, '30 minutes');
  });

  it('start_in: missing, over a week, without delayed', async () => {
    await assertError('j:\n  script: x\n  when: delayed\n', 'jobs:j start in should be a duration');
    await assertError('j:\n  script: x\n  when: delayed\n  start_in: 8 days\n', 'jobs:j start in should not exceed the limit');
    // a zero duration is none (ChronicDuration gives nil), and so is a word that is not a unit
    await assertError('j:\n  script: x\n  when: delayed\n  start_in: 0 seconds\n', 'jobs:j start in should be a duration');
    await assertError('j:\n  script: x\n  when: delayed\n  start_in: soon\n', 'jobs:j start in should be a duration');
    assert.equal(job(await plan('j:\n  script: x\n  when: delayed\n  start_in: 1 day and 2 hours\n'), 'j').startIn, '1 day and 2 hours');
    await assertError('j:\n  script: x\n  start_in: 1 hour\n', 'jobs:j start in must be blank');
  });

  it('an unknown when', async () => {
    await assertError('j:\n  script: x\n  when: 1\n', 'jobs:j when should be one of: on_success, on_failure, always, manual, delayed');
  });

  it('allow_failure: true, false, and manual jobs', async () => {
    const p = await plan('a:\n  script: x\n  allow_failure: true\nb:\n  script: x\n  when: manual\n  allow_failure: false\n');
    assert.equal(job(p, 'a').allowFailure, true);
    assert.equal(job(p, 'b').allowFailure, false);
  });

  it('allow_failure: exit_codes as an integer or a list', async () => {
    const p = await plan('a:\n  script: x\n  allow_failure: {exit_codes: 137}\nb:\n  script: x\n  when: manual\n  allow_failure:\n    exit_codes: [1, 2]\n');
    assert.equal(job(p, 'a').allowFailure, false);
    assert.deepEqual(job(p, 'a').allowFailureExitCodes, [137]);
    assert.equal(job(p, 'b').allowFailure, false);
    assert.deepEqual(job(p, 'b').allowFailureExitCodes, [1, 2]);
  });

  it('invalid allow_failure', async () => {
    await assertError('j:\n  script: x\n  allow_failure: string\n', 'jobs:j allow failure should be a hash or a boolean value');
    await assertError('j:\n  script: x\n  allow_failure: {exit_codes: string}\n', 'jobs:j:allow_failure exit codes should be an array of integers or an integer');
    await assertError('j:\n  script: x\n  allow_failure: {codes: 1}\n', 'jobs:j:allow_failure config contains unknown keys: codes');
  });
});

describe('CI config: needs and dependencies', () => {
  const base = 'stages: [build, test, deploy]\nb1:\n  stage: build\n  script: x\nb2:\n  stage: build\n  script: x\nd:\n  stage: deploy\n  script: x\n';

  it('needs as strings and as hashes', async () => {
    const p = await plan(`${base}t:\n  script: x\n  needs: [b1, {job: b2, artifacts: false}, {job: d2, optional: true}]\n`);
    assert.deepEqual(job(p, 't').needs, [
      { job: 'b1', artifacts: true, optional: false },
      { job: 'b2', artifacts: false, optional: false },
    ]);
    assert.equal(job(p, 'b1').needs, null);
  });

  it('needs: [] starts at once; a need in the same stage is allowed', async () => {
    const p = await plan(`${base}t:\n  script: x\n  needs: []\nt2:\n  script: x\n  needs: [t]\n`);
    assert.deepEqual(job(p, 't').needs, []);
    assert.deepEqual(job(p, 't2').needs, [{ job: 't', artifacts: true, optional: false }]);
  });

  it('a need on a parallel job means all its instances', async () => {
    const p = await plan(`${base}par:\n  stage: build\n  script: x\n  parallel: 2\nt:\n  script: x\n  needs: [{job: par, artifacts: false}]\n`);
    assert.deepEqual(job(p, 't').needs, [
      { job: 'par 1/2', artifacts: false, optional: false },
      { job: 'par 2/2', artifacts: false, optional: false },
    ]);
  });

  it('an undefined need, a need in a later stage, duplicated needs, circular needs', async () => {
    await assertError(`${base}t:\n  script: x\n  needs: [nope]\n`, 't job: undefined need: nope');
    await assertError(`${base}t:\n  script: x\n  needs: [d]\n`, 't job: need d is not defined in current or prior stages');
    await assertError(`${base}t:\n  script: x\n  needs: [b1, b1]\n`, 't has the following needs duplicated: b1.');
    assert.deepEqual(
      await errorsOf('a:\n  script: x\n  needs: [c]\nb:\n  script: x\n  needs: [a]\nc:\n  script: x\n  needs: [b]\n'),
      ['The pipeline has circular dependencies.'],
    );
  });

  it('invalid needs', async () => {
    await assertError(`${base}t:\n  script: x\n  needs: b1\n`, 'jobs:t:needs config can only be a hash or an array');
    await assertError(`${base}t:\n  script: x\n  needs: [{job: b1, what: 1}]\n`, 'jobs:t:needs:need config contains unknown keys: what');
    await assertError(`${base}t:\n  script: x\n  needs: [1]\n`, 'jobs:t:needs:need has an unsupported type');
  });

  it('dependencies', async () => {
    const p = await plan(`${base}t:\n  script: x\n  dependencies: [b1]\nu:\n  script: x\n  dependencies: []\n`);
    assert.deepEqual(job(p, 't').dependencies, ['b1']);
    assert.deepEqual(job(p, 'u').dependencies, []);
    assert.equal(job(p, 'b1').dependencies, null);
  });

  it('invalid dependencies', async () => {
    await assertError(`${base}t:\n  script: x\n  dependencies: [nope]\n`, 't job: undefined dependency: nope');
    await assertError(`${base}t:\n  script: x\n  dependencies: [d]\n`, 't job: dependency d is not defined in current or prior stages');
    await assertError(`${base}t:\n  script: x\n  dependencies: b1\n`, 'jobs:t dependencies should be an array of strings');
    await assertError(`${base}t:\n  script: x\n  needs: [b1]\n  dependencies: [b2]\n`, 'jobs:t dependencies the b2 should be part of needs');
  });
});

describe('CI config: artifacts and coverage', () => {
  it('artifacts with every field and reports', async () => {
    const p = await plan(`
j:
  script: x
  artifacts:
    name: "$CI_JOB_NAME-files"
    paths: [dist/, log/*.txt]
    exclude: [dist/tmp/**]
    expire_in: 1 week
    when: always
    untracked: true
    expose_as: Dist
    reports:
      junit: [report.xml, more/*.xml]
      sast: gl-sast-report.json
      dependency_scanning: gl-dependency-scanning-report.json
      container_scanning: cs.json
      dast: dast.json
      secret_detection: secrets.json
      dotenv: build.env
      coverage_report:
        coverage_format: cobertura
        path: coverage/cobertura.xml
`);
    assert.deepEqual(job(p, 'j').artifacts, {
      paths: ['dist/', 'log/*.txt'],
      exclude: ['dist/tmp/**'],
      name: '$CI_JOB_NAME-files',
      expireIn: '1 week',
      when: 'always',
      untracked: true,
      reports: {
        junit: ['report.xml', 'more/*.xml'],
        sast: ['gl-sast-report.json'],
        dependency_scanning: ['gl-dependency-scanning-report.json'],
        container_scanning: ['cs.json'],
        dast: ['dast.json'],
        secret_detection: ['secrets.json'],
        dotenv: ['build.env'],
        coverage_report: ['coverage/cobertura.xml'],
      },
    });
  });

  it('artifacts defaults; expire_in never', async () => {
    const p = await plan('j:\n  script: x\n  artifacts:\n    expire_in: never\n    reports:\n      junit: r.xml\n');
    assert.deepEqual(job(p, 'j').artifacts, {
      paths: [],
      exclude: [],
      name: null,
      expireIn: 'never',
      when: 'on_success',
      untracked: false,
      reports: { junit: ['r.xml'] },
    });
  });

  it('invalid artifacts', async () => {
    await assertError('j:\n  script: x\n  artifacts:\n    - paths: [a]\n', 'jobs:j:artifacts config should be a hash');
    await assertError('j:\n  script: x\n  artifacts: {paths: a}\n', 'jobs:j:artifacts paths should be an array of strings');
    await assertError('j:\n  script: x\n  artifacts: {name: 1}\n', 'jobs:j:artifacts name should be a string');
    await assertError('j:\n  script: x\n  artifacts: {when: 1}\n', 'jobs:j:artifacts when should be on_success, on_failure or always');
    await assertError('j:\n  script: x\n  artifacts: {expire_in: 7 elephants}\n', 'jobs:j:artifacts expire in should be a duration');
    await assertError('j:\n  script: x\n  artifacts: {expire_in: 0 seconds}\n', 'jobs:j:artifacts expire in should be a duration');
    await assertError('j:\n  script: x\n  artifacts: {untracked: string}\n', 'jobs:j:artifacts untracked should be a boolean value');
    await assertError('j:\n  script: x\n  artifacts: {pahts: [a]}\n', 'jobs:j:artifacts config contains unknown keys: pahts');
    await assertError('j:\n  script: x\n  artifacts: {reports: {junit: 1}}\n', 'jobs:j:artifacts:reports junit should be an array of strings or a string');
    await assertError('j:\n  script: x\n  artifacts: {reports: {foo: x}}\n', 'jobs:j:artifacts:reports config contains unknown keys: foo');
  });

  it('coverage: the regexp without its slashes', async () => {
    const p = await plan("j:\n  script: x\n  coverage: '/Code coverage: \\d+\\.\\d+/'\n");
    assert.equal(job(p, 'j').coverage, 'Code coverage: \\d+\\.\\d+');
  });

  it('invalid coverage', async () => {
    await assertError('j:\n  script: x\n  coverage: "Coverage: (\\\\d+)"\n', 'jobs:j:coverage config must be a regular expression with re2 syntax');
    await assertError('j:\n  script: x\n  coverage: "/(/"\n', 'jobs:j:coverage config must be a regular expression with re2 syntax');
  });
});

describe('CI config: retry, timeout, tags, image, environment, interruptible', () => {
  it('retry as an integer and as {max, when}', async () => {
    const p = await plan('a:\n  script: x\n  retry: 2\nb:\n  script: x\n  retry:\n    max: 1\n    when: [script_failure, runner_system_failure]\nc:\n  script: x\n  retry: {max: 2, when: stuck_or_timeout_failure}\n');
    assert.deepEqual(job(p, 'a').retry, { max: 2, when: ['always'] });
    assert.deepEqual(job(p, 'b').retry, { max: 1, when: ['script_failure', 'runner_system_failure'] });
    assert.deepEqual(job(p, 'c').retry, { max: 2, when: ['stuck_or_timeout_failure'] });
  });

  it('invalid retry', async () => {
    await assertError('j:\n  script: x\n  retry: 3\n', 'retry config must be less than or equal to 2');
    await assertError('j:\n  script: x\n  retry: {max: 5}\n', 'retry max must be less than or equal to 2');
    await assertError('j:\n  script: x\n  retry: {max: 1, when: [bad_reason]}\n', 'retry when contains unknown values: bad_reason');
    await assertError('j:\n  script: x\n  retry: often\n', 'retry config has to be either an integer or a hash');
  });

  for (const [text, seconds] of [['"3600"', 3600], ['1h 30m', 5400], ['90 minutes', 5400], ['1 hour and 2 seconds', 3602], ['2d', 172800]] as const) {
    it(`timeout: ${text}`, async () => {
      assert.equal(job(await plan(`j:\n  script: x\n  timeout: ${text}\n`), 'j').timeout, seconds);
    });
  }

  it('invalid timeout', async () => {
    await assertError('j:\n  script: x\n  timeout: not-a-number\n', 'jobs:j:timeout config should be a duration');
    await assertError('j:\n  script: x\n  timeout: 3 months\n', 'jobs:j:timeout config should not exceed the limit');
  });

  it('tags', async () => {
    assert.deepEqual(job(await plan('j:\n  script: x\n  tags: [docker, linux]\n'), 'j').tags, ['docker', 'linux']);
    await assertError('j:\n  script: x\n  tags: mysql\n', 'jobs:j:tags config should be an array of strings');
  });

  it('image as a string or {name}', async () => {
    assert.equal(job(await plan('j:\n  script: x\n  image: node:20\n'), 'j').image, 'node:20');
    assert.equal(job(await plan('j:\n  script: x\n  image: {name: "ruby:3", entrypoint: [""]}\n'), 'j').image, 'ruby:3');
    await assertError('j:\n  script: x\n  image: [test]\n', 'jobs:j:image config should be a hash or a string');
    await assertError('image: [test]\nj:\n  script: x\n', 'image config should be a hash or a string');
  });

  it('environment as a string or {name, url, action}', async () => {
    const p = await plan('a:\n  script: x\n  environment: production\nb:\n  script: x\n  environment:\n    name: review/$CI_COMMIT_REF_SLUG\n    url: https://$CI_COMMIT_REF_SLUG.example.com\n    action: stop\n');
    assert.deepEqual(job(p, 'a').environment, { name: 'production', url: null, action: 'start' });
    assert.deepEqual(job(p, 'b').environment, { name: 'review/$CI_COMMIT_REF_SLUG', url: 'https://$CI_COMMIT_REF_SLUG.example.com', action: 'stop' });
  });

  it('invalid environment', async () => {
    await assertError('j:\n  script: x\n  environment: 1\n', 'jobs:j:environment config should be a hash or a string');
    await assertError(
      'j:\n  script: x\n  environment: "production:staging"\n',
      "jobs:j:environment name can contain only letters, digits, '-', '_', '/', '$', '{', '}', '.', and spaces, but it cannot start or end with '/'",
    );
    await assertError('j:\n  script: x\n  environment: {name: prod, action: destroy}\n', 'jobs:j:environment action should be start, stop, prepare, verify, or access');
    await assertError('j:\n  script: x\n  environment: {url: https://x}\n', "jobs:j:environment name can't be blank");
  });

  it('interruptible', async () => {
    assert.equal(job(await plan('j:\n  script: x\n  interruptible: true\n'), 'j').interruptible, true);
    await assertError('j:\n  script: x\n  interruptible: maybe\n', 'jobs:j:interruptible config should be a boolean value');
  });
});

describe('CI config: parallel', () => {
  it('parallel: N makes "name i/N" jobs with CI_NODE_INDEX and CI_NODE_TOTAL', async () => {
    const p = await plan('rspec:\n  script: x\n  parallel: 3\n  variables: {A: "1"}\nafter:\n  script: x\n');
    assert.deepEqual(names(p), ['rspec 1/3', 'rspec 2/3', 'rspec 3/3', 'after']);
    assert.deepEqual(job(p, 'rspec 2/3').variables, { A: '1', CI_NODE_INDEX: '2', CI_NODE_TOTAL: '3' });
  });

  it('parallel: matrix makes "name: [values]" jobs with the matrix variables', async () => {
    const p = await plan(`
deploy:
  script: x
  parallel:
    matrix:
      - PROVIDER: aws
        STACK: [monitoring, app1]
      - PROVIDER: [ovh, gcp]
        STACK: data
`);
    assert.deepEqual(names(p), ['deploy: [aws, monitoring]', 'deploy: [aws, app1]', 'deploy: [ovh, data]', 'deploy: [gcp, data]']);
    assert.deepEqual(job(p, 'deploy: [ovh, data]').variables, { PROVIDER: 'ovh', STACK: 'data', CI_NODE_INDEX: '3', CI_NODE_TOTAL: '4' });
  });

  it('matrix rows with the same values make one job', async () => {
    const p = await plan('j:\n  script: x\n  parallel:\n    matrix:\n      - V: [a, a, b]\n');
    assert.deepEqual(names(p), ['j: [a]', 'j: [b]']);
    assert.equal(job(p, 'j: [b]').variables.CI_NODE_TOTAL, '2');
  });

  it('invalid parallel', async () => {
    await assertError('j:\n  script: x\n  parallel: test\n', 'jobs:j:parallel should be an integer or a hash');
    await assertError('j:\n  script: x\n  parallel: 0\n', 'jobs:j:parallel config must be greater than or equal to 1');
    await assertError('j:\n  script: x\n  parallel: 201\n', 'jobs:j:parallel config must be less than or equal to 200');
    await assertError('j:\n  script: x\n  parallel: {matrix: x}\n', 'jobs:j:parallel:matrix config should be an array of hashes');
    const big = Array.from({ length: 21 }, (_, i) => `v${i}`).join(', ');
    await assertError(`j:\n  script: x\n  parallel:\n    matrix:\n      - A: [${big}]\n        B: [${big.slice(0, 40)}]\n`, 'jobs:j:parallel:matrix config generates too many jobs (maximum is 200)');
  });
});

describe('CI config: trigger (bridges)', () => {
  it('trigger: a project path', async () => {
    const j = job(await plan('up:\n  trigger: group/other\n'), 'up');
    assert.equal(j.type, 'bridge');
    assert.deepEqual(j.script, []);
    assert.deepEqual(j.trigger, { include: null, project: 'group/other', branch: null, strategy: null });
  });

  it('trigger: {project, branch, strategy}', async () => {
    const j = job(await plan('up:\n  stage: deploy\n  trigger:\n    project: group/other\n    branch: stable\n    strategy: depend\n'), 'up');
    assert.deepEqual(j.trigger, { include: null, project: 'group/other', branch: 'stable', strategy: 'depend' });
    assert.equal(j.stageIdx, 3);
  });

  it('trigger: {include} as a path or a list of {local}', async () => {
    const a = job(await plan('child:\n  trigger:\n    include: ci/child.yml\n'), 'child');
    assert.deepEqual(a.trigger, { include: ['ci/child.yml'], project: null, branch: null, strategy: null });
    const b = job(await plan('child:\n  trigger:\n    include:\n      - local: /ci/a.yml\n      - ci/b.yml\n    strategy: depend\n'), 'child');
    assert.deepEqual(b.trigger, { include: ['ci/a.yml', 'ci/b.yml'], project: null, branch: null, strategy: 'depend' });
  });

  it('bridges: when manual defaults to allow_failure; no script keys', async () => {
    const j = job(await plan('child:\n  trigger: a/b\n  when: manual\n'), 'child');
    assert.equal(j.when, 'manual');
    assert.equal(j.allowFailure, true);
    await assertError('child:\n  trigger: a/b\n  before_script: [x]\n', 'jobs:child config contains unknown keys: before_script');
    await assertError('child:\n  trigger: a/b\n  when: delayed\n', 'jobs:child when should be one of: on_success, on_failure, always, manual');
  });

  it('a child pipeline is planned from its include files', async () => {
    const parent = job(await plan('child:\n  trigger:\n    include: [ci/a.yml, ci/b.yml]\n'), 'child');
    const files = { 'ci/a.yml': 'a:\n  script: x\n', 'ci/b.yml': 'b:\n  stage: build\n  script: y\n' };
    const p = await plan(childPipelineText(parent.trigger!), ctxOf({ files, source: 'parent_pipeline' }));
    assert.deepEqual(names(p), ['a', 'b']);
    assert.equal(job(p, 'b').stage, 'build');
  });

  it('invalid trigger', async () => {
    await assertError('child:\n  trigger: {project: a/b, strategy: wait}\n', 'jobs:child:trigger strategy should be depend');
    await assertError('child:\n  trigger: {branch: main}\n', 'jobs:child:trigger config must specify either project or include');
    await assertError('child:\n  trigger: [a]\n', 'jobs:child:trigger has to be either a string or a hash');
    const errors = await errorsOf('child:\n  trigger:\n    include:\n      - artifact: gen.yml\n        job: gen\n');
    assert.match(errors[0]!, /^jobs:child:trigger:include config is not supported/);
  });
});

describe('CI config: result kinds', () => {
  it('a plan keeps jobs in file order, included first', async () => {
    const ctx = ctxOf({ files: { 'inc.yml': 'zeta:\n  script: x\n' } });
    const p = await plan('include: inc.yml\nbeta:\n  stage: deploy\n  script: x\nalpha:\n  stage: build\n  script: x\n', ctx);
    assert.deepEqual(names(p), ['zeta', 'beta', 'alpha']);
  });

  it('empty when only .pre/.post jobs remain', async () => {
    const r = await result('first:\n  stage: .pre\n  script: x\nlast:\n  stage: .post\n  script: x\n');
    assert.deepEqual(r, { kind: 'empty' });
  });
});

describe("CI config: keywords of today's reference", () => {
  const MATRIX = 'build:\n  stage: build\n  script: make\n  parallel:\n    matrix:\n      - OS: [linux, mac]\n        ARCH: [amd64, arm64]\n';

  it('needs:parallel:matrix needs only the matrix instances with those values', async () => {
    const yml = `${MATRIX}test:\n  script: t\n  needs:\n    - job: build\n      parallel:\n        matrix:\n          - OS: linux\n            ARCH: [amd64, arm64]\n`;
    const t = job(await plan(yml), 'test');
    assert.deepEqual(t.needs, [
      { job: 'build: [linux, amd64]', artifacts: true, optional: false },
      { job: 'build: [linux, arm64]', artifacts: true, optional: false },
    ]);
    // A plain need on the matrix job still means all its instances.
    const all = job(await plan(`${MATRIX}test:\n  script: t\n  needs: [build]\n`), 'test');
    assert.equal(all.needs!.length, 4);
    // Values no instance has: an undefined need, as the reference reports it.
    const missing = `${MATRIX}test:\n  script: t\n  needs:\n    - job: build\n      parallel:\n        matrix:\n          - OS: windows\n            ARCH: amd64\n`;
    assert.deepEqual(await errorsOf(missing), ['test job: undefined need: build: [windows, amd64]']);
    await assertError(
      `${MATRIX}test:\n  script: t\n  needs:\n    - job: build\n      parallel: 2\n`,
      'jobs:test:needs:need:parallel config cannot use "parallel: <number>".',
    );
  });

  it('workflow:name names the pipeline, its variables expanded', async () => {
    const yml = 'variables:\n  KIND: nightly\nworkflow:\n  name: "$KIND build of $CI_COMMIT_REF_NAME$SUFFIX"\n  rules:\n    - if: $CI_PIPELINE_SOURCE == "push"\n      variables:\n        SUFFIX: " (push)"\n    - when: always\nj:\n  script: x\n';
    assert.equal((await plan(yml)).name, 'nightly build of main (push)');
    assert.equal((await plan(yml, ctxOf({ source: 'web' }))).name, 'nightly build of main');
    assert.equal((await plan('j:\n  script: x\n')).name, undefined);
    await assertError(`workflow:\n  name: "${'n'.repeat(256)}"\nj:\n  script: x\n`, 'workflow name is too long (maximum is 255 characters)');
    await assertError('workflow:\n  name: x\n  nope: 1\nj:\n  script: x\n', 'workflow config contains unknown keys: nope');
  });

  it('rules:changes:paths and compare_to', async () => {
    const yml = 'docs:\n  script: x\n  rules:\n    - changes:\n        paths: ["docs/**/*"]\n        compare_to: refs/heads/stable\n';
    // compare_to: the changes since that ref, whatever the pipeline's source (a web pipeline here).
    const since = (paths: string[]) => ctxOf({ source: 'web', changedPaths: null, changedSince: { 'refs/heads/stable': paths } });
    assert.deepEqual(names(await plan(`${yml}other:\n  script: y\n`, since(['docs/a/b.md']))), ['docs', 'other']);
    assert.deepEqual(names(await plan(`${yml}other:\n  script: y\n`, since(['src/x.ts']))), ['other']);
    assert.deepEqual(
      await errorsOf(yml, ctxOf({ changedSince: {} })),
      ['Failed to parse rule for docs: rules:changes:compare_to is not a valid ref'],
    );
    // paths alone: the pushed paths.
    const pathsOnly = 'docs:\n  script: x\n  rules:\n    - changes:\n        paths: ["docs/*"]\nother:\n  script: y\n';
    assert.deepEqual(names(await plan(pathsOnly, ctxOf({ changedPaths: ['docs/a.md'] }))), ['docs', 'other']);
    assert.deepEqual(names(await plan(pathsOnly, ctxOf({ changedPaths: ['README.md'] }))), ['other']);
    await assertError('j:\n  script: x\n  rules:\n    - changes:\n        compare_to: main\n', "jobs:j:rules:rule:changes paths can't be blank");
    await assertError('j:\n  script: x\n  rules:\n    - changes:\n        paths: [a]\n        compare_to: [main]\n', 'jobs:j:rules:rule:changes compare to should be a string');
  });

  it('include with rules: if, exists and changes', async () => {
    const files = { 'ci/a.yml': 'a:\n  script: a\n', 'ci/b.yml': 'b:\n  script: b\n', 'ci/c.yml': 'c:\n  script: c\n' };
    const yml = [
      'include:',
      '  - local: ci/a.yml',
      '    rules:',
      '      - if: $CI_COMMIT_BRANCH == "main"',
      '  - local: ci/b.yml',
      '    rules:',
      '      - changes: [src/**/*]',
      '  - local: ci/c.yml',
      '    rules:',
      '      - changes:',
      '          paths: [docs/*]',
      '          compare_to: stable',
      'own:',
      '  script: x',
      '',
    ].join('\n');
    const ctx = (changed: string[], sinceStable: string[]) => ctxOf({ files, changedPaths: changed, changedSince: { stable: sinceStable } });
    assert.deepEqual(names(await plan(yml, ctx(['src/m.ts'], ['docs/x.md']))), ['a', 'b', 'c', 'own']);
    assert.deepEqual(names(await plan(yml, ctx(['README.md'], []))), ['a', 'own']);
    assert.deepEqual(names(await plan(yml, ctxOf({ files, ref: 'dev', changedPaths: ['src/m.ts'], changedSince: { stable: [] } }))), ['b', 'own']);
  });

  it('!reference tags inside script lists, rules and variables (already supported)', async () => {
    const yml = '.base:\n  script: [one, two]\n  variables: {A: "1"}\nj:\n  script:\n    - !reference [.base, script]\n    - three\n  variables: !reference [.base, variables]\n';
    const j = job(await plan(yml), 'j');
    assert.deepEqual(j.script, ['one', 'two', 'three']);
    assert.deepEqual(j.variables, { A: '1' });
  });
});

describe('CI config: spec:inputs and include:inputs', () => {
  const TEMPLATE = [
    'spec:',
    '  inputs:',
    '    stage:',
    '      default: test',
    '    env:',
    '      options: [staging, production]',
    '    replicas:',
    '      type: number',
    '      default: 1',
    '    verbose:',
    '      type: boolean',
    '      default: false',
    '    targets:',
    '      type: array',
    '      default: [a, b]',
    '    version:',
    '      default: v1.0',
    '      regex: ^v\\d+\\.\\d+$',
    '---',
    'deploy-$[[ inputs.env ]]:',
    '  stage: $[[ inputs.stage ]]',
    '  script: ./deploy --env $[[ inputs.env ]] --replicas $[[ inputs.replicas ]] --version $[[inputs.version]]',
    '  variables:',
    '    REPLICAS: $[[ inputs.replicas ]]',
    '    VERBOSE: verbose=$[[ inputs.verbose ]]',
    '  parallel:',
    '    matrix:',
    '      - TARGET: $[[ inputs.targets ]]',
    '',
  ].join('\n');
  const files = { 'tpl.yml': TEMPLATE, 'plain.yml': 'p:\n  script: p\n' };
  const including = (inputs: string) => `include:\n  - local: tpl.yml\n    inputs:\n${inputs}`;

  it('interpolates the given inputs and the defaults, keys and values, with their types', async () => {
    const p = await plan(`stages: [test, deploy]\n${including('      env: production\n      stage: deploy\n      replicas: 3\n')}`, ctxOf({ files }));
    assert.deepEqual(names(p), ['deploy-production: [a]', 'deploy-production: [b]']);
    const j = job(p, 'deploy-production: [a]');
    assert.equal(j.stage, 'deploy');
    assert.deepEqual(j.script, ['./deploy --env production --replicas 3 --version v1.0']);
    assert.deepEqual(j.variables, { REPLICAS: '3', VERBOSE: 'verbose=false', TARGET: 'a', CI_NODE_INDEX: '1', CI_NODE_TOTAL: '2' });
  });

  it("refuses missing, unknown and invalid inputs with the reference's messages", async () => {
    const err = async (inputs: string) => errorsOf(including(inputs), ctxOf({ files }));
    assert.deepEqual(await err('      stage: test\n'), ['`tpl.yml`: `env` input: required value has not been provided']);
    assert.deepEqual(await err('      env: production\n      nope: 1\n'), ['`tpl.yml`: unknown input arguments: nope']);
    assert.deepEqual(await err('      env: dev\n'), ['`tpl.yml`: `env` input: `dev` cannot be used because it is not in the list of allowed options']);
    assert.deepEqual(await err('      env: production\n      replicas: many\n'), ['`tpl.yml`: `replicas` input: provided value is not a number']);
    assert.deepEqual(await err('      env: production\n      verbose: "yes please"\n'), ['`tpl.yml`: `verbose` input: provided value is not a boolean']);
    assert.deepEqual(await err('      env: production\n      targets: a\n'), ['`tpl.yml`: `targets` input: provided value is not an array']);
    assert.deepEqual(await err('      env: production\n      version: "2"\n'), ['`tpl.yml`: `version` input: provided value does not match required RegEx pattern']);
    const plain = await errorsOf('include:\n  - local: plain.yml\n    inputs:\n      a: 1\n', ctxOf({ files }));
    assert.deepEqual(plain, ['`plain.yml`: Given inputs not defined in the `spec` section of the included configuration file']);
  });

  it('an unknown interpolation key, a bad header', async () => {
    const more = {
      'typo.yml': 'spec:\n  inputs:\n    a:\n---\nj:\n  script: echo $[[ inputs.b ]]\n',
      'header.yml': 'spec:\n  arguments:\n    a:\n---\nj:\n  script: x\n',
      'default.yml': 'spec:\n  inputs:\n    n:\n      type: number\n      default: one\n---\nj:\n  script: x\n',
    };
    const ctx = ctxOf({ files: more });
    assert.deepEqual(await errorsOf('include:\n  - local: typo.yml\n    inputs: {a: x}\n', ctx), ['`typo.yml`: unknown interpolation key: `b`']);
    assert.deepEqual(await errorsOf('include: header.yml\n', ctx), ['`header.yml`: header:spec config contains unknown keys: arguments']);
    assert.deepEqual(await errorsOf('include: default.yml\n', ctx), ['`default.yml`: `n` input: default value is not a number']);
  });

  it("the pipeline's own file: defaults apply, a required input is missing", async () => {
    const own = 'spec:\n  inputs:\n    who:\n      default: world\n---\nhello:\n  script: echo hello $[[ inputs.who ]]\n';
    assert.deepEqual(job(await plan(own), 'hello').script, ['echo hello world']);
    assert.deepEqual(await errorsOf('spec:\n  inputs:\n    who:\n---\nhello:\n  script: x\n'), ['`who` input: required value has not been provided']);
  });

  it('trigger:include:inputs reach the child pipeline', async () => {
    const parent = job(await plan('child:\n  trigger:\n    include:\n      - local: tpl.yml\n        inputs:\n          env: staging\n          replicas: 4\n'), 'child');
    assert.deepEqual(parent.trigger, { include: ['tpl.yml'], project: null, branch: null, strategy: null, inputs: [{ env: 'staging', replicas: 4 }] });
    const child = await plan(childPipelineText(parent.trigger!), ctxOf({ files, source: 'parent_pipeline' }));
    assert.deepEqual(job(child, 'deploy-staging: [a]').script, ['./deploy --env staging --replicas 4 --version v1.0']);
  });

  it('unknown keywords still fail', async () => {
    await assertError('j:\n  script: x\n  inputs: {a: 1}\n', 'jobs:j config contains unknown keys: inputs');
    await assertError('include:\n  - local: tpl.yml\n    inputs:\n      env: production\n    nope: 1\n', 'include config contains unknown keys: nope', ctxOf({ files }));
  });
});
