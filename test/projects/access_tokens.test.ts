import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS, buildTestApp, keysOf, type TestApp } from '../helpers/build.js';
import { RESOURCE_TOKEN_KEYS, RESOURCE_TOKEN_WITH_TOKEN_KEYS } from '../helpers/keys.js';
import { addMember, makeProject } from '../helpers/projects.js';


for (const dialect of DIALECTS) {
  describe(`project access tokens (${dialect})`, () => {
    let t: TestApp;
    let owner: { id: number; username: string; token: string };
    before(async () => {
      t = await buildTestApp(dialect);
      owner = await t.createUser();
    });
    after(async () => t.close());

    it('creates a token with its project_<id>_bot user; the token acts as the bot with its level', async () => {
      const p = await makeProject(t, owner.token, { name: 'tok1', visibility: 'private' });
      const r = await t.request('POST', `/api/v4/projects/${p.id}/access_tokens`, {
        token: owner.token,
        body: { name: 'ci', scopes: ['api'], access_level: 30, expires_at: '2999-01-01' },
      });
      assert.equal(r.status, 201, r.text);
      assert.deepEqual(keysOf(r.body), RESOURCE_TOKEN_WITH_TOKEN_KEYS);
      assert.equal(r.body.access_level, 30);
      assert.deepEqual(r.body.scopes, ['api']);
      assert.equal(r.body.active, true);

      const me = await t.get('/api/v4/user', r.body.token);
      assert.equal(me.status, 200);
      assert.equal(me.body.username, `project_${p.id}_bot`);
      assert.equal(me.body.bot, true);
      const seen = await t.get(`/api/v4/projects/${p.id}`, r.body.token);
      assert.equal(seen.status, 200);
      assert.equal(seen.body.permissions.project_access.access_level, 30);
      // developer: no settings
      assert.equal((await t.request('PUT', `/api/v4/projects/${p.id}`, { token: r.body.token, body: { description: 'x' } })).status, 403);

      const second = await t.request('POST', `/api/v4/projects/${p.id}/access_tokens`, { token: owner.token, body: { name: 'two', scopes: 'read_api' } });
      assert.equal(second.body.access_level, 40);
      assert.equal((await t.get('/api/v4/user', second.body.token)).body.username, `project_${p.id}_bot1`);

      const list = await t.get(`/api/v4/projects/${p.id}/access_tokens`, owner.token);
      assert.equal(list.status, 200);
      assert.deepEqual(list.body.map((x: any) => x.name), ['ci', 'two']);
      assert.deepEqual(keysOf(list.body[0]), RESOURCE_TOKEN_KEYS);
      const one = await t.get(`/api/v4/projects/${p.id}/access_tokens/${r.body.id}`, owner.token);
      assert.equal(one.body.id, r.body.id);
      assert.equal(one.body.token, undefined);

      assert.equal((await t.request('DELETE', `/api/v4/projects/${p.id}/access_tokens/${r.body.id}`, { token: owner.token })).status, 204);
      assert.equal((await t.get('/api/v4/user', r.body.token)).status, 401);
      const gone = await t.get(`/api/v4/projects/${p.id}/access_tokens/${r.body.id}`, owner.token);
      assert.equal(gone.status, 404);
      assert.deepEqual(gone.body, { message: `404 Could not find project access token with token_id: ${r.body.id} Not Found` });
    });

    it('refuses: developers (401 read, 400 create), strangers 404, bad scopes 400, no token 401', async () => {
      const p = await makeProject(t, owner.token, { name: 'tok2', visibility: 'private' });
      const dev = await t.createUser();
      const stranger = await t.createUser();
      await addMember(t, 'Project', p.id, dev.id, 30);
      assert.equal((await t.get(`/api/v4/projects/${p.id}/access_tokens`, dev.token)).status, 401);
      const c = await t.request('POST', `/api/v4/projects/${p.id}/access_tokens`, { token: dev.token, body: { name: 'x', scopes: ['api'] } });
      assert.equal(c.status, 400);
      assert.deepEqual(c.body, { message: '400 Bad request - User does not have permission to create project access token' });
      assert.equal((await t.get(`/api/v4/projects/${p.id}/access_tokens`, stranger.token)).status, 404);
      assert.equal((await t.get(`/api/v4/projects/${p.id}/access_tokens`, null)).status, 401);
      const bad = await t.request('POST', `/api/v4/projects/${p.id}/access_tokens`, { token: owner.token, body: { name: 'x', scopes: ['sudo'] } });
      assert.equal(bad.status, 400);
      assert.equal((await t.request('POST', `/api/v4/projects/${p.id}/access_tokens`, { token: owner.token, body: { scopes: ['api'] } })).status, 400);
      assert.equal((await t.request('DELETE', `/api/v4/projects/${p.id}/access_tokens/999999`, { token: owner.token })).status, 404);
    });
  });
}
