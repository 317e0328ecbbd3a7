import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS, EXTERNAL_URL, buildTestApp, keysOf, type TestApp } from '../helpers/build.js';
import { RESOURCE_TOKEN_WITH_TOKEN_KEYS, USER_BASIC_KEYS } from '../helpers/keys.js';
import { MEMBER_KEYS, addMember, makeGroup } from '../helpers/groups.js';

for (const dialect of DIALECTS) {
  describe(`group members, namespaces and access tokens (${dialect})`, () => {
    let t: TestApp;
    before(async () => {
      t = await buildTestApp(dialect);
    });
    after(async () => t.close());

    it('POST/PUT/DELETE members with the reference rules and shapes', async () => {
      const owner = await t.createUser();
      const u = await t.createUser();
      const g = await makeGroup(t, { token: owner.token });
      let r = await t.request('POST', `/api/v4/groups/${g.id}/members`, { token: owner.token, body: { user_id: u.id, access_level: 30, expires_at: '2999-01-02' } });
      assert.equal(r.status, 201, r.text);
      assert.deepEqual(keysOf(r.body), MEMBER_KEYS);
      assert.equal(r.body.id, u.id);
      assert.equal(r.body.username, u.username);
      assert.equal(r.body.access_level, 30);
      assert.equal(r.body.expires_at, '2999-01-02');
      assert.equal(r.body.membership_state, 'active');
      assert.equal(r.body.web_url, `${EXTERNAL_URL}/${u.username}`);
      assert.equal(r.body.created_by.id, owner.id);
      assert.deepEqual(keysOf(r.body.created_by), USER_BASIC_KEYS);

      r = await t.request('POST', `/api/v4/groups/${g.id}/members`, { token: owner.token, body: { user_id: u.id, access_level: 30 } });
      assert.deepEqual([r.status, r.body], [409, { message: 'Member already exists' }]);
      r = await t.request('POST', `/api/v4/groups/${g.id}/members`, { token: owner.token, body: { user_id: 999999, access_level: 30 } });
      assert.deepEqual([r.status, r.body], [404, { message: '404 User Not Found' }]);
      r = await t.request('POST', `/api/v4/groups/${g.id}/members`, { token: owner.token, body: { user_id: u.id, access_level: 35 } });
      assert.deepEqual([r.status, r.body], [400, { error: 'access_level does not have a valid value' }]);
      r = await t.request('POST', `/api/v4/groups/${g.id}/members`, { token: owner.token, body: { user_id: u.id } });
      assert.deepEqual([r.status, r.body], [400, { message: '400 (Bad request) "access_level" not given' }]);
      const v = await t.createUser();
      r = await t.request('POST', `/api/v4/groups/${g.id}/members`, { token: owner.token, body: { user_id: v.id, access_level: 20, expires_at: '2001-01-01' } });
      assert.deepEqual([r.status, r.body], [400, { message: { expires_at: ['cannot be a date in the past'] } }]);
      // a developer may not manage members; a stranger does not see the private group
      r = await t.request('POST', `/api/v4/groups/${g.id}/members`, { token: u.token, body: { user_id: v.id, access_level: 10 } });
      assert.deepEqual([r.status, r.body], [403, { message: '403 Forbidden' }]);
      r = await t.request('POST', `/api/v4/groups/${g.id}/members`, { token: v.token, body: { user_id: v.id, access_level: 10 } });
      assert.deepEqual([r.status, r.body], [404, { message: '404 Group Not Found' }]);
      assert.equal((await t.get(`/api/v4/groups/${g.id}/members`, null)).status, 401);

      r = await t.request('PUT', `/api/v4/groups/${g.id}/members/${u.id}`, { token: owner.token, body: { access_level: 40 } });
      assert.equal(r.status, 200);
      assert.equal(r.body.access_level, 40);
      assert.equal(r.body.expires_at, '2999-01-02');
      r = await t.request('PUT', `/api/v4/groups/${g.id}/members/${v.id}`, { token: owner.token, body: { access_level: 40 } });
      assert.deepEqual([r.status, r.body], [404, { message: '404 Not found' }]);
      r = await t.get(`/api/v4/groups/${g.id}/members/${u.id}`, u.token);
      assert.equal(r.body.access_level, 40);

      // the last owner can be neither demoted nor removed
      r = await t.request('PUT', `/api/v4/groups/${g.id}/members/${owner.id}`, { token: owner.token, body: { access_level: 40 } });
      assert.deepEqual([r.status, r.body], [403, { message: '403 Forbidden' }]);
      r = await t.request('DELETE', `/api/v4/groups/${g.id}/members/${owner.id}`, { token: owner.token });
      assert.equal(r.status, 403);
      await t.request('PUT', `/api/v4/groups/${g.id}/members/${u.id}`, { token: owner.token, body: { access_level: 50 } });
      r = await t.request('DELETE', `/api/v4/groups/${g.id}/members/${owner.id}`, { token: u.token });
      assert.equal(r.status, 204);
      assert.equal(r.text, '');
      assert.equal((await t.get(`/api/v4/groups/${g.id}`, owner.token)).status, 404);
      const list = await t.get(`/api/v4/groups/${g.id}/members`, u.token);
      assert.deepEqual(list.body.map((m: any) => m.id), [u.id]);
      assert.equal(list.headers['x-total'], '1');
    });

    it('expired memberships count for nothing', async () => {
      const owner = await t.createUser();
      const u = await t.createUser();
      const g = await makeGroup(t, { token: owner.token });
      await addMember(t, g.id, u.id, 30, owner.token);
      assert.equal((await t.get(`/api/v4/groups/${g.id}`, u.token)).status, 200);
      await t.c.db.updateTable('members').set({ expires_at: '2000-01-01' }).where('user_id', '=', u.id).execute();
      assert.equal((await t.get(`/api/v4/groups/${g.id}`, u.token)).status, 404);
      const list = await t.get(`/api/v4/groups/${g.id}/members`, owner.token);
      assert.deepEqual(list.body.map((m: any) => m.id), [owner.id]);
      // adding again replaces the expired membership
      await addMember(t, g.id, u.id, 20, owner.token);
      assert.equal((await t.get(`/api/v4/groups/${g.id}/members/${u.id}`, owner.token)).body.access_level, 20);
    });

    it('GET /namespaces and /namespaces/:id', async () => {
      const u = await t.createUser();
      const other = await t.createUser();
      const g = await makeGroup(t, { token: u.token, path: 'ns-group' });
      const theirs = await makeGroup(t, { token: other.token, visibility: 'public' });
      const r = await t.get('/api/v4/namespaces', u.token);
      assert.equal(r.status, 200);
      assert.deepEqual(r.body.map((n: any) => n.full_path), [u.username, 'ns-group']);
      const [own, grp] = r.body;
      assert.deepEqual(keysOf(own), ['avatar_url', 'full_path', 'id', 'kind', 'name', 'parent_id', 'path', 'web_url']);
      assert.equal(own.kind, 'user');
      assert.equal(own.web_url, `${EXTERNAL_URL}/${u.username}`);
      assert.deepEqual(keysOf(grp), ['avatar_url', 'full_path', 'id', 'kind', 'members_count_with_descendants', 'name', 'parent_id', 'path', 'web_url']);
      assert.equal(grp.kind, 'group');
      assert.equal(grp.members_count_with_descendants, 1);
      assert.equal(grp.web_url, `${EXTERNAL_URL}/groups/ns-group`);
      assert.deepEqual((await t.get('/api/v4/namespaces?search=ns-gr', u.token)).body.map((n: any) => n.id), [g.id]);
      assert.equal((await t.get('/api/v4/namespaces/ns-group', u.token)).body.id, g.id);
      const pub = await t.get(`/api/v4/namespaces/${theirs.id}`, u.token);
      assert.equal(pub.status, 200);
      assert.equal('members_count_with_descendants' in pub.body, false);
      assert.deepEqual((await t.get(`/api/v4/namespaces/${other.username}`, u.token)).body, { message: '404 Namespace Not Found' });
      assert.equal((await t.get(`/api/v4/namespaces/${other.username}`, t.rootToken)).status, 200);
      assert.equal((await t.get('/api/v4/namespaces', null)).status, 401);
      const all = await t.get('/api/v4/namespaces?per_page=100', t.rootToken);
      assert.ok(all.body.some((n: any) => n.id === theirs.id));
      const ex = await t.get('/api/v4/namespaces/ns-group/exists', u.token);
      assert.deepEqual(ex.body, { exists: true, suggests: ['ns-group1'] });
    });

    it('group access tokens: a bot member whose token calls the API as the bot; owners only; revoking removes it', async () => {
      const owner = await t.createUser();
      const dev = await t.createUser();
      const g = await makeGroup(t, { token: owner.token });
      await addMember(t, g.id, dev.id, 30, owner.token);
      let r = await t.request('POST', `/api/v4/groups/${g.id}/access_tokens`, { token: owner.token, body: { name: 'ci bot', scopes: ['api'], expires_at: '2999-12-31' } });
      assert.equal(r.status, 201, r.text);
      assert.deepEqual(keysOf(r.body), RESOURCE_TOKEN_WITH_TOKEN_KEYS);
      assert.equal(r.body.access_level, 40);
      assert.deepEqual(r.body.scopes, ['api']);
      assert.equal(r.body.active, true);
      assert.equal(r.body.expires_at, '2999-12-31');
      const { token, id: tokenId, user_id: botId } = r.body;

      const me = await t.get('/api/v4/user', token);
      assert.equal(me.status, 200);
      assert.equal(me.body.username, `group_${g.id}_bot`);
      assert.equal(me.body.id, botId);
      assert.equal((await t.get(`/api/v4/groups/${g.id}`, token)).status, 200);
      const bot = await t.get(`/api/v4/groups/${g.id}/members/${botId}`, owner.token);
      assert.equal(bot.body.access_level, 40);
      // a second token gets the next bot name
      r = await t.request('POST', `/api/v4/groups/${g.id}/access_tokens`, { token: owner.token, body: { name: 'second', scopes: 'read_api', access_level: 20 } });
      assert.equal(r.status, 201);
      assert.equal((await t.get('/api/v4/user', r.body.token)).body.username, `group_${g.id}_bot1`);

      const list = await t.get(`/api/v4/groups/${g.id}/access_tokens`, owner.token);
      assert.equal(list.status, 200);
      assert.deepEqual(list.body.map((x: any) => [x.name, x.access_level]), [['ci bot', 40], ['second', 20]]);
      assert.equal('token' in list.body[0], false);
      assert.equal((await t.get(`/api/v4/groups/${g.id}/access_tokens/${tokenId}`, owner.token)).body.id, tokenId);
      assert.deepEqual((await t.get(`/api/v4/groups/${g.id}/access_tokens/999999`, owner.token)).body, {
        message: '404 Could not find group access token with token_id: 999999 Not Found',
      });
      assert.equal((await t.get(`/api/v4/groups/${g.id}/access_tokens`, dev.token)).status, 401);
      r = await t.request('POST', `/api/v4/groups/${g.id}/access_tokens`, { token: dev.token, body: { name: 'x', scopes: ['api'] } });
      assert.deepEqual([r.status, r.body], [400, { message: '400 Bad request - User does not have permission to create group access token' }]);
      r = await t.request('POST', `/api/v4/groups/${g.id}/access_tokens`, { token: owner.token, body: { name: 'x', scopes: ['sudo'] } });
      assert.deepEqual([r.status, r.body], [400, { error: 'scopes does not have a valid value' }]);
      r = await t.request('POST', `/api/v4/groups/${g.id}/access_tokens`, { token: owner.token, body: { name: 'x' } });
      assert.deepEqual([r.status, r.body], [400, { message: '400 (Bad request) "scopes" not given' }]);

      r = await t.request('DELETE', `/api/v4/groups/${g.id}/access_tokens/${tokenId}`, { token: owner.token });
      assert.equal(r.status, 204);
      assert.equal((await t.get('/api/v4/user', token)).status, 401);
      assert.equal((await t.get(`/api/v4/groups/${g.id}/members/${botId}`, owner.token)).status, 404);
      assert.equal((await t.get(`/api/v4/groups/${g.id}/access_tokens/${tokenId}`, owner.token)).status, 404);
    });
  });
}
