// The CI file parser: which jobs a pipeline gets — rules, only/except, workflow:rules,
// changes/exists, and the needs of jobs left out (pure code: no database).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { assertError, ctxOf, errorsOf, job, names, plan, result } from './config_fixtures.js';

describe('CI config: rules', () => {
  const yml = `
j:
  script: x
  rules:
    - if: $CI_COMMIT_BRANCH == "main"
      when: manual
    - if: $CI_COMMIT_BRANCH =~ /^feature\\//
      allow_failure: true
      variables: {KIND: feature}
    - if: $CI_COMMIT_TAG
      when: never
    - when: on_success
      variables: {KIND: other}
other:
  script: x
`;

  it('the first matching rule wins (when: manual; allow_failure stays false)', async () => {
    const j = job(await plan(yml, ctxOf({ ref: 'main' })), 'j');
    assert.equal(j.when, 'manual');
    assert.equal(j.allowFailure, false);
    assert.deepEqual(j.variables, {});
  });

  it('a rule sets allow_failure and variables', async () => {
    const j = job(await plan(yml, ctxOf({ ref: 'feature/x' })), 'j');
    assert.equal(j.when, 'on_success');
    assert.equal(j.allowFailure, true);
    assert.deepEqual(j.variables, { KIND: 'feature' });
  });

  it('when: never leaves the job out', async () => {
    assert.deepEqual(names(await plan(yml, ctxOf({ ref: 'v1.0', tag: true }))), ['other']);
  });

  it('a rule with only `when` always matches', async () => {
    const j = job(await plan(yml, ctxOf({ ref: 'dev' })), 'j');
    assert.deepEqual(j.variables, { KIND: 'other' });
  });

  it('no matching rule leaves the job out', async () => {
    const p = await plan('j:\n  script: x\n  rules:\n    - if: $NOPE\nk:\n  script: x\n');
    assert.deepEqual(names(p), ['k']);
  });

  it('rule variables override job variables', async () => {
    const p = await plan('j:\n  script: x\n  variables: {A: job, B: job}\n  rules:\n    - variables: {B: rule}\n');
    assert.deepEqual(job(p, 'j').variables, { A: 'job', B: 'rule' });
  });

  it('when: delayed with start_in in a rule', async () => {
    const j = job(await plan('j:\n  script: x\n  rules:\n    - when: delayed\n      start_in: 2 hours\n'), 'j');
    assert.equal(j.when, 'delayed');
    assert.equal(j.startIn, '2 hours');
  });

  it('rules:if sees global, job and pipeline variables; pipeline ones win', async () => {
    const yml2 = `
variables: {DEPLOY: "yes", LEVEL: "1"}
g:
  script: x
  rules: [{if: $DEPLOY == "yes"}]
jv:
  script: x
  variables: {MINE: "1"}
  rules: [{if: $MINE}]
pv:
  script: x
  rules: [{if: $LEVEL == "2"}]
name:
  script: x
  rules: [{if: $CI_JOB_NAME == "name" && $CI_JOB_STAGE == "test"}]
`;
    assert.deepEqual(names(await plan(yml2)), ['g', 'jv', 'name']);
    assert.deepEqual(names(await plan(yml2, ctxOf({ vars: { LEVEL: '2' } }))), ['g', 'jv', 'pv', 'name']);
  });

  it('inherit:variables false hides global variables from rules', async () => {
    const p = await plan('variables: {G: "1"}\nj:\n  script: x\n  inherit: {variables: false}\n  rules: [{if: $G}]\nk:\n  script: x\n');
    assert.deepEqual(names(p), ['k']);
  });

  it('matrix variables are usable in rules', async () => {
    const p = await plan(`
deploy:
  script: x
  parallel:
    matrix:
      - PROVIDER: [aws, gcp]
  rules:
    - if: $PROVIDER == "aws"
`);
    assert.deepEqual(names(p), ['deploy: [aws]']);
  });

  it('rules:changes against the pushed paths', async () => {
    const y = 'docs:\n  script: x\n  rules:\n    - changes: [docs/**/*, "*.md"]\ncode:\n  script: x\n  rules:\n    - changes:\n        paths: [src/**/*.ts]\n';
    assert.deepEqual(names(await plan(y, ctxOf({ changedPaths: ['docs/a/b.txt'] }))), ['docs']);
    assert.deepEqual(names(await plan(y, ctxOf({ changedPaths: ['README.md', 'src/x/y.ts'] }))), ['docs', 'code']);
    assert.equal((await result(y, ctxOf({ changedPaths: ['other.txt'] }))).kind, 'empty');
    assert.equal((await result(y, ctxOf({ changedPaths: [] }))).kind, 'empty');
  });

  it('rules:changes matches when the changed paths are unknown', async () => {
    assert.deepEqual(names(await plan('j:\n  script: x\n  rules:\n    - changes: [nothing/*]\n', ctxOf({ changedPaths: null }))), ['j']);
  });

  it('rules:changes expands $VARIABLES in globs', async () => {
    const y = 'variables: {DIR: svc}\nj:\n  script: x\n  rules:\n    - changes: [$DIR/**/*]\n';
    assert.deepEqual(names(await plan(y, ctxOf({ changedPaths: ['svc/a.go'] }))), ['j']);
    assert.equal((await result(y, ctxOf({ changedPaths: ['web/a.go'] }))).kind, 'empty');
  });

  it('rules:exists against the commit files, listed once', async () => {
    const ctx = ctxOf({ files: { 'Dockerfile': 'FROM x', 'src/app/main.go': '', 'README.md': '' } });
    const p = await plan(
      'docker:\n  script: x\n  rules: [{exists: [Dockerfile]}]\ngo:\n  script: x\n  rules: [{exists: ["**/*.go"]}]\nnode:\n  script: x\n  rules: [{exists: [package.json]}]\n',
      ctx,
    );
    assert.deepEqual(names(p), ['docker', 'go']);
    assert.equal(ctx.listCalls, 1);
  });

  it('if, changes and exists in one rule must all hold', async () => {
    const y = 'j:\n  script: x\n  rules:\n    - if: $CI_COMMIT_BRANCH == "main"\n      changes: [src/*]\n      exists: [README.md]\nk:\n  script: x\n';
    const files = { 'README.md': '' };
    assert.deepEqual(names(await plan(y, ctxOf({ files, changedPaths: ['src/a'] }))), ['j', 'k']);
    assert.deepEqual(names(await plan(y, ctxOf({ files, changedPaths: ['lib/a'] }))), ['k']);
    assert.deepEqual(names(await plan(y, ctxOf({ files: {}, changedPaths: ['src/a'] }))), ['k']);
    assert.deepEqual(names(await plan(y, ctxOf({ files, ref: 'dev', changedPaths: ['src/a'] }))), ['k']);
  });

  it('invalid rules', async () => {
    await assertError('j:\n  script: x\n  rules:\n    - if: == null\n', 'jobs:j:rules:rule if invalid expression syntax');
    await assertError('j:\n  script: x\n  rules:\n    - when: sometimes\n', 'jobs:j:rules:rule when unknown value: sometimes');
    await assertError('j:\n  script: x\n  rules:\n    - iff: $A\n', 'jobs:j:rules:rule config contains unknown keys: iff');
    await assertError('j:\n  script: x\n  rules: {if: $A}\n', 'jobs:j rules should be an array of hashes');
    await assertError('j:\n  script: x\n  rules:\n    - when: delayed\n', "jobs:j:rules:rule start in can't be blank");
    await assertError('j:\n  script: x\n  rules:\n    - allow_failure: maybe\n', 'jobs:j:rules:rule allow failure should be a boolean value');
    await assertError('j:\n  script: x\n  rules:\n    - exists: Dockerfile\n', 'jobs:j:rules:rule exists should be an array of strings');
    await assertError('j:\n  script: x\n  rules: []\n', "jobs:j:rules config can't be blank");
    await assertError('j:\n  script: x\n  rules:\n    - needs: [a]\n', 'jobs:j:rules:rule config contains unknown keys: needs');
  });

  it('rules may not be used with only, except or when', async () => {
    await assertError('j:\n  script: x\n  only: [main]\n  rules:\n    - when: always\n', 'jobs:j config key may not be used with `rules`: only');
    await assertError('j:\n  script: x\n  when: delayed\n  start_in: 10 minutes\n  rules:\n    - when: always\n', 'jobs:j config key may not be used with `rules`: when, start_in');
  });
});

