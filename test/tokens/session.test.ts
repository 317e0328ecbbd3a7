import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS, buildTestApp, type TestApp } from '../helpers/build.js';
import { createSession, csrfTokenOf } from '../../src/domain/tokens/sessions.js';
import { digest } from '../../src/domain/shared/secrets.js';

for (const dialect of DIALECTS) {
  describe(`session cookie (${dialect})`, () => {
    let t: TestApp;
    before(async () => {
      t = await buildTestApp(dialect);
    });
    after(async () => t.close());

    const withCookie = (value: string, url = '/api/v4/user') =>
      t.request('GET', url, { token: null, headers: { cookie: `other=1; _service_session=${value}` } });

    it('a request carrying a live _service_session cookie is that user; only the digest is stored', async () => {
      const u = await t.createUser();
      const s = await createSession(t.c, u.id);
      const r = await withCookie(s.value);
      assert.equal(r.status, 200);
      assert.equal(r.body.id, u.id);
      const row = await t.c.db.selectFrom('sessions').selectAll().where('user_id', '=', u.id).executeTakeFirstOrThrow();
      assert.equal(row.session_digest, digest(s.value));
      assert.equal(row.expires_at, s.expiresAt);
      assert.ok(Date.parse(s.expiresAt) > Date.now() + 6 * 86_400_000);
    });

    it('a session is not scoped: it may write (with its CSRF token), but may not sudo', async () => {
      const u = await t.createUser();
      const s = await createSession(t.c, u.id);
      const r = await t.request('POST', '/api/v4/user/personal_access_tokens', {
        token: null,
        headers: { cookie: `_service_session=${s.value}`, 'x-csrf-token': csrfTokenOf(t.c, s.value) },
        body: { name: 'from web', scopes: ['read_api'] },
      });
      assert.equal(r.status, 201);
      // self endpoints want a personal access token
      const self = await withCookie(s.value, '/api/v4/personal_access_tokens/self');
      assert.equal(self.status, 400);
      assert.deepEqual(self.body, { message: '400 Bad request - This endpoint requires token type to be a personal access token' });
      const root = await t.c.db.selectFrom('users').select('id').where('username', '=', 'root').executeTakeFirstOrThrow();
      const adminSession = await createSession(t.c, root.id);
      const sudo = await t.request('GET', '/api/v4/user', { token: null, headers: { cookie: `_service_session=${adminSession.value}`, sudo: u.username } });
      assert.equal(sudo.status, 403);
      assert.deepEqual(sudo.body, { message: '403 Forbidden - Must be authenticated using an OAuth or personal access token to use sudo' });
    });

    it('a write with the cookie but without its CSRF token (or with another session\'s) is made by nobody: 401, nothing written', async () => {
      const u = await t.createUser();
      const s = await createSession(t.c, u.id);
      const other = await createSession(t.c, u.id);
      for (const csrf of [undefined, 'forged', csrfTokenOf(t.c, other.value)]) {
        const r = await t.request('POST', '/api/v4/user/personal_access_tokens', {
          token: null,
          headers: { cookie: `_service_session=${s.value}`, ...(csrf ? { 'x-csrf-token': csrf } : {}) },
          body: { name: 'forged', scopes: ['api'] },
        });
        assert.equal(r.status, 401);
        assert.deepEqual(r.body, { message: '401 Unauthorized' });
      }
      const made = await t.c.db.selectFrom('personal_access_tokens').select('id').where('user_id', '=', u.id).where('name', '=', 'forged').execute();
      assert.equal(made.length, 0);
      // reads need no token
      assert.equal((await withCookie(s.value)).status, 200);
    });

    it('an expired or unknown cookie is anonymous (401 where a user is required)', async () => {
      const u = await t.createUser();
      const s = await createSession(t.c, u.id, -1);
      for (const value of [s.value, 'no-such-session']) {
        const r = await withCookie(value);
        assert.equal(r.status, 401);
        assert.deepEqual(r.body, { message: '401 Unauthorized' });
      }
    });
  });
}
