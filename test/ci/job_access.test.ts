// Issue 37, item 4: the jobs API asks for a sign-in (the reference's jobs API authenticates before
// its routes: 401 for a project's jobs, a job and its log, whatever the project), while a
// pipeline's jobs and the web's pages stay public where the project's jobs are; and a job's token
// does nothing once its job was canceled or finished — no artifacts upload (403 Job is not
// running), no API call (401), no git clone — driven by a runner client over real HTTP and git.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../helpers/build.js';
import { buildGitTestApp, clone, cloneUrl, type GitTestApp } from '../helpers/git.js';
import { plannedJob } from '../helpers/ci.js';
import { jobsOf, makePipeline, repoProject, type RepoProject } from './runner_fixtures.js';
import { TestRunnerClient } from '../helpers/runner_client.js';
import { storedZip } from '../helpers/zip.js';

const REG_TOKEN = 'instance-registration-token-0137';

for (const dialect of DIALECTS) {
  describe(`job access (${dialect})`, () => {
    let t: GitTestApp;
    let rp: RepoProject;
    let project: any;
    /** A private project: a clone there needs a credential (a public one clones without any). */
    let closed: RepoProject;
    let closedUrl: string;
    before(async () => {
      t = await buildGitTestApp(dialect, { ANVIL_RUNNER_REGISTRATION_TOKEN: REG_TOKEN, ANVIL_RUNNER_LONG_POLL_SECONDS: '1' });
      rp = await repoProject(t);
      const put = await t.request('PUT', `/api/v4/projects/${rp.project.id}`, { body: { visibility: 'public', public_jobs: true } });
      assert.equal(put.status, 200, put.text);
      project = put.body;
      closed = await repoProject(t);
      closedUrl = (await t.get(`/api/v4/projects/${closed.project.id}`)).body.http_url_to_repo;
      assert.notEqual((await clone(t, closedUrl)).code, 0, 'no clone without a credential');
    });
    after(() => t.close());

    it("a project's jobs, a job and its log: 401 without a token (public project, private one, unknown one); pipeline jobs and web pages stay public", async () => {
      const p = await makePipeline(t, rp, [plannedJob('build', { tags: ['nobody'] })], { userId: 1 });
      const job = (await jobsOf(t, p.id)).build!;
      const priv = await t.request('POST', '/api/v4/projects', { body: { name: `private-${dialect}`, visibility: 'private' } });
      const outsider = await t.createUser();
      for (const projectId of [rp.project.id, priv.body.id, 999_999]) {
        for (const path of ['jobs', `jobs/${job.id}`, `jobs/${job.id}/trace`, `jobs/${job.id}/trace_times`]) {
          const r = await t.get(`/api/v4/projects/${projectId}/${path}`, null);
          assert.deepEqual([r.status, r.body], [401, { message: '401 Unauthorized' }], `${projectId}/${path}`);
        }
      }
      // Signed in, a non-member reads a public project's jobs (public_jobs).
      assert.equal((await t.get(`/api/v4/projects/${rp.project.id}/jobs`, outsider.token)).status, 200);
      assert.equal((await t.get(`/api/v4/projects/${rp.project.id}/jobs/${job.id}`, outsider.token)).status, 200);
      // A pipeline's jobs answer without a token, as the reference's pipelines API does.
      const pipelineJobs = await t.get(`/api/v4/projects/${rp.project.id}/pipelines/${p.id}/jobs`, null);
      assert.equal(pipelineJobs.status, 200);
      assert.deepEqual(pipelineJobs.body.map((j: any) => j.id), [job.id]);
      // The web shows a public project's jobs to anyone, as the reference's pages do.
      const page = await t.request('GET', `/${project.path_with_namespace}/-/jobs/${job.id}`, { token: null });
      assert.equal(page.status, 200);
      assert.match(page.text, /Job build/);
      // Its live tail reads the page's trace.json, as the visitor.
      const live = await t.request('GET', `/${project.path_with_namespace}/-/jobs/${job.id}/trace.json`, { token: null });
      assert.equal(live.status, 200, live.text);
      assert.deepEqual(Object.keys(live.body).sort(), ['job', 'times', 'trace']);
      assert.equal(live.body.job.id, job.id);
      const list = await t.request('GET', `/${project.path_with_namespace}/-/jobs`, { token: null });
      assert.equal(list.status, 200);
      assert.match(list.text, new RegExp(`data-job-id="${job.id}"`));
      // Not on a private project.
      const hidden = await t.request('GET', `/${priv.body.path_with_namespace}/-/jobs`, { token: null });
      assert.notEqual(hidden.status, 200);
      const otherJob = await t.request('GET', `/${priv.body.path_with_namespace}/-/jobs/${job.id}/trace.json`, { token: null });
      assert.notEqual(otherJob.status, 200);
      await t.request('POST', `/api/v4/projects/${rp.project.id}/jobs/${job.id}/cancel`);
    });

    /** A job taken by a registered runner, its token working: the API, a clone and an artifacts upload. */
    async function runningJob(runner: TestRunnerClient, name: string): Promise<{ id: number; token: string }> {
      await makePipeline(t, closed, [plannedJob(name, { tags: ['ends'], script: ['true'] })], { userId: 1 });
      const payload = await runner.nextJob();
      const me = await t.request('GET', '/api/v4/job', { token: null, headers: { 'job-token': payload.token } });
      assert.equal(me.status, 200, me.text);
      assert.equal(me.body.id, payload.id);
      const cloned = await clone(t, cloneUrl(closedUrl, payload.token, 'gitlab-ci-token'));
      assert.equal(cloned.code, 0, cloned.stderr);
      const up = await runner.uploadArtifact(payload.id, payload.token, storedZip([{ name: 'a.txt', data: 'a' }]), { filename: 'a.zip', type: 'archive', format: 'zip' });
      assert.equal(up.status, 201, up.text);
      return { id: payload.id, token: payload.token };
    }

    async function tokenDoesNothing(runner: TestRunnerClient, job: { id: number; token: string }, status: string): Promise<void> {
      const up = await runner.uploadArtifact(job.id, job.token, storedZip([{ name: 'late.txt', data: 'late' }]), { filename: 'late.zip', type: 'archive', format: 'zip' });
      assert.equal(up.status, 403, up.text);
      assert.equal(up.headers.get('job-status'), status);
      const me = await t.request('GET', '/api/v4/job', { token: null, headers: { 'job-token': job.token } });
      assert.deepEqual([me.status, me.body], [401, { message: '401 Unauthorized' }]);
      const asParam = await t.get(`/api/v4/job?job_token=${job.token}`, null);
      assert.equal(asParam.status, 401);
      const cloned = await clone(t, cloneUrl(closedUrl, job.token, 'gitlab-ci-token'));
      assert.notEqual(cloned.code, 0, 'the clone is refused');
      const row = await t.c.db.selectFrom('ci_job_artifacts').select('filename').where('job_id', '=', job.id).execute();
      assert.ok(!row.some((r) => r.filename === 'late.zip'), 'nothing was stored');
    }

    it("a canceled job's token: no artifacts upload, no API call, no clone", async () => {
      const runner = new TestRunnerClient(t.url);
      assert.equal((await runner.register(REG_TOKEN, { tags: ['ends'] })).status, 201);
      const job = await runningJob(runner, 'to-cancel');
      const cancel = await t.request('POST', `/api/v4/projects/${closed.project.id}/jobs/${job.id}/cancel`);
      assert.equal(cancel.status, 201);
      await tokenDoesNothing(runner, job, 'canceled');
      // The runner still reports the end of the canceled job (its log), and then its token is gone.
      const fin = await runner.updateJob(job.id, job.token, { state: 'failed', failureReason: 'script_failure' });
      assert.equal(fin.status, 200);
      assert.equal((await runner.updateJob(job.id, job.token, { state: 'failed' })).status, 403);
      await runner.unregister();
    });

    it("a finished job's token: no artifacts upload, no API call, no clone", async () => {
      const runner = new TestRunnerClient(t.url);
      assert.equal((await runner.register(REG_TOKEN, { tags: ['ends'] })).status, 201);
      const job = await runningJob(runner, 'to-finish');
      const fin = await runner.updateJob(job.id, job.token, { state: 'success' });
      assert.equal(fin.status, 200);
      assert.equal((await t.get(`/api/v4/projects/${closed.project.id}/jobs/${job.id}`)).body.status, 'success');
      const up = await runner.uploadArtifact(job.id, job.token, storedZip([{ name: 'late.txt', data: 'late' }]), { filename: 'late.zip', type: 'archive', format: 'zip' });
      assert.equal(up.status, 403, 'the token is gone: 403 as for any unknown job token');
      const me = await t.request('GET', '/api/v4/job', { token: null, headers: { 'job-token': job.token } });
      assert.equal(me.status, 401);
      const cloned = await clone(t, cloneUrl(closedUrl, job.token, 'gitlab-ci-token'));
      assert.notEqual(cloned.code, 0);
      await runner.unregister();
    });
  });
}
