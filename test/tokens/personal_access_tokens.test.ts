import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS, buildTestApp, keysOf, type TestApp } from '../helpers/build.js';
import { TOKEN_KEYS, TOKEN_WITH_TOKEN_KEYS } from '../helpers/keys.js';
import { adminCreateToken, dayFromToday } from '../helpers/tokens.js';
import { digest } from '../../src/domain/shared/secrets.js';

const NOT_FOUND = { message: '404 Not Found' };

for (const dialect of DIALECTS) {
  describe(`personal access tokens (${dialect})`, () => {
    let t: TestApp;
    before(async () => {
      t = await buildTestApp(dialect);
    });
    after(async () => t.close());

    describe('POST /users/:user_id/personal_access_tokens (admin)', () => {
      it('creates a token with the exact entity plus `token`, which then authenticates as that user', async () => {
        const u = await t.createUser();
        const expires = dayFromToday(30);
        const r = await t.request('POST', `/api/v4/users/${u.id}/personal_access_tokens`, {
          body: { name: 'ci', scopes: ['api', 'read_user'], expires_at: expires },
        });
        assert.equal(r.status, 201);
        assert.equal(r.headers['content-type'], 'application/json');
        assert.deepEqual(keysOf(r.body), TOKEN_WITH_TOKEN_KEYS);
        assert.equal(r.body.name, 'ci');
        assert.deepEqual(r.body.scopes, ['api', 'read_user']);
        assert.equal(r.body.user_id, u.id);
        assert.equal(r.body.revoked, false);
        assert.equal(r.body.active, true);
        assert.equal(r.body.expires_at, expires);
        assert.equal(r.body.last_used_at, null);
        assert.match(r.body.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
        assert.match(r.body.token, /^anvil-/);
        const me = await t.get('/api/v4/user', r.body.token);
        assert.equal(me.status, 200);
        assert.equal(me.body.id, u.id);
        // only the digest is stored
        const row = await t.c.db.selectFrom('personal_access_tokens').selectAll().where('id', '=', r.body.id).executeTakeFirstOrThrow();
        assert.equal(row.token_digest, digest(r.body.token));
      });

      it('accepts comma-separated scopes and no expiry', async () => {
        const u = await t.createUser();
        const r = await t.request('POST', `/api/v4/users/${u.id}/personal_access_tokens`, {
          payload: 'name=x&scopes=read_api,read_repository',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        });
        assert.equal(r.status, 201);
        assert.deepEqual(r.body.scopes, ['read_api', 'read_repository']);
        assert.equal(r.body.expires_at, null);
      });

      it('400 for missing name or scopes, invalid scopes, a malformed or past expiry', async () => {
        const u = await t.createUser();
        const url = `/api/v4/users/${u.id}/personal_access_tokens`;
        let r = await t.request('POST', url, { body: { scopes: ['api'] } });
        assert.equal(r.status, 400);
        assert.deepEqual(r.body, { message: '400 (Bad request) "name" not given' });
        r = await t.request('POST', url, { body: { name: 'x' } });
        assert.deepEqual(r.body, { message: '400 (Bad request) "scopes" not given' });
        r = await t.request('POST', url, { body: { name: 'x', scopes: ['api', 'everything'] } });
        assert.equal(r.status, 400);
        assert.deepEqual(r.body, { error: 'scopes does not have a valid value' });
        r = await t.request('POST', url, { body: { name: 'x', scopes: ['api'], expires_at: 'next week' } });
        assert.equal(r.status, 400);
        assert.deepEqual(r.body, { error: 'expires_at is invalid' });
        r = await t.request('POST', url, { body: { name: 'x', scopes: ['api'], expires_at: '2001-01-01' } });
        assert.equal(r.status, 400);
        assert.deepEqual(r.body, { message: { expires_at: ['must be in the future'] } });
      });

      it('404 for an unknown user; 403 for a non-admin; 401 without a token', async () => {
        let r = await t.request('POST', '/api/v4/users/999999/personal_access_tokens', { body: { name: 'x', scopes: ['api'] } });
        assert.equal(r.status, 404);
        assert.deepEqual(r.body, { message: '404 User Not Found' });
        const u = await t.createUser();
        r = await t.request('POST', `/api/v4/users/${u.id}/personal_access_tokens`, { token: u.token, body: { name: 'x', scopes: ['api'] } });
        assert.equal(r.status, 403);
        assert.deepEqual(r.body, { message: '403 Forbidden' });
        r = await t.request('POST', `/api/v4/users/${u.id}/personal_access_tokens`, { token: null, body: { name: 'x', scopes: ['api'] } });
        assert.equal(r.status, 401);
      });
    });

    describe('POST /user/personal_access_tokens (self)', () => {
      it('a user creates a token for themselves', async () => {
        const u = await t.createUser();
        const r = await t.request('POST', '/api/v4/user/personal_access_tokens', { token: u.token, body: { name: 'mine', scopes: ['read_api'] } });
        assert.equal(r.status, 201);
        assert.deepEqual(keysOf(r.body), TOKEN_WITH_TOKEN_KEYS);
        assert.equal(r.body.user_id, u.id);
      });

      it('a non-admin may not give their token sudo or admin_mode; an admin may', async () => {
        const u = await t.createUser();
        for (const scope of ['sudo', 'admin_mode']) {
          const r = await t.request('POST', '/api/v4/user/personal_access_tokens', { token: u.token, body: { name: 'x', scopes: ['api', scope] } });
          assert.equal(r.status, 400);
          assert.deepEqual(r.body, { error: 'scopes does not have a valid value' });
        }
        const r = await t.request('POST', '/api/v4/user/personal_access_tokens', { body: { name: 'x', scopes: ['api', 'sudo'] } });
        assert.equal(r.status, 201);
      });

      it('a read_api token may not create one (403 insufficient_scope)', async () => {
        const u = await t.createUser({ scopes: ['read_api'] });
        const r = await t.request('POST', '/api/v4/user/personal_access_tokens', { token: u.token, body: { name: 'x', scopes: ['read_api'] } });
        assert.equal(r.status, 403);
        assert.deepEqual(r.body, {
          error: 'insufficient_scope',
          error_description: 'The request requires higher privileges than provided by the access token.',
          scope: 'api',
        });
      });
    });

    describe('GET /personal_access_tokens', () => {
      it('an admin sees all tokens, paginated, and can filter by user', async () => {
        const u = await t.createUser();
        await adminCreateToken(t, u.id, { name: 'second' });
        const all = await t.get('/api/v4/personal_access_tokens?per_page=2');
        assert.equal(all.status, 200);
        assert.equal(all.body.length, 2);
        assert.equal(all.headers['x-per-page'], '2');
        assert.equal(all.headers['x-page'], '1');
        assert.equal(all.headers['x-next-page'], '2');
        assert.ok(Number(all.headers['x-total']) >= 3);
        for (const tok of all.body) assert.deepEqual(keysOf(tok), TOKEN_KEYS);
        const mine = await t.get(`/api/v4/personal_access_tokens?user_id=${u.id}`);
        assert.deepEqual(mine.body.map((x: any) => x.name), ['test', 'second']);
        assert.equal(mine.headers['x-total'], '2');
      });

      it('404 for an admin filtering by an unknown user', async () => {
        const r = await t.get('/api/v4/personal_access_tokens?user_id=999999');
        assert.equal(r.status, 404);
      });

      it('a non-admin sees only their own personal tokens (not impersonation ones); another user_id is 404', async () => {
        const u = await t.createUser();
        const other = await t.createUser();
        const imp = await t.request('POST', `/api/v4/users/${u.id}/impersonation_tokens`, { body: { name: 'imp', scopes: ['api'] } });
        assert.equal(imp.status, 201);
        const r = await t.get('/api/v4/personal_access_tokens', u.token);
        assert.equal(r.status, 200);
        assert.deepEqual(r.body.map((x: any) => x.user_id), [u.id]);
        assert.equal(r.headers['x-total'], '1');
        const own = await t.get(`/api/v4/personal_access_tokens?user_id=${u.id}`, u.token);
        assert.equal(own.body.length, 1);
        const theirs = await t.get(`/api/v4/personal_access_tokens?user_id=${other.id}`, u.token);
        assert.equal(theirs.status, 404);
      });

      it('filters: state, revoked, search, created_before/after, last_used_before/after', async () => {
        const u = await t.createUser();
        const a = await adminCreateToken(t, u.id, { name: 'Deploy Alpha' });
        const b = await adminCreateToken(t, u.id, { name: 'deploy beta' });
        await t.request('DELETE', `/api/v4/personal_access_tokens/${b.id}`);
        const q = (s: string) => t.get(`/api/v4/personal_access_tokens?user_id=${u.id}&${s}`).then((r) => {
          assert.equal(r.status, 200, r.text);
          return r.body.map((x: any) => x.id);
        });
        const base = (await q('')).filter((id: number) => id !== a.id && id !== b.id)[0];
        assert.deepEqual(await q('state=active'), [base, a.id]);
        assert.deepEqual(await q('state=inactive'), [b.id]);
        assert.deepEqual(await q('revoked=true'), [b.id]);
        assert.deepEqual(await q('revoked=false'), [base, a.id]);
        assert.deepEqual(await q('search=DEPLOY'), [a.id, b.id]);
        assert.deepEqual(await q('search=%25'), []);
        assert.deepEqual(await q('created_after=2000-01-01'), [base, a.id, b.id]);
        assert.deepEqual(await q('created_before=2000-01-01T00:00:00Z'), []);
        await t.get('/api/v4/user', a.token); // marks it used
        assert.deepEqual(await q('last_used_after=2000-01-01'), [a.id]);
        assert.deepEqual(await q('last_used_before=2000-01-01'), []);
        const bad = await t.get('/api/v4/personal_access_tokens?state=gone');
        assert.equal(bad.status, 400);
        assert.deepEqual(bad.body, { error: 'state does not have a valid value' });
        const badDate = await t.get('/api/v4/personal_access_tokens?created_before=notadate');
        assert.deepEqual(badDate.body, { error: 'created_before is invalid' });
      });
    });

    describe('GET /personal_access_tokens/:id and /self', () => {
      it('owner and admin see a token; another user gets 404; unknown id 404', async () => {
        const u = await t.createUser();
        const other = await t.createUser();
        const tok = await adminCreateToken(t, u.id);
        const own = await t.get(`/api/v4/personal_access_tokens/${tok.id}`, u.token);
        assert.equal(own.status, 200);
        assert.deepEqual(keysOf(own.body), TOKEN_KEYS);
        assert.equal(own.body.id, tok.id);
        assert.equal((await t.get(`/api/v4/personal_access_tokens/${tok.id}`)).status, 200);
        const theirs = await t.get(`/api/v4/personal_access_tokens/${tok.id}`, other.token);
        assert.equal(theirs.status, 404);
        assert.deepEqual(theirs.body, NOT_FOUND);
        const unknown = await t.get('/api/v4/personal_access_tokens/999999');
        assert.equal(unknown.status, 404);
        assert.deepEqual(unknown.body, NOT_FOUND);
      });

      it('/self answers for the token in use, whatever its scopes', async () => {
        const u = await t.createUser({ scopes: ['read_repository'] });
        const r = await t.get('/api/v4/personal_access_tokens/self', u.token);
        assert.equal(r.status, 200);
        assert.deepEqual(keysOf(r.body), TOKEN_KEYS);
        assert.equal(r.body.user_id, u.id);
        assert.deepEqual(r.body.scopes, ['read_repository']);
        assert.equal((await t.get('/api/v4/personal_access_tokens/self', null)).status, 401);
      });
    });

    describe('revoking', () => {
      it('DELETE /personal_access_tokens/:id revokes (204); the token is then 401 and shows revoked', async () => {
        const u = await t.createUser();
        const tok = await adminCreateToken(t, u.id);
        const r = await t.request('DELETE', `/api/v4/personal_access_tokens/${tok.id}`, { token: u.token });
        assert.equal(r.status, 204);
        assert.equal(r.text, '');
        const used = await t.get('/api/v4/user', tok.token);
        assert.equal(used.status, 401);
        assert.deepEqual(used.body, { message: '401 Unauthorized' });
        const shown = await t.get(`/api/v4/personal_access_tokens/${tok.id}`);
        assert.equal(shown.body.revoked, true);
        assert.equal(shown.body.active, false);
      });

      it("another user's token is 404 and stays usable; unknown id 404; read_api token 403", async () => {
        const u = await t.createUser();
        const other = await t.createUser();
        const tok = await adminCreateToken(t, u.id);
        const r = await t.request('DELETE', `/api/v4/personal_access_tokens/${tok.id}`, { token: other.token });
        assert.equal(r.status, 404);
        assert.equal((await t.get('/api/v4/user', tok.token)).status, 200);
        assert.equal((await t.request('DELETE', '/api/v4/personal_access_tokens/999999')).status, 404);
        const ro = await t.createUser({ scopes: ['read_api'] });
        const roTok = await adminCreateToken(t, ro.id);
        const denied = await t.request('DELETE', `/api/v4/personal_access_tokens/${roTok.id}`, { token: ro.token });
        assert.equal(denied.status, 403);
        assert.equal(denied.body.error, 'insufficient_scope');
      });

      it('DELETE /personal_access_tokens/self revokes the token in use, even a read_user one', async () => {
        const u = await t.createUser({ scopes: ['read_user'] });
        const r = await t.request('DELETE', '/api/v4/personal_access_tokens/self', { token: u.token });
        assert.equal(r.status, 204);
        assert.equal((await t.get('/api/v4/user', u.token)).status, 401);
      });
    });

    describe('rotating', () => {
      it('POST /personal_access_tokens/:id/rotate answers 200 with a new token; the old one is revoked and 401', async () => {
        const u = await t.createUser();
        const tok = await adminCreateToken(t, u.id, { name: 'rot', scopes: ['api', 'read_user'] });
        const r = await t.request('POST', `/api/v4/personal_access_tokens/${tok.id}/rotate`, { token: u.token });
        assert.equal(r.status, 200);
        assert.deepEqual(keysOf(r.body), TOKEN_WITH_TOKEN_KEYS);
        assert.notEqual(r.body.id, tok.id);
        assert.notEqual(r.body.token, tok.token);
        assert.equal(r.body.name, 'rot');
        assert.deepEqual(r.body.scopes, ['api', 'read_user']);
        assert.equal(r.body.expires_at, dayFromToday(7));
        assert.equal(r.body.active, true);
        assert.equal((await t.get('/api/v4/user', tok.token)).status, 401);
        assert.equal((await t.get('/api/v4/user', r.body.token)).status, 200);
        const old = await t.get(`/api/v4/personal_access_tokens/${tok.id}`);
        assert.equal(old.body.revoked, true);
        // a revoked token cannot be rotated again
        const again = await t.request('POST', `/api/v4/personal_access_tokens/${tok.id}/rotate`);
        assert.equal(again.status, 400);
        assert.deepEqual(again.body, { message: '400 Bad request - Token already revoked' });
      });

      it('takes expires_at; refuses a past one; 404 for another user and unknown ids', async () => {
        const u = await t.createUser();
        const other = await t.createUser();
        const tok = await adminCreateToken(t, u.id);
        const past = await t.request('POST', `/api/v4/personal_access_tokens/${tok.id}/rotate`, { body: { expires_at: '2001-01-01' } });
        assert.equal(past.status, 400);
        assert.deepEqual(past.body, { message: { expires_at: ['must be in the future'] } });
        const theirs = await t.request('POST', `/api/v4/personal_access_tokens/${tok.id}/rotate`, { token: other.token });
        assert.equal(theirs.status, 404);
        assert.equal((await t.request('POST', '/api/v4/personal_access_tokens/999999/rotate')).status, 404);
        const when = dayFromToday(60);
        const r = await t.request('POST', `/api/v4/personal_access_tokens/${tok.id}/rotate`, { body: { expires_at: when } });
        assert.equal(r.status, 200);
        assert.equal(r.body.expires_at, when);
      });

      it('POST /personal_access_tokens/self/rotate rotates the token in use', async () => {
        const u = await t.createUser();
        const r = await t.request('POST', '/api/v4/personal_access_tokens/self/rotate', { token: u.token });
        assert.equal(r.status, 200);
        assert.deepEqual(keysOf(r.body), TOKEN_WITH_TOKEN_KEYS);
        assert.equal((await t.get('/api/v4/user', u.token)).status, 401);
        const self = await t.get('/api/v4/personal_access_tokens/self', r.body.token);
        assert.equal(self.body.id, r.body.id);
      });
    });

    describe('scopes and expiry end to end', () => {
      it('a read_api token can GET but a POST is 403 insufficient_scope', async () => {
        const u = await t.createUser({ scopes: ['read_api'] });
        assert.equal((await t.get('/api/v4/personal_access_tokens', u.token)).status, 200);
        const r = await t.request('POST', '/api/v4/personal_access_tokens/self/rotate', { token: u.token });
        assert.equal(r.status, 403);
        assert.deepEqual(r.body, {
          error: 'insufficient_scope',
          error_description: 'The request requires higher privileges than provided by the access token.',
          scope: 'api',
        });
      });

      it('a read_user token can GET /user but not other endpoints', async () => {
        const u = await t.createUser({ scopes: ['read_user'] });
        assert.equal((await t.get('/api/v4/user', u.token)).status, 200);
        const r = await t.get('/api/v4/personal_access_tokens', u.token);
        assert.equal(r.status, 403);
        assert.equal(r.body.error, 'insufficient_scope');
        assert.equal(r.body.scope, 'api read_api');
      });

      it('a token past its expiry date is 401 and listed inactive', async () => {
        const u = await t.createUser();
        const tok = await adminCreateToken(t, u.id, { expires_at: dayFromToday(1) });
        assert.equal((await t.get('/api/v4/user', tok.token)).status, 200);
        await t.c.db.updateTable('personal_access_tokens').set({ expires_at: dayFromToday(-1) }).where('id', '=', tok.id).execute();
        assert.equal((await t.get('/api/v4/user', tok.token)).status, 401);
        const shown = await t.get(`/api/v4/personal_access_tokens/${tok.id}`);
        assert.equal(shown.body.active, false);
        assert.equal(shown.body.revoked, false);
        const inactive = await t.get(`/api/v4/personal_access_tokens?user_id=${u.id}&state=inactive`);
        assert.deepEqual(inactive.body.map((x: any) => x.id), [tok.id]);
      });
    });
  });
}
