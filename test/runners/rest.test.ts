// The runners REST API, runners created by a user (`POST /user/runners` then verify), tag routing
// beside the built-in runner, and one job handed to exactly one runner across two nodes.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildOtherNode, DIALECTS, keysOf } from '../helpers/build.js';
import { buildGitTestApp, type GitTestApp } from '../helpers/git.js';
import { plannedJob } from '../helpers/ci.js';
import { memberWith } from '../helpers/repository_content.js';
import { jobsOf, makePipeline, repoProject, testRunner, waitForJob, type RepoProject } from '../ci/runner_fixtures.js';
import { RUNNER_INFO, TestRunnerClient } from '../helpers/runner_client.js';

const RUNNER_KEYS = ['active', 'description', 'id', 'ip_address', 'is_shared', 'name', 'online', 'paused', 'runner_type', 'status'];
const DETAIL_KEYS = [
  ...RUNNER_KEYS, 'access_level', 'architecture', 'contacted_at', 'groups', 'locked', 'maintenance_note', 'maximum_timeout', 'platform', 'projects',
  'revision', 'run_untagged', 'tag_list', 'version',
].sort();

for (const dialect of DIALECTS) {
  describe(`runners REST API (${dialect})`, () => {
    let t: GitTestApp;
    let rp: RepoProject;
    before(async () => {
      t = await buildGitTestApp(dialect, { ANVIL_RUNNER_LONG_POLL_SECONDS: '0' });
      rp = await repoProject(t);
    });
    after(() => t.close());

    it('POST /user/runners (create_runner scope) then verify: a project runner with details, lists, update, delete', async () => {
      const maintainer = await memberWith(t, rp.project.id, 40, ['create_runner', 'api']);
      const created = await t.request('POST', '/api/v4/user/runners', { token: maintainer.token, body: { runner_type: 'project_type', project_id: rp.project.id, description: 'mine', tag_list: ['docker', 'linux'] } });
      assert.equal(created.status, 201, created.text);
      assert.deepEqual(keysOf(created.body), ['id', 'token', 'token_expires_at']);
      assert.match(created.body.token, /^glrt-/);
      assert.equal((await t.request('POST', '/api/v4/user/runners', { token: null, body: { runner_type: 'project_type', project_id: rp.project.id } })).status, 401);
      const readOnly = await memberWith(t, rp.project.id, 40, ['read_api']);
      assert.equal((await t.request('POST', '/api/v4/user/runners', { token: readOnly.token, body: { runner_type: 'project_type', project_id: rp.project.id } })).status, 403);
      const developer = await memberWith(t, rp.project.id, 30, ['api']);
      assert.equal((await t.request('POST', '/api/v4/user/runners', { token: developer.token, body: { runner_type: 'project_type', project_id: rp.project.id } })).status, 403);
      assert.equal((await t.request('POST', '/api/v4/user/runners', { token: maintainer.token, body: { runner_type: 'instance_type' } })).status, 403);
      const bad = await t.request('POST', '/api/v4/user/runners', { token: maintainer.token, body: { runner_type: 'nope' } });
      assert.equal(bad.status, 400);

      const runner = new TestRunnerClient(t.url);
      assert.equal((await runner.verify(created.body.token)).status, 200);
      const details = await t.get(`/api/v4/runners/${created.body.id}`, maintainer.token);
      assert.equal(details.status, 200);
      assert.deepEqual(keysOf(details.body), DETAIL_KEYS);
      assert.equal(details.body.runner_type, 'project_type');
      assert.equal(details.body.status, 'online');
      assert.equal(details.body.ip_address, '127.0.0.1');
      assert.equal(details.body.version, RUNNER_INFO.version);
      assert.deepEqual(details.body.tag_list, ['docker', 'linux']);
      assert.deepEqual(details.body.projects.map((p: any) => p.id), [rp.project.id]);
      assert.equal((await t.get(`/api/v4/runners/${created.body.id}`, developer.token)).status, 403);
      assert.equal((await t.get('/api/v4/runners/999999', maintainer.token)).status, 404);
      const managers = await t.get(`/api/v4/runners/${created.body.id}/managers`, maintainer.token);
      assert.deepEqual(managers.body.map((m: any) => m.system_id), [runner.systemId]);

      const owned = await t.get('/api/v4/runners', maintainer.token);
      assert.equal(owned.status, 200, owned.text);
      assert.deepEqual(owned.body.map((r: any) => r.id), [created.body.id]);
      assert.deepEqual(keysOf(owned.body[0]), RUNNER_KEYS);
      const available = await t.get(`/api/v4/projects/${rp.project.id}/runners`, maintainer.token);
      assert.deepEqual(available.body.map((r: any) => r.id), [1, created.body.id]);
      assert.equal((await t.get(`/api/v4/projects/${rp.project.id}/runners`, developer.token)).status, 403);

      const all = await t.get('/api/v4/runners/all');
      assert.equal(all.status, 200);
      assert.equal(all.body[0].id, 1, 'the built-in runner is an instance runner');
      assert.equal(all.body[0].runner_type, 'instance_type');
      assert.equal((await t.get('/api/v4/runners/all', maintainer.token)).status, 403);

      const put = await t.request('PUT', `/api/v4/runners/${created.body.id}`, { token: maintainer.token, body: { tag_list: 'gpu', paused: true, maximum_timeout: 3600 } });
      assert.equal(put.status, 200);
      assert.deepEqual([put.body.tag_list, put.body.paused, put.body.active, put.body.maximum_timeout], [['gpu'], true, false, 3600]);
      const short = await t.request('PUT', `/api/v4/runners/${created.body.id}`, { token: maintainer.token, body: { maximum_timeout: 60 } });
      assert.equal(short.status, 400);
      assert.deepEqual(short.body, { message: { maximum_timeout: ['needs to be at least 10 minutes'] } });

      const reset = await t.request('POST', `/api/v4/runners/${created.body.id}/reset_authentication_token`, { token: maintainer.token });
      assert.equal(reset.status, 201);
      assert.equal((await new TestRunnerClient(t.url).verify(created.body.token)).status, 403);
      assert.equal((await new TestRunnerClient(t.url).verify(reset.body.token)).status, 200);

      const regReset = await t.request('POST', `/api/v4/projects/${rp.project.id}/runners/reset_registration_token`, { token: maintainer.token });
      assert.equal(regReset.status, 201);
      assert.equal((await new TestRunnerClient(t.url).register(regReset.body.token)).status, 201);

      assert.equal((await t.request('DELETE', `/api/v4/runners/${created.body.id}`, { token: developer.token })).status, 403);
      assert.equal((await t.request('DELETE', `/api/v4/runners/${created.body.id}`, { token: maintainer.token })).status, 204);
      assert.equal((await t.get(`/api/v4/runners/${created.body.id}`)).status, 404);
      assert.equal((await t.request('DELETE', '/api/v4/runners/1')).status, 403);
    });

    it('tag routing: the built-in runner runs untagged jobs; a tagged job waits for the registered runner with that tag', async () => {
      const builtIn = testRunner(t);
      builtIn.start();
      try {
        const created = await t.request('POST', '/api/v4/user/runners', { body: { runner_type: 'instance_type', tag_list: 'gpu', run_untagged: false } });
        assert.equal(created.status, 201, created.text);
        const runner = new TestRunnerClient(t.url);
        await runner.verify(created.body.token);
        const p = await makePipeline(t, rp, [plannedJob('plain', { script: ['echo plain'] }), plannedJob('gpu', { tags: ['gpu'], script: ['echo gpu'] })], { userId: 1 });
        const jobs = await jobsOf(t, p.id);
        await waitForJob(t, jobs.plain!.id, ['success']);
        assert.equal((await jobsOf(t, p.id)).gpu!.status, 'pending', 'the built-in runner lacks the tag');
        const payload = await runner.nextJob(5);
        assert.equal(payload.job_info.name, 'gpu');
        await runner.sendTrace(payload.id, payload.token, Buffer.from('gpu\n'), 100);
        assert.equal((await runner.updateJob(payload.id, payload.token, { state: 'success', bytesize: 4 })).status, 200);
        const gpu = (await t.get(`/api/v4/projects/${rp.project.id}/jobs/${payload.id}`)).body;
        assert.equal(gpu.runner.id, created.body.id);
        assert.equal((await t.get(`/api/v4/projects/${rp.project.id}/jobs/${jobs.plain!.id}`)).body.runner.id, 1);
        const ran = await t.get(`/api/v4/runners/${created.body.id}/jobs`);
        assert.deepEqual(ran.body.map((j: any) => j.id), [payload.id]);
        await runner.unregister();
      } finally {
        await builtIn.stop();
      }
    });

    it('two nodes on one database: a job goes to exactly one of the runners polling both', async () => {
      const other = await buildOtherNode(t);
      try {
        const tokens: string[] = [];
        for (let i = 0; i < 4; i++) {
          const r = new TestRunnerClient(t.url);
          await r.register((await t.get(`/api/v4/projects/${rp.project.id}`)).body.runners_token, { tags: ['race'], runUntagged: false });
          tokens.push(r.token!);
        }
        await makePipeline(t, rp, [plannedJob('race', { tags: ['race'], script: ['true'] })], { userId: 1 });
        const answers = await Promise.all(
          tokens.map((token, i) => (i % 2 ? other : t).request('POST', '/api/v4/jobs/request', { token: null, body: { token, info: RUNNER_INFO } })),
        );
        const statuses = answers.map((a) => a.status);
        assert.equal(statuses.filter((s) => s === 201).length, 1, String(statuses));
        assert.ok(statuses.every((s) => s === 201 || s === 204 || s === 409), String(statuses));
      } finally {
        await other.close();
      }
    });
  });
}
