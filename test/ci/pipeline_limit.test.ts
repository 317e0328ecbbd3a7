// pipeline_limit_per_project_user_sha: pipelines a minute per project, user and commit.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS, buildTestApp, type TestApp } from '../helpers/build.js';
import { addMember } from '../helpers/projects.js';
import { createPipeline, makeCiProject, putFiles } from '../helpers/ci.js';
import { resetClock, startOfRateWindow } from '../helpers/rate_window.js';

const LIMITED = { message: { base: ['Too many pipelines created in the last minute. Try again later.'] } };

for (const dialect of DIALECTS) {
  describe(`pipeline_limit_per_project_user_sha (${dialect})`, () => {
    let t: TestApp;
    before(async () => {
      t = await buildTestApp(dialect, { ANVIL_RUNNER_ENABLED: 'false' });
      await t.request('PUT', '/api/v4/application/settings', { body: { default_branch_protection: 0 } });
    });
    after(async () => {
      resetClock();
      await t.close();
    });

    it('is off by default: many pipelines for one commit are created', async () => {
      assert.equal((await t.get('/api/v4/application/settings')).body.pipeline_limit_per_project_user_sha, 0);
      const p = await makeCiProject(t);
      for (let i = 0; i < 5; i++) assert.equal((await createPipeline(t, p.id)).status, 201);
    });

    it('with a limit: over it for the same project, user and commit is refused with the reference\'s message; others go on', async () => {
      assert.equal((await t.request('PUT', '/api/v4/application/settings', { body: { pipeline_limit_per_project_user_sha: 2 } })).status, 200);
      const p = await makeCiProject(t);
      const other = await makeCiProject(t);
      const dev = await t.createUser();
      await addMember(t, 'Project', p.id, dev.id, 30);
      startOfRateWindow();
      const before = (await t.get(`/api/v4/projects/${p.id}/pipelines`)).body.length;
      for (let i = 0; i < 2; i++) assert.equal((await createPipeline(t, p.id)).status, 201);
      const third = await createPipeline(t, p.id);
      assert.deepEqual([third.status, third.body], [400, LIMITED]);
      assert.equal((await t.get(`/api/v4/projects/${p.id}/pipelines`)).body.length, before + 2, 'the refused pipeline was not saved');
      // Another user, another project, another commit: their own counts.
      assert.equal((await createPipeline(t, p.id, 'main', { token: dev.token })).status, 201);
      assert.equal((await createPipeline(t, other.id)).status, 201);
      await putFiles(t, p.id, { 'next.txt': 'next\n' });
      assert.equal((await createPipeline(t, p.id)).status, 201);
      await t.request('PUT', '/api/v4/application/settings', { body: { pipeline_limit_per_project_user_sha: 0 } });
      assert.equal((await createPipeline(t, p.id)).status, 201);
    });

    it('refuses a negative limit', async () => {
      const r = await t.request('PUT', '/api/v4/application/settings', { body: { pipeline_limit_per_project_user_sha: -1 } });
      assert.deepEqual([r.status, r.body], [400, { message: { pipeline_limit_per_project_user_sha: ['must be greater than or equal to 0'] } }]);
    });
  });
}
