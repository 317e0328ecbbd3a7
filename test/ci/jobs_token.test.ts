// CI job tokens: GET /job and /job/allowed_agents through the JOB-TOKEN header, the job_token
// parameter and Authorization: Bearer, valid only while the job runs and nowhere else; and the
// runner's git clone with user `service-ci-token` (real git over HTTP).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { findProjectById, type ProjectRow } from '../../src/db/repos/projects.js';
import { finishJob, startJob } from '../../src/domain/ci/state.js';
import { DIALECTS, keysOf } from '../helpers/build.js';
import { USER_BASIC_KEYS } from '../helpers/keys.js';
import { buildGitTestApp, clone, cloneUrl, commitFiles, runGit, type GitTestApp } from '../helpers/git.js';
import { addMember, makeProject } from '../helpers/projects.js';
import { JOB_KEYS, plannedJob, seedPipeline } from './jobs_fixtures.js';

const PROJECT_IDENTITY_KEYS = ['created_at', 'description', 'id', 'name', 'name_with_namespace', 'path', 'path_with_namespace'];

for (const dialect of DIALECTS) {
  describe(`CI job tokens (${dialect})`, () => {
    let t: GitTestApp;
    let dev: { id: number; username: string; token: string };

    before(async () => {
      t = await buildGitTestApp(dialect);
      dev = await t.createUser({ name: 'Dev Eloper' });
    });
    after(async () => t.close());

    async function project(body: Record<string, unknown> = {}): Promise<{ api: any; row: ProjectRow }> {
      const api = await makeProject(t, t.rootToken, { name: `p${Math.random().toString(36).slice(2, 8)}`, initialize_with_readme: true, ...body });
      await addMember(t, 'Project', api.id, dev.id, 30);
      return { api, row: (await findProjectById(t.c.db, api.id))! };
    }

    /** A running job of dev's in a fresh project, with its token. */
    async function runningJob(body: Record<string, unknown> = {}) {
      const p = await project(body);
      const pipeline = await seedPipeline(t, p.row, [plannedJob('build', { stage: 'build', stageIdx: 1 })], { userId: dev.id });
      const job = (await t.c.db.selectFrom('ci_jobs').selectAll().where('pipeline_id', '=', pipeline.id).executeTakeFirstOrThrow());
      const started = await startJob(t.c, job.id);
      assert.ok(started);
      return { ...p, pipeline, job: started.job, token: started.token };
    }

    it('GET /job answers the running job for all three ways of sending the token', async () => {
      const { api, job, token, pipeline } = await runningJob();
      assert.match(token, /^anvcbt-/);
      const stored = await t.c.db.selectFrom('ci_jobs').select('token_digest').where('id', '=', job.id).executeTakeFirstOrThrow();
      assert.notEqual(stored.token_digest, token);
      assert.match(stored.token_digest!, /^[0-9a-f]{64}$/);

      const viaHeader = await t.request('GET', '/api/v4/job', { token: null, headers: { 'job-token': token } });
      assert.equal(viaHeader.status, 200, viaHeader.text);
      assert.deepEqual(keysOf(viaHeader.body), JOB_KEYS);
      assert.equal(viaHeader.body.id, job.id);
      assert.equal(viaHeader.body.status, 'running');
      assert.equal(viaHeader.body.pipeline.id, pipeline.id);
      assert.equal(viaHeader.body.user.id, dev.id);
      assert.equal(viaHeader.body.web_url, `${t.url}/${api.path_with_namespace}/-/jobs/${job.id}`);
      const viaQuery = await t.request('GET', `/api/v4/job?job_token=${encodeURIComponent(token)}`, { token: null });
      assert.equal(viaQuery.status, 200, viaQuery.text);
      assert.equal(viaQuery.body.id, job.id);
      const viaBearer = await t.request('GET', '/api/v4/job', { token: null, headers: { authorization: `Bearer ${token}` } });
      assert.equal(viaBearer.status, 200, viaBearer.text);
      assert.equal(viaBearer.body.id, job.id);
    });

    it('GET /job: 401 without a valid running job token, 404 Job for other credentials', async () => {
      const { job, token } = await runningJob();
      const none = await t.request('GET', '/api/v4/job', { token: null });
      assert.deepEqual([none.status, none.body], [401, { message: '401 Unauthorized' }]);
      const wrong = await t.request('GET', '/api/v4/job', { token: null, headers: { 'job-token': 'anvcbt-nope' } });
      assert.deepEqual([wrong.status, wrong.body], [401, { message: '401 Unauthorized' }]);
      const wrongBearer = await t.request('GET', '/api/v4/job', { token: null, headers: { authorization: 'Bearer not-a-token' } });
      assert.equal(wrongBearer.status, 401);
      const pat = await t.request('GET', '/api/v4/job', { token: dev.token });
      assert.deepEqual([pat.status, pat.body], [404, { message: '404 Job Not Found' }]);

      await finishJob(t.c, job.id, { status: 'success', exitCode: 0 });
      for (const headers of [{ 'job-token': token }, { authorization: `Bearer ${token}` }] as Record<string, string>[]) {
        const after = await t.request('GET', '/api/v4/job', { token: null, headers });
        assert.deepEqual([after.status, after.body], [401, { message: '401 Unauthorized' }]);
      }
      const afterQuery = await t.request('GET', `/api/v4/job?job_token=${encodeURIComponent(token)}`, { token: null });
      assert.equal(afterQuery.status, 401);
    });

    it('a job token is refused (401) on every other endpoint', async () => {
      const { api, token } = await runningJob({ visibility: 'public' });
      for (const url of [`/api/v4/projects/${api.id}`, `/api/v4/projects/${api.id}/jobs`, '/api/v4/user', '/api/v4/projects']) {
        for (const headers of [{ 'job-token': token }, { authorization: `Bearer ${token}` }] as Record<string, string>[]) {
          const r = await t.request('GET', url, { token: null, headers });
          assert.deepEqual([r.status, r.body], [401, { message: '401 Unauthorized' }], `${url} ${Object.keys(headers)[0]}`);
        }
        const q = await t.request('GET', `${url}?job_token=${encodeURIComponent(token)}`, { token: null });
        assert.equal(q.status, 401, url);
      }
      // The same public list without any credential is readable: the token is what is refused.
      assert.equal((await t.request('GET', `/api/v4/projects/${api.id}`, { token: null })).status, 200);
    });

    it('GET /job/allowed_agents: no agents, with the job, pipeline, project and user', async () => {
      const { api, job, token, pipeline } = await runningJob();
      const r = await t.request('GET', '/api/v4/job/allowed_agents', { token: null, headers: { 'job-token': token } });
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(keysOf(r.body), ['allowed_agents', 'job', 'pipeline', 'project', 'user']);
      assert.deepEqual(r.body.allowed_agents, []);
      assert.deepEqual(r.body.job, { id: job.id, name: 'build', stage: 'build', project_id: api.id, project_name: api.name });
      assert.deepEqual(keysOf(r.body.pipeline), ['created_at', 'id', 'project_id', 'ref', 'sha', 'status', 'updated_at', 'web_url']);
      assert.equal(r.body.pipeline.id, pipeline.id);
      assert.equal(r.body.pipeline.status, 'running');
      assert.equal(r.body.pipeline.web_url, `${t.url}/${api.path_with_namespace}/-/pipelines/${pipeline.id}`);
      assert.deepEqual(keysOf(r.body.project), PROJECT_IDENTITY_KEYS);
      assert.equal(r.body.project.id, api.id);
      assert.equal(r.body.project.path_with_namespace, api.path_with_namespace);
      assert.equal(r.body.project.name_with_namespace, api.name_with_namespace);
      assert.deepEqual(keysOf(r.body.user), USER_BASIC_KEYS);
      assert.deepEqual(r.body.user, { id: dev.id, username: dev.username, name: 'Dev Eloper', state: 'active', avatar_url: null, web_url: `${t.url}/${dev.username}` });

      const bearer = await t.request('GET', '/api/v4/job/allowed_agents', { token: null, headers: { authorization: `Bearer ${token}` } });
      assert.equal(bearer.status, 200);
      assert.equal((await t.request('GET', '/api/v4/job/allowed_agents', { token: null })).status, 401);
      const pat = await t.request('GET', '/api/v4/job/allowed_agents', { token: dev.token });
      assert.deepEqual([pat.status, pat.body], [404, { message: '404 Job Not Found' }]);
      await finishJob(t.c, job.id, { status: 'failed', exitCode: 2 });
      assert.equal((await t.request('GET', '/api/v4/job/allowed_agents', { token: null, headers: { 'job-token': token } })).status, 401);
    });

    it("clones the job's project over git with user service-ci-token while the job runs, and nothing more", async () => {
      const { api, job, token } = await runningJob();
      const other = await project();
      const ok = await clone(t, cloneUrl(api.http_url_to_repo, token, 'service-ci-token'));
      assert.equal(ok.code, 0, ok.stderr);

      const elsewhere = await clone(t, cloneUrl(other.api.http_url_to_repo, token, 'service-ci-token'));
      assert.notEqual(elsewhere.code, 0);
      assert.match(elsewhere.stderr, /could not be found/);

      await commitFiles(t, ok.dir, { 'x.txt': 'x\n' });
      const push = await runGit(t, ['push', 'origin', 'HEAD:refs/heads/from-ci'], { cwd: ok.dir });
      assert.notEqual(push.code, 0);
      assert.match(push.stderr, /You are not allowed to upload code/);

      const wrong = await clone(t, cloneUrl(api.http_url_to_repo, 'anvcbt-wrong', 'service-ci-token'));
      assert.notEqual(wrong.code, 0);
      await finishJob(t.c, job.id, { status: 'success', exitCode: 0 });
      const late = await clone(t, cloneUrl(api.http_url_to_repo, token, 'service-ci-token'));
      assert.notEqual(late.code, 0);
      assert.match(late.stderr, /Authentication failed|Access denied|401/);
    });
  });
}
