// The pipeline API: create, get, list (filters, orders), variables, retry, cancel, delete, test
// report and summary — shapes, values, errors and permissions. The built-in runner is off here:
// jobs stay pending unless a test drives them through the state module as a runner would.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { DIALECTS, EXTERNAL_URL, buildTestApp, keysOf, type TestApp } from '../helpers/build.js';
import { PIPELINE_BASIC_KEYS, USER_BASIC_KEYS } from '../helpers/keys.js';
import { addMember } from '../helpers/projects.js';
import { CI_FILE, SIMPLE_CI, createPipeline, createPipelineOk, jobRows, listPipelines, makeCiProject, pipelineRow, putFiles } from '../helpers/ci.js';
import { finishJob, startJob } from '../../src/domain/ci/state.js';
import { storeArtifact } from '../../src/domain/ci/artifacts.js';
import { predefinedVariables } from '../../src/domain/ci/variables.js';
import { findPipeline } from '../../src/db/repos/ci_pipelines.js';
import { findProjectById } from '../../src/db/repos/projects.js';

const ZERO = '0'.repeat(40);
const PIPELINE_KEYS = [
  'before_sha', 'committed_at', 'coverage', 'created_at', 'duration', 'finished_at', 'id', 'iid', 'project_id', 'queued_duration', 'ref', 'sha',
  'source', 'started_at', 'status', 'tag', 'updated_at', 'user', 'web_url', 'yaml_errors',
];
const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

const DEVELOPER = 30;
const REPORTER = 20;
const GUEST = 10;
const MAINTAINER = 40;
const OWNER = 50;

/** Runs every pending build of the pipeline to `outcome`, as the runner would, until none is pending. */
async function runPending(t: TestApp, pipelineId: number, outcome: 'success' | 'failed' = 'success'): Promise<void> {
  for (let round = 0; round < 20; round++) {
    const pending = (await jobRows(t, pipelineId)).filter((j) => j.status === 'pending' && j.type === 'build');
    if (pending.length === 0) return;
    for (const j of pending) {
      const started = await startJob(t.c, j.id);
      assert.ok(started, `job ${j.id} could not start`);
      await finishJob(t.c, j.id, { status: outcome, exitCode: outcome === 'success' ? 0 : 1 });
    }
  }
}

