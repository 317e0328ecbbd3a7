// A group's projects as the reference gives them: GET /groups/:id carries `projects` (the group's
// own, not its subgroups') and `shared_projects` (shared with it), each the visitor's view, at most
// 100, newest first, unless with_projects=false; PUT answers the same detail. GET
// /groups/:id/projects includes shared projects unless with_shared=false; /projects/shared lists
// only them. POST /groups answers without projects and without runners_token, as the reference does.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS, buildTestApp, keysOf, type TestApp } from '../helpers/build.js';
import { PROJECT_FULL_KEYS, PROJECT_FULL_KEYS_MAINTAINER, PROJECT_SIMPLE_KEYS } from '../helpers/keys.js';
import { addMember, makeGroup, makeProject } from '../helpers/projects.js';
import { insertProjectsBulk } from '../../src/db/repos/bulk_projects.js';
import { nowIso } from '../../src/shared/time.js';

const PUBLIC = 20;

for (const dialect of DIALECTS) {
  describe(`a group's projects (${dialect})`, () => {
    let t: TestApp;
    let alice: Awaited<ReturnType<TestApp['createUser']>>;
    let bob: Awaited<ReturnType<TestApp['createUser']>>;
    let group: { id: number; full_path: string };
    let hidden: any;
    let open: any;
    let inSub: any;
    let shared: any;
    /** Public, shared with the subgroup only. */
    let sharedWithSub: any;
    const ids = (list: any[]) => list.map((p) => p.id);

    before(async () => {
      t = await buildTestApp(dialect);
      alice = await t.createUser({ username: 'alice' });
      bob = await t.createUser({ username: 'bob' });
      group = await makeGroup(t, 'acme', { visibility: PUBLIC });
      const sub = await makeGroup(t, 'tools', { visibility: PUBLIC, parentId: group.id, parentPath: 'acme' });
      await addMember(t, 'Namespace', group.id, alice.id, 30);
      hidden = await makeProject(t, t.rootToken, { name: 'hidden', namespace_id: group.id, visibility: 'private' });
      open = await makeProject(t, t.rootToken, { name: 'open', namespace_id: group.id, visibility: 'public' });
      inSub = await makeProject(t, t.rootToken, { name: 'deeper', namespace_id: sub.id, visibility: 'public' });
      // root's own private project, shared with the group: its members (alice) see it, others do not
      shared = await makeProject(t, t.rootToken, { name: 'lent', visibility: 'private' });
      const share = await t.request('POST', `/api/v4/projects/${shared.id}/share`, { body: { group_id: group.id, group_access: 30 } });
      assert.equal(share.status, 201, share.text);
      sharedWithSub = await makeProject(t, t.rootToken, { name: 'lent-below', visibility: 'public' });
      const below = await t.request('POST', `/api/v4/projects/${sharedWithSub.id}/share`, { body: { group_id: sub.id, group_access: 30 } });
      assert.equal(below.status, 201, below.text);
    });
    after(() => t.close());

    it('GET /groups/:id: projects are the group\'s own the visitor sees, newest first; shared_projects those shared with it', async () => {
      const forAlice = await t.get(`/api/v4/groups/${group.id}`, alice.token);
      assert.equal(forAlice.status, 200);
      assert.deepEqual(ids(forAlice.body.projects), [open.id, hidden.id]);
      assert.deepEqual(ids(forAlice.body.shared_projects), [shared.id]);
      // each is the project as the projects API shows it to her
      const one = await t.get(`/api/v4/groups/${group.id}/projects?with_shared=false&order_by=id`, alice.token);
      assert.deepEqual(keysOf(forAlice.body.projects[0]), keysOf(one.body[0]));
      assert.equal(forAlice.body.projects[0].path_with_namespace, 'acme/open');
      assert.equal(typeof forAlice.body.projects[0].id, 'number');
      assert.equal(forAlice.body.shared_projects[0].path_with_namespace, `root/lent`);
      // exactly the keys of the projects API's Project for each caller: a developer, a maintainer (root, the
      // projects' creator, with their runners tokens), a stranger, nobody (the simple form)
      for (const p of [...forAlice.body.projects, ...forAlice.body.shared_projects]) assert.deepEqual(keysOf(p), PROJECT_FULL_KEYS);
      const forRoot = await t.get(`/api/v4/groups/${group.id}`);
      for (const p of forRoot.body.projects) assert.deepEqual(keysOf(p), [...PROJECT_FULL_KEYS_MAINTAINER, 'repository_storage'].sort());
      assert.equal(typeof forRoot.body.projects[0].runners_token, 'string');
      assert.deepEqual(forAlice.body.projects[0].permissions, { project_access: null, group_access: { access_level: 30, notification_level: 3 } });
      assert.deepEqual(forAlice.body.shared_projects[0].shared_with_groups.map((g: any) => [g.group_id, g.group_access_level]), [[group.id, 30]]);

      const forBob = await t.get(`/api/v4/groups/${group.id}`, bob.token);
      assert.deepEqual(ids(forBob.body.projects), [open.id]);
      assert.deepEqual(forBob.body.shared_projects, []);
      assert.deepEqual(keysOf(forBob.body.projects[0]), PROJECT_FULL_KEYS);
      const anonymous = await t.get(`/api/v4/groups/${group.id}`, null);
      assert.deepEqual(ids(anonymous.body.projects), [open.id]);
      assert.deepEqual(keysOf(anonymous.body.projects[0]), PROJECT_SIMPLE_KEYS);
      // a subgroup: its own project and the project shared with it
      const sub = await t.get(`/api/v4/groups/${encodeURIComponent('acme/tools')}`, bob.token);
      assert.deepEqual([ids(sub.body.projects), ids(sub.body.shared_projects)], [[inSub.id], [sharedWithSub.id]]);

      const without = await t.get(`/api/v4/groups/${group.id}?with_projects=false`, alice.token);
      assert.equal(without.status, 200);
      assert.ok(!('projects' in without.body) && !('shared_projects' in without.body));
    });

    it('PUT /groups/:id answers the detail with its projects; POST /groups without projects or runners_token', async () => {
      const put = await t.request('PUT', `/api/v4/groups/${group.id}`, { body: { description: 'widgets' } });
      assert.equal(put.status, 200);
      assert.deepEqual(ids(put.body.projects), [open.id, hidden.id]);
      assert.deepEqual(ids(put.body.shared_projects), [shared.id]);
      const created = await t.request('POST', '/api/v4/groups', { body: { name: 'Fresh', path: 'fresh' } });
      assert.equal(created.status, 201);
      assert.ok(!('projects' in created.body));
      assert.ok(!('runners_token' in created.body), 'the reference shows it only on GET and PUT');
      assert.equal(typeof (await t.get(`/api/v4/groups/${created.body.id}`)).body.runners_token, 'string');
    });

    it('GET /groups/:id/projects includes shared projects unless with_shared=false; include_subgroups adds its subgroups\' own; /projects/shared only the shared', async () => {
      const all = await t.get(`/api/v4/groups/${group.id}/projects?order_by=id&sort=asc`, alice.token);
      assert.deepEqual(ids(all.body), [hidden.id, open.id, shared.id]);
      assert.equal(all.headers['x-total'], '3');
      const own = await t.get(`/api/v4/groups/${group.id}/projects?with_shared=false&order_by=id&sort=asc`, alice.token);
      assert.deepEqual(ids(own.body), [hidden.id, open.id]);
      const deep = await t.get(`/api/v4/groups/${group.id}/projects?include_subgroups=true&order_by=id&sort=asc`, alice.token);
      // the subgroups' own projects, but only the shares of the group itself (as the reference's finder)
      assert.deepEqual(ids(deep.body), [hidden.id, open.id, inSub.id, shared.id]);
      const page2 = await t.get(`/api/v4/groups/${group.id}/projects?include_subgroups=true&order_by=id&sort=asc&per_page=3&page=2`, alice.token);
      assert.deepEqual(ids(page2.body), [shared.id]);
      assert.deepEqual([page2.headers['x-total'], page2.headers['x-total-pages']], ['4', '2']);
      assert.equal((await t.get(`/api/v4/groups/${group.id}/projects?with_shared=maybe`, alice.token)).status, 400);
      const keyset = await t.get(`/api/v4/groups/${group.id}/projects?pagination=keyset&order_by=id&sort=asc&per_page=2`, alice.token);
      assert.deepEqual(ids(keyset.body), [hidden.id, open.id]);
      const next = new URL(/<([^>]+)>; rel="next"/.exec(keyset.headers.link as string)![1]);
      assert.deepEqual(ids((await t.get(`${next.pathname}${next.search}`, alice.token)).body), [shared.id]);
      assert.deepEqual(ids((await t.get(`/api/v4/groups/${group.id}/projects`, bob.token)).body), [open.id]);

      const onlyShared = await t.get(`/api/v4/groups/${group.id}/projects/shared`, alice.token);
      assert.equal(onlyShared.status, 200);
      assert.deepEqual(ids(onlyShared.body), [shared.id]);
      assert.deepEqual((await t.get(`/api/v4/groups/${group.id}/projects/shared`, bob.token)).body, []);
      const unknown = await t.get('/api/v4/groups/999999/projects/shared', alice.token);
      assert.equal(unknown.status, 404);
      assert.deepEqual(unknown.body, { message: '404 Group Not Found' });
      // an ended share is no share
      await t.request('DELETE', `/api/v4/projects/${shared.id}/share/${group.id}`);
      assert.deepEqual((await t.get(`/api/v4/groups/${group.id}`, alice.token)).body.shared_projects, []);
      await t.request('POST', `/api/v4/projects/${shared.id}/share`, { body: { group_id: group.id, group_access: 30 } });
    });

    it('an expired share is no share', async () => {
      const link = await t.c.db.selectFrom('project_group_links').select('id').where('project_id', '=', shared.id).where('group_id', '=', group.id).executeTakeFirstOrThrow();
      await t.c.db.updateTable('project_group_links').set({ expires_at: '2000-01-01' }).where('id', '=', link.id).execute();
      try {
        assert.deepEqual((await t.get(`/api/v4/groups/${group.id}`, alice.token)).body.shared_projects, []);
        assert.deepEqual(ids((await t.get(`/api/v4/groups/${group.id}/projects?order_by=id&sort=asc`, alice.token)).body), [hidden.id, open.id]);
        assert.deepEqual((await t.get(`/api/v4/groups/${group.id}/projects/shared`, alice.token)).body, []);
      } finally {
        await t.c.db.updateTable('project_group_links').set({ expires_at: null }).where('id', '=', link.id).execute();
      }
    });

    it('an admin asking for custom attributes gets the projects\' too', async () => {
      const set = await t.request('PUT', `/api/v4/projects/${open.id}/custom_attributes/team`, { body: { value: 'blue' } });
      assert.equal(set.status, 200, set.text);
      const r = await t.get(`/api/v4/groups/${group.id}?with_custom_attributes=true`);
      assert.deepEqual(r.body.custom_attributes, []);
      const byId = new Map(r.body.projects.map((p: any) => [p.id, p.custom_attributes]));
      assert.deepEqual(byId.get(open.id), [{ key: 'team', value: 'blue' }]);
      assert.deepEqual(byId.get(hidden.id), []);
      assert.ok(!('custom_attributes' in (await t.get(`/api/v4/groups/${group.id}`)).body.projects[0]));
    });

    it('a group lists at most 100 of its projects in its detail', async () => {
      const big = await makeGroup(t, 'big', { visibility: PUBLIC });
      const made: number[] = [];
      for (let i = 0; i < 101; i++) made.push((await makeProject(t, t.rootToken, { name: `p${i}`, namespace_id: big.id, visibility: 'public' })).id);
      const detail = await t.get(`/api/v4/groups/${big.id}`);
      assert.equal(detail.body.projects.length, 100);
      assert.deepEqual(ids(detail.body.projects), made.slice(1).reverse(), 'the newest 100');

      // and at most 100 of the projects shared with it: 101 copies of a project elsewhere, shared directly
      const elsewhere = await makeGroup(t, 'elsewhere', { visibility: PUBLIC });
      const { id: _id, ...row } = await t.c.db.selectFrom('projects').selectAll().where('id', '=', made[0]).executeTakeFirstOrThrow();
      await insertProjectsBulk(
        t.c.db,
        Array.from({ length: 101 }, (_, i) => ({ ...row, namespace_id: elsewhere.id, name: `c${i}`, path: `c${i}`, full_path: `elsewhere/c${i}`, full_path_lower: `elsewhere/c${i}` })),
      );
      const lent = (await t.c.db.selectFrom('projects').select('id').where('namespace_id', '=', elsewhere.id).orderBy('id').execute()).map((p) => p.id);
      const now = nowIso();
      await t.c.db
        .insertInto('project_group_links')
        .values(lent.map((project_id) => ({ project_id, group_id: big.id, group_access: 30, expires_at: null, created_at: now, updated_at: now })))
        .execute();
      const again = await t.get(`/api/v4/groups/${big.id}`);
      assert.deepEqual(ids(again.body.shared_projects), lent.slice(1).reverse(), 'the newest 100 shared');
      assert.equal(again.body.projects.length, 100);
      // the list itself is not cut
      assert.equal((await t.get(`/api/v4/groups/${big.id}/projects?per_page=1`)).headers['x-total'], '202');
    });
  });
}
