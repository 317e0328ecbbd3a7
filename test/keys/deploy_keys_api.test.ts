// Deploy keys through the API: a project's keys (maintainers), sharing one key across projects,
// can_push, the instance list (admins), and who is refused what.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildTestApp, DIALECTS, keysOf, type TestApp } from '../helpers/build.js';
import { makeProject } from '../helpers/projects.js';

const DEPLOY_KEY_FIELDS = ['created_at', 'expires_at', 'fingerprint', 'fingerprint_sha256', 'id', 'key', 'title', 'usage_type'];
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'anvil-dkeys-'));
let seq = 0;
function keygen(): { pub: string; md5: string; sha256: string } {
  const file = path.join(tmp, `k${++seq}`);
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', `ci${seq}`, '-f', file]);
  const fp = (hash: string) => execFileSync('ssh-keygen', ['-l', '-E', hash, '-f', `${file}.pub`]).toString().split(' ')[1]!;
  return { pub: fs.readFileSync(`${file}.pub`, 'utf8').trim(), md5: fp('md5').replace(/^MD5:/, ''), sha256: fp('sha256') };
}

for (const dialect of DIALECTS) {
  describe(`deploy keys API (${dialect})`, () => {
    let t: TestApp;
    let owner: { id: number; username: string; token: string };
    let dev: { id: number; username: string; token: string };
    let stranger: { id: number; username: string; token: string };
    let p1: any;
    let p2: any;
    before(async () => {
      t = await buildTestApp(dialect);
      owner = await t.createUser();
      dev = await t.createUser();
      stranger = await t.createUser();
      p1 = await makeProject(t, owner.token, { name: 'one', visibility: 'private' });
      p2 = await makeProject(t, owner.token, { name: 'two', visibility: 'private' });
      assert.equal((await t.request('POST', `/api/v4/projects/${p1.id}/members`, { token: owner.token, body: { user_id: dev.id, access_level: 30 } })).status, 201);
    });
    after(async () => t.close());

    it('a maintainer adds, lists, reads, updates and removes a project deploy key', async () => {
      const k = keygen();
      const r = await t.request('POST', `/api/v4/projects/${p1.id}/deploy_keys`, { token: owner.token, body: { title: 'ci', key: k.pub, can_push: true } });
      assert.equal(r.status, 201, r.text);
      assert.deepEqual(keysOf(r.body), [...DEPLOY_KEY_FIELDS, 'can_push'].sort());
      assert.equal(r.body.key, k.pub);
      assert.equal(r.body.fingerprint, k.md5);
      assert.equal(r.body.fingerprint_sha256, k.sha256);
      assert.equal(r.body.can_push, true);
      assert.equal(r.body.usage_type, 'auth');
      const list = await t.get(`/api/v4/projects/${p1.id}/deploy_keys`, owner.token);
      assert.deepEqual(list.body, [r.body]);
      assert.equal(list.headers['x-total'], '1');
      assert.deepEqual((await t.get(`/api/v4/projects/${p1.id}/deploy_keys/${r.body.id}`, owner.token)).body, r.body);
      // the same key again answers the same key
      const again = await t.request('POST', `/api/v4/projects/${p1.id}/deploy_keys`, { token: owner.token, body: { title: 'ci again', key: k.pub } });
      assert.equal(again.status, 201);
      assert.equal(again.body.id, r.body.id);
      const put = await t.request('PUT', `/api/v4/projects/${p1.id}/deploy_keys/${r.body.id}`, { token: owner.token, body: { title: 'renamed', can_push: false } });
      assert.equal(put.status, 200, put.text);
      assert.equal(put.body.title, 'renamed');
      assert.equal(put.body.can_push, false);
      assert.equal((await t.request('PUT', `/api/v4/projects/${p1.id}/deploy_keys/${r.body.id}`, { token: owner.token, body: {} })).status, 400);
      assert.equal((await t.request('DELETE', `/api/v4/projects/${p1.id}/deploy_keys/${r.body.id}`, { token: owner.token })).status, 204);
      assert.deepEqual((await t.get(`/api/v4/projects/${p1.id}/deploy_keys/${r.body.id}`, owner.token)).body, { message: '404 Deploy Key Not Found' });
      // its last link gone, the key is gone
      assert.deepEqual((await t.get(`/api/v4/keys/${r.body.id}`)).body, { message: '404 Key Not Found' });
    });

    it('one key, several projects: enable shares it read-only; the admin list shows where it may push', async () => {
      const k = keygen();
      const r = await t.request('POST', `/api/v4/projects/${p1.id}/deploy_keys`, { token: owner.token, body: { title: 'shared', key: k.pub, can_push: true } });
      assert.equal(r.status, 201, r.text);
      const en = await t.request('POST', `/api/v4/projects/${p2.id}/deploy_keys/${r.body.id}/enable`, { token: owner.token });
      assert.equal(en.status, 201, en.text);
      assert.deepEqual(keysOf(en.body), DEPLOY_KEY_FIELDS);
      assert.equal((await t.get(`/api/v4/projects/${p2.id}/deploy_keys/${r.body.id}`, owner.token)).body.can_push, false);
      // someone who maintains no project of the key may not enable it
      const mine = await makeProject(t, stranger.token, { name: 'theirs' });
      assert.deepEqual((await t.request('POST', `/api/v4/projects/${mine.id}/deploy_keys/${r.body.id}/enable`, { token: stranger.token })).body, { message: '404 Deploy Key Not Found' });
      const taken = await t.request('POST', `/api/v4/projects/${mine.id}/deploy_keys`, { token: stranger.token, body: { title: 'x', key: k.pub } });
      assert.deepEqual(taken.body, { message: { 'deploy_key.fingerprint_sha256': ['has already been taken'] } });
      // a user's own key cannot be a deploy key
      const u = keygen();
      assert.equal((await t.request('POST', '/api/v4/user/keys', { token: owner.token, body: { title: 'me', key: u.pub } })).status, 201);
      assert.deepEqual((await t.request('POST', `/api/v4/projects/${p1.id}/deploy_keys`, { token: owner.token, body: { title: 'x', key: u.pub } })).body, {
        message: { 'deploy_key.fingerprint_sha256': ['has already been taken'] },
      });

      assert.equal((await t.get('/api/v4/deploy_keys', owner.token)).status, 403);
      const all = await t.get('/api/v4/deploy_keys');
      assert.equal(all.status, 200);
      const shared = all.body.find((x: any) => x.id === r.body.id);
      assert.deepEqual(keysOf(shared), [...DEPLOY_KEY_FIELDS, 'projects_with_write_access'].sort());
      assert.deepEqual(shared.projects_with_write_access.map((x: any) => x.id), [p1.id]);
      assert.deepEqual(keysOf(shared.projects_with_write_access[0]), ['created_at', 'description', 'id', 'name', 'name_with_namespace', 'path', 'path_with_namespace']);
      assert.equal(shared.projects_with_write_access[0].path_with_namespace, p1.path_with_namespace);
      assert.equal(shared.projects_with_write_access[0].name_with_namespace, p1.name_with_namespace);
    });

    it('refusals: no token 401, a developer 403, a stranger 404, bad keys 400', async () => {
      const url = `/api/v4/projects/${p1.id}/deploy_keys`;
      assert.equal((await t.request('GET', url, { token: null })).status, 401);
      assert.equal((await t.get(url, dev.token)).status, 403);
      assert.deepEqual((await t.get(url, stranger.token)).body, { message: '404 Project Not Found' });
      assert.equal((await t.request('POST', url, { token: dev.token, body: { title: 'x', key: keygen().pub } })).status, 403);
      const bad = await t.request('POST', url, { token: owner.token, body: { title: 'x', key: 'ssh-rsa nope' } });
      assert.equal(bad.status, 400);
      assert.deepEqual(bad.body, { message: { 'deploy_key.key': ['is invalid'], 'deploy_key.fingerprint_sha256': ['cannot be generated'] } });
      assert.deepEqual((await t.request('POST', url, { token: owner.token, body: { key: keygen().pub } })).body, { message: '400 (Bad request) "title" not given' });
      assert.deepEqual((await t.get(`${url}/999999`, owner.token)).body, { message: '404 Deploy Key Not Found' });
      assert.deepEqual((await t.request('DELETE', `${url}/999999`, { token: owner.token })).body, { message: '404 Deploy Key Not Found' });
    });
  });
}
