// Pipeline trigger tokens: CRUD (maintainers; the token in full only to its owner) and
// POST /projects/:id/trigger/pipeline with a trigger token (source trigger, the owner's rights,
// variables[…], CI_PIPELINE_TRIGGERED) or a running job's CI_JOB_TOKEN (source pipeline).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS, buildTestApp, keysOf, type TestApp } from '../helpers/build.js';
import { makeCiProject } from '../helpers/ci.js';
import { addMember } from '../helpers/projects.js';
import { newJobToken } from '../../src/domain/ci/job_token.js';
import { pipelineVariables, predefinedVariables } from '../../src/domain/ci/variables.js';
import { findPipeline } from '../../src/db/repos/ci_pipelines.js';
import { findProjectById } from '../../src/db/repos/projects.js';

type U = { id: number; username: string; token: string };
const KEYS = ['created_at', 'description', 'id', 'last_used', 'owner', 'token', 'updated_at'];

for (const dialect of DIALECTS) {
  describe(`pipeline triggers (${dialect})`, () => {
    let t: TestApp;
    let maintainer: U;
    let other: U;
    let dev: U;
    let stranger: U;
    let p: { id: number };

    before(async () => {
      t = await buildTestApp(dialect);
      maintainer = await t.createUser();
      other = await t.createUser();
      dev = await t.createUser();
      stranger = await t.createUser();
      p = await makeCiProject(t, 'job:\n  script: "true"\n', { body: { visibility: 'private' } });
      await addMember(t, 'Project', p.id, maintainer.id, 40);
      await addMember(t, 'Project', p.id, other.id, 40);
      await addMember(t, 'Project', p.id, dev.id, 30);
    });
    after(async () => t.close());

    const base = () => `/api/v4/projects/${p.id}/triggers`;
    const fire = (body: Record<string, unknown>, id: number | string = p.id) =>
      t.request('POST', `/api/v4/projects/${id}/trigger/pipeline`, { token: null, body });

    it('creates, lists, reads, changes and deletes a trigger; only its owner sees the whole token', async () => {
      const created = await t.request('POST', base(), { token: maintainer.token, body: { description: 'deploy hook' } });
      assert.equal(created.status, 201, created.text);
      assert.deepEqual(keysOf(created.body), KEYS);
      assert.match(created.body.token, /^anvptt-[A-Za-z0-9_-]{20,}$/);
      assert.equal(created.body.description, 'deploy hook');
      assert.equal(created.body.last_used, null);
      assert.equal(created.body.owner.username, maintainer.username);
      const row = await t.c.db.selectFrom('ci_triggers').selectAll().executeTakeFirstOrThrow();
      assert.ok(!JSON.stringify(row).includes(created.body.token), 'the token is not stored in clear');

      const mine = await t.get(`${base()}/${created.body.id}`, maintainer.token);
      assert.equal(mine.body.token, created.body.token);
      const theirs = await t.get(base(), other.token);
      assert.equal(theirs.status, 200);
      assert.equal(theirs.body[0].token, created.body.token.slice(0, 11));

      const upd = await t.request('PUT', `${base()}/${created.body.id}`, { token: other.token, body: { description: 'renamed' } });
      assert.equal(upd.status, 200);
      assert.equal(upd.body.description, 'renamed');
      assert.equal(upd.body.token, created.body.token.slice(0, 11));

      assert.equal((await t.request('DELETE', `${base()}/${created.body.id}`, { token: maintainer.token })).status, 204);
      const gone = await t.get(`${base()}/${created.body.id}`, maintainer.token);
      assert.equal(gone.status, 404);
      assert.deepEqual(gone.body, { message: '404 Trigger Not Found' });
    });

    it('401 without a token, 404 for who cannot see the project, 403 below maintainer, 400 without a description', async () => {
      assert.equal((await t.get(base(), null)).status, 401);
      assert.equal((await t.get(base(), stranger.token)).status, 404);
      assert.equal((await t.get(base(), dev.token)).status, 403);
      assert.equal((await t.request('POST', base(), { token: dev.token, body: { description: 'x' } })).status, 403);
      const r = await t.request('POST', base(), { token: maintainer.token, body: {} });
      assert.equal(r.status, 400);
    });

    it('a trigger token starts a pipeline as its owner: source trigger, variables, CI_PIPELINE_TRIGGERED', async () => {
      const tok = (await t.request('POST', base(), { token: maintainer.token, body: { description: 'ci' } })).body;
      const r = await fire({ token: tok.token, ref: 'main', variables: { DEPLOY_TO: 'staging', LEVEL: '3' } });
      assert.equal(r.status, 201, r.text);
      assert.equal(r.body.source, 'trigger');
      assert.equal(r.body.ref, 'main');
      assert.equal(r.body.user.username, maintainer.username);
      const vars = await pipelineVariables(t.c, r.body.id);
      assert.deepEqual(vars.slice(0, 2), [
        { key: 'DEPLOY_TO', value: 'staging', variable_type: 'env_var' },
        { key: 'LEVEL', value: '3', variable_type: 'env_var' },
      ]);
      assert.equal(vars[2]!.key, 'TRIGGER_PAYLOAD');
      assert.equal(vars[2]!.variable_type, 'file');
      assert.ok(!vars[2]!.value.includes(tok.token), 'the payload leaves the token out');
      const pipeline = (await findPipeline(t.c.db, r.body.id))!;
      const predefined = await predefinedVariables(t.c, (await findProjectById(t.c.db, p.id))!, pipeline);
      assert.equal(predefined.CI_PIPELINE_TRIGGERED, 'true');
      assert.equal(predefined.CI_PIPELINE_SOURCE, 'trigger');
      const listed = await t.get(`${base()}/${tok.id}`, maintainer.token);
      assert.equal(listed.body.last_used, pipeline.created_at);
      // The form the reference's docs show: variables[KEY]=value.
      const form = await t.request('POST', `/api/v4/projects/${p.id}/trigger/pipeline`, {
        token: null,
        payload: `token=${tok.token}&ref=main&variables[FROM_FORM]=yes`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      assert.equal(form.status, 201, form.text);
      assert.equal((await pipelineVariables(t.c, form.body.id))[0]!.key, 'FROM_FORM');
    });

    it('refuses bad tokens, other projects, unknown refs, bad variables and owners without rights', async () => {
      const tok = (await t.request('POST', base(), { token: maintainer.token, body: { description: 'x' } })).body;
      let r = await fire({ token: 'anvptt-not-a-token', ref: 'main' });
      assert.equal(r.status, 404);
      assert.deepEqual(r.body, { message: '404 Not Found' });
      const elsewhere = await makeCiProject(t, 'job:\n  script: "true"\n');
      r = await fire({ token: tok.token, ref: 'main' }, elsewhere.id);
      assert.equal(r.status, 404);
      r = await fire({ token: tok.token, ref: 'main' }, 999999);
      assert.equal(r.status, 404);
      r = await fire({ token: tok.token, ref: 'nope' });
      assert.equal(r.status, 400);
      assert.deepEqual(r.body, { message: { base: ['Reference not found'] } });
      r = await fire({ token: tok.token, ref: 'main', variables: ['a'] });
      assert.equal(r.status, 400);
      assert.deepEqual(r.body, { message: 'variables needs to be a map of key-valued strings' });
      r = await fire({ ref: 'main' });
      assert.equal(r.status, 400);
      // The owner lost the right to create pipelines: the pipeline is refused as the reference's chain refuses it.
      await t.c.db.updateTable('members').set({ access_level: 20 }).where('user_id', '=', maintainer.id).execute();
      r = await fire({ token: tok.token, ref: 'main' });
      assert.equal(r.status, 400);
      assert.deepEqual(r.body, { message: { base: ['Insufficient permissions to create a new pipeline'] } });
      await t.c.db.updateTable('members').set({ access_level: 40 }).where('user_id', '=', maintainer.id).execute();
    });

    it("a running job's CI_JOB_TOKEN starts a pipeline of another project: source pipeline, as the job's user", async () => {
      const upstream = await makeCiProject(t, 'job:\n  script: "true"\n', { token: other.token });
      const created = await t.request('POST', `/api/v4/projects/${upstream.id}/pipeline`, { token: other.token, body: { ref: 'main' } });
      assert.equal(created.status, 201, created.text);
      const job = await t.c.db.selectFrom('ci_jobs').selectAll().where('pipeline_id', '=', created.body.id).executeTakeFirstOrThrow();
      const { token, digest } = newJobToken();
      await t.c.db.updateTable('ci_jobs').set({ status: 'running', token_digest: digest }).where('id', '=', job.id).execute();
      const r = await fire({ token, ref: 'main' });
      assert.equal(r.status, 201, r.text);
      assert.equal(r.body.source, 'pipeline');
      assert.equal(r.body.user.username, other.username);
      // A job whose user cannot see the target project: 404.
      const hidden = await makeCiProject(t, 'job:\n  script: "true"\n', { token: stranger.token, body: { visibility: 'private' } });
      assert.equal((await fire({ token, ref: 'main' }, hidden.id)).status, 404);
      // A job that ended: its token is gone.
      await t.c.db.updateTable('ci_jobs').set({ status: 'success', token_digest: null }).where('id', '=', job.id).execute();
      assert.equal((await fire({ token, ref: 'main' })).status, 404);
    });
  });
}
