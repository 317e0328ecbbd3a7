// Users' SSH keys through the API: /user/keys, /users/:id/keys, /keys/:id, /keys?fingerprint=,
// /<username>.keys; validation as the reference's (types, sizes, restrictions, expiry, one user
// per key), who may see and change which keys, and the key_create / key_destroy system events.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildTestApp, DIALECTS, keysOf, type TestApp } from '../helpers/build.js';
import { allowLocalHooks, startHookWorkers, startReceiver, type Receiver } from '../helpers/hooks.js';
import type { Queue } from '../../src/queue/queue.js';

const SSH_KEY_FIELDS = ['created_at', 'expires_at', 'id', 'key', 'title', 'usage_type'];
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'anvil-keys-'));
let seq = 0;
function keygen(type: string, bits?: number): { pub: string; md5: string; sha256: string; file: string } {
  const file = path.join(tmp, `k${++seq}`);
  execFileSync('ssh-keygen', ['-q', '-t', type, ...(bits ? ['-b', String(bits)] : []), '-N', '', '-C', `me${seq}@example.com`, '-f', file]);
  const fp = (hash: string) => execFileSync('ssh-keygen', ['-l', '-E', hash, '-f', `${file}.pub`]).toString().split(' ')[1]!;
  return { pub: fs.readFileSync(`${file}.pub`, 'utf8').trim(), md5: fp('md5'), sha256: fp('sha256'), file };
}

