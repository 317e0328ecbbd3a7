import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS, buildTestApp, keysOf, type TestApp } from '../helpers/build.js';
import { KEYS } from '../helpers/users.js';

let seq = 0;
const fresh = (prefix = 'nu') => `${prefix}${Date.now().toString(36)}${(seq += 1)}`;

for (const dialect of DIALECTS) {
  describe(`users: administration (${dialect})`, () => {
    let t: TestApp;
    before(async () => {
      t = await buildTestApp(dialect);
    });
    after(async () => t.close());

    const post = (body: unknown, token?: string | null) => t.request('POST', '/api/v4/users', { body, token });

    describe('POST /users', () => {
      it('creates a user with its namespace and answers UserWithAdmin', async () => {
        const username = fresh();
        const r = await post({
          email: `${username}@Example.com`,
          username,
          name: 'New Person',
          password: 'secret-password',
          bio: 'Bio here',
          location: 'Lisbon',
          projects_limit: 5,
          can_create_group: false,
          external: true,
          skip_confirmation: true,
          note: 'created by test',
          pronouns: 'they/them',
          public_email: `${username}@example.com`,
        });
        assert.equal(r.status, 201);
        assert.equal(r.headers['content-type'], 'application/json');
        assert.deepEqual(keysOf(r.body), KEYS.admin);
        assert.equal(r.body.username, username);
        assert.equal(r.body.email, `${username}@Example.com`);
        assert.equal(r.body.bio, 'Bio here');
        assert.equal(r.body.location, 'Lisbon');
        // an external user gets no personal projects whatever the request says (the reference's User model)
        assert.equal(r.body.projects_limit, 0);
        assert.equal(r.body.can_create_group, false);
        assert.equal(r.body.external, true);
        assert.equal(r.body.is_admin, false);
        assert.equal(r.body.note, 'created by test');
        assert.equal(r.body.pronouns, 'they/them');
        assert.equal(r.body.state, 'active');
        assert.notEqual(r.body.confirmed_at, null);
        assert.equal(typeof r.body.namespace_id, 'number');
        const ns = await t.c.db.selectFrom('namespaces').selectAll().where('id', '=', r.body.namespace_id).executeTakeFirstOrThrow();
        assert.equal(ns.path, username);
        assert.equal(ns.owner_id, r.body.id);
        const creator = await t.c.db.selectFrom('users').select('created_by_id').where('id', '=', r.body.id).executeTakeFirstOrThrow();
        assert.equal(creator.created_by_id, 1);
        // the new user can be found
        const g = await t.get(`/api/v4/users/${r.body.id}`);
        assert.equal(g.body.username, username);
      });

      it('takes reset_password or force_random_password instead of a password; unconfirmed without skip_confirmation', async () => {
        for (const flag of ['reset_password', 'force_random_password']) {
          const username = fresh();
          const r = await post({ email: `${username}@example.com`, username, name: 'X', [flag]: true, admin: true });
          assert.equal(r.status, 201, flag);
          assert.equal(r.body.confirmed_at, null);
          assert.equal(r.body.is_admin, true);
        }
      });

      it('400 when a required attribute is missing, or no password option is given', async () => {
        const username = fresh();
        for (const field of ['email', 'name', 'username']) {
          const body: Record<string, unknown> = { email: `${username}@example.com`, username, name: 'X', password: 'password123' };
          delete body[field];
          const r = await post(body);
          assert.equal(r.status, 400);
          assert.deepEqual(r.body, { message: `400 (Bad request) "${field}" not given` });
        }
        const r = await post({ email: `${username}@example.com`, username, name: 'X' });
        assert.equal(r.status, 400);
        assert.deepEqual(r.body, { error: 'password, reset_password, force_random_password are missing, at least one parameter must be provided' });
      });

      it('400 for wrong types', async () => {
        const username = fresh();
        const base = { email: `${username}@example.com`, username, name: 'X', password: 'password123' };
        for (const [k, v, msg] of [
          ['projects_limit', 'many', 'projects_limit is invalid'],
          ['admin', 'maybe', 'admin is invalid'],
          ['skip_confirmation', 'sure', 'skip_confirmation is invalid'],
        ] as const) {
          const r = await post({ ...base, [k]: v });
          assert.equal(r.status, 400);
          assert.deepEqual(r.body, { error: msg });
        }
      });

      it('400 with field messages for invalid values', async () => {
        const u = fresh();
        const cases: [Record<string, unknown>, Record<string, string[]>][] = [
          [{ email: 'not-an-email' }, { email: ['is invalid'] }],
          [{ password: 'short' }, { password: ['is too short (minimum is 8 characters)'] }],
          [{ username: '-bad' }, { username: ["can contain only letters, digits, '_', '-' and '.'. Cannot start with '-', end in '.git' or end in '.atom'"] }],
          [{ username: `${u}.git` }, { username: ["can contain only letters, digits, '_', '-' and '.'. Cannot start with '-', end in '.git' or end in '.atom'"] }],
          [{ name: '' }, { name: ["can't be blank"] }],
          [{ projects_limit: -1 }, { projects_limit: ['must be greater than or equal to 0'] }],
          [{ public_email: 'someone-else@example.com' }, { public_email: ['is not an email you own'] }],
          [{ reset_password: false, password: undefined }, { password: ["can't be blank"] }],
        ];
        for (const [patch, messages] of cases) {
          const r = await post({ email: `${u}@example.com`, username: u, name: 'X', password: 'password123', ...patch });
          assert.equal(r.status, 400, JSON.stringify(patch));
          assert.deepEqual(r.body, { message: messages }, JSON.stringify(patch));
        }
      });

      it('409 for a taken email or username (case-insensitive), email first', async () => {
        const existing = await t.createUser({ username: fresh('Taken') });
        const other = fresh();
        const byEmail = await post({ email: existing.username.toUpperCase() + '@EXAMPLE.COM', username: existing.username, name: 'X', password: 'password123' });
        assert.equal(byEmail.status, 409);
        assert.deepEqual(byEmail.body, { message: 'Email has already been taken' });
        const byName = await post({ email: `${other}@example.com`, username: existing.username.toLowerCase(), name: 'X', password: 'password123' });
        assert.equal(byName.status, 409);
        assert.deepEqual(byName.body, { message: 'Username has already been taken' });
      });

      it('a username taken by another namespace is a validation error', async () => {
        const path = fresh('grp');
        const now = new Date().toISOString();
        await t.c.db.insertInto('namespaces').values({ kind: 'group', name: path, path, full_path: path, full_path_lower: path, created_at: now, updated_at: now }).execute();
        const r = await post({ email: `${path}@example.com`, username: path, name: 'X', password: 'password123' });
        assert.equal(r.status, 400);
        assert.deepEqual(r.body, { message: { username: ['has already been taken'] } });
      });

      it('403 for a non-admin, 401 without a token, 403 insufficient_scope for read tokens', async () => {
        const u = fresh();
        const body = { email: `${u}@example.com`, username: u, name: 'X', password: 'password123' };
        const plain = await t.createUser();
        const r = await post(body, plain.token);
        assert.equal(r.status, 403);
        assert.deepEqual(r.body, { message: '403 Forbidden' });
        const anon = await post(body, null);
        assert.equal(anon.status, 401);
        assert.deepEqual(anon.body, { message: '401 Unauthorized' });
        for (const scopes of [['read_api'], ['read_user']]) {
          const admin = await t.createUser({ admin: true, scopes });
          const s = await post(body, admin.token);
          assert.equal(s.status, 403);
          assert.deepEqual(s.body, {
            error: 'insufficient_scope',
            error_description: 'The request requires higher privileges than provided by the access token.',
            scope: 'api',
          });
        }
        assert.equal((await t.get(`/api/v4/users?username=${u}`)).body.length, 0);
      });
    });

    describe('PUT /users/:id', () => {
      it('changes attributes and renames the personal namespace with the username', async () => {
        const u = await t.createUser();
        const name = fresh('Renamed');
        const r = await t.request('PUT', `/api/v4/users/${u.id}`, {
          body: { username: name, name: 'Renamed Person', bio: 'new bio', admin: true, private_profile: true, commit_email: '_private', projects_limit: 0 },
        });
        assert.equal(r.status, 200);
        assert.deepEqual(keysOf(r.body), KEYS.admin);
        assert.equal(r.body.username, name);
        assert.equal(r.body.name, 'Renamed Person');
        assert.equal(r.body.bio, 'new bio');
        assert.equal(r.body.is_admin, true);
        assert.equal(r.body.private_profile, true);
        assert.equal(r.body.can_create_project, false);
        assert.equal(r.body.commit_email, `${u.id}-${name}@users.noreply.anvil.test`);
        assert.equal(r.body.web_url, `http://anvil.test/${name}`);
        const ns = await t.c.db.selectFrom('namespaces').selectAll().where('owner_id', '=', u.id).executeTakeFirstOrThrow();
        assert.equal(ns.path, name);
        assert.equal(ns.full_path_lower, name.toLowerCase());
        assert.equal(ns.name, 'Renamed Person');
        // the user's token still works and sees the new name
        assert.equal((await t.get('/api/v4/user', u.token)).body.username, name);
      });

      it('changes the password and email; the own email and username are not conflicts', async () => {
        const u = await t.createUser();
        const same = await t.request('PUT', `/api/v4/users/${u.id}`, { body: { email: `${u.username}@example.com`, username: u.username.toUpperCase() } });
        assert.equal(same.status, 200);
        assert.equal(same.body.username, u.username.toUpperCase());
        const email = `${fresh()}@example.org`;
        const r = await t.request('PUT', `/api/v4/users/${u.id}`, { body: { email, password: 'another-password' } });
        assert.equal(r.status, 200);
        assert.equal(r.body.email, email);
        const row = await t.c.db.selectFrom('users').select(['password_digest', 'email_lower']).where('id', '=', u.id).executeTakeFirstOrThrow();
        assert.equal(row.email_lower, email.toLowerCase());
        assert.ok(row.password_digest?.startsWith('pbkdf2_sha512$'));
      });

      it('409 for another user\'s email or username, 400 for invalid values, 404 for an unknown user', async () => {
        const a = await t.createUser();
        const b = await t.createUser();
        const e = await t.request('PUT', `/api/v4/users/${a.id}`, { body: { email: `${b.username}@example.com` } });
        assert.equal(e.status, 409);
        assert.deepEqual(e.body, { message: 'Email has already been taken' });
        const n = await t.request('PUT', `/api/v4/users/${a.id}`, { body: { username: b.username } });
        assert.equal(n.status, 409);
        assert.deepEqual(n.body, { message: 'Username has already been taken' });
        const v = await t.request('PUT', `/api/v4/users/${a.id}`, { body: { email: 'nope', password: 'x' } });
        assert.equal(v.status, 400);
        assert.deepEqual(v.body, { message: { email: ['is invalid'], password: ['is too short (minimum is 8 characters)'] } });
        const ty = await t.request('PUT', `/api/v4/users/${a.id}`, { body: { theme_id: 'dark' } });
        assert.equal(ty.status, 400);
        assert.deepEqual(ty.body, { error: 'theme_id is invalid' });
        const missing = await t.request('PUT', '/api/v4/users/999999', { body: { name: 'X' } });
        assert.equal(missing.status, 404);
        assert.deepEqual(missing.body, { message: '404 User Not Found' });
      });

      it('403 for a non-admin, 401 without a token', async () => {
        const u = await t.createUser();
        const r = await t.request('PUT', `/api/v4/users/${u.id}`, { body: { name: 'Mine' }, token: u.token });
        assert.equal(r.status, 403);
        assert.deepEqual(r.body, { message: '403 Forbidden' });
        assert.equal((await t.request('PUT', `/api/v4/users/${u.id}`, { body: { name: 'Mine' }, token: null })).status, 401);
      });
    });

    describe('DELETE /users/:id', () => {
      it('deletes the user, its namespace and its tokens (204)', async () => {
        const u = await t.createUser();
        const r = await t.request('DELETE', `/api/v4/users/${u.id}`);
        assert.equal(r.status, 204);
        assert.equal(r.text, '');
        assert.equal((await t.get(`/api/v4/users/${u.id}`)).status, 404);
        assert.equal((await t.get('/api/v4/user', u.token)).status, 401);
        const ns = await t.c.db.selectFrom('namespaces').selectAll().where('owner_id', '=', u.id).execute();
        assert.deepEqual(ns, []);
        const again = await t.request('DELETE', `/api/v4/users/${u.id}?hard_delete=true`);
        assert.equal(again.status, 404);
        assert.deepEqual(again.body, { message: '404 User Not Found' });
      });

      it('412 when changed after If-Unmodified-Since; 403 for a non-admin; 400 for a bad hard_delete', async () => {
        const u = await t.createUser();
        const r = await t.request('DELETE', `/api/v4/users/${u.id}`, { headers: { 'if-unmodified-since': 'Tue, 01 Jan 2019 00:00:00 GMT' } });
        assert.equal(r.status, 412);
        assert.deepEqual(r.body, { message: '412 Precondition Failed' });
        const other = await t.createUser();
        const f = await t.request('DELETE', `/api/v4/users/${u.id}`, { token: other.token });
        assert.equal(f.status, 403);
        const b = await t.request('DELETE', `/api/v4/users/${u.id}?hard_delete=perhaps`);
        assert.equal(b.status, 400);
        assert.deepEqual(b.body, { error: 'hard_delete is invalid' });
        assert.equal((await t.get(`/api/v4/users/${u.id}`)).status, 200);
      });
    });

    describe('block, unblock, deactivate, activate', () => {
      const act = (id: number, action: string, token?: string) => t.request('POST', `/api/v4/users/${id}/${action}`, { token });

      it('blocking makes the user\'s tokens fail; unblocking restores them', async () => {
        const u = await t.createUser();
        const b = await act(u.id, 'block');
        assert.equal(b.status, 201);
        assert.equal(b.text, 'true');
        const denied = await t.get('/api/v4/user', u.token);
        assert.equal(denied.status, 403);
        assert.deepEqual(denied.body, { message: '403 Forbidden - Your account has been blocked.' });
        assert.equal((await t.get(`/api/v4/users/${u.id}`)).body.state, 'blocked');
        const again = await act(u.id, 'block');
        assert.equal(again.status, 201);
        assert.equal(again.text, 'null');
        const ub = await act(u.id, 'unblock');
        assert.equal(ub.status, 201);
        assert.equal(ub.text, 'true');
        assert.equal((await t.get('/api/v4/user', u.token)).status, 200);
        const noop = await act(u.id, 'unblock');
        assert.equal(noop.status, 201);
        assert.equal(noop.text, 'false');
      });

      it('refuses what the reference refuses', async () => {
        const self = await act(1, 'block');
        assert.equal(self.status, 403);
        assert.deepEqual(self.body, { message: '403 Forbidden - The API initiating user cannot be blocked by the API' });

        const ldap = await t.createUser();
        await t.c.db.updateTable('users').set({ state: 'ldap_blocked' }).where('id', '=', ldap.id).execute();
        assert.deepEqual((await act(ldap.id, 'block')).body, { message: '403 Forbidden - LDAP blocked users cannot be modified by the API' });
        assert.deepEqual((await act(ldap.id, 'unblock')).body, { message: '403 Forbidden - LDAP blocked users cannot be unblocked by the API' });
        assert.deepEqual((await act(ldap.id, 'activate')).body, { message: '403 Forbidden - A blocked user must be unblocked to be activated' });
        assert.deepEqual((await act(ldap.id, 'deactivate')).body, { message: '403 Forbidden - A blocked user cannot be deactivated by the API' });

        const recent = await t.createUser();
        await t.c.db.updateTable('users').set({ last_activity_on: new Date().toISOString().slice(0, 10) }).where('id', '=', recent.id).execute();
        const d = await act(recent.id, 'deactivate');
        assert.equal(d.status, 403);
        assert.deepEqual(d.body, { message: '403 Forbidden - The user you are trying to deactivate has been active in the past 90 days and cannot be deactivated' });
      });

      it('deactivates and activates; a deactivated user cannot be unblocked but can be blocked', async () => {
        const u = await t.createUser();
        await t.c.db.updateTable('users').set({ last_activity_on: '2020-01-01' }).where('id', '=', u.id).execute();
        const d = await act(u.id, 'deactivate');
        assert.equal(d.status, 201);
        assert.equal(d.text, 'true');
        assert.equal((await act(u.id, 'deactivate')).text, 'null');
        const denied = await t.get('/api/v4/user', u.token);
        assert.equal(denied.status, 403);
        const ub = await act(u.id, 'unblock');
        assert.equal(ub.status, 403);
        assert.deepEqual(ub.body, { message: '403 Forbidden - Deactivated users cannot be unblocked by the API' });
        const a = await act(u.id, 'activate');
        assert.equal(a.status, 201);
        assert.equal(a.text, 'true');
        assert.equal((await act(u.id, 'activate')).text, 'false');
        assert.equal((await t.get('/api/v4/user', u.token)).status, 200);
        assert.equal((await act(u.id, 'deactivate')).text, 'true');
        assert.equal((await act(u.id, 'block')).text, 'true');
        assert.equal((await t.get(`/api/v4/users/${u.id}`)).body.state, 'blocked');
      });

      it('404 for an unknown user, 403 for a non-admin, 401 without a token, 403 insufficient_scope for read_api', async () => {
        const plain = await t.createUser();
        const readApiAdmin = await t.createUser({ admin: true, scopes: ['read_api'] });
        for (const action of ['block', 'unblock', 'deactivate', 'activate']) {
          const nf = await act(999999, action);
          assert.equal(nf.status, 404, action);
          assert.deepEqual(nf.body, { message: '404 User Not Found' });
          const f = await act(plain.id, action, plain.token);
          assert.equal(f.status, 403, action);
          assert.deepEqual(f.body, { message: '403 Forbidden' });
          assert.equal((await t.request('POST', `/api/v4/users/${plain.id}/${action}`, { token: null })).status, 401);
          const s = await act(plain.id, action, readApiAdmin.token);
          assert.equal(s.status, 403);
          assert.equal(s.body.error, 'insufficient_scope');
        }
      });
    });
  });
}
