import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { DIALECTS, buildTestApp, keysOf, type TestApp } from '../helpers/build.js';
import { digest } from '../../src/domain/shared/secrets.js';

const TOKEN_KEYS = ['access_token', 'created_at', 'expires_in', 'refresh_token', 'scope', 'token_type'];
const INFO_KEYS = ['application', 'created_at', 'expires_in', 'expires_in_seconds', 'resource_owner_id', 'scope', 'scopes'];
const INVALID_GRANT = {
  error: 'invalid_grant',
  error_description:
    'The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.',
};
const INVALID_REQUEST = {
  error: 'invalid_request',
  error_description: 'The request is missing a required parameter, includes an unsupported parameter value, or is otherwise malformed.',
};

for (const dialect of DIALECTS) {
  describe(`OAuth 2 (${dialect})`, () => {
    let t: TestApp;
    before(async () => {
      t = await buildTestApp(dialect);
    });
    after(async () => t.close());

    const token = (body: Record<string, string>) =>
      t.request('POST', '/oauth/token', {
        token: null,
        payload: new URLSearchParams(body).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });

    it('password grant (username or email) answers Doorkeeper\'s token response; the token works on the API', async () => {
      const u = await t.createUser({ password: 'secret-pass-1' });
      const before = Math.floor(Date.now() / 1000);
      const r = await token({ grant_type: 'password', username: u.username, password: 'secret-pass-1' });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.headers['content-type'], 'application/json');
      assert.equal(r.headers['cache-control'], 'no-store');
      assert.deepEqual(keysOf(r.body), TOKEN_KEYS);
      assert.equal(r.body.token_type, 'Bearer');
      assert.equal(r.body.expires_in, 7200);
      assert.equal(r.body.scope, 'api');
      assert.ok(Number.isInteger(r.body.created_at) && r.body.created_at >= before && r.body.created_at <= before + 5);
      const me = await t.request('GET', '/api/v4/user', { token: null, headers: { authorization: `Bearer ${r.body.access_token}` } });
      assert.equal(me.status, 200);
      assert.equal(me.body.id, u.id);
      const viaParam = await t.get(`/api/v4/user?access_token=${r.body.access_token}`, null);
      assert.equal(viaParam.status, 200);
      // stored as digests only
      const row = await t.c.db.selectFrom('oauth_access_tokens').selectAll().where('token_digest', '=', digest(r.body.access_token)).executeTakeFirstOrThrow();
      assert.equal(row.refresh_digest, digest(r.body.refresh_token));

      const byEmail = await t.request('POST', '/oauth/token', {
        token: null,
        body: { grant_type: 'password', username: `${u.username}@example.com`, password: 'secret-pass-1', scope: 'read_user read_api' },
      });
      assert.equal(byEmail.status, 200);
      assert.equal(byEmail.body.scope, 'read_user read_api');
    });

    it('passwords are stored as PBKDF2-SHA512 digests; a scrypt digest an earlier version stored still signs in', async () => {
      const u = await t.createUser({ password: 'secret-pass-1' });
      const stored = await t.c.db.selectFrom('users').select('password_digest').where('id', '=', u.id).executeTakeFirstOrThrow();
      assert.match(stored.password_digest!, /^pbkdf2_sha512\$210000\$[A-Za-z0-9+/]{22}==\$[A-Za-z0-9+/]{86}==$/);
      assert.ok(!stored.password_digest!.includes('secret-pass-1'));

      const salt = crypto.randomBytes(16);
      const scrypt = `scrypt$${salt.toString('base64')}$${crypto.scryptSync('old-pass-2', salt, 32).toString('base64')}`;
      await t.c.db.updateTable('users').set({ password_digest: scrypt }).where('id', '=', u.id).execute();
      assert.equal((await token({ grant_type: 'password', username: u.username, password: 'old-pass-2' })).status, 200);
      assert.equal((await token({ grant_type: 'password', username: u.username, password: 'secret-pass-1' })).status, 400);
      // a digest in no known scheme matches nothing
      await t.c.db.updateTable('users').set({ password_digest: 'plain$old-pass-2' }).where('id', '=', u.id).execute();
      assert.equal((await token({ grant_type: 'password', username: u.username, password: 'old-pass-2' })).status, 400);
    });

    it('the token\'s scopes are enforced: read_user can GET /user, not write', async () => {
      const u = await t.createUser({ password: 'secret-pass-1' });
      const r = await token({ grant_type: 'password', username: u.username, password: 'secret-pass-1', scope: 'read_user' });
      const bearer = { authorization: `Bearer ${r.body.access_token}` };
      assert.equal((await t.request('GET', '/api/v4/user', { token: null, headers: bearer })).status, 200);
      const w = await t.request('POST', '/api/v4/user/personal_access_tokens', { token: null, headers: bearer, body: { name: 'x', scopes: ['api'] } });
      assert.equal(w.status, 403);
      assert.equal(w.body.error, 'insufficient_scope');
    });

    it('wrong password, unknown user, blocked user → 400 invalid_grant', async () => {
      const u = await t.createUser({ password: 'secret-pass-1' });
      for (const body of [
        { grant_type: 'password', username: u.username, password: 'wrong-password' },
        { grant_type: 'password', username: 'nobody-at-all', password: 'secret-pass-1' },
      ]) {
        const r = await token(body);
        assert.equal(r.status, 400);
        assert.deepEqual(r.body, INVALID_GRANT);
      }
      await t.c.db.updateTable('users').set({ state: 'blocked' }).where('id', '=', u.id).execute();
      const blocked = await token({ grant_type: 'password', username: u.username, password: 'secret-pass-1' });
      assert.deepEqual(blocked.body, INVALID_GRANT);
    });

    it('missing or unsupported parameters → invalid_request / unsupported_grant_type / invalid_scope', async () => {
      let r = await token({ username: 'root', password: 'x' });
      assert.equal(r.status, 400);
      assert.deepEqual(r.body, INVALID_REQUEST);
      r = await token({ grant_type: 'password', username: 'root' });
      assert.deepEqual(r.body, INVALID_REQUEST);
      r = await token({ grant_type: 'refresh_token' });
      assert.deepEqual(r.body, INVALID_REQUEST);
      r = await token({ grant_type: 'client_credentials' });
      assert.equal(r.status, 400);
      assert.deepEqual(r.body, {
        error: 'unsupported_grant_type',
        error_description: 'The authorization grant type is not supported by the authorization server.',
      });
      const u = await t.createUser({ password: 'secret-pass-1' });
      r = await token({ grant_type: 'password', username: u.username, password: 'secret-pass-1', scope: 'api everything' });
      assert.equal(r.status, 400);
      assert.deepEqual(r.body, { error: 'invalid_scope', error_description: 'The requested scope is invalid, unknown, or malformed.' });
    });

    it('refresh grant: a new token pair, the old access token and refresh token stop working', async () => {
      const u = await t.createUser({ password: 'secret-pass-1' });
      const first = (await token({ grant_type: 'password', username: u.username, password: 'secret-pass-1', scope: 'api read_user' })).body;
      const r = await token({ grant_type: 'refresh_token', refresh_token: first.refresh_token });
      assert.equal(r.status, 200);
      assert.deepEqual(keysOf(r.body), TOKEN_KEYS);
      assert.notEqual(r.body.access_token, first.access_token);
      assert.notEqual(r.body.refresh_token, first.refresh_token);
      assert.equal(r.body.scope, 'api read_user');
      assert.equal((await t.get(`/api/v4/user?access_token=${first.access_token}`, null)).status, 401);
      assert.equal((await t.get(`/api/v4/user?access_token=${r.body.access_token}`, null)).status, 200);
      const reused = await token({ grant_type: 'refresh_token', refresh_token: first.refresh_token });
      assert.equal(reused.status, 400);
      assert.deepEqual(reused.body, INVALID_GRANT);
      const unknown = await token({ grant_type: 'refresh_token', refresh_token: 'never-issued' });
      assert.deepEqual(unknown.body, INVALID_GRANT);
      // a narrower scope is allowed, a wider one is not
      const narrower = await token({ grant_type: 'refresh_token', refresh_token: r.body.refresh_token, scope: 'read_user' });
      assert.equal(narrower.body.scope, 'read_user');
      const wider = await token({ grant_type: 'refresh_token', refresh_token: narrower.body.refresh_token, scope: 'api' });
      assert.equal(wider.body.error, 'invalid_scope');
    });

    it('GET /oauth/token/info describes a live token; 401 invalid_request for expired, revoked, unknown or none', async () => {
      const u = await t.createUser({ password: 'secret-pass-1' });
      const tok = (await token({ grant_type: 'password', username: u.username, password: 'secret-pass-1', scope: 'api read_user' })).body;
      const r = await t.request('GET', '/oauth/token/info', { token: null, headers: { authorization: `Bearer ${tok.access_token}` } });
      assert.equal(r.status, 200);
      assert.deepEqual(keysOf(r.body), INFO_KEYS);
      assert.equal(r.body.resource_owner_id, u.id);
      assert.deepEqual(r.body.scope, ['api', 'read_user']);
      assert.deepEqual(r.body.scopes, ['api', 'read_user']);
      assert.ok(r.body.expires_in > 7190 && r.body.expires_in <= 7200);
      assert.equal(r.body.expires_in_seconds, r.body.expires_in);
      assert.deepEqual(r.body.application, { uid: null });
      assert.equal(r.body.created_at, tok.created_at);
      const viaParam = await t.get(`/oauth/token/info?access_token=${tok.access_token}`, null);
      assert.equal(viaParam.status, 200);

      // expired: created more than expires_in ago
      const old = (await token({ grant_type: 'password', username: u.username, password: 'secret-pass-1' })).body;
      await t.c.db.updateTable('oauth_access_tokens').set({ created_at: new Date(Date.now() - 7201_000).toISOString() })
        .where('token_digest', '=', digest(old.access_token)).execute();
      // revoked
      const gone = (await token({ grant_type: 'password', username: u.username, password: 'secret-pass-1' })).body;
      const rv = await t.request('POST', '/oauth/revoke', { token: null, body: { token: gone.access_token } });
      assert.equal(rv.status, 200);
      assert.deepEqual(rv.body, {});
      for (const value of [old.access_token, gone.access_token, 'unknown-token']) {
        const x = await t.request('GET', '/oauth/token/info', { token: null, headers: { authorization: `Bearer ${value}` } });
        assert.equal(x.status, 401);
        assert.deepEqual(x.body, INVALID_REQUEST);
        // and the API refuses them
        assert.equal((await t.get(`/api/v4/user?access_token=${value}`, null)).status, 401);
      }
      const none = await t.get('/oauth/token/info', null);
      assert.equal(none.status, 401);
      assert.deepEqual(none.body, INVALID_REQUEST);
      // a personal access token is not an OAuth token
      const pat = await t.request('GET', '/oauth/token/info', { token: null, headers: { authorization: `Bearer ${t.rootToken}` } });
      assert.equal(pat.status, 401);
    });

    it('POST /oauth/revoke with a refresh token revokes it; unknown tokens still answer 200 {}', async () => {
      const u = await t.createUser({ password: 'secret-pass-1' });
      const tok = (await token({ grant_type: 'password', username: u.username, password: 'secret-pass-1' })).body;
      const r = await t.request('POST', '/oauth/revoke', { token: null, body: { token: tok.refresh_token } });
      assert.equal(r.status, 200);
      assert.equal((await token({ grant_type: 'refresh_token', refresh_token: tok.refresh_token })).status, 400);
      assert.equal((await t.get(`/api/v4/user?access_token=${tok.access_token}`, null)).status, 401);
      const unknown = await t.request('POST', '/oauth/revoke', { token: null, body: { token: 'never-issued' } });
      assert.equal(unknown.status, 200);
      assert.deepEqual(unknown.body, {});
    });

    it('OAuth endpoints live outside /api/v4', async () => {
      const r = await t.request('POST', '/api/v4/oauth/token', { token: null, body: { grant_type: 'password' } });
      assert.equal(r.status, 404);
    });
  });
}
