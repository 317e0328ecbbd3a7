import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS, buildTestApp, keysOf, type TestApp } from '../helpers/build.js';
import { addMember, makeProject } from '../helpers/projects.js';

const HOOK_KEYS = [
  'id', 'url', 'created_at', 'project_id', 'push_events', 'tag_push_events', 'merge_requests_events', 'repository_update_events',
  'issues_events', 'confidential_issues_events', 'note_events', 'confidential_note_events', 'pipeline_events', 'wiki_page_events',
  'deployment_events', 'job_events', 'releases_events', 'enable_ssl_verification', 'push_events_branch_filter', 'alert_status', 'disabled_until',
].sort();

for (const dialect of DIALECTS) {
  describe(`project hooks (${dialect})`, () => {
    let t: TestApp;
    let owner: { id: number; username: string; token: string };
    before(async () => {
      t = await buildTestApp(dialect);
      // the public names these hooks use, without asking the machine's DNS (a hook must resolve to be saved)
      t.c.resolver = async () => [{ address: '93.184.216.34', family: 4 }];
      owner = await t.createUser();
    });
    after(async () => t.close());

    it('CRUD with the reference defaults; the token is stored encrypted and never returned', async () => {
      const p = await makeProject(t, owner.token, { name: 'hk1' });
      const r = await t.request('POST', `/api/v4/projects/${p.id}/hooks`, {
        token: owner.token,
        body: { url: 'https://example.com/hook', token: 's3cret-value', issues_events: true },
      });
      assert.equal(r.status, 201, r.text);
      assert.deepEqual(keysOf(r.body), HOOK_KEYS);
      assert.equal(r.body.project_id, p.id);
      assert.equal(r.body.push_events, true);
      assert.equal(r.body.issues_events, true);
      assert.equal(r.body.tag_push_events, false);
      assert.equal(r.body.enable_ssl_verification, true);
      assert.equal(r.body.push_events_branch_filter, null);
      assert.equal(r.body.alert_status, 'executable');
      assert.equal(r.body.disabled_until, null);
      assert.ok(!r.text.includes('s3cret-value'));
      const stored = await t.c.db.selectFrom('project_hooks').select('token_encrypted').where('id', '=', r.body.id).executeTakeFirstOrThrow();
      assert.ok(stored.token_encrypted && !stored.token_encrypted.includes('s3cret-value'));

      const list = await t.get(`/api/v4/projects/${p.id}/hooks`, owner.token);
      assert.equal(list.status, 200);
      assert.equal(list.headers['x-total'], '1');
      assert.deepEqual(list.body, [r.body]);
      assert.deepEqual((await t.get(`/api/v4/projects/${p.id}/hooks/${r.body.id}`, owner.token)).body, r.body);

      const put = await t.request('PUT', `/api/v4/projects/${p.id}/hooks/${r.body.id}`, {
        token: owner.token,
        body: { url: 'http://example.org/h2', push_events: false, enable_ssl_verification: false },
      });
      assert.equal(put.status, 200);
      assert.equal(put.body.url, 'http://example.org/h2');
      assert.equal(put.body.push_events, false);
      assert.equal(put.body.issues_events, true);
      assert.equal(put.body.enable_ssl_verification, false);

      assert.equal((await t.request('DELETE', `/api/v4/projects/${p.id}/hooks/${r.body.id}`, { token: owner.token })).status, 204);
      const gone = await t.get(`/api/v4/projects/${p.id}/hooks/${r.body.id}`, owner.token);
      assert.equal(gone.status, 404);
      assert.deepEqual(gone.body, { message: '404 Not found' });
    });

    it('refuses: invalid url 422, missing url 400, developers 403, strangers 404, no token 401, read_api 403', async () => {
      const p = await makeProject(t, owner.token, { name: 'hk2' });
      const bad = await t.request('POST', `/api/v4/projects/${p.id}/hooks`, { token: owner.token, body: { url: 'ftp://x' } });
      assert.equal(bad.status, 422);
      assert.deepEqual(bad.body, { error: 'Invalid url given' });
      const missing = await t.request('POST', `/api/v4/projects/${p.id}/hooks`, { token: owner.token, body: {} });
      assert.deepEqual(missing.body, { message: '400 (Bad request) "url" not given' });
      const dev = await t.createUser();
      await addMember(t, 'Project', p.id, dev.id, 30);
      assert.equal((await t.get(`/api/v4/projects/${p.id}/hooks`, dev.token)).status, 403);
      const stranger = await t.createUser();
      assert.equal((await t.get(`/api/v4/projects/${p.id}/hooks`, stranger.token)).status, 404);
      assert.equal((await t.get(`/api/v4/projects/${p.id}/hooks`, null)).status, 401);
      const ro = await t.createUser({ scopes: ['read_api'] });
      await addMember(t, 'Project', p.id, ro.id, 40);
      assert.equal((await t.request('POST', `/api/v4/projects/${p.id}/hooks`, { token: ro.token, body: { url: 'https://e.com' } })).status, 403);
      assert.equal((await t.request('PUT', `/api/v4/projects/${p.id}/hooks/999999`, { token: owner.token, body: { url: 'https://e.com' } })).status, 404);
    });
  });
}
