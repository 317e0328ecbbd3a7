import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS, EXTERNAL_URL, buildTestApp, keysOf, type TestApp } from '../helpers/build.js';
import { GROUP_KEYS, addMember, makeGroup } from '../helpers/groups.js';

for (const dialect of DIALECTS) {
  describe(`groups (${dialect})`, () => {
    let t: TestApp;
    before(async () => {
      t = await buildTestApp(dialect);
    });
    after(async () => t.close());

    it('POST /groups creates a group owned by its creator, answering GroupDetail without projects', async () => {
      const u = await t.createUser();
      const r = await t.request('POST', '/api/v4/groups', {
        token: u.token,
        body: { name: 'Alpha Team', path: 'alpha-team', description: 'd', visibility: 'internal', subgroup_creation_level: 'owner' },
      });
      assert.equal(r.status, 201, r.text);
      assert.equal(r.headers['content-type'], 'application/json');
      assert.deepEqual(keysOf(r.body), [...GROUP_KEYS, 'prevent_sharing_groups_outside_hierarchy', 'shared_with_groups'].sort());
      assert.equal(r.body.name, 'Alpha Team');
      assert.equal(r.body.full_path, 'alpha-team');
      assert.equal(r.body.full_name, 'Alpha Team');
      assert.equal(r.body.web_url, `${EXTERNAL_URL}/groups/alpha-team`);
      assert.equal(r.body.visibility, 'internal');
      assert.equal(r.body.subgroup_creation_level, 'owner');
      assert.equal(r.body.project_creation_level, 'developer');
      assert.equal(r.body.parent_id, null);
      assert.equal(r.body.lfs_enabled, true);
      assert.equal(r.body.default_branch_protection, 2);
      assert.deepEqual(r.body.shared_with_groups, []);
      const m = await t.get(`/api/v4/groups/${r.body.id}/members`, u.token);
      assert.equal(m.status, 200);
      assert.deepEqual(m.body.map((x: any) => [x.id, x.access_level]), [[u.id, 50]]);
    });

    it('GET /groups/:id answers by id or URL-encoded full path; owners see the runners token, others do not', async () => {
      const owner = await t.createUser();
      const g = await makeGroup(t, { token: owner.token, visibility: 'public', path: 'bypath' });
      const sub = await makeGroup(t, { token: owner.token, visibility: 'public', parent_id: g.id, path: 'child' });
      const r = await t.get(`/api/v4/groups/bypath%2Fchild`, owner.token);
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.id, sub.id);
      assert.equal(r.body.full_name, `${g.name} / ${sub.name}`);
      assert.deepEqual(keysOf(r.body), [...GROUP_KEYS, 'shared_with_groups', 'runners_token', 'projects', 'shared_projects'].sort());
      assert.deepEqual(r.body.projects, []);
      assert.match(r.body.runners_token, /^GR1348941/);
      const other = await t.createUser();
      const o = await t.get(`/api/v4/groups/${g.id}`, other.token);
      assert.deepEqual(keysOf(o.body), [...GROUP_KEYS, 'shared_with_groups', 'prevent_sharing_groups_outside_hierarchy', 'projects', 'shared_projects'].sort());
      const noProjects = await t.get(`/api/v4/groups/${g.id}?with_projects=false`, other.token);
      assert.equal('projects' in noProjects.body, false);
    });

    it('bad inputs: missing, invalid and duplicate values, no token, unknown ids', async () => {
      const u = await t.createUser();
      let r = await t.request('POST', '/api/v4/groups', { token: u.token, body: { path: 'x1' } });
      assert.deepEqual([r.status, r.body], [400, { message: '400 (Bad request) "name" not given' }]);
      r = await t.request('POST', '/api/v4/groups', { token: u.token, body: { name: 'x', path: 'x2', visibility: 'secret' } });
      assert.deepEqual([r.status, r.body], [400, { error: 'visibility does not have a valid value' }]);
      r = await t.request('POST', '/api/v4/groups', { token: null, body: { name: 'x', path: 'x3' } });
      assert.deepEqual([r.status, r.body], [401, { message: '401 Unauthorized' }]);
      await makeGroup(t, { token: u.token, path: 'dup-path' });
      r = await t.request('POST', '/api/v4/groups', { token: u.token, body: { name: 'Other', path: 'DUP-path' } });
      assert.deepEqual([r.status, r.body], [400, { message: 'Failed to save group {:path=>["has already been taken"]}' }]);
      r = await t.request('POST', '/api/v4/groups', { token: u.token, body: { name: 'Other', path: '-bad' } });
      assert.equal(r.status, 400);
      assert.match(r.body.message, /^Failed to save group \{:path=>\["can contain only letters/);
      r = await t.request('POST', '/api/v4/groups', { token: u.token, body: { name: 'Other', path: u.username } });
      assert.equal(r.status, 400, 'a user namespace holds the path');
      r = await t.request('POST', '/api/v4/groups', { token: u.token, body: { name: 'x', path: 'x4', parent_id: 999999 } });
      assert.deepEqual([r.status, r.body], [404, { message: '404 Group Not Found' }]);
      assert.deepEqual((await t.get('/api/v4/groups/999999', u.token)).body, { message: '404 Group Not Found' });
      assert.equal((await t.get('/api/v4/groups/no%2Fsuch', u.token)).status, 404);
      // a user namespace is not a group
      assert.equal((await t.get(`/api/v4/groups/${u.username}`, u.token)).status, 404);
      const cannot = await t.createUser({ canCreateGroup: false });
      r = await t.request('POST', '/api/v4/groups', { token: cannot.token, body: { name: 'x', path: 'x5' } });
      assert.deepEqual([r.status, r.body], [403, { message: '403 Forbidden' }]);
      const readOnly = await t.createUser({ scopes: ['read_api'] });
      r = await t.request('POST', '/api/v4/groups', { token: readOnly.token, body: { name: 'x', path: 'x6' } });
      assert.equal(r.status, 403);
      assert.equal(r.body.error, 'insufficient_scope');
    });

    it('visibility matrix for GET /groups/:id', async () => {
      const owner = await t.createUser();
      const member = await t.createUser();
      const stranger = await t.createUser();
      const external = await t.createUser({ external: true });
      const admin = await t.createUser({ admin: true });
      const groups = {
        private: await makeGroup(t, { token: owner.token, visibility: 'private' }),
        internal: await makeGroup(t, { token: owner.token, visibility: 'internal' }),
        public: await makeGroup(t, { token: owner.token, visibility: 'public' }),
      };
      for (const g of Object.values(groups)) await addMember(t, g.id, member.id, 10, owner.token);
      const expect: Record<string, Record<string, number>> = {
        anonymous: { private: 404, internal: 404, public: 200 },
        stranger: { private: 404, internal: 200, public: 200 },
        external: { private: 404, internal: 404, public: 200 },
        member: { private: 200, internal: 200, public: 200 },
        admin: { private: 200, internal: 200, public: 200 },
      };
      const tokens: Record<string, string | null> = { anonymous: null, stranger: stranger.token, external: external.token, member: member.token, admin: admin.token };
      for (const [who, row] of Object.entries(expect)) {
        for (const [vis, status] of Object.entries(row)) {
          const r = await t.get(`/api/v4/groups/${(groups as any)[vis].id}`, tokens[who]);
          assert.equal(r.status, status, `${who} on ${vis}`);
          if (status === 404) assert.deepEqual(r.body, { message: '404 Group Not Found' });
        }
      }
    });

    it('GET /groups lists by the finder rules, with pagination headers', async () => {
      const t2 = await buildTestApp(dialect);
      try {
        const owner = await t2.createUser();
        const pub = await makeGroup(t2, { token: owner.token, visibility: 'public', name: 'Bravo', path: 'bravo' });
        const int = await makeGroup(t2, { token: owner.token, visibility: 'internal', name: 'Alpha', path: 'alpha' });
        const priv = await makeGroup(t2, { token: owner.token, visibility: 'private', name: 'Charlie', path: 'charlie' });
        const user = await t2.createUser();
        const external = await t2.createUser({ external: true });
        const ids = async (url: string, token: string | null) => {
          const r = await t2.get(url, token);
          assert.equal(r.status, 200, r.text);
          return r.body.map((g: any) => g.id);
        };
        assert.deepEqual(await ids('/api/v4/groups', null), [pub.id]);
        assert.deepEqual(await ids('/api/v4/groups', user.token), []);
        assert.deepEqual(await ids('/api/v4/groups?all_available=true', user.token), [int.id, pub.id]);
        assert.deepEqual(await ids('/api/v4/groups?all_available=true', external.token), [pub.id]);
        assert.deepEqual(await ids('/api/v4/groups', owner.token), [int.id, pub.id, priv.id]);
        assert.deepEqual(await ids('/api/v4/groups', t2.rootToken), [int.id, pub.id, priv.id]);
        assert.deepEqual(await ids('/api/v4/groups?order_by=id&sort=desc', owner.token), [priv.id, int.id, pub.id]);
        assert.deepEqual(await ids('/api/v4/groups?search=rav', owner.token), [pub.id]);
        assert.deepEqual(await ids(`/api/v4/groups?skip_groups[]=${pub.id}&skip_groups[]=${int.id}`, owner.token), [priv.id]);
        assert.deepEqual(await ids('/api/v4/groups?owned=true', user.token), []);
        assert.deepEqual(await ids('/api/v4/groups?min_access_level=50', owner.token), [int.id, pub.id, priv.id]);
        assert.deepEqual(await ids('/api/v4/groups?visibility=private', owner.token), [priv.id]);
        const bad = await t2.get('/api/v4/groups?order_by=size', owner.token);
        assert.deepEqual([bad.status, bad.body], [400, { error: 'order_by does not have a valid value' }]);

        const p = await t2.get('/api/v4/groups?per_page=2&page=2', owner.token);
        assert.equal(p.headers['x-total'], '3');
        assert.equal(p.headers['x-total-pages'], '2');
        assert.equal(p.headers['x-page'], '2');
        assert.equal(p.headers['x-prev-page'], '1');
        assert.equal(p.headers['x-next-page'], '');
        assert.deepEqual(p.body.map((g: any) => g.id), [priv.id]);

        // keyset pages by name (cursor in the Link header), and 405 for another order
        const k1 = await t2.get('/api/v4/groups?pagination=keyset&order_by=name&sort=asc&per_page=2', owner.token);
        assert.equal(k1.status, 200);
        assert.deepEqual(k1.body.map((g: any) => g.name), ['Alpha', 'Bravo']);
        const next = /<([^>]+)>; rel="next"/.exec(String(k1.headers.link))![1];
        assert.match(next, /cursor=/);
        const k2 = await t2.get(next.replace(EXTERNAL_URL, ''), owner.token);
        assert.deepEqual(k2.body.map((g: any) => g.name), ['Charlie']);
        assert.equal(k2.headers.link, undefined);
        const k3 = await t2.get('/api/v4/groups?pagination=keyset&order_by=id', owner.token);
        assert.equal(k3.status, 405);
      } finally {
        await t2.close();
      }
    });

    it('subgroups: creation needs the right role in the parent; membership is inherited downwards', async () => {
      const owner = await t.createUser();
      const dev = await t.createUser();
      const maint = await t.createUser();
      const outsider = await t.createUser();
      const parent = await makeGroup(t, { token: owner.token, visibility: 'private' });
      await addMember(t, parent.id, dev.id, 30, owner.token);
      await addMember(t, parent.id, maint.id, 40, owner.token);

      let r = await t.request('POST', '/api/v4/groups', { token: dev.token, body: { name: 'Sub', path: 'sub', parent_id: parent.id } });
      assert.deepEqual([r.status, r.body], [403, { message: '403 Forbidden' }]);
      r = await t.request('POST', '/api/v4/groups', { token: outsider.token, body: { name: 'Sub', path: 'sub', parent_id: parent.id } });
      assert.deepEqual([r.status, r.body], [404, { message: '404 Group Not Found' }]);
      const sub = await makeGroup(t, { token: maint.token, parent_id: parent.id, path: 'sub', name: 'Sub' });
      assert.equal(sub.full_path, `${parent.full_path}/sub`);
      r = await t.request('POST', '/api/v4/groups', { token: owner.token, body: { name: 'Sub', path: 'sub2', parent_id: parent.id } });
      assert.deepEqual([r.status, r.body], [400, { message: 'Failed to save group {:name=>["has already been taken"]}' }]);
      r = await t.request('POST', '/api/v4/groups', { token: owner.token, body: { name: 'Pub', path: 'pub', parent_id: parent.id, visibility: 'public' } });
      assert.equal(r.status, 400);
      assert.equal(r.body.message, 'Failed to save group {:visibility_level=>["public is not allowed since the parent group has a private visibility."]}');

      // the developer of the parent reads the private subgroup; its inherited members list shows them
      assert.equal((await t.get(`/api/v4/groups/${sub.id}`, dev.token)).status, 200);
      const direct = await t.get(`/api/v4/groups/${sub.id}/members`, dev.token);
      assert.deepEqual(direct.body.map((m: any) => m.id), [maint.id]);
      const all = await t.get(`/api/v4/groups/${sub.id}/members/all`, dev.token);
      assert.deepEqual(all.body.map((m: any) => [m.id, m.access_level]).sort(), [[owner.id, 50], [dev.id, 30], [maint.id, 50]].sort());
      const one = await t.get(`/api/v4/groups/${sub.id}/members/all/${dev.id}`, dev.token);
      assert.equal(one.body.access_level, 30);
      assert.deepEqual((await t.get(`/api/v4/groups/${sub.id}/members/${dev.id}`, dev.token)).body, { message: '404 Not found' });

      // a member of only the subgroup sees the private parent too
      const subOnly = await t.createUser();
      await addMember(t, sub.id, subOnly.id, 10, maint.token);
      assert.equal((await t.get(`/api/v4/groups/${parent.id}`, subOnly.token)).status, 200);
      const mine = await t.get('/api/v4/groups', subOnly.token);
      assert.deepEqual(mine.body.map((g: any) => g.id).sort(), [parent.id, sub.id].sort());

      const subs = await t.get(`/api/v4/groups/${parent.id}/subgroups`, owner.token);
      assert.deepEqual(subs.body.map((g: any) => g.id), [sub.id]);
      const deep = await makeGroup(t, { token: owner.token, parent_id: sub.id, path: 'deep' });
      const desc = await t.get(`/api/v4/groups/${parent.id}/descendant_groups`, owner.token);
      assert.deepEqual(desc.body.map((g: any) => g.id).sort(), [sub.id, deep.id].sort());
      assert.equal((await t.get(`/api/v4/groups/${parent.id}/subgroups`, outsider.token)).status, 404);

      // the subgroup may not be added below the level inherited from the parent
      r = await t.request('POST', `/api/v4/groups/${sub.id}/members`, { token: owner.token, body: { user_id: dev.id, access_level: 20 } });
      assert.deepEqual([r.status, r.body], [400, { message: { access_level: [`should be greater than or equal to Developer inherited membership from group ${parent.name}`] } }]);
    });

    it('PUT /groups/:id: owners change settings and paths (descendants follow); developers get 403', async () => {
      const owner = await t.createUser();
      const dev = await t.createUser();
      const g = await makeGroup(t, { token: owner.token, visibility: 'internal', path: 'renameme' });
      const sub = await makeGroup(t, { token: owner.token, parent_id: g.id, path: 'inner' });
      const deep = await makeGroup(t, { token: owner.token, parent_id: sub.id, path: 'deepest' });
      await addMember(t, g.id, dev.id, 30, owner.token);
      let r = await t.request('PUT', `/api/v4/groups/${g.id}`, { token: dev.token, body: { description: 'nope' } });
      assert.deepEqual([r.status, r.body], [403, { message: '403 Forbidden' }]);
      r = await t.request('PUT', `/api/v4/groups/${g.id}`, { token: owner.token, body: { path: 'renamed', name: 'Renamed', description: 'new', request_access_enabled: false } });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.full_path, 'renamed');
      assert.equal(r.body.description, 'new');
      assert.equal(r.body.request_access_enabled, false);
      assert.deepEqual(r.body.projects, []);
      const d = await t.get(`/api/v4/groups/${deep.id}`, owner.token);
      assert.equal(d.body.full_path, 'renamed/inner/deepest');
      assert.equal(d.body.full_name, `Renamed / ${sub.name} / ${deep.name}`);
      assert.equal((await t.get('/api/v4/groups/renamed%2Finner', owner.token)).body.id, sub.id);
      r = await t.request('PUT', `/api/v4/groups/${sub.id}`, { token: owner.token, body: { visibility: 'public' } });
      assert.deepEqual([r.status, r.body], [400, { message: { visibility_level: ['public is not allowed since the parent group has a internal visibility.'] } }]);
      const other = await makeGroup(t, { token: owner.token, path: 'taken-path' });
      r = await t.request('PUT', `/api/v4/groups/${g.id}`, { token: owner.token, body: { path: other.path } });
      assert.deepEqual([r.status, r.body], [400, { message: { path: ['has already been taken'] } }]);
      r = await t.request('PUT', `/api/v4/groups/${g.id}`, { token: null, body: { description: 'x' } });
      assert.equal(r.status, 401);
    });

    it('DELETE /groups/:id answers 202 and removes the group and its subgroups', async () => {
      const owner = await t.createUser();
      const dev = await t.createUser();
      const g = await makeGroup(t, { token: owner.token });
      const sub = await makeGroup(t, { token: owner.token, parent_id: g.id });
      await addMember(t, g.id, dev.id, 30, owner.token);
      assert.equal((await t.request('DELETE', `/api/v4/groups/${g.id}`, { token: dev.token })).status, 403);
      const r = await t.request('DELETE', `/api/v4/groups/${g.id}`, { token: owner.token });
      assert.deepEqual([r.status, r.body], [202, { message: '202 Accepted' }]);
      assert.equal((await t.get(`/api/v4/groups/${g.id}`, owner.token)).status, 404);
      assert.equal((await t.get(`/api/v4/groups/${sub.id}`, t.rootToken)).status, 404);
      assert.equal((await t.request('DELETE', `/api/v4/groups/${g.id}`, { token: owner.token })).status, 404);
    });
  });
}
