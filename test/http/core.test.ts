import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS, buildTestApp, type TestApp } from '../helpers/build.js';
import { digest } from '../../src/domain/shared/secrets.js';

for (const dialect of DIALECTS) {
  describe(`http core (${dialect})`, () => {
    let t: TestApp;
    before(async () => {
      t = await buildTestApp(dialect);
    });
    after(async () => t.close());

    it('GET /version answers the reference API level and Anvil revision, with exact JSON content type', async () => {
      const r = await t.get('/api/v4/version');
      assert.equal(r.status, 200);
      assert.equal(r.headers['content-type'], 'application/json');
      assert.deepEqual(Object.keys(r.body).sort(), ['revision', 'version']);
      assert.equal(r.body.version, '15.1.0');
      assert.match(r.body.revision, /^anvil-/);
    });

    it('401 without a token, and with an unknown one', async () => {
      for (const token of [null, 'not-a-real-token-at-all']) {
        const r = await t.get('/api/v4/user', token);
        assert.equal(r.status, 401);
        assert.deepEqual(r.body, { message: '401 Unauthorized' });
        assert.equal(r.headers['content-type'], 'application/json');
      }
    });

    it('accepts the token as private_token, PRIVATE-TOKEN, Bearer and access_token', async () => {
      const ways = [
        await t.request('GET', `/api/v4/user?private_token=${t.rootToken}`, { token: null }),
        await t.request('GET', '/api/v4/user', { token: null, headers: { 'PRIVATE-TOKEN': t.rootToken } }),
        await t.request('GET', '/api/v4/user', { token: null, headers: { authorization: `Bearer ${t.rootToken}` } }),
        await t.request('GET', `/api/v4/user?access_token=${t.rootToken}`, { token: null }),
      ];
      for (const r of ways) {
        assert.equal(r.status, 200);
        assert.equal(r.body.username, 'root');
      }
    });

    it('an expired or revoked token is refused with 401', async () => {
      const u = await t.createUser();
      await t.c.db.updateTable('personal_access_tokens').set({ expires_at: '2000-01-01' }).where('token_digest', '=', digest(u.token)).execute();
      assert.equal((await t.get('/api/v4/user', u.token)).status, 401);
      const v = await t.createUser();
      await t.c.db.updateTable('personal_access_tokens').set({ revoked: 1 }).where('token_digest', '=', digest(v.token)).execute();
      const r = await t.get('/api/v4/user', v.token);
      assert.equal(r.status, 401);
      assert.deepEqual(r.body, { message: '401 Unauthorized' });
    });

    it('a blocked user gets 403 with the reason', async () => {
      const u = await t.createUser();
      await t.c.db.updateTable('users').set({ state: 'blocked' }).where('id', '=', u.id).execute();
      const r = await t.get('/api/v4/user', u.token);
      assert.equal(r.status, 403);
      assert.deepEqual(r.body, { message: '403 Forbidden - Your account has been blocked.' });
    });

    it('a read_repository-only token may not use the API', async () => {
      const u = await t.createUser({ scopes: ['read_repository'] });
      const r = await t.get('/api/v4/user', u.token);
      assert.equal(r.status, 403);
      assert.equal(r.body.error, 'insufficient_scope');
      assert.equal(r.body.scope, 'api read_api read_user');
    });

    it('unknown routes answer {"error":"404 Not Found"}; a known path with another method 405', async () => {
      const r = await t.get('/api/v4/no/such/route');
      assert.equal(r.status, 404);
      assert.deepEqual(r.body, { error: '404 Not Found' });
      const m = await t.request('DELETE', '/api/v4/version');
      assert.equal(m.status, 405);
    });

    it('refuses text/plain bodies with 415', async () => {
      const r = await t.request('POST', '/api/v4/version', { payload: 'hello', headers: { 'content-type': 'text/plain' } });
      // POST /version does not exist: the method check comes first for an unknown method
      assert.ok(r.status === 405 || r.status === 415);
    });

    it('414 for an overlong URL', async () => {
      const r = await t.get(`/api/v4/user?x=${'a'.repeat(9000)}`);
      assert.equal(r.status, 414);
    });

    it('admin routes answer 403 to a non-admin before looking at parameters (401 without a token)', async () => {
      const u = await t.createUser();
      const r = await t.request('POST', '/api/v4/users', { token: u.token, body: {} });
      assert.equal(r.status, 403);
      assert.deepEqual(r.body, { message: '403 Forbidden' });
      assert.equal((await t.request('POST', '/api/v4/users', { token: null, body: {} })).status, 401);
      const admin = await t.request('POST', '/api/v4/users', { body: {} });
      assert.equal(admin.status, 400);
    });

    describe('sudo', () => {
      it('lets an admin token with the sudo scope act as another user, by id or case-insensitive username', async () => {
        const u = await t.createUser({ username: 'SudoTarget' });
        const byName = await t.request('GET', '/api/v4/user', { headers: { sudo: 'sudotarget' } });
        assert.equal(byName.status, 200);
        assert.equal(byName.body.id, u.id);
        const byId = await t.get(`/api/v4/user?sudo=${u.id}`);
        assert.equal(byId.body.username, 'SudoTarget');
      });

      it('403 for a non-admin', async () => {
        const u = await t.createUser();
        const r = await t.request('GET', '/api/v4/user', { token: u.token, headers: { sudo: 'root' } });
        assert.equal(r.status, 403);
        assert.deepEqual(r.body, { message: '403 Forbidden - Must be admin to use sudo' });
      });

      it('403 insufficient_scope for an admin token without the sudo scope', async () => {
        const admin = await t.createUser({ admin: true, scopes: ['api'] });
        const r = await t.request('GET', '/api/v4/user', { token: admin.token, headers: { sudo: 'root' } });
        assert.equal(r.status, 403);
        assert.deepEqual(r.body, {
          error: 'insufficient_scope',
          error_description: 'The request requires higher privileges than provided by the access token.',
          scope: 'sudo',
        });
      });

      it('404 for an unknown user', async () => {
        const r = await t.request('GET', '/api/v4/user', { headers: { sudo: 'nobody-here' } });
        assert.equal(r.status, 404);
        assert.deepEqual(r.body, { message: "404 User with ID or username 'nobody-here' Not Found" });
      });
    });
  });
}
