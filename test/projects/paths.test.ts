// A project's stored full path follows its namespace when a group or user is renamed.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS, buildTestApp, type TestApp } from '../helpers/build.js';
import { makeGroup } from '../helpers/groups.js';
import { makeProject } from '../helpers/projects.js';

for (const dialect of DIALECTS) {
  describe(`project paths follow namespace renames (${dialect})`, () => {
    let t: TestApp;
    before(async () => {
      t = await buildTestApp(dialect);
    });
    after(async () => t.close());

    it('after a group path change, the project answers under the new path and the old path is free again', async () => {
      const g = await makeGroup(t, { path: 'oldgroup' });
      const p = await makeProject(t, t.rootToken, { name: 'app', namespace_id: g.id });
      assert.equal(p.path_with_namespace, 'oldgroup/app');

      const r = await t.request('PUT', `/api/v4/groups/${g.id}`, { body: { path: 'newgroup' } });
      assert.equal(r.status, 200, r.text);
      const moved = await t.get(`/api/v4/projects/${p.id}`);
      assert.equal(moved.body.path_with_namespace, 'newgroup/app');
      assert.equal((await t.get('/api/v4/projects/newgroup%2Fapp')).body.id, p.id);

      const again = await makeGroup(t, { path: 'oldgroup' });
      const fresh = await makeProject(t, t.rootToken, { name: 'app', namespace_id: again.id });
      assert.notEqual(fresh.id, p.id);
      assert.equal(fresh.path_with_namespace, 'oldgroup/app');
    });

    it('after a username change, personal projects move with it', async () => {
      const u = await t.createUser({ username: 'renameme' });
      const p = await makeProject(t, u.token, { name: 'mine' });
      assert.equal(p.path_with_namespace, 'renameme/mine');
      const r = await t.request('PUT', `/api/v4/users/${u.id}`, { body: { username: 'renamed' } });
      assert.equal(r.status, 200, r.text);
      assert.equal((await t.get(`/api/v4/projects/${p.id}`)).body.path_with_namespace, 'renamed/mine');
      const other = await t.createUser({ username: 'renameme', email: 'second-renameme@example.com' });
      const fresh = await makeProject(t, other.token, { name: 'mine' });
      assert.equal(fresh.path_with_namespace, 'renameme/mine');
    });
  });
}
