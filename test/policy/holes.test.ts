// The authorization holes of issue 27 and the reference's answers of issue 28 (15–19), driven over
// HTTP as a client would: each case failed before its fix.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS, buildTestApp, type TestApp } from '../helpers/build.js';
import { addMember, makeGroup, makeProject } from '../helpers/projects.js';
import { createSession, csrfTokenOf } from '../../src/domain/tokens/sessions.js';
import { SESSION_COOKIE } from '../../src/http/auth.js';

type User = { id: number; username: string; token: string };

for (const dialect of DIALECTS) {
  describe(`authorization holes (${dialect})`, () => {
    let t: TestApp;
    let owner: User;
    before(async () => {
      t = await buildTestApp(dialect);
      owner = await t.createUser();
    });
    after(async () => t.close());

    it('project access tokens: none above the creator; owner level only from an owner', async () => {
      const p = await makeProject(t, owner.token, { name: 'tokens-above', visibility: 'private' });
      const maintainer = await t.createUser();
      await addMember(t, 'Project', p.id, maintainer.id, 40);
      const create = (token: string, access_level: number) =>
        t.request('POST', `/api/v4/projects/${p.id}/access_tokens`, { token, body: { name: `l${access_level}`, scopes: ['api'], access_level } });

      let r = await create(maintainer.token, 50);
      assert.equal(r.status, 400);
      assert.deepEqual(r.body, { message: '400 Bad request - Could not provision owner access to project access token' });
      // no bot user was made for it
      assert.equal((await t.get(`/api/v4/projects/${p.id}/members/all`, owner.token)).body.length, 2);

      r = await create(maintainer.token, 40);
      assert.equal(r.status, 201, r.text);
      assert.equal(r.body.access_level, 40);
      // a maintainer's project token may not make an owner's either
      const viaToken = await create(r.body.token, 50);
      assert.equal(viaToken.status, 400);
      assert.deepEqual(viaToken.body, { message: '400 Bad request - Could not provision owner access to project access token' });
      assert.equal((await create(r.body.token, 30)).status, 201);

      r = await create(owner.token, 50);
      assert.equal(r.status, 201, r.text);
      assert.equal(r.body.access_level, 50);
      // root (an admin who is not a member) may too
      assert.equal((await create(t.rootToken, 50)).status, 201);
    });

    it('group access tokens: owners make them up to owner level; a maintainer none', async () => {
      const g = await makeGroup(t, `gtok-${dialect}`);
      await addMember(t, 'Namespace', g.id, owner.id, 50);
      const made = await t.request('POST', `/api/v4/groups/${g.id}/access_tokens`, {
        token: owner.token,
        body: { name: 'owner-level', scopes: ['api'], access_level: 50 },
      });
      assert.equal(made.status, 201, made.text);
      assert.equal(made.body.access_level, 50);
      const maintainer = await t.createUser();
      await addMember(t, 'Namespace', g.id, maintainer.id, 40);
      const r = await t.request('POST', `/api/v4/groups/${g.id}/access_tokens`, {
        token: maintainer.token,
        body: { name: 'x', scopes: ['api'], access_level: 50 },
      });
      assert.equal(r.status, 400);
      assert.deepEqual(r.body, { message: '400 Bad request - User does not have permission to create group access token' });
    });

    it('an external user may not create a personal project (403, the limit message), nor a group', async () => {
      const ext = await t.createUser({ external: true });
      const r = await t.request('POST', '/api/v4/projects', { token: ext.token, body: { name: 'mine' } });
      assert.equal(r.status, 403);
      assert.deepEqual(r.body, { message: ['Personal project creation is not allowed. Please contact your administrator with questions'] });
      const shown = await t.get(`/api/v4/users/${ext.id}`);
      assert.equal(shown.body.projects_limit, 0);
      assert.equal(shown.body.can_create_group, false);
      assert.equal((await t.request('POST', '/api/v4/groups', { token: ext.token, body: { name: 'eg', path: `eg-${dialect}` } })).status, 403);

      // made external later: the same; made internal again: the defaults come back
      const later = await t.createUser();
      let u = await t.request('PUT', `/api/v4/users/${later.id}`, { body: { external: true } });
      assert.equal(u.status, 200);
      assert.deepEqual([u.body.external, u.body.projects_limit, u.body.can_create_group], [true, 0, false]);
      assert.equal((await t.request('POST', '/api/v4/projects', { token: later.token, body: { name: 'later' } })).status, 403);
      u = await t.request('PUT', `/api/v4/users/${later.id}`, { body: { external: false } });
      assert.deepEqual([u.body.external, u.body.projects_limit, u.body.can_create_group], [false, 100000, true]);
      assert.equal((await t.request('POST', '/api/v4/projects', { token: later.token, body: { name: 'later' } })).status, 201);
    });

    it('an OAuth token counts in Authorization or access_token, never in PRIVATE-TOKEN (401)', async () => {
      const u = await t.createUser({ password: 'oauth-pass-1' });
      const made = await t.request('POST', '/oauth/token', {
        token: null,
        payload: new URLSearchParams({ grant_type: 'password', username: u.username, password: 'oauth-pass-1' }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      assert.equal(made.status, 200, made.text);
      const oauth = made.body.access_token as string;
      const bearer = await t.request('GET', '/api/v4/user', { token: null, headers: { authorization: `Bearer ${oauth}` } });
      assert.equal(bearer.body.id, u.id);
      assert.equal((await t.get(`/api/v4/user?access_token=${oauth}`, null)).body.id, u.id);
      const header = await t.get('/api/v4/user', oauth);
      assert.equal(header.status, 401);
      assert.deepEqual(header.body, { message: '401 Unauthorized' });
      assert.equal((await t.get(`/api/v4/user?private_token=${oauth}`, null)).status, 401);
      // a personal token in the same header still works
      assert.equal((await t.get('/api/v4/user', u.token)).body.id, u.id);
    });

    it('null for a free-text application setting clears it', async () => {
      const put = (body: object) => t.request('PUT', '/api/v4/application/settings', { body });
      assert.equal((await put({ after_sign_up_text: 'welcome', home_page_url: 'https://example.com/home' })).body.after_sign_up_text, 'welcome');
      const r = await put({ after_sign_up_text: null, home_page_url: null });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.after_sign_up_text, null);
      assert.equal(r.body.home_page_url, null);
      const shown = (await t.get('/api/v4/application/settings')).body;
      assert.deepEqual([shown.after_sign_up_text, shown.home_page_url], [null, null]);
      // a setting with a list of values still refuses what is not one of them
      assert.equal((await put({ default_project_visibility: null })).status, 400);
    });

    it('admin_mode on: an admin token without the admin_mode scope is a normal user; with it, an admin', async () => {
      const plain = await t.createUser({ admin: true, scopes: ['api', 'sudo'] });
      const moded = await t.createUser({ admin: true, scopes: ['api', 'admin_mode'] });
      const other = await t.createUser();
      const hidden = await makeProject(t, other.token, { name: 'admin-mode-private', visibility: 'private' });
      const calls = (token: string) =>
        Promise.all([
          t.get('/api/v4/application/settings', token),
          t.get('/api/v4/hooks', token),
          t.request('POST', '/api/v4/users', { token, body: { email: `am-${dialect}@example.com`, username: `am-${dialect}` } }),
          t.request('POST', `/api/v4/users/${other.id}/impersonation_tokens`, { token, body: { name: 'imp', scopes: ['api'] } }),
          t.get(`/api/v4/projects/${hidden.id}`, token),
          t.get(`/api/v4/user?sudo=${other.username}`, token),
        ]).then((rs) => rs.map((r) => r.status));
      // off (the default): both tokens are an administrator's
      assert.deepEqual(await calls(plain.token), [200, 200, 400, 201, 200, 200]);
      assert.equal((await t.request('PUT', '/api/v4/application/settings', { body: { admin_mode: true } })).status, 200);
      try {
        const refused = await t.get('/api/v4/application/settings', plain.token);
        assert.deepEqual(refused.body, { message: '403 Forbidden' });
        assert.deepEqual(await calls(plain.token), [403, 403, 403, 403, 404, 403]);
        assert.deepEqual((await t.get(`/api/v4/user?sudo=${other.username}`, plain.token)).body, { message: '403 Forbidden - Must be admin to use sudo' });
        // GET /user shows no admin fields to it
        assert.equal((await t.get('/api/v4/user', plain.token)).body.is_admin, undefined);
        // (no sudo scope on this one: 403 insufficient_scope for the last)
        assert.deepEqual(await calls(moded.token), [200, 200, 400, 201, 200, 403]);
        assert.equal((await t.get('/api/v4/user', moded.token)).body.is_admin, true);
      } finally {
        assert.equal((await t.request('PUT', '/api/v4/application/settings', { body: { admin_mode: false } })).status, 200);
      }
      assert.equal((await t.get('/api/v4/application/settings', plain.token)).status, 200);
    });

    it('admin_mode on: the web session of an administrator is a normal user until it enters admin mode with the password', async () => {
      const admin = await t.createUser({ admin: true, password: 'admin-mode-pass-1' });
      const session = await createSession(t.c, admin.id);
      const cookie = `${SESSION_COOKIE}=${encodeURIComponent(session.value)}`;
      const csrf = csrfTokenOf(t.c, session.value);
      const page = async (url: string) => (await t.app.inject({ method: 'GET', url, headers: { cookie } })).statusCode;
      const form = (url: string, fields: Record<string, string>) =>
        t.app.inject({ method: 'POST', url, headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams(fields).toString() });
      assert.equal(await page('/admin'), 200);
      assert.equal((await t.request('PUT', '/api/v4/application/settings', { body: { admin_mode: true } })).status, 200);
      try {
        assert.equal(await page('/admin'), 404);
        assert.equal(await page('/admin/application_settings'), 404);
        assert.equal(await page('/api/v4/application/settings'), 403);
        assert.equal(await page('/admin/session/new'), 200);
        // a wrong password, or no CSRF token, leaves it out
        let r = await form('/admin/session', { authenticity_token: csrf, password: 'wrong' });
        assert.deepEqual([r.statusCode, r.headers.location], [302, '/admin/session/new?failed=1']);
        assert.equal((await form('/admin/session', { password: 'admin-mode-pass-1' })).statusCode, 422);
        assert.equal(await page('/admin'), 404);
        r = await form('/admin/session', { authenticity_token: csrf, password: 'admin-mode-pass-1' });
        assert.deepEqual([r.statusCode, r.headers.location], [302, '/admin']);
        assert.equal(await page('/admin'), 200);
        assert.equal(await page('/api/v4/application/settings'), 200);
        r = await form('/admin/session/destroy', { authenticity_token: csrf });
        assert.equal(r.statusCode, 302);
        assert.equal(await page('/admin'), 404);
        // a user who is not an administrator cannot enter it
        const user = await t.createUser({ password: 'plain-pass-123' });
        const theirs = await createSession(t.c, user.id);
        const res = await t.app.inject({
          method: 'POST',
          url: '/admin/session',
          headers: { cookie: `${SESSION_COOKIE}=${encodeURIComponent(theirs.value)}`, 'content-type': 'application/x-www-form-urlencoded' },
          payload: new URLSearchParams({ authenticity_token: csrfTokenOf(t.c, theirs.value), password: 'plain-pass-123' }).toString(),
        });
        assert.equal(res.headers.location, '/admin/session/new?failed=1');
      } finally {
        assert.equal((await t.request('PUT', '/api/v4/application/settings', { body: { admin_mode: false } })).status, 200);
      }
      assert.equal(await page('/admin'), 200);
    });
  });
}