for (const dialect of DIALECTS) {
  describe(`SSH keys API (${dialect})`, () => {
    let t: TestApp;
    let alice: { id: number; username: string; token: string };
    let bob: { id: number; username: string; token: string };
    let rx: Receiver;
    let queue: Queue | null = null;
    before(async () => {
      t = await buildTestApp(dialect);
      alice = await t.createUser({ name: 'Alice Liddell' });
      bob = await t.createUser();
      rx = await startReceiver();
      await allowLocalHooks(t);
    });
    after(async () => {
      await queue?.stop();
      await rx.close();
      await t.close();
    });

    it('a user adds, lists, reads and deletes their keys; the key shows the owner, not the comment', async () => {
      const k = keygen('ed25519');
      const r = await t.request('POST', '/api/v4/user/keys', { token: alice.token, body: { title: 'laptop', key: k.pub } });
      assert.equal(r.status, 201, r.text);
      assert.deepEqual(keysOf(r.body), SSH_KEY_FIELDS);
      assert.equal(r.body.title, 'laptop');
      assert.equal(r.body.key, `${k.pub.split(' ').slice(0, 2).join(' ')} Alice Liddell (anvil.test)`);
      assert.equal(r.body.expires_at, null);
      assert.equal(r.body.usage_type, 'auth_and_signing');
      assert.match(r.body.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      const list = await t.get('/api/v4/user/keys', alice.token);
      assert.equal(list.status, 200);
      assert.deepEqual(list.body, [r.body]);
      assert.equal(list.headers['x-total'], '1');
      assert.deepEqual((await t.get(`/api/v4/user/keys/${r.body.id}`, alice.token)).body, r.body);
      // someone else's key is not theirs to see or delete
      assert.deepEqual((await t.get(`/api/v4/user/keys/${r.body.id}`, bob.token)).body, { message: '404 Key Not Found' });
      assert.equal((await t.request('DELETE', `/api/v4/user/keys/${r.body.id}`, { token: bob.token })).status, 404);
      // the public sees a user's keys
      const pub = await t.request('GET', `/api/v4/users/${alice.id}/keys`, { token: null });
      assert.deepEqual(pub.body, [r.body]);
      assert.deepEqual((await t.request('GET', `/api/v4/users/${alice.username}/keys`, { token: null })).body, [r.body]);
      assert.deepEqual((await t.request('GET', `/api/v4/users/${alice.id}/keys/${r.body.id}`, { token: null })).body, r.body);
      assert.deepEqual((await t.get('/api/v4/users/999999/keys')).body, { message: '404 User Not Found' });
      // /<username>.keys: plain text
      const text = await t.request('GET', `/${alice.username}.keys`, { token: null });
      assert.equal(text.status, 200);
      assert.match(String(text.headers['content-type']), /^text\/plain/);
      assert.equal(text.text, r.body.key);
      assert.equal((await t.request('DELETE', `/api/v4/user/keys/${r.body.id}`, { token: alice.token })).status, 204);
      assert.deepEqual((await t.get('/api/v4/user/keys', alice.token)).body, []);
      assert.equal((await t.request('GET', `/nobody-${dialect}.keys`, { token: null })).status, 404);
    });

    it('refuses what the reference refuses: bad keys, small or forbidden types, expired, a key already used', async () => {
      const post = (body: object, token = alice.token) => t.request('POST', '/api/v4/user/keys', { token, body });
      assert.equal((await post({ title: 'x', key: keygen('ed25519').pub }, '')).status, 401);
      assert.deepEqual((await post({ key: keygen('ed25519').pub })).body, { message: '400 (Bad request) "title" not given' });
      assert.deepEqual((await post({ title: 'x' })).body, { message: '400 (Bad request) "key" not given' });
      const bad = await post({ title: 'x', key: 'ssh-ed25519 AAAAnotakey' });
      assert.equal(bad.status, 400);
      assert.deepEqual(bad.body, { message: { key: ['is invalid'], fingerprint_sha256: ['cannot be generated'] } });
      assert.deepEqual((await post({ title: 'x', key: fs.readFileSync(keygen('ed25519').file, 'utf8') })).body.message.key, ['is invalid']);
      const small = await post({ title: 'x', key: keygen('rsa', 1024).pub });
      assert.deepEqual(small.body, { message: { key: ['must be at least 2048 bits'] } });
      assert.equal((await post({ title: 'x', key: keygen('rsa', 2048).pub })).status, 201);
      assert.equal((await post({ title: 'x', key: keygen('ecdsa', 256).pub })).status, 201);
      // the settings' restrictions
      assert.equal((await t.request('PUT', '/api/v4/application/settings', { body: { ed25519_key_restriction: -1, rsa_key_restriction: 4096 } })).status, 200);
      try {
        assert.deepEqual((await post({ title: 'x', key: keygen('ed25519').pub })).body, {
          message: { key: ['type is forbidden. Must be RSA, DSA, ECDSA, ECDSA_SK, or ED25519_SK'] },
        });
        assert.deepEqual((await post({ title: 'x', key: keygen('rsa', 3072).pub })).body, { message: { key: ['must be at least 4096 bits'] } });
      } finally {
        await t.request('PUT', '/api/v4/application/settings', { body: { ed25519_key_restriction: 0, rsa_key_restriction: 0 } });
      }
      const k = keygen('ed25519');
      assert.deepEqual((await post({ title: 'x', key: k.pub, expires_at: '2001-01-01T00:00:00Z' })).body, { message: { key: ['has expired'] } });
      assert.deepEqual((await post({ title: 'x', key: k.pub, expires_at: 'soon' })).body, { error: 'expires_at is invalid' });
      assert.deepEqual((await post({ title: 'x', key: k.pub, usage_type: 'everything' })).body, { error: 'usage_type does not have a valid value' });
      const later = await post({ title: 'x', key: k.pub, expires_at: '2999-01-02T03:04:05.000Z', usage_type: 'auth' });
      assert.equal(later.status, 201, later.text);
      assert.equal(later.body.expires_at, '2999-01-02T03:04:05.000Z');
      assert.equal(later.body.usage_type, 'auth');
      // one user per key
      assert.deepEqual((await post({ title: 'mine', key: k.pub }, bob.token)).body, { message: { fingerprint_sha256: ['has already been taken'] } });
    });

    it('admins add and delete keys for a user, and find any key by id or fingerprint (SHA256 or MD5)', async () => {
      const k = keygen('ed25519');
      assert.equal((await t.request('POST', `/api/v4/users/${bob.id}/keys`, { token: alice.token, body: { title: 'b', key: k.pub } })).status, 403);
      const r = await t.request('POST', `/api/v4/users/${bob.id}/keys`, { body: { title: 'by admin', key: k.pub } });
      assert.equal(r.status, 201, r.text);
      assert.deepEqual((await t.request('POST', '/api/v4/users/999999/keys', { body: { title: 'b', key: keygen('ed25519').pub } })).body, { message: '404 User Not Found' });
      assert.equal((await t.get(`/api/v4/keys/${r.body.id}`, alice.token)).status, 403);
      const one = await t.get(`/api/v4/keys/${r.body.id}`);
      assert.equal(one.status, 200);
      assert.deepEqual(keysOf(one.body), [...SSH_KEY_FIELDS, 'user'].sort());
      assert.equal(one.body.user.id, bob.id);
      assert.equal(one.body.user.username, bob.username);
      assert.deepEqual((await t.get('/api/v4/keys/999999')).body, { message: '404 Key Not Found' });
      for (const fp of [k.sha256, k.md5.replace(/^MD5:/, ''), k.md5]) {
        const f = await t.get(`/api/v4/keys?fingerprint=${encodeURIComponent(fp)}`);
        assert.equal(f.status, 200, `${fp}: ${f.text}`);
        assert.equal(f.body.id, r.body.id);
      }
      assert.deepEqual((await t.get(`/api/v4/keys?fingerprint=${encodeURIComponent('SHA256:' + crypto.randomBytes(32).toString('base64').replace(/=+$/, ''))}`)).body, { message: '404 Key Not Found' });
      assert.deepEqual((await t.get('/api/v4/keys?fingerprint=nonsense')).body, { message: 'Failed to return the key' });
      assert.equal((await t.get(`/api/v4/keys?fingerprint=${encodeURIComponent(k.sha256)}`, bob.token)).status, 403);
      assert.equal((await t.request('DELETE', `/api/v4/users/${bob.id}/keys/${r.body.id}`, { token: bob.token })).status, 403);
      assert.equal((await t.request('DELETE', `/api/v4/users/${bob.id}/keys/${r.body.id}`)).status, 204);
      assert.equal((await t.request('DELETE', `/api/v4/users/${bob.id}/keys/${r.body.id}`)).status, 404);
    });

    it('system hooks hear key_create and key_destroy', async () => {
      const h = await t.request('POST', '/api/v4/hooks', { body: { url: `${rx.url}/sys` } });
      assert.equal(h.status, 201, h.text);
      queue = startHookWorkers(t);
      const k = keygen('ed25519');
      const r = await t.request('POST', '/api/v4/user/keys', { token: alice.token, body: { title: 'hooked', key: k.pub } });
      assert.equal((await t.request('DELETE', `/api/v4/user/keys/${r.body.id}`, { token: alice.token })).status, 204);
      const sys = (name: string) => (x: { url: string; body: any }) => x.url === '/sys' && x.body?.event_name === name;
      const [created] = await rx.waitFor(1, sys('key_create'));
      const [destroyed] = await rx.waitFor(1, sys('key_destroy'));
      for (const [e, name] of [[created!, 'key_create'], [destroyed!, 'key_destroy']] as const) {
        assert.deepEqual(keysOf(e.body), ['created_at', 'event_name', 'id', 'key', 'updated_at', 'username']);
        assert.equal(e.body.event_name, name);
        assert.equal(e.body.username, alice.username);
        assert.equal(e.body.id, r.body.id);
        assert.equal(e.body.key, k.pub);
      }
    });
  });
}