describe('CI config: only / except', () => {
  const at = (ref: string, over: Parameters<typeof ctxOf>[0] = {}) => ctxOf({ ref, ...over });

  it('the default only is branches and tags', async () => {
    assert.deepEqual(names(await plan('j:\n  script: x\n', at('v1', { tag: true }))), ['j']);
    assert.deepEqual(names(await plan('j:\n  script: x\n', at('dev', { source: 'api' }))), ['j']);
  });

  it('only: branch names, branches, tags', async () => {
    const y = 'm:\n  script: x\n  only: [main]\nb:\n  script: x\n  only: [branches]\nt:\n  script: x\n  only: [tags]\n';
    assert.deepEqual(names(await plan(y, at('main'))), ['m', 'b']);
    assert.deepEqual(names(await plan(y, at('dev'))), ['b']);
    assert.deepEqual(names(await plan(y, at('v1.0', { tag: true }))), ['t']);
  });

  it('only: /regex/ on the ref', async () => {
    const y = 'r:\n  script: x\n  only: ["/^release-.*$/"]\nk:\n  script: x\n';
    assert.deepEqual(names(await plan(y, at('release-1.2'))), ['r', 'k']);
    assert.deepEqual(names(await plan(y, at('main'))), ['k']);
  });

  it('only: pipeline sources (api, pushes, web, triggers, schedules, pipelines)', async () => {
    const y = [
      'api:\n  script: x\n  only: [api]',
      'push:\n  script: x\n  only: [pushes]',
      'web:\n  script: x\n  only: [web]',
      'trig:\n  script: x\n  only: [triggers]',
      'sched:\n  script: x\n  only: [schedules]',
      'multi:\n  script: x\n  only: [pipelines]',
      'always:\n  script: x',
    ].join('\n');
    assert.deepEqual(names(await plan(y, at('main', { source: 'api' }))), ['api', 'always']);
    assert.deepEqual(names(await plan(y, at('main', { source: 'push' }))), ['push', 'always']);
    assert.deepEqual(names(await plan(y, at('main', { source: 'web' }))), ['web', 'always']);
    assert.deepEqual(names(await plan(y, at('main', { source: 'trigger' }))), ['trig', 'always']);
    assert.deepEqual(names(await plan(y, at('main', { source: 'schedule' }))), ['sched', 'always']);
    assert.deepEqual(names(await plan(y, at('main', { source: 'pipeline' }))), ['multi', 'always']);
  });

  it('only: ref@project path', async () => {
    const y = 'mine:\n  script: x\n  only: [main@group/project]\ntheirs:\n  script: x\n  only: [main@upstream/project]\n';
    assert.deepEqual(names(await plan(y, at('main'))), ['mine']);
  });

  it('except: refs', async () => {
    const y = 'j:\n  script: x\n  except: [main, /^wip-/]\nk:\n  script: x\n';
    assert.deepEqual(names(await plan(y, at('main'))), ['k']);
    assert.deepEqual(names(await plan(y, at('wip-1'))), ['k']);
    assert.deepEqual(names(await plan(y, at('dev'))), ['j', 'k']);
  });

  it('only: {refs, variables} needs both; the default refs apply with variables alone', async () => {
    const y = 'j:\n  script: x\n  only:\n    refs: [main]\n    variables: [$RELEASE == "true"]\nv:\n  script: x\n  only:\n    variables: [$RELEASE]\n';
    assert.deepEqual(names(await plan(y, at('main', { vars: { RELEASE: 'true' } }))), ['j', 'v']);
    assert.deepEqual(names(await plan(y, at('dev', { vars: { RELEASE: 'true' } }))), ['v']);
    assert.equal((await result(y, at('main'))).kind, 'empty');
  });

  it('only: {changes} and except: {variables}', async () => {
    const y = 'docs:\n  script: x\n  only:\n    changes: [docs/*]\nj:\n  script: x\n  except:\n    variables: [$SKIP]\n';
    assert.deepEqual(names(await plan(y, at('main', { changedPaths: ['docs/a.md'] }))), ['docs', 'j']);
    assert.deepEqual(await result(y, at('main', { changedPaths: ['src/a.c'], vars: { SKIP: '1' } })), { kind: 'empty' });
    assert.deepEqual(names(await plan(y, at('main', { changedPaths: ['src/a.c'] }))), ['j']);
  });

  it('invalid only / except', async () => {
    await assertError('j:\n  script: x\n  only: 1\n', 'jobs:j:only has to be either an array of conditions or a hash');
    await assertError('j:\n  script: x\n  except: 1\n', 'jobs:j:except has to be either an array of conditions or a hash');
    await assertError('j:\n  script: x\n  only: [1, 1]\n', 'jobs:j:only config should be an array of strings or regexps');
    await assertError('j:\n  script: x\n  only: ["/*invalid/"]\n', 'jobs:j:only config should be an array of strings or regexps');
    await assertError('j:\n  script: x\n  only: {variables: ["== null"]}\n', 'jobs:j:only variables invalid expression syntax');
    await assertError('j:\n  script: x\n  only: {changes: [1]}\n', 'jobs:j:only changes should be an array of strings');
    await assertError('j:\n  script: x\n  only: {branches: true}\n', 'jobs:j:only config contains unknown keys: branches');
  });
});

