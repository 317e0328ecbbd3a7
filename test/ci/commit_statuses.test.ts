// Commit statuses: an external system's report joins the commit's pipeline (or makes one, source
// `external`) as a job of stage `external`; the pipeline's status follows; the list shows every
// job of the commit's pipelines with its filters; the reference's transitions and refusals.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, DIALECTS, keysOf, type TestApp } from '../helpers/build.js';
import { addMember, makeProject } from '../helpers/projects.js';
import { makeCiProject } from '../helpers/ci.js';

type U = { id: number; username: string; token: string };

const STATUS_KEYS = [
  'allow_failure', 'author', 'coverage', 'created_at', 'description', 'finished_at', 'id', 'name', 'ref', 'sha', 'started_at', 'status', 'target_url',
];

for (const dialect of DIALECTS) {
  describe(`commit statuses (${dialect})`, () => {
    let t: TestApp;
    let dev: U; // a maintainer: main is protected for maintainers by default
    let developer: U;
    let reporter: U;
    let stranger: U;
    before(async () => {
      // No runner: the CI file's jobs stay pending while the statuses move.
      t = await buildTestApp(dialect, { ANVIL_RUNNER_ENABLED: 'false' });
      dev = await t.createUser();
      developer = await t.createUser();
      reporter = await t.createUser();
      stranger = await t.createUser();
    });
    after(async () => t.close());

    async function setup(): Promise<{ p: any; sha: string }> {
      const p = await makeProject(t, t.rootToken, { name: `s${Math.random().toString(36).slice(2, 8)}`, initialize_with_readme: true });
      await addMember(t, 'Project', p.id, dev.id, 40);
      await addMember(t, 'Project', p.id, developer.id, 30);
      await addMember(t, 'Project', p.id, reporter.id, 20);
      const sha = (await t.get(`/api/v4/projects/${p.id}/repository/branches/main`)).body.commit.id;
      return { p, sha };
    }
    const setStatus = (p: any, sha: string, body: Record<string, unknown>, token: string | null = dev.token) =>
      t.request('POST', `/api/v4/projects/${p.id}/statuses/${sha}`, { token, body });
    const pipelineOf = async (jobId: number) => (await t.c.db.selectFrom('ci_jobs').select(['pipeline_id', 'stage', 'type', 'retried']).where('id', '=', jobId).executeTakeFirstOrThrow());
    const pipeline = async (p: any, id: number) => (await t.get(`/api/v4/projects/${p.id}/pipelines/${id}`)).body;

    it('makes an external pipeline for a commit without one, moves the status and the pipeline with it', async () => {
      const { p, sha } = await setup();
      const pending = await setStatus(p, sha, { state: 'pending', name: 'lint', target_url: 'https://ci.example.com/1', description: 'queued' });
      assert.equal(pending.status, 201, pending.text);
      assert.deepEqual(keysOf(pending.body), STATUS_KEYS);
      assert.equal(pending.body.sha, sha);
      assert.equal(pending.body.ref, 'main');
      assert.equal(pending.body.status, 'pending');
      assert.equal(pending.body.name, 'lint');
      assert.equal(pending.body.target_url, 'https://ci.example.com/1');
      assert.equal(pending.body.description, 'queued');
      assert.equal(pending.body.allow_failure, false);
      assert.equal(pending.body.coverage, null);
      assert.equal(pending.body.started_at, null);
      assert.equal(pending.body.finished_at, null);
      assert.equal(pending.body.author.username, dev.username);
      const job = await pipelineOf(pending.body.id);
      assert.deepEqual([job.stage, job.type], ['external', 'generic']);
      let pl = await pipeline(p, job.pipeline_id);
      assert.deepEqual([pl.source, pl.status, pl.ref, pl.sha], ['external', 'pending', 'main', sha]);

      // the same name moves the same status; what the request leaves out stays
      const running = await setStatus(p, sha, { state: 'running', name: 'lint', coverage: 81.5 });
      assert.equal(running.status, 201);
      assert.equal(running.body.id, pending.body.id);
      assert.equal(running.body.status, 'running');
      assert.ok(running.body.started_at);
      assert.equal(running.body.target_url, 'https://ci.example.com/1');
      assert.equal(running.body.coverage, 81.5);
      assert.equal((await pipeline(p, job.pipeline_id)).status, 'running');
      const again = await setStatus(p, sha, { state: 'running', name: 'lint' });
      assert.equal(again.status, 400);
      assert.deepEqual(again.body, { message: 'Cannot transition status via :run from :running (Reason(s): Status cannot transition via "run")' });
      const back = await setStatus(p, sha, { state: 'pending', name: 'lint' });
      assert.deepEqual(back.body, { message: 'Cannot transition status via :enqueue from :running (Reason(s): Status cannot transition via "enqueue")' });
      const done = await setStatus(p, sha, { state: 'success', name: 'lint', description: 'all good' });
      assert.equal(done.body.id, pending.body.id);
      assert.equal(done.body.status, 'success');
      assert.ok(done.body.finished_at);
      assert.equal(done.body.description, 'all good');
      pl = await pipeline(p, job.pipeline_id);
      assert.equal(pl.status, 'success');

      // a second system (the default name, `context` as the name) joins the same pipeline; its failure fails it
      const other = await setStatus(p, sha, { state: 'failed', context: 'security' });
      assert.equal(other.body.name, 'security');
      assert.equal((await pipelineOf(other.body.id)).pipeline_id, job.pipeline_id);
      assert.equal((await pipeline(p, job.pipeline_id)).status, 'failed');
      const byDefault = await setStatus(p, sha, { state: 'success' });
      assert.equal(byDefault.body.name, 'default');

      // a finished status set again is a new one; the old one counts as retried
      const rerun = await setStatus(p, sha, { state: 'running', name: 'lint' });
      assert.notEqual(rerun.body.id, pending.body.id);
      assert.equal((await pipelineOf(pending.body.id)).retried, 1);
      const base = `/api/v4/projects/${p.id}/repository/commits/${sha}/statuses`;
      const latest = await t.get(base, reporter.token);
      assert.equal(latest.status, 200);
      assert.deepEqual(latest.body.map((s: any) => [s.name, s.status]), [['security', 'failed'], ['default', 'success'], ['lint', 'running']]);
      assert.deepEqual(keysOf(latest.body[0]), STATUS_KEYS);
      const all = await t.get(`${base}?all=true`, reporter.token);
      assert.deepEqual(all.body.map((s: any) => s.name), ['lint', 'security', 'default', 'lint']);
      assert.deepEqual((await t.get(`${base}?name=lint&all=true`, reporter.token)).body.map((s: any) => s.status), ['success', 'running']);
      assert.deepEqual((await t.get(`${base}?ref=other`, reporter.token)).body, []);
      assert.equal((await t.get(`${base}?per_page=1`, reporter.token)).headers['x-total'], '3');
    });

    it("joins the commit's CI pipeline as a job of stage external, and lists its jobs too", async () => {
      const { id, sha, project } = await makeCiProject(t);
      await addMember(t, 'Project', id, dev.id, 40);
      const created = await t.request('POST', `/api/v4/projects/${id}/pipeline`, { body: { ref: 'main' } });
      assert.equal(created.status, 201, created.text);
      const st = await setStatus(project, sha, { state: 'success', name: 'external-check', ref: 'main' });
      assert.equal(st.status, 201, st.text);
      assert.equal((await pipelineOf(st.body.id)).pipeline_id, created.body.id);
      const list = await t.get(`/api/v4/projects/${id}/repository/commits/${sha}/statuses`, dev.token);
      assert.deepEqual(list.body.map((s: any) => s.name), ['build-job', 'test-job', 'external-check']);
      assert.equal(list.body[0].target_url, null);
      assert.deepEqual((await t.get(`/api/v4/projects/${id}/repository/commits/${sha}/statuses?stage=external`, dev.token)).body.map((s: any) => s.name), ['external-check']);
      // the pipeline's own jobs lists keep to builds
      const jobs = await t.get(`/api/v4/projects/${id}/pipelines/${created.body.id}/jobs`);
      assert.deepEqual(jobs.body.map((j: any) => j.name).sort(), ['build-job', 'test-job']);
      assert.equal((await t.get(`/api/v4/projects/${id}/jobs/${st.body.id}`)).status, 404);

      // pipeline_id picks one of several pipelines of the commit; an unknown one makes a new pipeline
      const second = await t.request('POST', `/api/v4/projects/${id}/pipeline`, { body: { ref: 'main' } });
      const pinned = await setStatus(project, sha, { state: 'pending', name: 'pinned', pipeline_id: created.body.id });
      assert.equal((await pipelineOf(pinned.body.id)).pipeline_id, created.body.id);
      const newest = await setStatus(project, sha, { state: 'pending', name: 'newest' });
      assert.equal((await pipelineOf(newest.body.id)).pipeline_id, second.body.id);
    });

    it('refuses bad input, unknown commits, too-low roles and strangers', async () => {
      const { p, sha } = await setup();
      const url = `/api/v4/projects/${p.id}/statuses/${sha}`;
      assert.deepEqual((await t.request('POST', url, { token: dev.token, body: {} })).body, { message: '400 (Bad request) "state" not given' });
      const badState = await setStatus(p, sha, { state: 'done' });
      assert.equal(badState.status, 400);
      assert.deepEqual(badState.body, { error: 'state does not have a valid value' });
      const badUrl = await setStatus(p, sha, { state: 'pending', target_url: 'ftp://x.test/1' });
      assert.equal(badUrl.status, 400);
      assert.deepEqual(badUrl.body, { message: { target_url: ['is blocked: Only allowed schemes are http, https'] } });
      const badCoverage = await setStatus(p, sha, { state: 'pending', coverage: 'lots' });
      assert.equal(badCoverage.status, 400);
      const unknown = await setStatus(p, 'a'.repeat(40), { state: 'pending' });
      assert.equal(unknown.status, 404);
      assert.deepEqual(unknown.body, { message: '404 Commit Not Found' });
      assert.deepEqual((await t.get(`/api/v4/projects/${p.id}/repository/commits/${'b'.repeat(40)}/statuses`, dev.token)).body, { message: '404 Commit Not Found' });

      assert.equal((await setStatus(p, sha, { state: 'pending' }, reporter.token)).status, 403);
      assert.deepEqual((await setStatus(p, sha, { state: 'pending' }, stranger.token)).body, { message: '404 Project Not Found' });
      assert.equal((await t.get(`/api/v4/projects/${p.id}/repository/commits/${sha}/statuses`, stranger.token)).status, 404);
      assert.equal((await setStatus(p, sha, { state: 'pending' }, null)).status, 401);
      assert.equal((await t.get(`/api/v4/projects/${p.id}/repository/commits/${sha}/statuses`, null)).status, 401);

      // a protected branch (main, for maintainers): only who may push or merge there may report on its pipeline
      assert.equal((await setStatus(p, sha, { state: 'pending' }, developer.token)).status, 403);
      const branch = await t.request('POST', `/api/v4/projects/${p.id}/repository/branches`, { body: { branch: 'feature', ref: 'main' } });
      assert.equal(branch.status, 201, branch.text);
      const onFeature = await setStatus(p, sha, { state: 'pending', ref: 'feature' }, developer.token);
      assert.equal(onFeature.status, 201, onFeature.text);
      assert.equal(onFeature.body.ref, 'feature');
    });
  });
}
