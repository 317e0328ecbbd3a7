// CI lint (POST and GET /projects/:id/ci/lint): the reference's result shape, the static check
// (every job, only/except, needs, includes, merged_yaml) and the dry run, which is pipeline
// creation without the records: a config that lints invalid fails pipeline creation with the same
// text, and a valid one's jobs are the created pipeline's jobs. Who may call each.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS, buildTestApp, keysOf, type TestApp } from '../helpers/build.js';
import { CI_FILE, makeCiProject, putFiles } from '../helpers/ci.js';
import { addMember, makeProject } from '../helpers/projects.js';

type U = { id: number; username: string; token: string };
const RESULT_KEYS = ['errors', 'includes', 'merged_yaml', 'valid', 'warnings'];
const STATIC_JOB_KEYS = ['after_script', 'allow_failure', 'before_script', 'environment', 'except', 'name', 'needs', 'only', 'script', 'stage', 'tag_list', 'when'];
const DRY_JOB_KEYS = ['after_script', 'allow_failure', 'before_script', 'environment', 'name', 'script', 'stage', 'tag_list', 'when'];

const VALID = `stages: [build, test, deploy]
include: ci/extra.yml
.base:
  before_script: [echo setup]
build:
  extends: .base
  stage: build
  script: make
  tags: [linux]
test:
  stage: test
  script: [make test]
  needs: [build]
  rules:
    - if: $CI_COMMIT_BRANCH == "nope"
deploy:
  stage: deploy
  script: ./deploy
  environment: production
  when: manual
  only: [main]
`;
const EXTRA = `extra:
  stage: test
  script: echo extra
  allow_failure: true
`;

