// How requests are read before any route: repeated query parameters, over-long URLs over a real
// socket, and `If-Unmodified-Since` on every conditional DELETE the spec lists.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { DIALECTS, ROOT_TOKEN, type TestApp } from '../helpers/build.js';
import { listeningTestApp } from '../helpers/git.js';
import { makeProject } from '../helpers/projects.js';
import { allowLocalHooks } from '../helpers/hooks.js';

/** Sends raw bytes and reads the whole answer (the server closes the connection after an error). */
function rawRequest(url: string, bytes: string): Promise<{ status: number; headers: string; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const sock = net.connect(Number(port), hostname, () => sock.write(bytes));
    let data = '';
    sock.on('data', (d) => (data += d.toString('latin1')));
    sock.on('error', (err) => ((err as NodeJS.ErrnoException).code === 'EPIPE' || (err as NodeJS.ErrnoException).code === 'ECONNRESET' ? undefined : reject(err)));
    sock.on('close', () => {
      const [head, body = ''] = data.split('\r\n\r\n');
      resolve({ status: Number(/^HTTP\/1\.1 (\d+)/.exec(head!)?.[1] ?? 0), headers: head!, body });
    });
  });
}

const STALE = new Date(Date.now() - 3600_000).toUTCString();
const FRESH = new Date(Date.now() + 3600_000).toUTCString();

