// Repository files: metadata with content, HEAD, raw bytes (binary round trip), and create/update/
// delete as commits with the reference's errors and permissions.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { DIALECTS, buildTestApp, keysOf, ROOT_TOKEN, type TestApp } from '../helpers/build.js';
import { commit, makeRepoProject, memberWith } from '../helpers/repository_content.js';
import { repositoryDir } from '../../src/domain/repository/service.js';
import { gitText } from '../../src/git/git.js';

const FILE_KEYS = ['blob_id', 'commit_id', 'content', 'content_sha256', 'encoding', 'execute_filemode', 'file_name', 'file_path', 'last_commit_id', 'ref', 'size'];

for (const dialect of DIALECTS) {
  describe(`repository files API (${dialect})`, () => {
    let t: TestApp;
    before(async () => {
      t = await buildTestApp(dialect);
    });
    after(async () => t.close());

    const files = (id: number, path: string) => `/api/v4/projects/${id}/repository/files/${encodeURIComponent(path)}`;
    const raw = (url: string, token: string | null = ROOT_TOKEN) => t.app.inject({ method: 'GET', url, headers: token ? { 'private-token': token } : {} });

    it('GET answers metadata and base64 content (and the same as headers); HEAD answers the headers alone', async () => {
      const p = await makeRepoProject(t);
      const first = await commit(t, p.id, { actions: [{ action: 'create', file_path: 'docs/a b.md', content: 'hello\n' }] });
      await commit(t, p.id, { actions: [{ action: 'create', file_path: 'other', content: 'x' }] });
      const r = await t.get(`${files(p.id, 'docs/a b.md')}?ref=main`);
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(keysOf(r.body), FILE_KEYS);
      const head = await gitText(['rev-parse', 'main'], { gitDir: repositoryDir(t.c, p.id) });
      assert.deepEqual(r.body, {
        file_name: 'a b.md',
        file_path: 'docs/a b.md',
        size: 6,
        encoding: 'base64',
        content_sha256: crypto.createHash('sha256').update('hello\n').digest('hex'),
        ref: 'main',
        blob_id: await gitText(['rev-parse', 'main:docs/a b.md'], { gitDir: repositoryDir(t.c, p.id) }),
        commit_id: head,
        last_commit_id: first.id,
        execute_filemode: false,
        content: Buffer.from('hello\n').toString('base64'),
      });
      assert.equal(r.headers['x-service-last-commit-id'], first.id);
      const h = await t.request('HEAD', `${files(p.id, 'docs/a b.md')}?ref=main`);
      assert.equal(h.status, 200);
      assert.equal(h.text, '');
      assert.equal(h.headers['x-service-file-name'], 'a b.md');
      assert.equal(h.headers['x-service-size'], '6');
      assert.equal(h.headers['x-service-blob-id'], r.body.blob_id);
      assert.equal(h.headers['x-service-ref'], 'main');
    });

    it('404 File Not Found, 404 Commit Not Found for a bad ref, 400 without ref or with a traversal path', async () => {
      const p = await makeRepoProject(t);
      let r = await t.get(`${files(p.id, 'nope.txt')}?ref=main`);
      assert.deepEqual([r.status, r.body], [404, { message: '404 File Not Found' }]);
      r = await t.get(`${files(p.id, 'README.md')}?ref=nobranch`);
      assert.deepEqual([r.status, r.body], [404, { message: '404 Commit Not Found' }]);
      r = await t.get(files(p.id, 'README.md'));
      assert.deepEqual([r.status, r.body], [400, { message: '400 (Bad request) "ref" not given' }]);
      r = await t.get(`${files(p.id, '../etc/passwd')}?ref=main`);
      assert.deepEqual([r.status, r.body], [400, { error: 'file_path should be a valid file path' }]);
      r = await t.get(`${files(p.id, 'docs')}?ref=main`);
      assert.equal(r.status, 404);
    });

    it('raw: bytes as stored (binary written as base64 round-trips), the right type, default branch when no ref', async () => {
      const p = await makeRepoProject(t);
      const bytes = crypto.randomBytes(70_000);
      bytes[10] = 0;
      const created = await t.request('POST', files(p.id, 'img/blob.bin'), { body: { branch: 'main', commit_message: 'bin', encoding: 'base64', content: bytes.toString('base64') } });
      assert.deepEqual([created.status, created.body], [201, { file_path: 'img/blob.bin', branch: 'main' }]);
      let r = await raw(`${files(p.id, 'img/blob.bin')}/raw`);
      assert.equal(r.statusCode, 200);
      assert.equal(r.headers['content-type'], 'application/octet-stream');
      assert.equal(r.headers['content-length'], String(bytes.length));
      assert.ok(Buffer.compare(r.rawPayload, bytes) === 0);
      r = await raw(`${files(p.id, 'README.md')}/raw?ref=main`);
      assert.equal(r.headers['content-type'], 'text/plain; charset=utf-8');
      assert.match(r.body, /^# /);
      const meta = await t.get(`${files(p.id, 'img/blob.bin')}?ref=main`);
      assert.ok(Buffer.compare(Buffer.from(meta.body.content, 'base64'), bytes) === 0);
      assert.equal((await raw(`${files(p.id, 'nope')}/raw`)).statusCode, 404);
    });

    it('create, update (with last_commit_id) and delete are commits; the reference errors', async () => {
      const p = await makeRepoProject(t);
      const url = files(p.id, 'src/app.js');
      const body = { branch: 'main', commit_message: 'add app', content: 'one' };
      assert.equal((await t.request('POST', url, { body })).status, 201);
      let r = await t.request('POST', url, { body });
      assert.deepEqual([r.status, r.body], [400, { message: 'A file with this name already exists' }]);
      const last = (await t.get(`${url}?ref=main`)).body.last_commit_id;

      r = await t.request('PUT', url, { body: { branch: 'main', commit_message: 'upd', content: 'two', last_commit_id: last, execute_filemode: true } });
      assert.deepEqual([r.status, r.body], [200, { file_path: 'src/app.js', branch: 'main' }]);
      const meta = (await t.get(`${url}?ref=main`)).body;
      assert.equal(Buffer.from(meta.content, 'base64').toString(), 'two');
      assert.equal(meta.execute_filemode, true);
      r = await t.request('PUT', url, { body: { branch: 'main', commit_message: 'upd', content: 'three', last_commit_id: last } });
      assert.deepEqual([r.status, r.body], [400, { message: 'You are attempting to update a file that has changed since you started editing it.' }]);
      r = await t.request('PUT', files(p.id, 'missing.txt'), { body: { branch: 'main', commit_message: 'upd', content: 'x' } });
      assert.deepEqual([r.status, r.body], [400, { message: "A file with this name doesn't exist" }]);

      r = await t.request('POST', files(p.id, 'new.txt'), { body: { branch: 'topic', commit_message: 'x', content: 'x' } });
      assert.deepEqual([r.status, r.body], [400, { message: 'You can only create or edit files when you are on a branch' }]);
      r = await t.request('POST', files(p.id, 'new.txt'), { body: { branch: 'topic', start_branch: 'main', commit_message: 'x', content: 'x' } });
      assert.equal(r.status, 201);
      assert.equal((await t.get(`${files(p.id, 'new.txt')}?ref=topic`)).status, 200);
      assert.equal((await t.get(`${files(p.id, 'new.txt')}?ref=main`)).status, 404);

      r = await t.request('DELETE', url, { body: { branch: 'main', commit_message: 'rm' } });
      assert.equal(r.status, 204);
      assert.equal(r.text, '');
      assert.equal((await t.get(`${url}?ref=main`)).status, 404);
      r = await t.request('DELETE', url, { body: { branch: 'main', commit_message: 'rm' } });
      assert.deepEqual([r.status, r.body], [400, { message: "A file with this name doesn't exist" }]);

      for (const [key, b] of [['branch', { commit_message: 'm', content: 'c' }], ['commit_message', { branch: 'main', content: 'c' }], ['content', { branch: 'main', commit_message: 'm' }]] as const) {
        r = await t.request('POST', files(p.id, 'z'), { body: b });
        assert.deepEqual([r.status, r.body], [400, { message: `400 (Bad request) "${key}" not given` }]);
      }
      const events = (await t.get(`/api/v4/projects/${p.id}/events`)).body.filter((e: any) => e.action_name === 'pushed to' || e.action_name === 'pushed new');
      assert.ok(events.length >= 4);
    });

    it('who may write and read: reporter 403, no token 401, read_api 403, archived 403, anonymous on private 404, public open', async () => {
      const p = await makeRepoProject(t);
      const body = { branch: 'main', commit_message: 'm', content: 'c' };
      const rep = await memberWith(t, p.id, 20);
      const readApi = await memberWith(t, p.id, 40, ['read_api']);
      let r = await t.request('POST', files(p.id, 'a'), { token: rep.token, body });
      assert.equal(r.status, 403);
      assert.equal((await t.request('POST', files(p.id, 'a'), { token: null, body })).status, 401);
      r = await t.request('POST', files(p.id, 'a'), { token: readApi.token, body });
      assert.deepEqual([r.status, r.body.error], [403, 'insufficient_scope']);
      assert.equal((await t.get(`${files(p.id, 'README.md')}?ref=main`, rep.token)).status, 200);
      assert.equal((await t.get(`${files(p.id, 'README.md')}?ref=main`, readApi.token)).status, 200);
      r = await t.get(`${files(p.id, 'README.md')}?ref=main`, null);
      assert.deepEqual([r.status, r.body], [404, { message: '404 Project Not Found' }]);
      assert.equal((await raw(`${files(p.id, 'README.md')}/raw`, null)).statusCode, 404);
      assert.equal((await t.request('POST', `/api/v4/projects/${p.id}/archive`)).status, 201);
      assert.equal((await t.request('POST', files(p.id, 'a'), { body })).status, 403);
      assert.equal((await t.request('DELETE', files(p.id, 'README.md'), { body: { branch: 'main', commit_message: 'x' } })).status, 403);

      const pub = await makeRepoProject(t, { visibility: 'public' });
      assert.equal((await t.get(`${files(pub.id, 'README.md')}?ref=main`, null)).status, 200);
      assert.equal((await raw(`${files(pub.id, 'README.md')}/raw`, null)).statusCode, 200);
    });
  });
}