for (const dialect of DIALECTS) {
  describe(`pipelines API (${dialect})`, () => {
    let t: TestApp;
    before(async () => {
      t = await buildTestApp(dialect);
      // No default branch protection unless a test asks for it.
      const s = await t.request('PUT', '/api/v4/application/settings', { body: { default_branch_protection: 0 } });
      assert.equal(s.status, 200, s.text);
    });
    after(async () => t.close());

    it('creates a pipeline with the exact Pipeline shape and its jobs', async () => {
      const p = await makeCiProject(t);
      const r = await createPipeline(t, p.id);
      assert.equal(r.status, 201, r.text);
      assert.equal(r.headers['content-type'], 'application/json');
      const b = r.body;
      assert.deepEqual(keysOf(b), PIPELINE_KEYS);
      assert.deepEqual(Object.keys(b).slice(0, 10), ['id', 'iid', 'project_id', 'sha', 'ref', 'status', 'source', 'created_at', 'updated_at', 'web_url']);
      assert.equal(b.iid, 1);
      assert.equal(b.project_id, p.id);
      assert.equal(b.sha, p.sha);
      assert.equal(b.ref, 'main');
      assert.equal(b.status, 'pending');
      assert.equal(b.source, 'api');
      assert.equal(b.before_sha, ZERO);
      assert.equal(b.tag, false);
      assert.equal(b.yaml_errors, null);
      assert.deepEqual(keysOf(b.user), USER_BASIC_KEYS);
      assert.equal(b.user.username, 'root');
      assert.match(b.created_at, ISO_MS);
      assert.match(b.updated_at, ISO_MS);
      assert.equal(b.started_at, null);
      assert.equal(b.finished_at, null);
      assert.equal(b.duration, null);
      assert.equal(b.coverage, null);
      assert.equal(typeof b.committed_at, 'string');
      assert.equal(b.web_url, `${EXTERNAL_URL}/${p.project.path_with_namespace}/-/pipelines/${b.id}`);
      const jobs = await jobRows(t, b.id);
      assert.deepEqual(jobs.map((j) => [j.name, j.stage, j.status]), [['build-job', 'build', 'pending'], ['test-job', 'test', 'created']]);
      // iids count per project
      const second = await createPipelineOk(t, p.id);
      assert.equal(second.iid, 2);
      assert.ok(second.id > b.id);
    });

    it('gives jobs the predefined variables (never CI_JOB_TOKEN), and rules see them', async () => {
      const dev = await t.createUser({ name: 'Dee Veloper' });
      const ci = [
        'variables:',
        '  GLOBAL: g',
        'matrix:',
        '  script: echo',
        '  parallel: 2',
        '  environment: { name: Review/App, url: "https://x.example" }',
        'branch-only:',
        '  script: echo',
        '  rules:',
        '    - if: $CI_COMMIT_BRANCH == "Feature/Long_Name" && $CI_PROJECT_NAME =~ /^ci/ && $SERVICE_USER_LOGIN',
        'tag-only:',
        '  script: echo',
        '  rules:',
        '    - if: $CI_COMMIT_TAG',
        '',
      ].join('\n');
      const p = await makeCiProject(t, ci);
      await addMember(t, 'Project', p.id, dev.id, DEVELOPER);
      const sha = await putFiles(t, p.id, { 'f.txt': 'x\n' }, { branch: 'Feature/Long_Name', startBranch: 'main', message: 'Title line\n\nBody line one\nline two\n' });
      const made = await createPipelineOk(t, p.id, 'Feature/Long_Name', { token: dev.token, variables: [{ key: 'API_VAR', value: '1' }] });
      const jobs = await jobRows(t, made.id);
      assert.deepEqual(jobs.map((j) => j.name), ['matrix 1/2', 'matrix 2/2', 'branch-only']);
      const project = (await findProjectById(t.c.db, p.id))!;
      const pipeline = (await findPipeline(t.c.db, made.id))!;
      const pv = await predefinedVariables(t.c, project, pipeline);
      const projectUrl = `${EXTERNAL_URL}/${p.project.path_with_namespace}`;
      const expected: Record<string, string> = {
        CI: 'true',
        SERVICE_CI: 'true',
        CI_SERVER: 'yes',
        CI_SERVER_URL: EXTERNAL_URL,
        CI_SERVER_HOST: 'anvil.test',
        CI_SERVER_PORT: '80',
        CI_SERVER_PROTOCOL: 'http',
        CI_SERVER_VERSION: '15.1.0',
        CI_SERVER_VERSION_MAJOR: '15',
        CI_API_V4_URL: `${EXTERNAL_URL}/api/v4`,
        CI_PROJECT_ID: String(p.id),
        CI_PROJECT_NAME: p.project.path,
        CI_PROJECT_TITLE: p.project.name,
        CI_PROJECT_PATH: p.project.path_with_namespace,
        CI_PROJECT_NAMESPACE: 'root',
        CI_PROJECT_ROOT_NAMESPACE: 'root',
        CI_PROJECT_URL: projectUrl,
        CI_PROJECT_VISIBILITY: 'private',
        CI_DEFAULT_BRANCH: 'main',
        CI_CONFIG_PATH: CI_FILE,
        CI_PIPELINE_ID: String(made.id),
        CI_PIPELINE_IID: String(made.iid),
        CI_PIPELINE_SOURCE: 'api',
        CI_PIPELINE_URL: `${projectUrl}/-/pipelines/${made.id}`,
        CI_COMMIT_SHA: sha,
        CI_COMMIT_SHORT_SHA: sha.slice(0, 8),
        CI_COMMIT_BEFORE_SHA: ZERO,
        CI_COMMIT_REF_NAME: 'Feature/Long_Name',
        CI_COMMIT_REF_SLUG: 'feature-long-name',
        CI_COMMIT_BRANCH: 'Feature/Long_Name',
        CI_COMMIT_REF_PROTECTED: 'false',
        CI_COMMIT_TITLE: 'Title line',
        CI_COMMIT_DESCRIPTION: '\nBody line one\nline two',
        CI_COMMIT_MESSAGE: 'Title line\n\nBody line one\nline two\n',
        SERVICE_USER_ID: String(dev.id),
        SERVICE_USER_LOGIN: dev.username,
        SERVICE_USER_NAME: 'Dee Veloper',
        SERVICE_USER_EMAIL: `${dev.username}@example.com`,
      };
      for (const [k, v] of Object.entries(expected)) assert.equal(pv[k], v, k);
      assert.equal(pv.CI_COMMIT_PROJECT_PATH_SLUG, undefined);
      assert.equal(pv.CI_PROJECT_PATH_SLUG, p.project.path_with_namespace.toLowerCase().replace(/[^a-z0-9]/g, '-'));
      assert.match(pv.CI_PIPELINE_CREATED_AT!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      assert.match(pv.CI_COMMIT_TIMESTAMP!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d([+-]\d\d:\d\d|Z)$/);
      assert.match(pv.CI_COMMIT_AUTHOR!, /^.+ <.+@.+>$/);
      assert.equal(pv.CI_COMMIT_TAG, undefined);
      assert.equal(pv.CI_JOB_ID, undefined);
      assert.equal(pv.API_VAR, undefined, 'pipeline variables are separate (pipelineVariables)');

      const second = jobs[1]!;
      const jv = await predefinedVariables(t.c, project, pipeline, second);
      assert.equal(jv.CI_JOB_ID, String(second.id));
      assert.equal(jv.CI_JOB_NAME, 'matrix 2/2');
      assert.equal(jv.CI_JOB_STAGE, 'test');
      assert.equal(jv.CI_JOB_URL, `${projectUrl}/-/jobs/${second.id}`);
      assert.equal(jv.CI_NODE_INDEX, '2');
      assert.equal(jv.CI_NODE_TOTAL, '2');
      assert.equal(jv.CI_ENVIRONMENT_NAME, 'Review/App');
      assert.equal(jv.CI_ENVIRONMENT_SLUG, 'review-app');
      assert.equal(jv.CI_ENVIRONMENT_URL, 'https://x.example');
      assert.equal(jv.CI_JOB_TOKEN, undefined);
      const single = await predefinedVariables(t.c, project, pipeline, jobs[2]!);
      assert.equal(single.CI_NODE_TOTAL, '1');
      assert.equal(single.CI_NODE_INDEX, undefined);
      assert.ok(Object.values(jv).every((v) => typeof v === 'string'));

      // A protected branch says so.
      await t.request('POST', `/api/v4/projects/${p.id}/protected_branches`, { body: { name: 'main' } });
      const onMain = await createPipelineOk(t, p.id);
      const mv = await predefinedVariables(t.c, project, (await findPipeline(t.c.db, onMain.id))!);
      assert.equal(mv.CI_COMMIT_REF_PROTECTED, 'true');
      assert.equal(mv.CI_COMMIT_BRANCH, 'main');
      assert.equal(mv.SERVICE_USER_LOGIN, 'root');
    });

    it('gets a pipeline, and 404s for unknown ids and other projects', async () => {
      const p = await makeCiProject(t);
      const q = await makeCiProject(t);
      const made = await createPipelineOk(t, p.id);
      const r = await t.get(`/api/v4/projects/${p.id}/pipelines/${made.id}`);
      assert.equal(r.status, 200);
      assert.deepEqual(keysOf(r.body), PIPELINE_KEYS);
      assert.deepEqual(r.body, made);
      const byPath = await t.get(`/api/v4/projects/${encodeURIComponent(p.project.path_with_namespace)}/pipelines/${made.id}`);
      assert.equal(byPath.status, 200);
      assert.equal(byPath.body.id, made.id);
      const unknown = await t.get(`/api/v4/projects/${p.id}/pipelines/999999`);
      assert.equal(unknown.status, 404);
      assert.deepEqual(unknown.body, { message: '404 Not found' });
      const elsewhere = await t.get(`/api/v4/projects/${q.id}/pipelines/${made.id}`);
      assert.equal(elsewhere.status, 404);
      const bad = await t.get(`/api/v4/projects/${p.id}/pipelines/abc`);
      assert.equal(bad.status, 400);
      assert.deepEqual(bad.body, { error: 'pipeline_id is invalid' });
    });

    it('creates pipelines for tags, and prefers the branch when a tag has the same name', async () => {
      const p = await makeCiProject(t);
      const tag = await t.request('POST', `/api/v4/projects/${p.id}/repository/tags`, { body: { tag_name: 'v1.0', ref: 'main' } });
      const noTagCreation = tag.status !== 201;
      if (noTagCreation) {
        // No tag creation through the API (the tags list answers GET only): make the tags in the repository directly.
        const { git } = await import('../../src/git/git.js');
        const { repositoryDir } = await import('../../src/domain/repository/service.js');
        await git(['update-ref', 'refs/tags/v1.0', p.sha], { gitDir: repositoryDir(t.c, p.id) });
        await git(['update-ref', 'refs/tags/main', p.sha], { gitDir: repositoryDir(t.c, p.id) });
      }
      const r = await createPipelineOk(t, p.id, 'v1.0');
      assert.equal(r.tag, true);
      assert.equal(r.ref, 'v1.0');
      assert.equal(r.sha, p.sha);
      if (noTagCreation) {
        const both = await createPipelineOk(t, p.id, 'main');
        assert.equal(both.tag, false);
      }
    });

    it('refuses refs, files and plans that make no pipeline, as the reference words it', async () => {
      const p = await makeCiProject(t);
      const base = (message: string) => ({ message: { base: [message] } });
      let r = await createPipeline(t, p.id, 'nope');
      assert.equal(r.status, 400);
      assert.deepEqual(r.body, base('Reference not found'));
      r = await t.request('POST', `/api/v4/projects/${p.id}/pipeline`, { body: {} });
      assert.equal(r.status, 400);
      assert.deepEqual(r.body, { message: '400 (Bad request) "ref" not given' });

      const bare = await makeCiProject(t, { 'README.txt': 'no ci here\n' });
      r = await createPipeline(t, bare.id);
      assert.equal(r.status, 400);
      assert.deepEqual(r.body, base('Missing CI config file'));

      const filtered = await makeCiProject(t, `workflow:\n  rules:\n    - if: $CI_PIPELINE_SOURCE == "push"\njob:\n  script: echo\n`);
      r = await createPipeline(t, filtered.id);
      assert.equal(r.status, 400);
      assert.deepEqual(r.body, base('Pipeline filtered out by workflow rules.'));

      const empty = await makeCiProject(t, `job:\n  script: echo\n  rules:\n    - if: $NOPE == "1"\n`);
      r = await createPipeline(t, empty.id);
      assert.equal(r.status, 400);
      assert.deepEqual(r.body, base('No stages / jobs for this pipeline.'));

      // An invalid file: through the API nothing is saved (the reference's save_on_errors: false).
      const invalid = await makeCiProject(t, `job:\n  stage: build\n  script: [\n`);
      const before = (await t.c.db.selectFrom('ci_pipelines').select('id').where('project_id', '=', invalid.id).execute()).length;
      r = await createPipeline(t, invalid.id);
      assert.equal(r.status, 400);
      assert.equal(r.body.message.base.length, 1);
      assert.equal(typeof r.body.message.base[0], 'string');
      assert.ok(r.body.message.base[0].length > 0);
      const afterCount = (await t.c.db.selectFrom('ci_pipelines').select('id').where('project_id', '=', invalid.id).execute()).length;
      assert.equal(afterCount, before);
    });

    it('reads the CI file from ci_config_path, the instance default, then .gitlab-ci.yml', async () => {
      const own = await makeCiProject(t, { 'ci/custom.yml': 'custom-job:\n  script: echo\n' }, { body: { ci_config_path: 'ci/custom.yml' } });
      const a = await createPipelineOk(t, own.id);
      assert.deepEqual((await jobRows(t, a.id)).map((j) => j.name), ['custom-job']);

      const legacy = await makeCiProject(t, { '.gitlab-ci.yml': 'legacy-job:\n  script: echo\n' });
      const b = await createPipelineOk(t, legacy.id);
      assert.deepEqual((await jobRows(t, b.id)).map((j) => j.name), ['legacy-job']);

      const both = await makeCiProject(t, { [CI_FILE]: 'ours:\n  script: echo\n', '.gitlab-ci.yml': 'theirs:\n  script: echo\n' });
      const c = await createPipelineOk(t, both.id);
      assert.deepEqual((await jobRows(t, c.id)).map((j) => j.name), ['ours']);

      const s = await t.request('PUT', '/api/v4/application/settings', { body: { default_ci_config_path: 'pipelines/main.yml' } });
      assert.equal(s.status, 200, s.text);
      try {
        const inst = await makeCiProject(t, { 'pipelines/main.yml': 'instance-job:\n  script: echo\n', [CI_FILE]: 'ours:\n  script: echo\n' });
        const d = await createPipelineOk(t, inst.id);
        assert.deepEqual((await jobRows(t, d.id)).map((j) => j.name), ['instance-job']);
      } finally {
        await t.request('PUT', '/api/v4/application/settings', { body: { default_ci_config_path: '' } });
      }
    });

    it('takes variables: rules see them, /variables shows them, bad ones are refused', async () => {
      const ci = `always:\n  script: echo\ndeploy:\n  script: echo\n  rules:\n    - if: $DEPLOY == "yes" && $CI_PIPELINE_SOURCE == "api"\n`;
      const p = await makeCiProject(t, ci);
      const without = await createPipelineOk(t, p.id);
      assert.deepEqual((await jobRows(t, without.id)).map((j) => j.name), ['always']);
      const vars = [
        { key: 'DEPLOY', value: 'yes' },
        { key: 'CERT', value: 'pem-data', variable_type: 'file' },
      ];
      const withVars = await createPipelineOk(t, p.id, 'main', { variables: vars });
      assert.deepEqual((await jobRows(t, withVars.id)).map((j) => j.name), ['always', 'deploy']);
      const r = await t.get(`/api/v4/projects/${p.id}/pipelines/${withVars.id}/variables`);
      assert.equal(r.status, 200);
      assert.deepEqual(r.body, [
        { variable_type: 'env_var', key: 'DEPLOY', value: 'yes' },
        { variable_type: 'file', key: 'CERT', value: 'pem-data' },
      ]);
      assert.deepEqual(Object.keys(r.body[0]), ['variable_type', 'key', 'value']);
      const none = await t.get(`/api/v4/projects/${p.id}/pipelines/${without.id}/variables`);
      assert.deepEqual(none.body, []);
      // values are stored encrypted
      const stored = await t.c.db.selectFrom('ci_pipeline_variables').selectAll().where('pipeline_id', '=', withVars.id).execute();
      assert.ok(stored.every((v) => !v.encrypted_value.includes('pem-data')));

      let bad = await createPipeline(t, p.id, 'main', { variables: [{ key: 'A', value: 'b', variable_type: 'secret' }] });
      assert.equal(bad.status, 400);
      assert.deepEqual(bad.body, { error: 'variables[0][variable_type] does not have a valid value' });
      bad = await createPipeline(t, p.id, 'main', { variables: [{ value: 'b' }] });
      assert.equal(bad.status, 400);
      assert.deepEqual(bad.body, { message: { base: ["Failed to persist the pipeline: Validation failed: Variables key can't be blank"] } });
      bad = await createPipeline(t, p.id, 'main', { variables: [{ key: 'no-dash', value: 'b' }] });
      assert.equal(bad.status, 400);
      assert.deepEqual(bad.body, { message: { base: ["Failed to persist the pipeline: Validation failed: Variables key can contain only letters, digits and '_'."] } });
      // The plan's own errors come before the variables' (they are checked when saving).
      const bare = await makeCiProject(t, { 'x.txt': 'x\n' });
      bad = await createPipeline(t, bare.id, 'main', { variables: [{ value: 'b' }] });
      assert.deepEqual(bad.body, { message: { base: ['Missing CI config file'] } });
      bad = await t.request('POST', `/api/v4/projects/${p.id}/pipeline`, { body: { ref: 'main', variables: 'x' } });
      assert.equal(bad.status, 400);
      assert.deepEqual(bad.body, { error: 'variables is invalid' });
    });

    it('checks who may create: 401, 403 reporter, 404 invisible, protected refs, archived', async () => {
      const owner = await t.createUser();
      const p = await makeCiProject(t, SIMPLE_CI, { token: owner.token });
      const r401 = await createPipeline(t, p.id, 'main', { token: null });
      assert.equal(r401.status, 401);
      assert.deepEqual(r401.body, { message: '401 Unauthorized' });
      const stranger = await t.createUser();
      const r404 = await createPipeline(t, p.id, 'main', { token: stranger.token });
      assert.equal(r404.status, 404);
      assert.deepEqual(r404.body, { message: '404 Project Not Found' });
      const reporter = await t.createUser();
      await addMember(t, 'Project', p.id, reporter.id, REPORTER);
      const r403 = await createPipeline(t, p.id, 'main', { token: reporter.token });
      assert.equal(r403.status, 403);
      assert.deepEqual(r403.body, { message: '403 Forbidden' });
      const dev = await t.createUser();
      await addMember(t, 'Project', p.id, dev.id, DEVELOPER);
      const ok = await createPipeline(t, p.id, 'main', { token: dev.token });
      assert.equal(ok.status, 201, ok.text);
      assert.equal(ok.body.user.username, dev.username);
      // A branch only maintainers may push or merge to: the developer may not run pipelines there.
      const prot = await t.request('POST', `/api/v4/projects/${p.id}/protected_branches`, { token: owner.token, body: { name: 'main', push_access_level: 40, merge_access_level: 40 } });
      assert.equal(prot.status, 201, prot.text);
      const denied = await createPipeline(t, p.id, 'main', { token: dev.token });
      assert.equal(denied.status, 400);
      assert.deepEqual(denied.body, { message: { base: ["Insufficient permissions for protected ref 'main'"] } });
      const ownerOk = await createPipeline(t, p.id, 'main', { token: owner.token });
      assert.equal(ownerOk.status, 201);
      // A read-only token cannot create.
      const readOnly = await t.createUser({ scopes: ['read_api'] });
      await addMember(t, 'Project', p.id, readOnly.id, MAINTAINER);
      const scoped = await createPipeline(t, p.id, 'main', { token: readOnly.token });
      assert.equal(scoped.status, 403);
      // Archived projects are read-only.
      const arch = await t.request('POST', `/api/v4/projects/${p.id}/archive`, { token: owner.token });
      assert.equal(arch.status, 201, arch.text);
      const archived = await createPipeline(t, p.id, 'main', { token: owner.token });
      assert.equal(archived.status, 403);
    });

    it('lets readers see pipelines as visibility, roles and public_jobs allow', async () => {
      const owner = await t.createUser();
      const priv = await makeCiProject(t, SIMPLE_CI, { token: owner.token, body: { visibility: 'private' } });
      const pp = await createPipelineOk(t, priv.id, 'main', { token: owner.token });
      const stranger = await t.createUser();
      let r = await t.get(`/api/v4/projects/${priv.id}/pipelines/${pp.id}`, stranger.token);
      assert.equal(r.status, 404);
      assert.deepEqual(r.body, { message: '404 Project Not Found' });
      r = await t.get(`/api/v4/projects/${priv.id}/pipelines`, null);
      assert.equal(r.status, 404);
      const guest = await t.createUser();
      await addMember(t, 'Project', priv.id, guest.id, GUEST);
      // public_jobs is on by default: a guest sees pipelines
      r = await t.get(`/api/v4/projects/${priv.id}/pipelines`, guest.token);
      assert.equal(r.status, 200);
      const off = await t.request('PUT', `/api/v4/projects/${priv.id}`, { token: owner.token, body: { public_jobs: false } });
      assert.equal(off.status, 200, off.text);
      r = await t.get(`/api/v4/projects/${priv.id}/pipelines`, guest.token);
      assert.equal(r.status, 403);
      r = await t.get(`/api/v4/projects/${priv.id}/pipelines/${pp.id}`, guest.token);
      assert.equal(r.status, 403);
      const reporter = await t.createUser();
      await addMember(t, 'Project', priv.id, reporter.id, REPORTER);
      r = await t.get(`/api/v4/projects/${priv.id}/pipelines`, reporter.token);
      assert.equal(r.status, 200);
      assert.equal(r.body.length, 1);

      const pub = await makeCiProject(t, SIMPLE_CI, { token: owner.token, body: { visibility: 'public' } });
      const pubPipe = await createPipelineOk(t, pub.id, 'main', { token: owner.token });
      r = await t.get(`/api/v4/projects/${pub.id}/pipelines`, null);
      assert.equal(r.status, 200);
      assert.equal(r.body[0].id, pubPipe.id);
      r = await t.get(`/api/v4/projects/${pub.id}/pipelines/${pubPipe.id}`, null);
      assert.equal(r.status, 200);
      assert.equal(r.body.user.username, owner.username);
      await t.request('PUT', `/api/v4/projects/${pub.id}`, { token: owner.token, body: { public_jobs: false } });
      // Without public jobs, anonymous readers still see a public project's pipeline but not the list (it needs read_build).
      r = await t.get(`/api/v4/projects/${pub.id}/pipelines/${pubPipe.id}`, null);
      assert.equal(r.status, 200);
      r = await t.get(`/api/v4/projects/${pub.id}/pipelines`, null);
      assert.equal(r.status, 403);
      // CI turned off: nobody reads it.
      const disable = await t.request('PUT', `/api/v4/projects/${pub.id}`, { token: owner.token, body: { jobs_enabled: false } });
      assert.equal(disable.status, 200, disable.text);
      r = await t.get(`/api/v4/projects/${pub.id}/pipelines/${pubPipe.id}`, owner.token);
      assert.equal(r.status, 403);
    });

    it('lists pipelines in the list shape, filtered and ordered', async () => {
      const alice = await t.createUser();
      const p = await makeCiProject(t, SIMPLE_CI);
      await addMember(t, 'Project', p.id, alice.id, DEVELOPER);
      await putFiles(t, p.id, { 'other.txt': 'x\n' }, { branch: 'feature', startBranch: 'main' });
      const a = await createPipelineOk(t, p.id); // will succeed
      const b = await createPipelineOk(t, p.id, 'feature', { token: alice.token }); // stays pending
      const c = await createPipelineOk(t, p.id); // canceled
      await runPending(t, a.id, 'success');
      const cancel = await t.request('POST', `/api/v4/projects/${p.id}/pipelines/${c.id}/cancel`);
      assert.equal(cancel.status, 200);

      let r = await t.get(`/api/v4/projects/${p.id}/pipelines`);
      assert.equal(r.status, 200);
      assert.equal(r.headers['x-total'], '3');
      assert.deepEqual(r.body.map((x: any) => x.id), [c.id, b.id, a.id]);
      for (const x of r.body) assert.deepEqual(keysOf(x), PIPELINE_BASIC_KEYS);
      assert.deepEqual(Object.keys(r.body[0]), ['id', 'iid', 'project_id', 'sha', 'ref', 'status', 'source', 'created_at', 'updated_at', 'web_url']);
      assert.deepEqual(r.body.map((x: any) => x.status), ['canceled', 'pending', 'success']);

      const ids = async (q: string) => (await listPipelines(t, p.id, q)).map((x: any) => x.id);
      assert.deepEqual(await ids('sort=asc'), [a.id, b.id, c.id]);
      assert.deepEqual(await ids('status=pending'), [b.id]);
      assert.deepEqual(await ids('scope=pending'), [b.id]);
      assert.deepEqual(await ids('scope=running'), []);
      assert.deepEqual(await ids('scope=finished'), [c.id, a.id]);
      assert.deepEqual(await ids('scope=finished&status=success'), [a.id]);
      assert.deepEqual(await ids('scope=branches'), [c.id, b.id]); // the latest of each branch
      assert.deepEqual(await ids('scope=tags'), []);
      assert.deepEqual(await ids('ref=feature'), [b.id]);
      assert.deepEqual(await ids(`sha=${p.sha}`), [c.id, a.id]);
      assert.deepEqual(await ids('source=api'), [c.id, b.id, a.id]);
      assert.deepEqual(await ids('source=push'), []);
      assert.deepEqual(await ids('yaml_errors=true'), []);
      assert.deepEqual(await ids('yaml_errors=false'), [c.id, b.id, a.id]);
      assert.deepEqual(await ids(`username=${alice.username}`), [b.id]);
      assert.deepEqual(await ids('username=nobody-at-all'), []);
      assert.deepEqual(await ids('order_by=ref&sort=asc'), [b.id, a.id, c.id]); // feature < main, then id
      assert.deepEqual(await ids('order_by=status&sort=asc'), [c.id, b.id, a.id]); // canceled < pending < success
      assert.deepEqual(await ids('order_by=user_id&sort=desc'), [b.id, c.id, a.id]); // alice's id is above root's
      const rows = await Promise.all([a, b, c].map((x) => pipelineRow(t, x.id)));
      const byUpdated = [...rows].sort((x, y) => (x!.updated_at < y!.updated_at ? -1 : x!.updated_at > y!.updated_at ? 1 : x!.id - y!.id)).map((x) => x!.id);
      assert.deepEqual(await ids('order_by=updated_at&sort=asc'), byUpdated);
      const newest = rows.map((x) => x!.updated_at).sort().at(-1)!;
      assert.deepEqual(await ids(`updated_after=${encodeURIComponent(newest)}`), []);
      assert.deepEqual(await ids(`updated_before=${encodeURIComponent(new Date(Date.parse(newest) + 1000).toISOString())}`), [c.id, b.id, a.id]);
      assert.deepEqual(await ids('updated_after=2000-01-01T00:00:00Z'), [c.id, b.id, a.id]);

      r = await t.get(`/api/v4/projects/${p.id}/pipelines?per_page=2`);
      assert.equal(r.body.length, 2);
      assert.equal(r.headers['x-total-pages'], '2');
      assert.equal(r.headers['x-next-page'], '2');

      for (const [q, error] of [
        ['scope=everything', 'scope does not have a valid value'],
        ['status=bogus', 'status does not have a valid value'],
        ['source=nowhere', 'source does not have a valid value'],
        ['order_by=name', 'order_by does not have a valid value'],
        ['sort=up', 'sort does not have a valid value'],
        ['yaml_errors=maybe', 'yaml_errors is invalid'],
        ['updated_after=yesterday', 'updated_after is invalid'],
      ]) {
        r = await t.get(`/api/v4/projects/${p.id}/pipelines?${q}`);
        assert.equal(r.status, 400, q);
        assert.deepEqual(r.body, { error }, q);
      }
    });

    it('cancels (200) and retries (201) a pipeline; developers may, reporters may not', async () => {
      const p = await makeCiProject(t);
      const dev = await t.createUser();
      const reporter = await t.createUser();
      await addMember(t, 'Project', p.id, dev.id, DEVELOPER);
      await addMember(t, 'Project', p.id, reporter.id, REPORTER);
      const made = await createPipelineOk(t, p.id);
      let r = await t.request('POST', `/api/v4/projects/${p.id}/pipelines/${made.id}/cancel`, { token: reporter.token });
      assert.equal(r.status, 403);
      r = await t.request('POST', `/api/v4/projects/${p.id}/pipelines/${made.id}/cancel`, { token: null });
      assert.equal(r.status, 401);
      r = await t.request('POST', `/api/v4/projects/${p.id}/pipelines/${made.id}/cancel`, { token: dev.token });
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(keysOf(r.body), PIPELINE_KEYS);
      assert.equal(r.body.status, 'canceled');
      assert.match(r.body.finished_at, ISO_MS);
      const before = await jobRows(t, made.id);
      assert.equal(before[0]!.status, 'canceled');
      // The later stage's job is canceled too, not skipped.
      assert.equal(before[1]!.status, 'canceled');

      r = await t.request('POST', `/api/v4/projects/${p.id}/pipelines/${made.id}/retry`, { token: reporter.token });
      assert.equal(r.status, 403);
      r = await t.request('POST', `/api/v4/projects/${p.id}/pipelines/${made.id}/retry`, { token: dev.token });
      assert.equal(r.status, 201, r.text);
      assert.deepEqual(keysOf(r.body), PIPELINE_KEYS);
      assert.equal(r.body.status, 'pending');
      assert.equal(r.body.finished_at, null);
      const afterRetry = await jobRows(t, made.id);
      assert.equal(afterRetry.length, 2);
      const build = afterRetry.find((j) => j.name === 'build-job')!;
      assert.ok(!before.some((o) => o.id === build.id), 'a retried job is a new job');
      assert.equal(build.status, 'pending');
      assert.equal(afterRetry.find((j) => j.name === 'test-job')!.status, 'created');
      const all = await jobRows(t, made.id, { includeRetried: true });
      assert.ok(all.some((j) => j.retried === 1 && j.id === before[0]!.id), 'the canceled job is marked retried');

      r = await t.request('POST', `/api/v4/projects/${p.id}/pipelines/424242/retry`);
      assert.equal(r.status, 404);
      r = await t.request('POST', `/api/v4/projects/${p.id}/pipelines/424242/cancel`);
      assert.equal(r.status, 404);
    });

    it('runs to success and failure with times, and failed jobs retry', async () => {
      const p = await makeCiProject(t);
      const ok = await createPipelineOk(t, p.id);
      await runPending(t, ok.id, 'success');
      let r = await t.get(`/api/v4/projects/${p.id}/pipelines/${ok.id}`);
      assert.equal(r.body.status, 'success');
      assert.match(r.body.started_at, ISO_MS);
      assert.match(r.body.finished_at, ISO_MS);
      assert.equal(typeof r.body.duration, 'number');
      assert.equal(typeof r.body.queued_duration, 'number');

      const bad = await createPipelineOk(t, p.id);
      await runPending(t, bad.id, 'failed');
      r = await t.get(`/api/v4/projects/${p.id}/pipelines/${bad.id}`);
      assert.equal(r.body.status, 'failed');
      assert.deepEqual((await jobRows(t, bad.id)).map((j) => j.status), ['failed', 'skipped']);
      r = await t.request('POST', `/api/v4/projects/${p.id}/pipelines/${bad.id}/retry`);
      assert.equal(r.status, 201);
      assert.equal(r.body.status, 'pending');
      // id order: the skipped test job waits again, the new build job is pending
      assert.deepEqual((await jobRows(t, bad.id)).map((j) => [j.name, j.status]), [['test-job', 'created'], ['build-job', 'pending']]);
      await runPending(t, bad.id, 'success');
      r = await t.get(`/api/v4/projects/${p.id}/pipelines/${bad.id}`);
      assert.equal(r.body.status, 'success');
    });

    it('deletes a pipeline (owners: destroy_pipeline; 204) with its jobs and artifacts', async () => {
      const p = await makeCiProject(t);
      const dev = await t.createUser();
      const maintainer = await t.createUser();
      const maint = await t.createUser();
      await addMember(t, 'Project', p.id, dev.id, DEVELOPER);
      await addMember(t, 'Project', p.id, maintainer.id, MAINTAINER);
      await addMember(t, 'Project', p.id, maint.id, OWNER);
      const made = await createPipelineOk(t, p.id);
      const [job] = await jobRows(t, made.id);
      const art = await storeArtifact(t.c, job!, { fileType: 'junit', filename: 'junit.xml.gz', body: zlib.gzipSync('<testsuite/>'), expireAt: null });
      assert.ok(await t.c.storage.stat(art.blob_key));
      let r = await t.request('DELETE', `/api/v4/projects/${p.id}/pipelines/${made.id}`, { token: dev.token });
      assert.equal(r.status, 403);
      r = await t.request('DELETE', `/api/v4/projects/${p.id}/pipelines/${made.id}`, { token: null });
      assert.equal(r.status, 401);
      r = await t.request('DELETE', `/api/v4/projects/${p.id}/pipelines/${made.id}`, { token: maintainer.token });
      assert.equal(r.status, 403);
      assert.deepEqual(r.body, { message: '403 Forbidden' });
      r = await t.request('DELETE', `/api/v4/projects/${p.id}/pipelines/${made.id}`, { token: maint.token });
      assert.equal(r.status, 204);
      assert.equal(r.text, '');
      r = await t.get(`/api/v4/projects/${p.id}/pipelines/${made.id}`);
      assert.equal(r.status, 404);
      assert.deepEqual(await jobRows(t, made.id, { includeRetried: true }), []);
      assert.equal(await t.c.storage.stat(art.blob_key), null);
      r = await t.request('DELETE', `/api/v4/projects/${p.id}/pipelines/${made.id}`, { token: maint.token });
      assert.equal(r.status, 404);
    });

    it('shows pipeline variables to maintainers and to the developer who ran it only', async () => {
      const p = await makeCiProject(t);
      const dev = await t.createUser();
      const otherDev = await t.createUser();
      const reporter = await t.createUser();
      for (const [u, l] of [[dev, DEVELOPER], [otherDev, DEVELOPER], [reporter, REPORTER]] as const) await addMember(t, 'Project', p.id, u.id, l);
      const made = await createPipelineOk(t, p.id, 'main', { token: dev.token, variables: [{ key: 'K', value: 'v' }] });
      let r = await t.get(`/api/v4/projects/${p.id}/pipelines/${made.id}/variables`, dev.token);
      assert.equal(r.status, 200);
      assert.deepEqual(r.body, [{ variable_type: 'env_var', key: 'K', value: 'v' }]);
      r = await t.get(`/api/v4/projects/${p.id}/pipelines/${made.id}/variables`, otherDev.token);
      assert.equal(r.status, 403);
      r = await t.get(`/api/v4/projects/${p.id}/pipelines/${made.id}/variables`, reporter.token);
      assert.equal(r.status, 403);
      r = await t.get(`/api/v4/projects/${p.id}/pipelines/${made.id}/variables`, t.rootToken);
      assert.equal(r.status, 200);
    });

    it('builds the test report and summary from junit artifacts of current jobs', async () => {
      const ci = `stages: [test]\nunit:\n  stage: test\n  script: echo\n  parallel: 2\nlint:\n  stage: test\n  script: echo\n`;
      const p = await makeCiProject(t, ci);
      const made = await createPipelineOk(t, p.id);
      let r = await t.get(`/api/v4/projects/${p.id}/pipelines/${made.id}/test_report`);
      assert.equal(r.status, 200);
      assert.deepEqual(r.body, { total_time: 0, total_count: 0, success_count: 0, failed_count: 0, skipped_count: 0, error_count: 0, test_suites: [] });
      r = await t.get(`/api/v4/projects/${p.id}/pipelines/${made.id}/test_report_summary`);
      assert.equal(r.status, 200);
      assert.deepEqual(r.body, { total: { time: 0, count: 0, success: 0, failed: 0, skipped: 0, error: 0, suite_error: null }, test_suites: [] });

      const jobs = await jobRows(t, made.id);
      const unit1 = jobs.find((j) => j.name === 'unit 1/2')!;
      const unit2 = jobs.find((j) => j.name === 'unit 2/2')!;
      const lint = jobs.find((j) => j.name === 'lint')!;
      const xml1 = `<testsuite name="a"><testcase classname="A" name="ok" time="1.5"/><testcase classname="A" name="bad" time="0.5"><failure>boom</failure></testcase></testsuite>`;
      const xml2 = `<testsuites><testsuite name="b"><testcase classname="B" name="skip"><skipped/></testcase></testsuite></testsuites>`;
      await storeArtifact(t.c, unit1, { fileType: 'junit', filename: 'junit.xml.gz', body: zlib.gzipSync(xml1), expireAt: null });
      await storeArtifact(t.c, unit2, { fileType: 'junit', filename: 'junit.xml.gz', body: zlib.gzipSync(xml2), expireAt: null });
      await storeArtifact(t.c, lint, { fileType: 'junit', filename: 'junit.xml.gz', body: zlib.gzipSync('not xml <'), expireAt: null });

      r = await t.get(`/api/v4/projects/${p.id}/pipelines/${made.id}/test_report`);
      assert.equal(r.status, 200);
      const rep = r.body;
      assert.deepEqual(keysOf(rep), ['error_count', 'failed_count', 'skipped_count', 'success_count', 'test_suites', 'total_count', 'total_time']);
      assert.equal(rep.total_count, 3);
      assert.equal(rep.success_count, 1);
      assert.equal(rep.failed_count, 1);
      assert.equal(rep.skipped_count, 1);
      assert.equal(rep.total_time, 2);
      assert.deepEqual(rep.test_suites.map((s: any) => s.name), ['unit', 'lint']);
      const unit = rep.test_suites[0];
      assert.deepEqual(keysOf(unit), ['error_count', 'failed_count', 'name', 'skipped_count', 'success_count', 'test_cases', 'total_count', 'total_time']);
      assert.equal(unit.total_count, 3);
      assert.deepEqual(keysOf(unit.test_cases[0]), ['classname', 'execution_time', 'name', 'stack_trace', 'status', 'system_output']);
      assert.deepEqual(unit.test_cases.map((tc: any) => [tc.status, tc.name]), [['failed', 'bad'], ['success', 'ok'], ['skipped', 'skip']]);
      const lintSuite = rep.test_suites[1];
      assert.match(lintSuite.suite_error, /^JUnit XML parsing failed/);
      assert.equal(lintSuite.total_count, 0);

      r = await t.get(`/api/v4/projects/${p.id}/pipelines/${made.id}/test_report_summary`);
      assert.equal(r.status, 200);
      assert.deepEqual(r.body.total, { time: 2, count: 3, success: 1, failed: 1, skipped: 1, error: 0, suite_error: r.body.total.suite_error });
      assert.match(r.body.total.suite_error, /^JUnit XML parsing failed/);
      assert.deepEqual(r.body.test_suites.map((s: any) => [s.name, s.total_count, s.build_ids]), [['unit', 3, [unit1.id, unit2.id]], ['lint', 0, [lint.id]]]);
      assert.deepEqual(keysOf(r.body.test_suites[0]), ['build_ids', 'error_count', 'failed_count', 'name', 'skipped_count', 'success_count', 'suite_error', 'total_count', 'total_time']);

      // Test reports need read_build: a guest without public jobs gets 403.
      const guest = await t.createUser();
      await addMember(t, 'Project', p.id, guest.id, GUEST);
      await t.request('PUT', `/api/v4/projects/${p.id}`, { body: { public_jobs: false } });
      r = await t.get(`/api/v4/projects/${p.id}/pipelines/${made.id}/test_report`, guest.token);
      assert.equal(r.status, 403);
      r = await t.get(`/api/v4/projects/${p.id}/pipelines/999999/test_report_summary`);
      assert.equal(r.status, 404);
    });
  });
}
