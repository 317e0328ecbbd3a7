import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS, EXTERNAL_URL, buildTestApp, keysOf, type TestApp } from '../helpers/build.js';
import { KEYS, links } from '../helpers/users.js';

for (const dialect of DIALECTS) {
  describe(`users: reading (${dialect})`, () => {
    let t: TestApp;
    before(async () => {
      t = await buildTestApp(dialect);
    });
    after(async () => t.close());

    describe('GET /user', () => {
      it('gives a non-admin their full UserPublic form with the reference defaults', async () => {
        const u = await t.createUser({ username: 'selfie', name: 'Self Ie', extra: { job_title: 'Dev', organization: 'A&B' } });
        const r = await t.get('/api/v4/user', u.token);
        assert.equal(r.status, 200);
        assert.equal(r.headers['content-type'], 'application/json');
        assert.deepEqual(keysOf(r.body), KEYS.self);
        assert.equal(r.body.id, u.id);
        assert.equal(r.body.email, 'selfie@example.com');
        assert.equal(r.body.commit_email, 'selfie@example.com');
        assert.equal(r.body.web_url, `${EXTERNAL_URL}/selfie`);
        assert.deepEqual(r.body.identities, []);
        assert.equal(r.body.two_factor_enabled, false);
        assert.equal(r.body.followers, 0);
        assert.equal(r.body.following, 0);
        assert.equal(r.body.is_followed, false);
        assert.equal(r.body.bot, false);
        assert.equal(r.body.external, false);
        assert.equal(r.body.private_profile, false);
        assert.equal(r.body.can_create_group, true);
        assert.equal(r.body.can_create_project, true);
        assert.equal(r.body.projects_limit, 100000);
        assert.equal(r.body.theme_id, 1);
        assert.equal(r.body.color_scheme_id, 1);
        assert.equal(r.body.local_time, null);
        assert.equal(r.body.work_information, 'Dev at A&amp;B');
        assert.match(r.body.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      });

      it('gives an admin the UserWithAdmin form', async () => {
        const r = await t.get('/api/v4/user');
        assert.equal(r.status, 200);
        assert.deepEqual(keysOf(r.body), KEYS.admin);
        assert.equal(r.body.username, 'root');
        assert.equal(r.body.is_admin, true);
        assert.equal(typeof r.body.namespace_id, 'number');
        assert.equal(r.body.note, null);
      });

      it('401 without a token', async () => {
        const r = await t.get('/api/v4/user', null);
        assert.equal(r.status, 401);
        assert.deepEqual(r.body, { message: '401 Unauthorized' });
      });

      it('works with read_user and read_api tokens', async () => {
        for (const scopes of [['read_user'], ['read_api']]) {
          const u = await t.createUser({ scopes });
          const r = await t.get('/api/v4/user', u.token);
          assert.equal(r.status, 200);
          assert.equal(r.body.id, u.id);
        }
      });
    });

    describe('GET /users/:id', () => {
      it('anonymous callers get the User form without is_followed', async () => {
        const u = await t.createUser({ extra: { bio: 'hello', location: 'Here' } });
        const r = await t.get(`/api/v4/users/${u.id}`, null);
        assert.equal(r.status, 200);
        assert.deepEqual(keysOf(r.body), KEYS.profileAnonymous);
        assert.equal(r.body.bio, 'hello');
        assert.equal(r.body.location, 'Here');
        assert.equal(r.body.followers, 0);
      });

      it('a signed-in non-admin gets the User form with is_followed', async () => {
        const u = await t.createUser();
        const viewer = await t.createUser({ scopes: ['read_user'] });
        const r = await t.get(`/api/v4/users/${u.id}`, viewer.token);
        assert.equal(r.status, 200);
        assert.deepEqual(keysOf(r.body), KEYS.profile);
        assert.equal(r.body.is_followed, false);
        assert.equal(r.body.username, u.username);
      });

      it('hides created_at, followers and following of a private profile from others, not from its owner or admins', async () => {
        const u = await t.createUser({ extra: { private_profile: 1 } });
        const viewer = await t.createUser();
        assert.deepEqual(keysOf((await t.get(`/api/v4/users/${u.id}`, viewer.token)).body), KEYS.profileHidden);
        assert.deepEqual(keysOf((await t.get(`/api/v4/users/${u.id}`, null)).body), KEYS.profileHidden);
        assert.deepEqual(keysOf((await t.get(`/api/v4/users/${u.id}`, u.token)).body), KEYS.profile);
        assert.deepEqual(keysOf((await t.get(`/api/v4/users/${u.id}`)).body), KEYS.adminDetails);
      });

      it('admins get UserDetailsWithAdmin with the highest role over memberships', async () => {
        const u = await t.createUser();
        const now = new Date().toISOString();
        await t.c.db
          .insertInto('members')
          .values([
            { source_type: 'Namespace', source_id: 1, user_id: u.id, access_level: 30, created_at: now, updated_at: now },
            { source_type: 'Project', source_id: 7, user_id: u.id, access_level: 40, created_at: now, updated_at: now },
          ])
          .execute();
        const r = await t.get(`/api/v4/users/${u.id}`);
        assert.equal(r.status, 200);
        assert.deepEqual(keysOf(r.body), KEYS.adminDetails);
        assert.equal(r.body.highest_role, 40);
        assert.equal(r.body.sign_in_count, 0);
        assert.equal(r.body.current_sign_in_ip, null);
        assert.equal(r.body.is_admin, false);
        const v = await t.createUser();
        assert.equal((await t.get(`/api/v4/users/${v.id}`)).body.highest_role, 0);
      });

      it('404 User Not Found for an unknown id; a non-numeric id is no route', async () => {
        const r = await t.get('/api/v4/users/999999');
        assert.equal(r.status, 404);
        assert.deepEqual(r.body, { message: '404 User Not Found' });
        const anon = await t.get('/api/v4/users/999999', null);
        assert.equal(anon.status, 404);
        const s = await t.get('/api/v4/users/abc');
        assert.equal(s.status, 404);
        assert.deepEqual(s.body, { error: '404 Not Found' });
      });

      it('works with a read_user token; a read_repository one is refused', async () => {
        const u = await t.createUser({ scopes: ['read_user'] });
        assert.equal((await t.get(`/api/v4/users/${u.id}`, u.token)).status, 200);
        const w = await t.createUser({ scopes: ['read_repository'] });
        const r = await t.get(`/api/v4/users/${u.id}`, w.token);
        assert.equal(r.status, 403);
        assert.equal(r.body.error, 'insufficient_scope');
      });
    });

    describe('GET /users', () => {
      it('anonymous callers must give a username', async () => {
        const r = await t.get('/api/v4/users', null);
        assert.equal(r.status, 403);
        assert.deepEqual(r.body, { message: '403 Forbidden - Not authorized to access /api/v4/users' });
        const u = await t.createUser({ username: 'AnonFind' });
        const found = await t.get('/api/v4/users?username=anonfind', null);
        assert.equal(found.status, 200);
        assert.equal(found.body.length, 1);
        assert.deepEqual(keysOf(found.body[0]), KEYS.basic);
        assert.equal(found.body[0].id, u.id);
      });

      it('username is exact and case-insensitive', async () => {
        const u = await t.createUser({ username: 'Exact.Name' });
        await t.createUser({ username: 'Exact.Name2' });
        const r = await t.get('/api/v4/users?username=EXACT.name');
        assert.deepEqual(r.body.map((x: any) => x.id), [u.id]);
        assert.deepEqual((await t.get('/api/v4/users?username=Exact.Nam')).body, []);
      });

      it('non-admins get UserBasic items, admins UserWithAdmin; read_user tokens may list', async () => {
        const u = await t.createUser({ scopes: ['read_user'] });
        const r = await t.get('/api/v4/users', u.token);
        assert.equal(r.status, 200);
        assert.ok(r.body.length > 1);
        for (const item of r.body) assert.deepEqual(keysOf(item), KEYS.basic);
        const a = await t.get('/api/v4/users');
        for (const item of a.body) assert.deepEqual(keysOf(item), KEYS.admin);
      });

      it('is newest first by default', async () => {
        const r = await t.get('/api/v4/users?per_page=100');
        const ids = r.body.map((x: any) => x.id);
        assert.deepEqual(ids, [...ids].sort((a: number, b: number) => b - a));
      });

      it('search matches name and username parts, and whole emails (the primary one for admins, the public one for others)', async () => {
        const a = await t.createUser({ username: 'zeta_alpha', name: 'Quokka Person', email: 'hidden.qk@example.com' });
        const b = await t.createUser({ username: 'quokkafan', name: 'Other', email: 'b-qk@example.com', extra: { public_email: 'b-qk@example.com' } });
        const viewer = await t.createUser();
        const ids = async (q: string, token?: string) =>
          (await t.get(`/api/v4/users?search=${encodeURIComponent(q)}`, token)).body.map((x: any) => x.id).sort();
        assert.deepEqual(await ids('quokka'), [a.id, b.id].sort());
        assert.deepEqual(await ids('QUOKKA per'), [a.id]); // every 3+ letter word must match; "per" in the name
        assert.deepEqual(await ids('eta_alp'), [a.id]);
        assert.deepEqual(await ids('@zeta_alpha'), [a.id]);
        // emails: whole only
        assert.deepEqual(await ids('hidden.qk@example.com'), [a.id]);
        assert.deepEqual(await ids('hidden.qk'), []);
        assert.deepEqual(await ids('hidden.qk@example.com', viewer.token), []);
        assert.deepEqual(await ids('b-qk@example.com', viewer.token), [b.id]);
        // fewer than 3 characters: only a whole name or username matches
        const c = await t.createUser({ username: 'qz', name: 'Q Z' });
        assert.deepEqual(await ids('qz'), [c.id]);
      });

      it("the web's user picker (/-/autocomplete/users.json) matches parts from one letter, where /users?search= needs three", async () => {
        const a = await t.createUser({ username: 'wxjones', name: 'Wx Jones' });
        const blocked = await t.createUser({ username: 'wxblocked', name: 'Wx Blocked' });
        assert.equal((await t.request('POST', `/api/v4/users/${blocked.id}/block`)).status, 201);
        const viewer = await t.createUser();
        assert.deepEqual((await t.get('/api/v4/users?search=wx', viewer.token)).body, []);
        const r = await t.get('/-/autocomplete/users.json?search=wx', viewer.token);
        assert.equal(r.status, 200);
        assert.deepEqual(r.body.map((x: any) => x.id), [a.id]); // active users only
        assert.deepEqual(keysOf(r.body[0]), KEYS.basic);
        assert.deepEqual((await t.get('/-/autocomplete/users.json?search=x', viewer.token)).body.map((x: any) => x.id).includes(a.id), true);
        assert.equal((await t.get('/-/autocomplete/users.json?search=wx', null)).status, 401);
      });

      it('search ranks an exact name, then username, before other matches', async () => {
        const x = await t.createUser({ username: 'rankzzz_b', name: 'Rankzzz Bee' });
        const y = await t.createUser({ username: 'rankzzz', name: 'Aardvark' });
        const z = await t.createUser({ username: 'other_rz', name: 'rankzzz' });
        const viewer = await t.createUser();
        const r = await t.get('/api/v4/users?search=rankzzz', viewer.token);
        assert.deepEqual(r.body.map((u: any) => u.id), [z.id, y.id, x.id]);
      });

      it('filters active, blocked, external, exclude_external, without_project_bots', async () => {
        const tag = 'flt' + Date.now().toString(36);
        const active = await t.createUser({ username: `${tag}_active` });
        const blocked = await t.createUser({ username: `${tag}_blocked` });
        const ldap = await t.createUser({ username: `${tag}_ldap` });
        const deact = await t.createUser({ username: `${tag}_deact` });
        const ext = await t.createUser({ username: `${tag}_ext`, external: true });
        const bot = await t.createUser({ username: `${tag}_bot`, bot: 'project_bot' });
        await t.c.db.updateTable('users').set({ state: 'blocked' }).where('id', '=', blocked.id).execute();
        await t.c.db.updateTable('users').set({ state: 'ldap_blocked' }).where('id', '=', ldap.id).execute();
        await t.c.db.updateTable('users').set({ state: 'deactivated' }).where('id', '=', deact.id).execute();
        const ids = async (q: string) =>
          (await t.get(`/api/v4/users?search=${tag}&per_page=100&${q}`)).body.map((x: any) => x.id).sort();
        const all = [active, blocked, ldap, deact, ext, bot].map((u) => u.id).sort();
        assert.deepEqual(await ids(''), all);
        assert.deepEqual(await ids('active=true'), [active.id, ext.id, bot.id].sort());
        assert.deepEqual(await ids('active=false'), all);
        assert.deepEqual(await ids('blocked=true'), [blocked.id, ldap.id].sort());
        assert.deepEqual(await ids('blocked=false'), all);
        assert.deepEqual(await ids('external=true'), [ext.id]);
        assert.deepEqual(await ids('exclude_external=true'), all.filter((id) => id !== ext.id));
        assert.deepEqual(await ids('without_project_bots=true'), all.filter((id) => id !== bot.id));
      });

      it('admins=true is for admins; a non-admin passing it gets everyone', async () => {
        const tag = 'adm' + Date.now().toString(36);
        const admin = await t.createUser({ username: `${tag}_a`, admin: true });
        const plain = await t.createUser({ username: `${tag}_p` });
        const byAdmin = await t.get(`/api/v4/users?search=${tag}&admins=true`);
        assert.deepEqual(byAdmin.body.map((x: any) => x.id), [admin.id]);
        const byUser = await t.get(`/api/v4/users?search=${tag}&admins=true`, plain.token);
        assert.deepEqual(byUser.body.map((x: any) => x.id).sort(), [admin.id, plain.id].sort());
      });

      it('admins may order and sort; others keep newest first', async () => {
        const tag = 'ord' + Date.now().toString(36);
        const b = await t.createUser({ username: `${tag}_b`, name: `${tag} Bravo` });
        const a = await t.createUser({ username: `${tag}_c`, name: `${tag} Alpha` });
        const c = await t.createUser({ username: `${tag}_a`, name: `${tag} Charlie` });
        const ids = async (q: string, token?: string) =>
          (await t.get(`/api/v4/users?search=${tag}&${q}`, token)).body.map((x: any) => x.id);
        assert.deepEqual(await ids('order_by=name&sort=asc'), [a.id, b.id, c.id]);
        assert.deepEqual(await ids('order_by=username&sort=asc'), [c.id, b.id, a.id]);
        assert.deepEqual(await ids('order_by=id&sort=asc'), [b.id, a.id, c.id]);
        assert.deepEqual(await ids('order_by=created_at'), [c.id, a.id, b.id]);
        assert.deepEqual(await ids('sort=asc'), [b.id, a.id, c.id]);
        assert.deepEqual(await ids(''), [c.id, a.id, b.id]);
        // a non-admin's order_by is ignored: the search ranks (no exact match here), then sorts by name
        assert.deepEqual(await ids('order_by=id&sort=desc', c.token), [a.id, b.id, c.id]);
        const plain = await t.createUser();
        const r = await t.get('/api/v4/users?order_by=username&sort=asc&per_page=100', plain.token);
        const all = r.body.map((x: any) => x.id);
        assert.deepEqual(all, [...all].sort((x: number, y: number) => y - x));
      });

      it('created_after and created_before filter for admins', async () => {
        const tag = 'crt' + Date.now().toString(36);
        const early = await t.createUser({ username: `${tag}_early` });
        const late = await t.createUser({ username: `${tag}_late` });
        await t.c.db.updateTable('users').set({ created_at: '2020-01-01T00:00:00.000Z' }).where('id', '=', early.id).execute();
        const after = await t.get(`/api/v4/users?search=${tag}&created_after=2021-01-01T00:00:00Z`);
        assert.deepEqual(after.body.map((x: any) => x.id), [late.id]);
        const before = await t.get(`/api/v4/users?search=${tag}&created_before=2021-01-01`);
        assert.deepEqual(before.body.map((x: any) => x.id), [early.id]);
        const bad = await t.get('/api/v4/users?created_after=yesterday-ish');
        assert.equal(bad.status, 400);
        assert.deepEqual(bad.body, { error: 'created_after is invalid' });
      });

      it('identity lookups need both extern_uid and provider and an admin; Anvil has no identities', async () => {
        const one = await t.get('/api/v4/users?extern_uid=123');
        assert.equal(one.status, 400);
        assert.deepEqual(one.body, { error: 'extern_uid, provider provide all or none of parameters' });
        const u = await t.createUser();
        const byUser = await t.get('/api/v4/users?extern_uid=123&provider=github', u.token);
        assert.equal(byUser.status, 403);
        assert.deepEqual(byUser.body, { message: '403 Forbidden' });
        const byAdmin = await t.get('/api/v4/users?extern_uid=123&provider=github');
        assert.equal(byAdmin.status, 200);
        assert.deepEqual(byAdmin.body, []);
      });

      it('rejects wrong types and values', async () => {
        const cases: [string, unknown][] = [
          ['active=maybe', { error: 'active is invalid' }],
          ['blocked=2x', { error: 'blocked is invalid' }],
          ['order_by=email', { error: 'order_by does not have a valid value' }],
          ['sort=up', { error: 'sort does not have a valid value' }],
          ['page=abc', { error: 'page is invalid' }],
        ];
        for (const [q, body] of cases) {
          const r = await t.get(`/api/v4/users?${q}`);
          assert.equal(r.status, 400, q);
          assert.deepEqual(r.body, body, q);
        }
      });

      it('405 for keyset pagination', async () => {
        const r = await t.get('/api/v4/users?pagination=keyset');
        assert.equal(r.status, 405);
        assert.deepEqual(r.body, { error: 'Keyset pagination is not yet available for this type of request' });
      });

      it('pages with x-* headers and first/prev/next/last links on the external URL', async () => {
        const tag = 'pg' + Date.now().toString(36);
        const made = [];
        for (let i = 0; i < 5; i++) made.push(await t.createUser({ username: `${tag}_${i}` }));
        const expected = made.map((u) => u.id).sort((a, b) => b - a);
        const base = `${EXTERNAL_URL}/api/v4/users?search=${tag}&per_page=2`;

        const p1 = await t.get(`/api/v4/users?search=${tag}&per_page=2`);
        assert.deepEqual(p1.body.map((x: any) => x.id), expected.slice(0, 2));
        assert.equal(p1.headers['x-page'], '1');
        assert.equal(p1.headers['x-per-page'], '2');
        assert.equal(p1.headers['x-prev-page'], '');
        assert.equal(p1.headers['x-next-page'], '2');
        assert.equal(p1.headers['x-total'], '5');
        assert.equal(p1.headers['x-total-pages'], '3');
        assert.deepEqual(links(p1.headers.link), { next: `${base}&page=2`, first: `${base}&page=1`, last: `${base}&page=3` });

        const p2 = await t.get(`/api/v4/users?search=${tag}&per_page=2&page=2`);
        assert.deepEqual(p2.body.map((x: any) => x.id), expected.slice(2, 4));
        assert.equal(p2.headers['x-page'], '2');
        assert.equal(p2.headers['x-prev-page'], '1');
        assert.equal(p2.headers['x-next-page'], '3');
        assert.deepEqual(links(p2.headers.link), {
          prev: `${base}&page=1`,
          next: `${base}&page=3`,
          first: `${base}&page=1`,
          last: `${base}&page=3`,
        });

        const p3 = await t.get(`/api/v4/users?search=${tag}&per_page=2&page=3`);
        assert.deepEqual(p3.body.map((x: any) => x.id), expected.slice(4));
        assert.equal(p3.headers['x-next-page'], '');
        assert.equal(p3.headers['x-total'], '5');
        assert.deepEqual(links(p3.headers.link), { prev: `${base}&page=2`, first: `${base}&page=1`, last: `${base}&page=3` });

        const beyond = await t.get(`/api/v4/users?search=${tag}&per_page=2&page=9`);
        assert.deepEqual(beyond.body, []);
        assert.equal(beyond.headers['x-total-pages'], '3');
      });
    });
  });
}
