import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS, EXTERNAL_URL, buildTestApp, keysOf, type TestApp } from '../helpers/build.js';
import { allowLocalHooks, startHookWorkers, startReceiver, type Receiver } from '../helpers/hooks.js';
import { makeProject } from '../helpers/projects.js';
import type { Queue } from '../../src/queue/queue.js';
import { ANVIL_VERSION } from '../../src/version.js';
import { pruneHookRecords } from '../../src/domain/hooks/delivery.js';

const HOOK_KEYS = ['created_at', 'enable_ssl_verification', 'id', 'merge_requests_events', 'push_events', 'repository_update_events', 'tag_push_events', 'url'];
const LOG_KEYS = ['created_at', 'execution_duration', 'id', 'request_data', 'request_headers', 'response_body', 'response_headers', 'response_status', 'trigger', 'url'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

for (const dialect of DIALECTS) {
  describe(`system hooks (${dialect})`, () => {
    let t: TestApp;
    let rx: Receiver;
    let queue: Queue;
    before(async () => {
      t = await buildTestApp(dialect);
      rx = await startReceiver();
      await allowLocalHooks(t);
    });
    after(async () => {
      await queue?.stop();
      await rx.close();
      await t.close();
    });

    it('CRUD: a single hook is an object, the token is stored encrypted and never returned', async () => {
      const r = await t.request('POST', '/api/v4/hooks', { body: { url: `${rx.url}/crud`, token: 'sekret-tok', tag_push_events: true } });
      assert.equal(r.status, 201, r.text);
      assert.deepEqual(keysOf(r.body), HOOK_KEYS);
      assert.equal(r.body.url, `${rx.url}/crud`);
      assert.equal(r.body.push_events, false);
      assert.equal(r.body.tag_push_events, true);
      assert.equal(r.body.repository_update_events, true);
      assert.equal(r.body.enable_ssl_verification, true);
      assert.ok(!r.text.includes('sekret-tok'));
      const stored = await t.c.db.selectFrom('system_hooks').select('token_encrypted').where('id', '=', r.body.id).executeTakeFirstOrThrow();
      assert.ok(stored.token_encrypted && !stored.token_encrypted.includes('sekret-tok'));

      const one = await t.get(`/api/v4/hooks/${r.body.id}`);
      assert.equal(one.status, 200);
      assert.deepEqual(one.body, r.body);
      const list = await t.get('/api/v4/hooks');
      assert.deepEqual(list.body, [r.body]);
      assert.equal(list.headers['x-total'], '1');

      const put = await t.request('PUT', `/api/v4/hooks/${r.body.id}`, { body: { push_events: true, enable_ssl_verification: false } });
      assert.equal(put.status, 200, put.text);
      assert.equal(put.body.push_events, true);
      assert.equal(put.body.enable_ssl_verification, false);
      assert.equal(put.body.url, `${rx.url}/crud`);

      const del = await t.request('DELETE', `/api/v4/hooks/${r.body.id}`);
      assert.equal(del.status, 204);
      assert.deepEqual((await t.get(`/api/v4/hooks/${r.body.id}`)).body, { message: '404 Not found' });
      assert.deepEqual((await t.request('DELETE', `/api/v4/hooks/${r.body.id}`)).body, { message: '404 System hook Not Found' });
    });

    it('refuses bad input before storing anything: 400, 422, 404, 403, 401', async () => {
      const count = async () => (await t.c.db.selectFrom('system_hooks').selectAll().execute()).length;
      const n = await count();
      const missing = await t.request('POST', '/api/v4/hooks', { body: { token: 'x' } });
      assert.equal(missing.status, 400);
      assert.deepEqual(missing.body, { message: '400 (Bad request) "url" not given' });
      for (const url of ['ftp://example.com/x', 'not a url', 'javascript:alert(1)']) {
        const bad = await t.request('POST', '/api/v4/hooks', { body: { url } });
        assert.equal(bad.status, 422, url);
        assert.deepEqual(bad.body, { error: 'Invalid url given' });
      }
      // Local addresses are refused once the setting says so, in every spelling.
      await t.request('PUT', '/api/v4/application/settings', { body: { allow_local_requests_from_system_hooks: false } });
      for (const url of ['http://127.0.0.1/', 'http://127.1/', 'http://2130706433/', 'http://[::1]/', 'http://good@0x7f.0.0.1/', 'http://169.254.169.254/']) {
        const refused = await t.request('POST', '/api/v4/hooks', { body: { url } });
        assert.equal(refused.status, 422, url);
        assert.deepEqual(refused.body, { error: 'Invalid url given' });
      }
      await allowLocalHooks(t);
      assert.equal(await count(), n);
      assert.equal((await t.get('/api/v4/hooks/999999')).status, 404);
      assert.equal((await t.request('POST', '/api/v4/hooks/999999')).status, 404);
      assert.equal((await t.request('PUT', '/api/v4/hooks/999999', { body: { url: 'https://example.com' } })).status, 404);
      const user = await t.createUser();
      for (const [m, u] of [['GET', '/api/v4/hooks'], ['POST', '/api/v4/hooks'], ['GET', '/api/v4/hooks/1'], ['DELETE', '/api/v4/hooks/1']] as const) {
        const forbidden = await t.request(m, u, { token: user.token, body: m === 'POST' ? { url: 'https://example.com' } : undefined });
        assert.equal(forbidden.status, 403, `${m} ${u}`);
        assert.deepEqual(forbidden.body, { message: '403 Forbidden' });
        const anon = await t.request(m, u, { token: null });
        assert.equal(anon.status, 401);
        assert.deepEqual(anon.body, { message: '401 Unauthorized' });
      }
      assert.equal(await count(), n);
    });

    it('the test delivery really sends the sample and answers with it; the log shows it', async () => {
      const h = (await t.request('POST', '/api/v4/hooks', { body: { url: `${rx.url}/test`, token: 'tok-test' } })).body;
      const r = await t.request('POST', `/api/v4/hooks/${h.id}`);
      assert.equal(r.status, 201, r.text);
      assert.deepEqual(Object.keys(r.body), ['project_id', 'owner_email', 'owner_name', 'name', 'path', 'event_name']);
      assert.equal(r.body.event_name, 'project_create');
      const [got] = await rx.waitFor(1, (x) => x.url === '/test');
      assert.deepEqual(got.body, r.body);
      assert.equal(got.headers['content-type'], 'application/json');
      assert.equal(got.headers['x-service-event'], 'System Hook');
      assert.equal(got.headers['x-service-token'], 'tok-test');
      assert.equal(got.headers['x-service-instance'], EXTERNAL_URL);
      assert.match(String(got.headers['x-service-event-uuid']), UUID);
      assert.equal(got.headers['user-agent'], `Anvil/${ANVIL_VERSION}`);

      const log = await t.get(`/api/v4/hooks/${h.id}/events`);
      assert.equal(log.status, 200);
      assert.equal(log.body.length, 1);
      const e = log.body[0];
      assert.deepEqual(keysOf(e), LOG_KEYS);
      assert.equal(e.url, `${rx.url}/test`);
      assert.equal(e.trigger, 'system_hooks');
      assert.equal(e.request_headers['X-Service-Token'], '[REDACTED]');
      assert.ok(!log.text.includes('tok-test'));
      assert.deepEqual(e.request_data, r.body);
      assert.equal(e.response_status, '200');
      assert.equal(e.response_headers['x-receiver'], 'test');
      assert.equal(e.response_body, '{"ok":true}');
      assert.equal(typeof e.execution_duration, 'number');

      const resend = await t.request('POST', `/api/v4/hooks/${h.id}/events/${e.id}/resend`);
      assert.equal(resend.status, 201, resend.text);
      assert.deepEqual(resend.body, { response_status: 200 });
      const again = await rx.waitFor(2, (x) => x.url === '/test');
      assert.deepEqual(again[1].body, r.body);
      assert.equal(again[1].headers['x-service-token'], 'tok-test');
      assert.equal((await t.request('POST', `/api/v4/hooks/${h.id}/events/999999/resend`)).status, 404);
      await t.request('DELETE', `/api/v4/hooks/${h.id}`);
    });

    it('a name that resolves elsewhere at delivery time is checked again and refused; old log entries are pruned', async () => {
      await t.request('PUT', '/api/v4/application/settings', { body: { allow_local_requests_from_system_hooks: false } });
      let lookups = 0;
      // Public when the hook is saved, loopback when it is delivered (DNS rebinding).
      t.c.resolver = async () => [{ address: lookups++ === 0 ? '93.184.216.34' : '127.0.0.1', family: 4 }];
      try {
        const h = await t.request('POST', '/api/v4/hooks', { body: { url: 'http://rebind.test/hook' } });
        assert.equal(h.status, 201, h.text);
        const before = rx.received.length;
        assert.equal((await t.request('POST', `/api/v4/hooks/${h.body.id}`)).status, 201);
        assert.equal(rx.received.length, before);
        const [entry] = (await t.get(`/api/v4/hooks/${h.body.id}/events`)).body;
        assert.equal(entry.response_status, 'internal error');
        assert.equal(entry.response_body, 'Requests to localhost are not allowed');

        assert.equal(await pruneHookRecords(t.c, Date.now() + 24 * 3600_000), 0);
        assert.ok((await pruneHookRecords(t.c, Date.now() + 31 * 24 * 3600_000)) >= 1);
        assert.deepEqual((await t.get(`/api/v4/hooks/${h.body.id}/events`)).body, []);
        await t.request('DELETE', `/api/v4/hooks/${h.body.id}`);
      } finally {
        t.c.resolver = undefined;
        await allowLocalHooks(t);
      }
    });

    it('system events arrive once each, with the reference payloads and headers', async () => {
      const h = (await t.request('POST', '/api/v4/hooks', { body: { url: `${rx.url}/sys`, token: 'tok-sys' } })).body;
      queue = startHookWorkers(t);
      const sys = (name: string) => (r: { url: string; body: any }) => r.url === '/sys' && r.body?.event_name === name;

      const user = await t.createUser({ username: `hookuser_${dialect}` });
      const [created] = await rx.waitFor(1, sys('user_create'));
      assert.deepEqual(keysOf(created.body), ['created_at', 'email', 'event_name', 'name', 'updated_at', 'user_id', 'username']);
      assert.equal(created.body.user_id, user.id);
      assert.equal(created.body.username, user.username);
      assert.match(created.body.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      assert.equal(created.headers['x-service-event'], 'System Hook');
      assert.equal(created.headers['x-service-token'], 'tok-sys');

      const p = await makeProject(t, user.token, { name: 'hooked' });
      const [pc] = await rx.waitFor(1, sys('project_create'));
      assert.deepEqual(pc.body, {
        event_name: 'project_create',
        created_at: pc.body.created_at,
        updated_at: pc.body.updated_at,
        name: 'hooked',
        path: 'hooked',
        path_with_namespace: `${user.username}/hooked`,
        project_id: p.id,
        project_namespace_id: pc.body.project_namespace_id,
        owner_name: `User ${user.username}`,
        owner_email: `${user.username}@example.com`,
        owners: [{ name: `User ${user.username}`, email: `${user.username}@example.com` }],
        project_visibility: 'private',
      });
      await t.request('PUT', `/api/v4/projects/${p.id}`, { token: user.token, body: { description: 'd' } });
      await rx.waitFor(1, sys('project_update'));
      await t.request('PUT', `/api/v4/projects/${p.id}`, { token: user.token, body: { path: 'hooked2' } });
      const [renamed] = await rx.waitFor(1, sys('project_rename'));
      assert.equal(renamed.body.old_path_with_namespace, `${user.username}/hooked`);
      assert.equal(renamed.body.path_with_namespace, `${user.username}/hooked2`);

      const g = (await t.request('POST', '/api/v4/groups', { body: { name: `hg-${dialect}`, path: `hg-${dialect}` } })).body;
      const [gc] = await rx.waitFor(1, sys('group_create'));
      assert.deepEqual(keysOf(gc.body), ['created_at', 'event_name', 'full_path', 'group_id', 'name', 'owner_email', 'owner_name', 'path', 'updated_at']);
      assert.equal(gc.body.group_id, g.id);
      const [owner] = await rx.waitFor(1, (r) => sys('user_add_to_group')(r) && r.body.group_id === g.id);
      assert.equal(owner.body.group_access, 'Owner');

      const member = await t.createUser();
      await t.request('POST', `/api/v4/projects/${p.id}/members`, { token: user.token, body: { user_id: member.id, access_level: 30 } });
      const [added] = await rx.waitFor(1, sys('user_add_to_team'));
      assert.deepEqual(keysOf(added.body), [
        'access_level', 'created_at', 'event_name', 'expires_at', 'project_id', 'project_name', 'project_path', 'project_path_with_namespace',
        'project_visibility', 'updated_at', 'user_email', 'user_id', 'user_name', 'user_username',
      ]);
      assert.equal(added.body.access_level, 'Developer');
      assert.equal(added.body.user_id, member.id);
      await t.request('PUT', `/api/v4/projects/${p.id}/members/${member.id}`, { token: user.token, body: { access_level: 40 } });
      assert.equal((await rx.waitFor(1, sys('user_update_for_team')))[0].body.access_level, 'Maintainer');
      await t.request('DELETE', `/api/v4/projects/${p.id}/members/${member.id}`, { token: user.token });
      await rx.waitFor(1, sys('user_remove_from_team'));

      await t.request('POST', `/api/v4/groups/${g.id}/members`, { body: { user_id: member.id, access_level: 20 } });
      await rx.waitFor(1, (r) => sys('user_add_to_group')(r) && r.body.user_id === member.id);
      await t.request('PUT', `/api/v4/groups/${g.id}/members/${member.id}`, { body: { access_level: 30 } });
      await rx.waitFor(1, sys('user_update_for_group'));
      await t.request('DELETE', `/api/v4/groups/${g.id}/members/${member.id}`);
      await rx.waitFor(1, sys('user_remove_from_group'));

      const tr = await t.request('PUT', `/api/v4/projects/${p.id}/transfer`, { body: { namespace: g.id } });
      assert.equal(tr.status, 200, tr.text);
      const [transferred] = await rx.waitFor(1, sys('project_transfer'));
      assert.equal(transferred.body.old_path_with_namespace, `${user.username}/hooked2`);
      assert.equal(transferred.body.path_with_namespace, `hg-${dialect}/hooked2`);
      assert.equal(transferred.body.owner_name, `hg-${dialect}`);

      await t.request('PUT', `/api/v4/groups/${g.id}`, { body: { path: `hg2-${dialect}` } });
      const [gr] = await rx.waitFor(1, sys('group_rename'));
      assert.equal(gr.body.old_path, `hg-${dialect}`);
      assert.equal(gr.body.full_path, `hg2-${dialect}`);

      await t.request('PUT', `/api/v4/users/${member.id}`, { body: { username: `renamed_${dialect}` } });
      const [ur] = await rx.waitFor(1, sys('user_rename'));
      assert.equal(ur.body.username, `renamed_${dialect}`);

      await t.request('POST', `/api/v4/users/${member.id}/block`);
      const login = await t.app.inject({ method: 'POST', url: '/oauth/token', payload: { grant_type: 'password', username: `renamed_${dialect}`, password: 'password123' } });
      assert.equal(login.statusCode, 400);
      const [failed] = await rx.waitFor(1, sys('user_failed_login'));
      assert.equal(failed.body.state, 'blocked');
      assert.equal(failed.body.user_id, member.id);

      await t.request('DELETE', `/api/v4/projects/${p.id}`);
      await t.request('DELETE', `/api/v4/groups/${g.id}`);
      await t.request('DELETE', `/api/v4/users/${member.id}`);
      await rx.waitFor(1, sys('project_destroy'));
      await rx.waitFor(1, sys('group_destroy'));
      await rx.waitFor(1, sys('user_destroy'));

      // Each event arrived once, each with an event UUID of its own.
      const all = rx.received.filter((r) => r.url === '/sys');
      const uuids = all.map((r) => r.headers['x-service-event-uuid']);
      assert.equal(new Set(uuids).size, all.length);
      const names = all.map((r) => r.body.event_name);
      for (const name of ['user_create', 'project_create', 'project_update', 'project_rename', 'group_create', 'project_transfer', 'group_rename', 'user_rename', 'user_failed_login', 'project_destroy', 'user_destroy']) {
        assert.equal(names.filter((n) => n === name).length, name === 'user_create' ? 2 : 1, name);
      }
      await t.request('DELETE', `/api/v4/hooks/${h.id}`);
    });
  });
}
