import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS, buildTestApp, keysOf, type TestApp } from '../helpers/build.js';
import { addMember as addGroupMember, makeGroup } from '../helpers/groups.js';
import { addMember, makeProject } from '../helpers/projects.js';

for (const dialect of DIALECTS) {
  describe(`project sharing and member import (${dialect})`, () => {
    let t: TestApp;
    let owner: { id: number; username: string; token: string };
    let reader: { id: number; username: string; token: string };
    before(async () => {
      t = await buildTestApp(dialect);
      owner = await t.createUser();
      reader = await t.createUser();
    });
    after(async () => t.close());

    it('sharing gives the group members access up to group_access; unsharing takes it away', async () => {
      const p = await makeProject(t, owner.token, { name: 'sh1', visibility: 'private' });
      const g = await makeGroup(t, { token: owner.token });
      await addGroupMember(t, g.id, reader.id, 40, owner.token);
      assert.equal((await t.get(`/api/v4/projects/${p.id}`, reader.token)).status, 404);

      const r = await t.request('POST', `/api/v4/projects/${p.id}/share`, { token: owner.token, body: { group_id: g.id, group_access: 20 } });
      assert.equal(r.status, 201, r.text);
      assert.deepEqual(keysOf(r.body), ['expires_at', 'group_access', 'group_id', 'id', 'project_id']);
      assert.deepEqual({ ...r.body, id: 0 }, { id: 0, project_id: p.id, group_id: g.id, group_access: 20, expires_at: null });

      const seen = await t.get(`/api/v4/projects/${p.id}`, reader.token);
      assert.equal(seen.status, 200);
      assert.deepEqual(seen.body.shared_with_groups, [
        { group_id: g.id, group_name: g.name, group_full_path: g.full_path, group_access_level: 20, expires_at: null },
      ]);
      // reporter (20), the lower of maintainer in the group and the link's 20: may not administer
      assert.equal((await t.request('PUT', `/api/v4/projects/${p.id}`, { token: reader.token, body: { description: 'x' } })).status, 403);
      const list = await t.get('/api/v4/projects?membership=true&simple=true', reader.token);
      assert.deepEqual(list.body.map((x: any) => x.id), [p.id]);
      assert.deepEqual((await t.get('/api/v4/projects?min_access_level=30', reader.token)).body, []);

      assert.equal((await t.request('POST', `/api/v4/projects/${p.id}/share`, { token: owner.token, body: { group_id: g.id, group_access: 30 } })).status, 409);

      const del = await t.request('DELETE', `/api/v4/projects/${p.id}/share/${g.id}`, { token: owner.token });
      assert.equal(del.status, 204);
      assert.equal((await t.get(`/api/v4/projects/${p.id}`, reader.token)).status, 404);
      assert.deepEqual((await t.get('/api/v4/projects?membership=true', reader.token)).body, []);
      const again = await t.request('DELETE', `/api/v4/projects/${p.id}/share/${g.id}`, { token: owner.token });
      assert.equal(again.status, 404);
      assert.deepEqual(again.body, { message: '404 Group Link Not Found' });
    });

    it('an expired link gives nothing', async () => {
      const p = await makeProject(t, owner.token, { name: 'sh2', visibility: 'private' });
      const g = await makeGroup(t, { token: owner.token });
      await addGroupMember(t, g.id, reader.id, 30, owner.token);
      const r = await t.request('POST', `/api/v4/projects/${p.id}/share`, { token: owner.token, body: { group_id: g.id, group_access: 30, expires_at: '2999-01-01' } });
      assert.equal(r.body.expires_at, '2999-01-01');
      assert.equal((await t.get(`/api/v4/projects/${p.id}`, reader.token)).status, 200);
      await t.c.db.updateTable('project_group_links').set({ expires_at: '2000-01-01' }).where('id', '=', r.body.id).execute();
      assert.equal((await t.get(`/api/v4/projects/${p.id}`, reader.token)).status, 404);
      assert.deepEqual((await t.get(`/api/v4/projects/${p.id}`, owner.token)).body.shared_with_groups, []);
    });

    it('refuses: developers 403, unseen group 404, own group 409, locked namespace 400, bad params 400, no token 401', async () => {
      const g = await makeGroup(t, { token: owner.token });
      const p = await makeProject(t, owner.token, { name: 'sh3', namespace_id: g.id });
      const dev = await t.createUser();
      await addMember(t, 'Project', p.id, dev.id, 30);
      const other = await makeGroup(t, { token: owner.token });
      const share = (token: string | null, body: object) => t.request('POST', `/api/v4/projects/${p.id}/share`, { token, body });
      assert.equal((await share(dev.token, { group_id: other.id, group_access: 10 })).status, 403);
      assert.equal((await t.request('DELETE', `/api/v4/projects/${p.id}/share/${other.id}`, { token: dev.token })).status, 403);
      const hidden = await makeGroup(t, { token: reader.token });
      const nf = await share(owner.token, { group_id: hidden.id, group_access: 10 });
      assert.equal(nf.status, 404);
      assert.deepEqual(nf.body, { message: '404 Group Not Found' });
      const unknown = await share(owner.token, { group_id: 999999, group_access: 10 });
      assert.equal(unknown.status, 404);
      assert.deepEqual(unknown.body, { message: '404 Group Not Found' });
      assert.equal((await share(owner.token, { group_id: g.id, group_access: 10 })).status, 409);
      assert.equal((await share(owner.token, { group_id: other.id })).status, 400);
      assert.deepEqual((await share(owner.token, { group_id: other.id, group_access: 15 })).body, { error: 'group_access does not have a valid value' });
      assert.equal((await share(owner.token, { group_id: other.id, group_access: 10, expires_at: 'soon' })).status, 400);
      assert.equal((await share(null, { group_id: other.id, group_access: 10 })).status, 401);
      await t.c.db.updateTable('namespaces').set({ share_with_group_lock: 1 }).where('id', '=', g.id).execute();
      const locked = await share(owner.token, { group_id: other.id, group_access: 10 });
      assert.equal(locked.status, 400);
      assert.deepEqual(locked.body, { message: 'The project sharing with group is disabled' });
    });

    it('import_project_members copies the source members: 200 {status}, 404 for unseen projects, 403 for non-maintainers', async () => {
      const src = await makeProject(t, owner.token, { name: 'imp-src' });
      const dst = await makeProject(t, owner.token, { name: 'imp-dst' });
      const a = await t.createUser();
      const b = await t.createUser();
      await addMember(t, 'Project', src.id, a.id, 30);
      await addMember(t, 'Project', src.id, b.id, 20);
      await addMember(t, 'Project', dst.id, b.id, 40);
      const r = await t.request('POST', `/api/v4/projects/${dst.id}/import_project_members/${src.id}`, { token: owner.token });
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(r.body, { status: 'success' });
      const members = (await t.get(`/api/v4/projects/${dst.id}/members`, owner.token)).body;
      const levels = Object.fromEntries(members.map((m: any) => [m.id, m.access_level]));
      assert.deepEqual(levels, { [owner.id]: 50, [a.id]: 30, [b.id]: 40 });

      const hidden = await makeProject(t, reader.token, { name: 'imp-hidden' });
      const nf = await t.request('POST', `/api/v4/projects/${dst.id}/import_project_members/${hidden.id}`, { token: owner.token });
      assert.equal(nf.status, 404);
      assert.deepEqual(nf.body, { message: '404 Project Not Found' });
      assert.equal((await t.request('POST', `/api/v4/projects/${hidden.id}/import_project_members/${src.id}`, { token: owner.token })).status, 404);
      assert.equal((await t.request('POST', `/api/v4/projects/${dst.id}/import_project_members/999999`, { token: owner.token })).status, 404);
      assert.equal((await t.request('POST', `/api/v4/projects/${dst.id}/import_project_members/${src.id}`, { token: a.token })).status, 403);
      assert.equal((await t.request('POST', `/api/v4/projects/${dst.id}/import_project_members/${src.id}`, { token: null })).status, 401);
    });
  });
}
