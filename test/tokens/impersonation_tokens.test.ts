import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS, buildTestApp, keysOf, type TestApp } from '../helpers/build.js';
import { IMPERSONATION_KEYS, IMPERSONATION_WITH_TOKEN_KEYS } from '../helpers/keys.js';
import { adminCreateToken, dayFromToday } from '../helpers/tokens.js';

for (const dialect of DIALECTS) {
  describe(`impersonation tokens (${dialect})`, () => {
    let t: TestApp;
    before(async () => {
      t = await buildTestApp(dialect);
    });
    after(async () => t.close());

    const create = (userId: number, body: object, token?: string) =>
      t.request('POST', `/api/v4/users/${userId}/impersonation_tokens`, { body, token });

    it('an admin creates one: exact shape with `impersonation: true` and `token`; it acts as the user', async () => {
      const u = await t.createUser();
      const r = await create(u.id, { name: 'imp', scopes: ['api'], expires_at: dayFromToday(5) });
      assert.equal(r.status, 201);
      assert.deepEqual(keysOf(r.body), IMPERSONATION_WITH_TOKEN_KEYS);
      assert.equal(r.body.impersonation, true);
      assert.equal(r.body.user_id, u.id);
      assert.equal(r.body.expires_at, dayFromToday(5));
      const me = await t.get('/api/v4/user', r.body.token);
      assert.equal(me.status, 200);
      assert.equal(me.body.id, u.id);
    });

    it('lists (paginated) with the state filter, gets one, revokes one', async () => {
      const u = await t.createUser();
      const a = (await create(u.id, { name: 'a', scopes: ['api'] })).body;
      const b = (await create(u.id, { name: 'b', scopes: ['read_user'] })).body;
      await adminCreateToken(t, u.id); // a personal token is not listed here
      const all = await t.get(`/api/v4/users/${u.id}/impersonation_tokens`);
      assert.equal(all.status, 200);
      assert.equal(all.headers['x-total'], '2');
      assert.deepEqual(all.body.map((x: any) => x.id), [a.id, b.id]);
      for (const x of all.body) assert.deepEqual(keysOf(x), IMPERSONATION_KEYS);

      const one = await t.get(`/api/v4/users/${u.id}/impersonation_tokens/${a.id}`);
      assert.equal(one.status, 200);
      assert.deepEqual(keysOf(one.body), IMPERSONATION_KEYS);
      assert.equal(one.body.name, 'a');

      const del = await t.request('DELETE', `/api/v4/users/${u.id}/impersonation_tokens/${a.id}`);
      assert.equal(del.status, 204);
      assert.equal((await t.get('/api/v4/user', a.token)).status, 401);

      const active = await t.get(`/api/v4/users/${u.id}/impersonation_tokens?state=active`);
      assert.deepEqual(active.body.map((x: any) => x.id), [b.id]);
      const inactive = await t.get(`/api/v4/users/${u.id}/impersonation_tokens?state=inactive`);
      assert.deepEqual(inactive.body.map((x: any) => x.id), [a.id]);
      const bad = await t.get(`/api/v4/users/${u.id}/impersonation_tokens?state=dead`);
      assert.equal(bad.status, 400);
      assert.deepEqual(bad.body, { error: 'state does not have a valid value' });
    });

    it('404s: unknown user, unknown token, a token of another user, a personal (non-impersonation) token', async () => {
      const u = await t.createUser();
      const v = await t.createUser();
      const imp = (await create(u.id, { name: 'x', scopes: ['api'] })).body;
      const pat = await adminCreateToken(t, u.id);
      const userMissing = await t.get('/api/v4/users/999999/impersonation_tokens');
      assert.equal(userMissing.status, 404);
      assert.deepEqual(userMissing.body, { message: '404 User Not Found' });
      for (const url of [
        `/api/v4/users/${u.id}/impersonation_tokens/999999`,
        `/api/v4/users/${v.id}/impersonation_tokens/${imp.id}`,
        `/api/v4/users/${u.id}/impersonation_tokens/${pat.id}`,
      ]) {
        const r = await t.get(url);
        assert.equal(r.status, 404, url);
        assert.deepEqual(r.body, { message: '404 Impersonation Token Not Found' });
      }
      assert.equal((await t.request('DELETE', `/api/v4/users/${u.id}/impersonation_tokens/999999`)).status, 404);
    });

    it('400s: missing name, no scopes, unknown scopes, a past expiry', async () => {
      const u = await t.createUser();
      let r = await create(u.id, { scopes: ['api'] });
      assert.deepEqual(r.body, { message: '400 (Bad request) "name" not given' });
      r = await create(u.id, { name: 'x' });
      assert.equal(r.status, 400);
      assert.deepEqual(r.body, { message: { scopes: ["can't be blank"] } });
      r = await create(u.id, { name: 'x', scopes: ['api', 'root_powers'] });
      assert.equal(r.status, 400);
      assert.deepEqual(r.body, { message: { scopes: ['can only contain available scopes'] } });
      r = await create(u.id, { name: 'x', scopes: ['api'], expires_at: '2001-01-01' });
      assert.equal(r.status, 400);
      assert.deepEqual(r.body, { message: { expires_at: ['must be in the future'] } });
    });

    it('403 for a non-admin on every endpoint; 401 without a token', async () => {
      const u = await t.createUser();
      const imp = (await create(u.id, { name: 'x', scopes: ['api'] })).body;
      const base = `/api/v4/users/${u.id}/impersonation_tokens`;
      for (const [m, url] of [['GET', base], ['POST', base], ['GET', `${base}/${imp.id}`], ['DELETE', `${base}/${imp.id}`]] as const) {
        const r = await t.request(m, url, { token: u.token, body: m === 'POST' ? { name: 'x', scopes: ['api'] } : undefined });
        assert.equal(r.status, 403, `${m} ${url}`);
        assert.deepEqual(r.body, { message: '403 Forbidden' });
      }
      assert.equal((await t.get(base, null)).status, 401);
    });

    it('an impersonation token is not listed among the user\'s own tokens but can see itself via /self', async () => {
      const u = await t.createUser();
      const imp = (await create(u.id, { name: 'x', scopes: ['api'] })).body;
      const self = await t.get('/api/v4/personal_access_tokens/self', imp.token);
      assert.equal(self.status, 200);
      assert.equal(self.body.id, imp.id);
      const listed = await t.get('/api/v4/personal_access_tokens', u.token);
      assert.deepEqual(listed.body.map((x: any) => x.name), ['test']);
      const adminView = await t.get(`/api/v4/personal_access_tokens?user_id=${u.id}`);
      assert.deepEqual(adminView.body.map((x: any) => x.id).includes(imp.id), true);
    });
  });

  describe(`impersonation disabled (${dialect})`, () => {
    let t: TestApp;
    before(async () => {
      t = await buildTestApp(dialect, { ANVIL_IMPERSONATION_ENABLED: 'false' });
    });
    after(async () => t.close());

    it('creating one is refused with 404, and an existing one is 401', async () => {
      const u = await t.createUser();
      const r = await t.request('POST', `/api/v4/users/${u.id}/impersonation_tokens`, { body: { name: 'x', scopes: ['api'] } });
      assert.equal(r.status, 404);
      assert.deepEqual(r.body, { message: '404 Not Found' });
      // one made while impersonation was on
      const { issueToken } = await import('../../src/domain/tokens/service.js');
      const { token } = await issueToken(t.c, { userId: u.id, name: 'old', scopes: ['api'], expiresAt: null, impersonation: true });
      const used = await t.get('/api/v4/user', token);
      assert.equal(used.status, 401);
      assert.deepEqual(used.body, { message: '401 Unauthorized' });
    });
  });
}