describe('CI config: workflow:rules', () => {
  const yml = `
variables: {DEPLOY_ENV: dev, KEEP: "1"}
workflow:
  rules:
    - if: $CI_COMMIT_TAG
      when: never
    - if: $CI_COMMIT_BRANCH == "main"
      variables: {DEPLOY_ENV: production}
    - if: $CI_PIPELINE_SOURCE == "web"
j:
  script: x
`;

  it('a matching rule runs the pipeline with its variables over the global ones', async () => {
    const p = await plan(yml, ctxOf({ ref: 'main' }));
    assert.deepEqual(p.variables, { DEPLOY_ENV: 'production', KEEP: '1' });
    const web = await plan(yml, ctxOf({ ref: 'dev', source: 'web' }));
    assert.deepEqual(web.variables, { DEPLOY_ENV: 'dev', KEEP: '1' });
  });

  it('when: never or no matching rule filters the pipeline', async () => {
    assert.deepEqual(await result(yml, ctxOf({ ref: 'v1', tag: true })), { kind: 'filtered' });
    assert.deepEqual(await result(yml, ctxOf({ ref: 'dev' })), { kind: 'filtered' });
  });

  it('job rules see workflow rule variables', async () => {
    const y = 'workflow:\n  rules:\n    - variables: {MODE: full}\nj:\n  script: x\n  rules: [{if: $MODE == "full"}]\n';
    assert.deepEqual(names(await plan(y)), ['j']);
  });

  it('with workflow:rules, jobs lose the default only (a merge-request-like source still gets them)', async () => {
    const y = 'workflow:\n  rules:\n    - when: always\nj:\n  script: x\nk:\n  script: x\n  only: [tags]\n';
    assert.deepEqual(names(await plan(y, ctxOf({ ref: 'dev', source: 'merge_request_event' }))), ['j']);
  });

  it('invalid workflow', async () => {
    await assertError('workflow:\n  rules:\n    - when: on_success\nj:\n  script: x\n', 'workflow:rules:rule when unknown value: on_success');
    await assertError('workflow:\n  variables: {A: 1}\nj:\n  script: x\n', 'workflow config contains unknown keys: variables');
    await assertError('workflow:\n  rules:\n    - if: $A ==\nj:\n  script: x\n', 'workflow:rules:rule if invalid expression syntax');
  });
});

