import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS, EXTERNAL_URL, buildTestApp, keysOf, type TestApp } from '../helpers/build.js';
import { USER_BASIC_KEYS } from '../helpers/keys.js';
import { makeProject } from '../helpers/projects.js';


for (const dialect of DIALECTS) {
  describe(`project stars (${dialect})`, () => {
    let t: TestApp;
    before(async () => {
      t = await buildTestApp(dialect);
    });
    after(async () => t.close());

    it('star answers 201 with the full project and counts once; a second star is 304 with an empty body', async () => {
      const owner = await t.createUser();
      const fan = await t.createUser();
      const p = await makeProject(t, owner.token, { name: 'shiny', visibility: 'public' });
      const r = await t.request('POST', `/api/v4/projects/${p.id}/star`, { token: fan.token });
      assert.equal(r.status, 201);
      assert.equal(r.headers['content-type'], 'application/json');
      assert.equal(r.body.star_count, 1);
      assert.deepEqual(keysOf(r.body), keysOf((await t.get(`/api/v4/projects/${p.id}`, fan.token)).body));

      const again = await t.request('POST', `/api/v4/projects/${p.id}/star`, { token: fan.token });
      assert.equal(again.status, 304);
      assert.equal(again.text, '');
      assert.equal((await t.get(`/api/v4/projects/${p.id}`, fan.token)).body.star_count, 1);

      // unstar: 201 with the project and the count back down; then 304
      const un = await t.request('POST', `/api/v4/projects/${p.id}/unstar`, { token: fan.token });
      assert.equal(un.status, 201);
      assert.equal(un.body.star_count, 0);
      const un2 = await t.request('POST', `/api/v4/projects/${p.id}/unstar`, { token: fan.token });
      assert.equal(un2.status, 304);
      assert.equal(un2.text, '');
      assert.equal((await t.get(`/api/v4/projects/${p.id}`, fan.token)).body.star_count, 0);
    });

    it('concurrent stars by one user count once; by many users count each', async () => {
      const owner = await t.createUser();
      const p = await makeProject(t, owner.token, { name: 'racy', visibility: 'public' });
      const fan = await t.createUser();
      const results = await Promise.all(Array.from({ length: 6 }, () => t.request('POST', `/api/v4/projects/${p.id}/star`, { token: fan.token })));
      assert.deepEqual(results.map((r) => r.status).sort(), [201, 304, 304, 304, 304, 304]);
      const fans = await Promise.all(Array.from({ length: 5 }, () => t.createUser()));
      await Promise.all(fans.map((f) => t.request('POST', `/api/v4/projects/${p.id}/star`, { token: f.token })));
      assert.equal((await t.get(`/api/v4/projects/${p.id}`, owner.token)).body.star_count, 6);
    });

    it('star: 401 without a token, 403 with a read_api token, 404 for a project the caller cannot see', async () => {
      const owner = await t.createUser();
      const stranger = await t.createUser();
      const reader = await t.createUser({ scopes: ['read_api'] });
      const secret = await makeProject(t, owner.token, { name: 'secret' });
      const open = await makeProject(t, owner.token, { name: 'open', visibility: 'public' });
      assert.equal((await t.request('POST', `/api/v4/projects/${open.id}/star`, { token: null })).status, 401);
      const scoped = await t.request('POST', `/api/v4/projects/${open.id}/star`, { token: reader.token });
      assert.equal(scoped.status, 403);
      assert.equal(scoped.body.error, 'insufficient_scope');
      const hidden = await t.request('POST', `/api/v4/projects/${secret.id}/star`, { token: stranger.token });
      assert.equal(hidden.status, 404);
      assert.deepEqual(hidden.body, { message: '404 Project Not Found' });
      assert.equal((await t.request('POST', `/api/v4/projects/${secret.id}/unstar`, { token: stranger.token })).status, 404);
      assert.equal((await t.request('POST', '/api/v4/projects/999999/star', { token: stranger.token })).status, 404);
    });

    it('starrers: shape, newest first, search by name or username, private profiles hidden from others, pagination headers', async () => {
      const owner = await t.createUser();
      const p = await makeProject(t, owner.token, { name: 'popular', visibility: 'public' });
      const ann = await t.createUser({ username: 'ann_starrer', name: 'Ann Zebra' });
      const bob = await t.createUser({ username: 'bob_starrer', name: 'Bob Yak' });
      const shy = await t.createUser({ username: 'shy_starrer', name: 'Shy Person' });
      assert.equal((await t.request('PUT', `/api/v4/users/${shy.id}`, { body: { private_profile: true } })).status, 200);
      for (const u of [ann, bob, shy]) assert.equal((await t.request('POST', `/api/v4/projects/${p.id}/star`, { token: u.token })).status, 201);

      const r = await t.get(`/api/v4/projects/${p.id}/starrers`, null);
      assert.equal(r.status, 200);
      assert.equal(r.headers['x-total'], '2');
      assert.equal(r.headers['x-page'], '1');
      assert.equal(r.headers['x-per-page'], '20');
      assert.deepEqual(r.body.map((s: any) => s.user.username), ['bob_starrer', 'ann_starrer']);
      const first = r.body[0];
      assert.deepEqual(keysOf(first), ['starred_since', 'user']);
      assert.deepEqual(keysOf(first.user), USER_BASIC_KEYS);
      assert.deepEqual(first.user, { id: bob.id, username: 'bob_starrer', name: 'Bob Yak', state: 'active', avatar_url: null, web_url: `${EXTERNAL_URL}/bob_starrer` });
      assert.match(first.starred_since, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

      // the private profile shows to its user and to admins
      assert.deepEqual((await t.get(`/api/v4/projects/${p.id}/starrers`, shy.token)).body.map((s: any) => s.user.username), ['shy_starrer', 'bob_starrer', 'ann_starrer']);
      assert.equal((await t.get(`/api/v4/projects/${p.id}/starrers`)).body.length, 3);

      const byName = await t.get(`/api/v4/projects/${p.id}/starrers?search=zebra`, owner.token);
      assert.deepEqual(byName.body.map((s: any) => s.user.id), [ann.id]);
      const byUsername = await t.get(`/api/v4/projects/${p.id}/starrers?search=@BOB_star`, owner.token);
      assert.deepEqual(byUsername.body.map((s: any) => s.user.id), [bob.id]);
      assert.deepEqual((await t.get(`/api/v4/projects/${p.id}/starrers?search=nobody`, owner.token)).body, []);

      const paged = await t.get(`/api/v4/projects/${p.id}/starrers?per_page=1&page=2`, owner.token);
      assert.deepEqual(paged.body.map((s: any) => s.user.id), [ann.id]);
      assert.equal(paged.headers['x-total-pages'], '2');

      const priv = await makeProject(t, owner.token, { name: 'private-stars' });
      assert.equal((await t.get(`/api/v4/projects/${priv.id}/starrers`, bob.token)).status, 404);
      assert.equal((await t.get(`/api/v4/projects/${priv.id}/starrers`, null)).status, 404);
    });

    it('GET /projects?starred=true lists what the caller starred, with the other filters', async () => {
      const owner = await t.createUser();
      const fan = await t.createUser();
      const a = await makeProject(t, owner.token, { name: 'star-a', visibility: 'public' });
      const b = await makeProject(t, owner.token, { name: 'star-b', visibility: 'internal' });
      await makeProject(t, owner.token, { name: 'star-c', visibility: 'public' });
      await t.request('POST', `/api/v4/projects/${a.id}/star`, { token: fan.token });
      await t.request('POST', `/api/v4/projects/${b.id}/star`, { token: fan.token });
      const ids = async (q: string, token: string | null) => (await t.get(`/api/v4/projects${q}`, token)).body.map((p: any) => p.id);
      assert.deepEqual(await ids('?starred=true', fan.token), [b.id, a.id]);
      assert.deepEqual(await ids('?starred=true&visibility=public', fan.token), [a.id]);
      assert.deepEqual(await ids('?starred=true&order_by=id&sort=asc', fan.token), [a.id, b.id]);
      assert.deepEqual(await ids('?starred=true', owner.token), []);
      // a star on a project the caller can no longer see does not show it
      await t.request('PUT', `/api/v4/projects/${b.id}`, { token: owner.token, body: { visibility: 'private' } });
      assert.deepEqual(await ids('?starred=true', fan.token), [a.id]);
    });

    it('GET /users/:id/starred_projects: by id or username, visibility for the caller, private profiles, unknown users', async () => {
      const owner = await t.createUser();
      const fan = await t.createUser({ username: 'starry_fan' });
      const other = await t.createUser();
      const pub = await makeProject(t, owner.token, { name: 'sp-public', visibility: 'public' });
      const internal = await makeProject(t, owner.token, { name: 'sp-internal', visibility: 'internal' });
      for (const p of [pub, internal]) await t.request('POST', `/api/v4/projects/${p.id}/star`, { token: fan.token });
      await t.request('POST', `/api/v4/projects/${pub.id}/star`, { token: other.token });

      const list = async (url: string, token: string | null) => {
        const r = await t.get(url, token);
        assert.equal(r.status, 200, r.text);
        return r;
      };
      const signedIn = await list(`/api/v4/users/${fan.id}/starred_projects`, other.token);
      assert.deepEqual(signedIn.body.map((p: any) => p.id), [internal.id, pub.id]);
      assert.equal(signedIn.headers['x-total'], '2');
      assert.ok('visibility' in signedIn.body[0]);
      const anon = await list('/api/v4/users/starry_fan/starred_projects', null);
      assert.deepEqual(anon.body.map((p: any) => p.id), [pub.id]);
      assert.deepEqual(keysOf(anon.body[0]).includes('visibility'), false);
      const simple = await list(`/api/v4/users/${fan.id}/starred_projects?simple=true`, other.token);
      assert.equal('visibility' in simple.body[0], false);
      // the caller's own `starred` filter narrows further
      assert.deepEqual((await list(`/api/v4/users/${fan.id}/starred_projects?starred=true`, other.token)).body.map((p: any) => p.id), [pub.id]);
      assert.deepEqual((await list(`/api/v4/users/${fan.id}/starred_projects?search=internal`, other.token)).body.map((p: any) => p.id), [internal.id]);

      await t.request('PUT', `/api/v4/users/${fan.id}`, { body: { private_profile: true } });
      assert.deepEqual((await list(`/api/v4/users/${fan.id}/starred_projects`, other.token)).body, []);
      assert.equal((await list(`/api/v4/users/${fan.id}/starred_projects`, fan.token)).body.length, 2);
      assert.equal((await list(`/api/v4/users/${fan.id}/starred_projects`, t.rootToken)).body.length, 2);

      const missing = await t.get('/api/v4/users/999999/starred_projects', other.token);
      assert.equal(missing.status, 404);
      assert.deepEqual(missing.body, { message: '404 User Not Found' });
      assert.equal((await t.get(`/api/v4/users/${fan.id}/starred_projects?order_by=stars`, other.token)).status, 400);
    });

    it('deleting a project removes its stars; a starrer deleted is no longer listed', async () => {
      const owner = await t.createUser();
      const fan = await t.createUser();
      const p = await makeProject(t, owner.token, { name: 'short-lived', visibility: 'public' });
      await t.request('POST', `/api/v4/projects/${p.id}/star`, { token: fan.token });
      assert.equal((await t.request('DELETE', `/api/v4/projects/${p.id}`, { token: owner.token })).status, 202);
      const left = await t.c.db.selectFrom('project_stars').select('id').where('project_id', '=', p.id).execute();
      assert.deepEqual(left, []);
      assert.deepEqual((await t.get(`/api/v4/users/${fan.id}/starred_projects`, fan.token)).body, []);
    });
  });
}