for (const dialect of DIALECTS) {
  describe(`CI lint (${dialect})`, () => {
    let t: TestApp;
    let maint: U;
    let reporter: U;
    let stranger: U;
    let p: { id: number; sha: string; project: any };

    before(async () => {
      t = await buildTestApp(dialect);
      maint = await t.createUser();
      reporter = await t.createUser();
      stranger = await t.createUser();
      p = await makeCiProject(t, { [CI_FILE]: VALID, 'ci/extra.yml': EXTRA }, { body: { visibility: 'private' } });
      await addMember(t, 'Project', p.id, maint.id, 40);
      await addMember(t, 'Project', p.id, reporter.id, 20);
    });
    after(async () => t.close());

    const post = (body: Record<string, unknown>, token: string | null = maint.token, id: number | string = p.id) =>
      t.request('POST', `/api/v4/projects/${id}/ci/lint`, { token, body });

    it('POST: a valid file, static check: every job as written with only/except/needs, includes and merged_yaml', async () => {
      const r = await post({ content: VALID, include_jobs: true });
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(keysOf(r.body), [...RESULT_KEYS, 'jobs'].sort());
      assert.equal(r.body.valid, true);
      assert.deepEqual(r.body.errors, []);
      assert.deepEqual(r.body.warnings, []);
      assert.match(r.body.merged_yaml, /^---\n/);
      assert.match(r.body.merged_yaml, /extra:\n {2}stage: test/);
      assert.ok(!r.body.merged_yaml.includes('include:'));
      assert.deepEqual(r.body.includes, [
        {
          type: 'local',
          location: 'ci/extra.yml',
          blob: `${p.project.web_url}/-/blob/${p.sha}/ci/extra.yml`,
          raw: `${p.project.web_url}/-/raw/${p.sha}/ci/extra.yml`,
          extra: {},
          context_project: p.project.path_with_namespace,
          context_sha: p.sha,
        },
      ]);
      const jobs = r.body.jobs;
      for (const j of jobs) assert.deepEqual(keysOf(j), STATIC_JOB_KEYS);
      // Stage order, then file order; the rule that would leave `test` out is not evaluated.
      assert.deepEqual(jobs.map((j: any) => j.name), ['build', 'extra', 'test', 'deploy']);
      assert.deepEqual(jobs[0], {
        name: 'build', stage: 'build', before_script: ['echo setup'], script: ['make'], after_script: [], tag_list: ['linux'],
        only: { refs: ['branches', 'tags'] }, except: null, environment: null, when: 'on_success', allow_failure: false, needs: null,
      });
      assert.deepEqual(jobs[2].needs, [{ name: 'build', artifacts: true, optional: false }]);
      assert.equal(jobs[2].only, null);
      assert.equal(jobs[1].allow_failure, true);
      assert.deepEqual(jobs[3].only, { refs: ['main'] });
      assert.equal(jobs[3].environment, 'production');
      assert.equal(jobs[3].when, 'manual');

      const plain = await post({ content: VALID });
      assert.deepEqual(keysOf(plain.body), RESULT_KEYS);
    });

    it('POST: an invalid file lists its errors; a blank one says so', async () => {
      const r = await post({ content: 'build:\n  script: make\n  bogus: 1\n', include_jobs: true });
      assert.equal(r.status, 200);
      assert.equal(r.body.valid, false);
      assert.ok(r.body.errors.length >= 1);
      assert.match(r.body.errors[0], /bogus/);
      assert.deepEqual(r.body.jobs, []);
      const syntax = await post({ content: 'a: [' });
      assert.equal(syntax.body.valid, false);
      assert.equal(syntax.body.merged_yaml, null);
      assert.equal(syntax.body.includes, null);
      const blank = await post({ content: '' });
      assert.deepEqual(blank.body.errors, ['Please provide content of .gitlab-ci.yml']);
    });

    it('dry run: its jobs are the jobs of the pipeline created from the same file', async () => {
      const r = await post({ content: VALID, dry_run: true, include_jobs: true });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.valid, true, r.text);
      for (const j of r.body.jobs) assert.deepEqual(keysOf(j), DRY_JOB_KEYS);
      // rules are evaluated now: `test` is out.
      assert.deepEqual(r.body.jobs.map((j: any) => j.name), ['build', 'extra', 'deploy']);
      const created = await t.request('POST', `/api/v4/projects/${p.id}/pipeline`, { token: maint.token, body: { ref: 'main' } });
      assert.equal(created.status, 201, created.text);
      const jobs = await t.get(`/api/v4/projects/${p.id}/pipelines/${created.body.id}/jobs?per_page=100`, maint.token);
      const real = jobs.body.map((j: any) => ({ name: j.name, stage: j.stage, tag_list: j.tag_list, allow_failure: j.allow_failure }));
      const linted = r.body.jobs.map((j: any) => ({ name: j.name, stage: j.stage, tag_list: j.tag_list, allow_failure: j.allow_failure }));
      const byName = (a: any, b: any) => a.name.localeCompare(b.name);
      assert.deepEqual(real.sort(byName), linted.sort(byName));
    });

    it('dry run: a file that lints invalid fails pipeline creation with the same error text', async () => {
      const bad = 'build:\n  stage: nowhere\n  script: make\n';
      const linted = await post({ content: bad, dry_run: true });
      assert.equal(linted.body.valid, false);
      assert.equal(linted.body.errors.length, 1);
      const staticLint = await post({ content: bad });
      assert.deepEqual(staticLint.body.errors, linted.body.errors);
      const q = await makeCiProject(t, bad);
      const created = await t.request('POST', `/api/v4/projects/${q.id}/pipeline`, { body: { ref: 'main' } });
      assert.equal(created.status, 400);
      assert.deepEqual(created.body, { message: { base: linted.body.errors } });
    });

    it('dry run: an unknown ref, and workflow rules that filter the pipeline, are the pipeline\'s errors', async () => {
      const r = await post({ content: VALID, dry_run: true, ref: 'no-such-branch' });
      assert.deepEqual(r.body.errors, ['Reference not found']);
      assert.equal(r.body.valid, false);
      const filtered = await post({ content: `workflow:\n  rules:\n    - if: $CI_COMMIT_BRANCH == "x"\n${VALID.split('\n').slice(1).join('\n')}`, dry_run: true });
      assert.deepEqual(filtered.body.errors, ['Pipeline filtered out by workflow rules.']);
    });

    it('GET: the CI file at the default branch, at content_ref, and a dry run at dry_run_ref', async () => {
      const r = await t.get(`/api/v4/projects/${p.id}/ci/lint?include_jobs=true`, reporter.token);
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.valid, true);
      assert.equal(r.body.jobs.length, 4);
      const old = await t.get(`/api/v4/projects/${p.id}/repository/commits/${p.sha}`, maint.token);
      const parent = old.body.parent_ids[0];
      const atReadme = await t.get(`/api/v4/projects/${p.id}/ci/lint?content_ref=${parent}`, reporter.token);
      assert.deepEqual(atReadme.body.errors, ['Please provide content of .gitlab-ci.yml']);
      await putFiles(t, p.id, { [CI_FILE]: 'x:\n  script: 1\n  bad_key: 2\n' }, { branch: 'broken', startBranch: 'main' });
      const broken = await t.get(`/api/v4/projects/${p.id}/ci/lint?content_ref=broken`, reporter.token);
      assert.equal(broken.body.valid, false);
      // A reporter may read the file but not create pipelines: the dry run says so.
      const dry = await t.get(`/api/v4/projects/${p.id}/ci/lint?dry_run=true`, reporter.token);
      assert.deepEqual(dry.body.errors, ['Insufficient permissions to create a new pipeline']);
      const devDry = await t.get(`/api/v4/projects/${p.id}/ci/lint?dry_run=true&dry_run_ref=main&include_jobs=true`, maint.token);
      assert.equal(devDry.body.valid, true, devDry.text);
      assert.deepEqual(devDry.body.jobs.map((j: any) => j.name), ['build', 'extra', 'deploy']);
      const missing = await t.get(`/api/v4/projects/${p.id}/ci/lint?content_ref=nope`, reporter.token);
      assert.equal(missing.status, 404);
      assert.deepEqual(missing.body, { message: '404 Commit Not Found' });
      const both = await t.get(`/api/v4/projects/${p.id}/ci/lint?sha=main&content_ref=main`, reporter.token);
      assert.equal(both.status, 400);
      assert.deepEqual(both.body, { error: 'sha, content_ref are mutually exclusive' });
    });

    it('GET: 404 for an empty repository', async () => {
      const empty = await makeProject(t, maint.token, { name: `empty${Date.now()}` });
      const r = await t.get(`/api/v4/projects/${empty.id}/ci/lint`, maint.token);
      assert.equal(r.status, 404);
      assert.deepEqual(r.body, { message: '404 Repository Not Found' });
    });

    it('who may call: 401 without a token (POST), 404 for an invisible project, 403 for a reporter (POST), 400 without content', async () => {
      assert.equal((await post({ content: VALID }, null)).status, 401);
      assert.equal((await post({ content: VALID }, stranger.token)).status, 404);
      assert.equal((await post({ content: VALID }, reporter.token)).status, 403);
      const developer = await t.createUser();
      await addMember(t, 'Project', p.id, developer.id, 30);
      const byDeveloper = await post({ content: VALID }, developer.token);
      assert.equal(byDeveloper.status, 200);
      assert.equal(byDeveloper.body.valid, true);
      const noContent = await post({});
      assert.equal(noContent.status, 400);
      assert.deepEqual(noContent.body, { message: '400 (Bad request) "content" not given' });
      assert.equal((await t.get(`/api/v4/projects/${p.id}/ci/lint`, null)).status, 404);
      assert.equal((await t.get(`/api/v4/projects/${p.id}/ci/lint`, stranger.token)).status, 404);
      const pub = await makeCiProject(t, VALID.replace('include: ci/extra.yml\n', ''), { body: { visibility: 'public' } });
      const anon = await t.get(`/api/v4/projects/${pub.id}/ci/lint`, null);
      assert.equal(anon.status, 200);
      assert.equal(anon.body.valid, true);
    });
  });
}
