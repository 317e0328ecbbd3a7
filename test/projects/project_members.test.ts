import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS, buildTestApp, keysOf, type TestApp } from '../helpers/build.js';
import { MEMBER_KEYS, addMember as addGroupMember, makeGroup } from '../helpers/groups.js';
import { makeProject } from '../helpers/projects.js';

for (const dialect of DIALECTS) {
  describe(`project members (${dialect})`, () => {
    let t: TestApp;
    let owner: { id: number; username: string; token: string };
    before(async () => {
      t = await buildTestApp(dialect);
      owner = await t.createUser();
    });
    after(async () => t.close());

    it('CRUD: add, read, change, list, remove; joined and left events are recorded', async () => {
      const p = await makeProject(t, owner.token, { name: 'pm1' });
      const u = await t.createUser();
      const add = await t.request('POST', `/api/v4/projects/${p.id}/members`, { token: owner.token, body: { user_id: u.id, access_level: 30, expires_at: '2999-12-31' } });
      assert.equal(add.status, 201, add.text);
      assert.deepEqual(keysOf(add.body), MEMBER_KEYS);
      assert.equal(add.body.access_level, 30);
      assert.equal(add.body.expires_at, '2999-12-31');
      assert.equal(add.body.created_by.id, owner.id);
      assert.equal((await t.request('POST', `/api/v4/projects/${p.id}/members`, { token: owner.token, body: { user_id: u.id, access_level: 30 } })).status, 409);

      const one = await t.get(`/api/v4/projects/${p.id}/members/${u.id}`, owner.token);
      assert.equal(one.status, 200);
      assert.equal(one.body.username, u.username);
      const list = await t.get(`/api/v4/projects/${p.id}/members`, owner.token);
      assert.deepEqual(list.body.map((m: any) => m.id), [owner.id, u.id]);
      assert.equal(list.headers['x-total'], '2');

      const put = await t.request('PUT', `/api/v4/projects/${p.id}/members/${u.id}`, { token: owner.token, body: { access_level: 40 } });
      assert.equal(put.status, 200);
      assert.equal(put.body.access_level, 40);
      // the member now reaches the project as a maintainer
      assert.equal((await t.get(`/api/v4/projects/${p.id}`, u.token)).body.permissions.project_access.access_level, 40);

      assert.equal((await t.request('DELETE', `/api/v4/projects/${p.id}/members/${u.id}`, { token: owner.token })).status, 204);
      assert.equal((await t.get(`/api/v4/projects/${p.id}/members/${u.id}`, owner.token)).status, 404);
      assert.equal((await t.get(`/api/v4/projects/${p.id}`, u.token)).status, 404);

      const events = await t.c.db.selectFrom('events').select(['action', 'author_id']).where('project_id', '=', p.id).orderBy('id').execute();
      assert.deepEqual(
        events.filter((e) => e.author_id === u.id).map((e) => e.action),
        ['joined', 'left'],
      );
    });

    it('/members/all includes members of the namespace groups and of groups the project is shared with', async () => {
      const g = await makeGroup(t, { token: owner.token });
      const p = await makeProject(t, owner.token, { name: 'pm2', namespace_id: g.id });
      const direct = await t.createUser();
      const inGroup = await t.createUser();
      const invited = await t.createUser();
      await t.request('POST', `/api/v4/projects/${p.id}/members`, { token: owner.token, body: { user_id: direct.id, access_level: 20 } });
      await addGroupMember(t, g.id, inGroup.id, 30, owner.token);
      const other = await makeGroup(t, { token: owner.token });
      await addGroupMember(t, other.id, invited.id, 10, owner.token);
      await t.request('POST', `/api/v4/projects/${p.id}/share`, { token: owner.token, body: { group_id: other.id, group_access: 30 } });

      const direct_ = await t.get(`/api/v4/projects/${p.id}/members`, owner.token);
      assert.deepEqual(direct_.body.map((m: any) => m.id), [direct.id]);
      const all = await t.get(`/api/v4/projects/${p.id}/members/all`, owner.token);
      assert.equal(all.status, 200);
      const levels = Object.fromEntries(all.body.map((m: any) => [m.id, m.access_level]));
      assert.deepEqual(levels, { [owner.id]: 50, [direct.id]: 20, [inGroup.id]: 30, [invited.id]: 10 });
      assert.equal((await t.get(`/api/v4/projects/${p.id}/members/all/${inGroup.id}`, owner.token)).body.access_level, 30);
      assert.equal((await t.get(`/api/v4/projects/${p.id}/members/${inGroup.id}`, owner.token)).status, 404);
      // A user id past the id column's range is a member nobody is: 404 (a 500 on PostgreSQL before).
      for (const path of ['members', 'members/all']) {
        const far = await t.get(`/api/v4/projects/${p.id}/${path}/2147483648`, owner.token);
        assert.deepEqual([far.status, far.body], [404, { message: '404 Not found' }], path);
        assert.deepEqual((await t.get(`/api/v4/projects/${p.id}/${path}?user_ids[]=2147483648`, owner.token)).body, [], path);
      }
      // a project member may not sit below the level inherited from the group
      const low = await t.request('POST', `/api/v4/projects/${p.id}/members`, { token: owner.token, body: { user_id: inGroup.id, access_level: 20 } });
      assert.equal(low.status, 400);
      assert.ok(low.body.message.access_level);
    });

    it('refuses: developers 403 on writes, strangers 404, no token 401, unknown user 404, bad level 400', async () => {
      const p = await makeProject(t, owner.token, { name: 'pm3' });
      const dev = await t.createUser();
      const stranger = await t.createUser();
      await t.request('POST', `/api/v4/projects/${p.id}/members`, { token: owner.token, body: { user_id: dev.id, access_level: 30 } });
      assert.equal((await t.request('POST', `/api/v4/projects/${p.id}/members`, { token: dev.token, body: { user_id: stranger.id, access_level: 10 } })).status, 403);
      assert.equal((await t.get(`/api/v4/projects/${p.id}/members`, dev.token)).status, 200);
      assert.equal((await t.get(`/api/v4/projects/${p.id}/members`, stranger.token)).status, 404);
      assert.equal((await t.get(`/api/v4/projects/${p.id}/members`, null)).status, 401);
      const nf = await t.request('POST', `/api/v4/projects/${p.id}/members`, { token: owner.token, body: { user_id: 999999, access_level: 10 } });
      assert.equal(nf.status, 404);
      assert.equal((await t.request('POST', `/api/v4/projects/${p.id}/members`, { token: owner.token, body: { user_id: stranger.id, access_level: 35 } })).status, 400);
      assert.equal((await t.request('POST', `/api/v4/projects/${p.id}/members`, { token: owner.token, body: { access_level: 10 } })).status, 400);
      // a member may leave
      assert.equal((await t.request('DELETE', `/api/v4/projects/${p.id}/members/${dev.id}`, { token: dev.token })).status, 204);
    });
  });
}