for (const dialect of DIALECTS) {
  describe(`requests (${dialect})`, () => {
    let t: TestApp;
    let url: string;
    before(async () => {
      ({ t, url } = await listeningTestApp(dialect));
    });
    after(async () => t.close());

    describe('a plain query parameter given twice keeps its last value', () => {
      it('sudo=root&sudo=root acts as root; sudo=<other>&sudo=root as root', async () => {
        const u = await t.createUser();
        const twice = await t.get('/api/v4/user?sudo=root&sudo=root');
        assert.equal(twice.status, 200);
        assert.equal(twice.body.username, 'root');
        const last = await t.get(`/api/v4/user?sudo=${u.username}&sudo=root`);
        assert.equal(last.status, 200);
        assert.equal(last.body.username, 'root');
        const other = await t.get(`/api/v4/user?sudo=root&sudo=${u.id}`);
        assert.equal(other.body.id, u.id);
      });

      it('search=a&search=a lists as search=a; a Link URL that repeats a parameter still pages', async () => {
        const owner = await t.createUser();
        for (const n of ['alpha-one', 'alpha-two', 'beta']) await makeProject(t, owner.token, { name: n, visibility: 'public' });
        const once = await t.get('/api/v4/projects?search=alpha&per_page=1', owner.token);
        const twice = await t.get('/api/v4/projects?search=alpha&search=alpha&per_page=1&per_page=1&page=2', owner.token);
        assert.equal(once.status, 200);
        assert.equal(twice.status, 200);
        assert.equal(twice.headers['x-page'], '2');
        assert.equal(twice.headers['x-total'], '2');
        assert.deepEqual(
          [...once.body, ...twice.body].map((p: any) => p.name).sort(),
          ['alpha-one', 'alpha-two'],
        );
        const bad = await t.get('/api/v4/projects?search=alpha&visibility=nope&visibility=public', owner.token);
        assert.equal(bad.status, 200);
        const badLast = await t.get('/api/v4/projects?visibility=public&visibility=nope', owner.token);
        assert.equal(badLast.status, 400);
        assert.deepEqual(badLast.body, { error: 'visibility does not have a valid value' });
      });

      it('arrays stay name[]= (every value kept)', async () => {
        const r = await t.get('/api/v4/projects?topic[]=x&topic[]=y&order_by=id&order_by=nope');
        assert.equal(r.status, 400);
        assert.deepEqual(r.body, { error: 'order_by does not have a valid value' });
        const ok = await t.get('/api/v4/projects?topic[]=x&topic[]=y&order_by=nope&order_by=id');
        assert.equal(ok.status, 200);
        assert.deepEqual(ok.body, []);
      });
    });

    describe('an over-long request URI is 414 at any length', () => {
      for (const length of [9_000, 20_000, 70_000, 300_000]) {
        it(`${length} characters of query: 414 with the JSON message`, async () => {
          const r = await rawRequest(url, `GET /api/v4/version?x=${'a'.repeat(length)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nPRIVATE-TOKEN: ${ROOT_TOKEN}\r\n\r\n`);
          assert.equal(r.status, 414);
          assert.match(r.headers, /\r\ncontent-type: application\/json\r\n/i);
          assert.deepEqual(JSON.parse(r.body), { message: '414 Request-URI Too Large' });
        });
      }

      it('a short URL with over-large headers is 431, and an ordinary request still answers 200', async () => {
        const many = await rawRequest(url, `GET /api/v4/version HTTP/1.1\r\nHost: x\r\n${'X-Many: 1234567890\r\n'.repeat(5000)}\r\n`);
        assert.equal(many.status, 431);
        const one = await rawRequest(url, `GET /api/v4/version HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(60_000)}\r\nX-More: ${'c'.repeat(10_000)}\r\n\r\n`);
        assert.equal(one.status, 431);
        const ok = await fetch(`${url}/api/v4/version?x=${'a'.repeat(8000)}`, { headers: { 'private-token': ROOT_TOKEN } });
        assert.equal(ok.status, 200);
      });
    });

    describe('If-Unmodified-Since on DELETE', () => {
      it('badges: 412 when changed after the date, deleted when not', async () => {
        const owner = await t.createUser();
        const p = await makeProject(t, owner.token, { name: 'badged' });
        const make = async () =>
          (await t.request('POST', `/api/v4/projects/${p.id}/badges`, { token: owner.token, body: { link_url: 'https://l.example/x', image_url: 'https://i.example/x.svg' } })).body;
        const b = await make();
        const stale = await t.request('DELETE', `/api/v4/projects/${p.id}/badges/${b.id}`, { token: owner.token, headers: { 'if-unmodified-since': STALE } });
        assert.equal(stale.status, 412);
        assert.deepEqual(stale.body, { message: '412 Precondition Failed' });
        assert.equal((await t.get(`/api/v4/projects/${p.id}/badges/${b.id}`, owner.token)).status, 200);
        const fresh = await t.request('DELETE', `/api/v4/projects/${p.id}/badges/${b.id}`, { token: owner.token, headers: { 'if-unmodified-since': FRESH } });
        assert.equal(fresh.status, 204);
        assert.equal((await t.get(`/api/v4/projects/${p.id}/badges/${b.id}`, owner.token)).status, 404);
        const invalid = await make();
        const unparsable = await t.request('DELETE', `/api/v4/projects/${p.id}/badges/${invalid.id}`, { token: owner.token, headers: { 'if-unmodified-since': 'not a date' } });
        assert.equal(unparsable.status, 204);
      });

      it('system hooks: 412 when changed after the date, deleted when not; 403 for a non-admin first', async () => {
        await allowLocalHooks(t);
        const h = (await t.request('POST', '/api/v4/hooks', { body: { url: 'http://127.0.0.1:9/sys' } })).body;
        const u = await t.createUser();
        const denied = await t.request('DELETE', `/api/v4/hooks/${h.id}`, { token: u.token, headers: { 'if-unmodified-since': STALE } });
        assert.equal(denied.status, 403);
        const stale = await t.request('DELETE', `/api/v4/hooks/${h.id}`, { headers: { 'if-unmodified-since': STALE } });
        assert.equal(stale.status, 412);
        assert.deepEqual(stale.body, { message: '412 Precondition Failed' });
        assert.equal((await t.get(`/api/v4/hooks/${h.id}`)).status, 200);
        const fresh = await t.request('DELETE', `/api/v4/hooks/${h.id}`, { headers: { 'if-unmodified-since': FRESH } });
        assert.equal(fresh.status, 204);
        assert.equal((await t.get(`/api/v4/hooks/${h.id}`)).status, 404);
      });

      it('custom attributes: 412 when changed after the date, deleted when not; 404 for a missing key', async () => {
        const u = await t.createUser();
        const base = `/api/v4/users/${u.id}/custom_attributes`;
        assert.equal((await t.request('PUT', `${base}/colour`, { body: { value: 'blue' } })).status, 200);
        const stale = await t.request('DELETE', `${base}/colour`, { headers: { 'if-unmodified-since': STALE } });
        assert.equal(stale.status, 412);
        assert.deepEqual(stale.body, { message: '412 Precondition Failed' });
        assert.deepEqual((await t.get(`${base}/colour`)).body, { key: 'colour', value: 'blue' });
        const fresh = await t.request('DELETE', `${base}/colour`, { headers: { 'if-unmodified-since': FRESH } });
        assert.equal(fresh.status, 204);
        const missing = await t.request('DELETE', `${base}/colour`, { headers: { 'if-unmodified-since': FRESH } });
        assert.equal(missing.status, 404);
        assert.deepEqual(missing.body, { message: '404 Not found' });
      });
    });
  });
}