describe('CI config: jobs left out', () => {
  it('nothing left: empty', async () => {
    assert.deepEqual(await result('j:\n  script: x\n  only: [tags]\n'), { kind: 'empty' });
  });

  it('a need on a job left out is an error, unless optional', async () => {
    const y = 'stages: [build, test]\nb:\n  stage: build\n  script: x\n  rules: [{if: $BUILD}]\nt:\n  stage: test\n  script: x\n  needs: [b]\n';
    assert.deepEqual(await errorsOf(y), ["'t' job needs 'b' job, but 'b' is not in any previous stage"]);
    const opt = y.replace('needs: [b]', 'needs: [{job: b, optional: true}]');
    assert.deepEqual(job(await plan(opt), 't').needs, []);
    assert.deepEqual(job(await plan(opt, ctxOf({ vars: { BUILD: '1' } })), 't').needs, [{ job: 'b', artifacts: true, optional: true }]);
  });

  it('dependencies on jobs left out are dropped', async () => {
    const y = 'stages: [build, test]\nb:\n  stage: build\n  script: x\n  only: [tags]\nc:\n  stage: build\n  script: x\nt:\n  stage: test\n  script: x\n  dependencies: [b, c]\n';
    assert.deepEqual(job(await plan(y), 't').dependencies, ['c']);
  });

  it('stage indexes stay those of the declared stages', async () => {
    const p = await plan('stages: [a, b, c]\nx:\n  stage: c\n  script: x\ny:\n  stage: a\n  script: x\n  only: [tags]\n');
    assert.deepEqual(p.stages, ['.pre', 'a', 'b', 'c', '.post']);
    assert.equal(job(p, 'x').stageIdx, 3);
  });
});
