// A group's projects as the reference gives them: GET /groups/:id carries `projects` (the group's
// own, not its subgroups') and `shared_projects` (shared with it), each the visitor's view, at most
// 100, newest first, unless with_projects=false; PUT answers the same detail. GET
// /groups/:id/projects includes shared projects unless with_shared=false; /projects/shared lists
// only them. POST /groups answers without projects and without runners_token, as the reference does.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS, buildTestApp, keysOf, type TestApp } from '../helpers/build.js';
import { addMember, makeGroup, makeProject } from '../helpers/projects.js';

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

      const forBob = await t.get(`/api/v4/groups/${group.id}`, bob.token);
      assert.deepEqual(ids(forBob.body.projects), [open.id]);
      assert.deepEqual(forBob.body.shared_projects, []);
      const anonymous = await t.get(`/api/v4/groups/${group.id}`, null);
      assert.deepEqual(ids(anonymous.body.projects), [open.id]);

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
      assert.deepEqual(ids(deep.body), [hidden.id, open.id, inSub.id, shared.id]);
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

    it('a group lists at most 100 of its projects in its detail', async () => {
      const big = await makeGroup(t, 'big', { visibility: PUBLIC });
      const made: number[] = [];
      for (let i = 0; i < 101; i++) made.push((await makeProject(t, t.rootToken, { name: `p${i}`, namespace_id: big.id, visibility: 'public' })).id);
      const detail = await t.get(`/api/v4/groups/${big.id}`);
      assert.equal(detail.body.projects.length, 100);
      assert.deepEqual(ids(detail.body.projects), made.slice(1).reverse(), 'the newest 100');
    });
  });
}
