// Test mode's endpoints in-process: seeding through /-/test/seed, reset and named snapshots
// (database, repositories, ids), the delivery inbox, the clock; and none of them outside test mode.
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { DIALECTS, buildTestApp, type TestApp } from '../helpers/build.js';
import { resetClock } from '../../src/shared/clock.js';
import { fixtureArchive, runImportExportJobs } from '../helpers/import_export.js';
import { repositoryDir } from '../../src/domain/repository/service.js';
import { gitText } from '../../src/git/git.js';

/** The example, as JSON. */
const EXAMPLE = {
  users: [{ username: 'alice', password: 'Alice-pass-2026!', tokens: [{ name: 'ci', token: 'alice-test-token-0000000001', scopes: ['api'] }] }],
  groups: [{ path: 'acme', members: [{ user: 'alice', access_level: 30 }] }],
  projects: [{
    path: 'acme/demo',
    visibility: 'private',
    files: { 'README.md': '# demo', '.gitlab-ci.yml': 'hello:\n  script: ["echo hi"]\n' },
    protected_branches: [{ name: 'main', push_access_level: 40 }],
  }],
};
const ALICE = 'alice-test-token-0000000001';
const TEST_PATHS: [string, string][] = [
  ['POST', '/-/test/reset'], ['POST', '/-/test/snapshots'], ['POST', '/-/test/snapshots/x/restore'], ['GET', '/-/test/deliveries'],
  ['GET', '/-/test/clock'], ['POST', '/-/test/clock'], ['POST', '/-/test/seed'],
];

for (const dialect of DIALECTS) {
  describe(`outside test mode (${dialect})`, () => {
    let t: TestApp;
    before(async () => {
      t = await buildTestApp(dialect);
    });
    after(async () => t.close());

    it('every /-/test/ endpoint is 404, and the OpenAPI document has no testing tag', async () => {
      for (const [method, url] of TEST_PATHS) {
        const r = await t.request(method, url, { body: {} });
        assert.equal(r.status, 404, `${method} ${url}`);
      }
      const doc = (await t.get('/api/v4/openapi.json')).body;
      assert.ok(!Object.keys(doc.paths).some((p) => p.startsWith('/-/test/')));
    });
  });

  describe(`test mode (${dialect})`, () => {
    let t: TestApp;
    before(async () => {
      t = await buildTestApp(dialect, { ANVIL_TEST_MODE: 'true' });
      const r = await t.request('POST', '/-/test/seed', { body: { seed: EXAMPLE } });
      assert.equal(r.status, 204, r.text);
    });
    after(async () => t.close());
    afterEach(() => resetClock());

    it('the issue example is seeded: alice with her fixed token, acme/demo private with its files and protected main', async () => {
      const me = await t.get('/api/v4/user', ALICE);
      assert.equal(me.status, 200);
      assert.equal(me.body.username, 'alice');
      const p = await t.get('/api/v4/projects/acme%2Fdemo', ALICE);
      assert.equal(p.status, 200);
      assert.equal(p.body.visibility, 'private');
      assert.equal(p.body.default_branch, 'main');
      const readme = await t.get('/api/v4/projects/acme%2Fdemo/repository/files/README.md/raw?ref=main', ALICE);
      assert.equal(readme.text, '# demo');
      const pb = await t.get('/api/v4/projects/acme%2Fdemo/protected_branches/main');
      assert.equal(pb.status, 200);
      assert.equal(pb.body.push_access_levels[0].access_level, 40);
      // a developer may not push to main: the protection is real
      const push = await t.request('POST', '/api/v4/projects/acme%2Fdemo/repository/commits', {
        token: ALICE, body: { branch: 'main', commit_message: 'x', actions: [{ action: 'create', file_path: 'x', content: 'x' }] },
      });
      assert.equal(push.status, 403);
      // pushed CI files start no pipeline unless the seed asks
      const pipelines = await t.get('/api/v4/projects/acme%2Fdemo/pipelines');
      assert.deepEqual(pipelines.body, []);
    });

    it('a bad seed is a 400 naming the place', async () => {
      const r = await t.request('POST', '/-/test/seed', { body: { seed: { users: [{ usernam: 'x' }] } } });
      assert.equal(r.status, 400);
      assert.match(r.body.message, /users\.0: username is missing/);
      assert.match(r.body.message, /users\.0\.usernam: unknown key "usernam"/);
    });

    it('reset brings back the seeded state: rows, repositories and ids', async () => {
      const u1 = await t.request('POST', '/api/v4/users', { body: { username: 'bob', name: 'Bob', email: 'bob@example.com', password: 'password123' } });
      assert.equal(u1.status, 201);
      const commit = await t.request('POST', '/api/v4/projects/acme%2Fdemo/repository/commits', {
        body: { branch: 'main', commit_message: 'more', actions: [{ action: 'create', file_path: 'more.txt', content: 'more' }] },
      });
      assert.equal(commit.status, 201);
      await t.request('DELETE', '/api/v4/projects/acme%2Fdemo/protected_branches/main');

      // (how long it takes is measured by bench/ephemeral.ts, not asserted on a shared machine)
      const r = await t.request('POST', '/-/test/reset');
      assert.equal(r.status, 204);
      assert.equal(r.text, '');

      assert.equal((await t.get('/api/v4/users?username=bob')).body.length, 0);
      assert.equal((await t.get('/api/v4/projects/acme%2Fdemo/repository/files/more.txt/raw?ref=main')).status, 404);
      assert.equal((await t.get('/api/v4/projects/acme%2Fdemo/protected_branches/main')).status, 200);
      assert.equal((await t.get('/api/v4/user', ALICE)).status, 200);
      // the next user gets the id bob had: ids come back too
      const u2 = await t.request('POST', '/api/v4/users', { body: { username: 'carol', name: 'Carol', email: 'carol@example.com', password: 'password123' } });
      assert.equal(u2.body.id, u1.body.id);
      assert.equal((await t.request('POST', '/-/test/reset')).status, 204);
    });

    it('named snapshots save and restore; an unknown one is 404, a bad name 400', async () => {
      await t.request('POST', '/api/v4/users', { body: { username: 'dave', name: 'Dave', email: 'dave@example.com', password: 'password123' } });
      const s = await t.request('POST', '/-/test/snapshots', { body: { name: 'with-dave' } });
      assert.equal(s.status, 201);
      assert.deepEqual(s.body, { name: 'with-dave' });
      assert.equal((await t.request('POST', '/-/test/reset')).status, 204);
      assert.equal((await t.get('/api/v4/users?username=dave')).body.length, 0);
      const r = await t.request('POST', '/-/test/snapshots/with-dave/restore');
      assert.equal(r.status, 204);
      assert.equal((await t.get('/api/v4/users?username=dave')).body.length, 1);
      const missing = await t.request('POST', '/-/test/snapshots/nope/restore');
      assert.equal(missing.status, 404);
      assert.deepEqual(missing.body, { message: '404 Snapshot Not Found' });
      const bad = await t.request('POST', '/-/test/snapshots', { body: { name: 'a b' } });
      assert.equal(bad.status, 400);
      assert.deepEqual(bad.body, { message: '400 Bad request - name is invalid' });
      assert.equal((await t.request('POST', '/-/test/snapshots', { body: {} })).status, 400);
      await t.request('POST', '/-/test/reset');
    });

    it('no token is 401, a non-admin 403', async () => {
      for (const [method, url] of TEST_PATHS) {
        assert.equal((await t.request(method, url, { token: null, body: {} })).status, 401, `${method} ${url}`);
        const r = await t.request(method, url, { token: ALICE, body: {} });
        assert.equal(r.status, 403, `${method} ${url}`);
        assert.deepEqual(r.body, { message: '403 Forbidden' });
      }
    });

    it('the clock does not move without the test clock', async () => {
      const r = await t.request('POST', '/-/test/clock', { body: { advance: '25h' } });
      assert.equal(r.status, 403);
      const now = await t.get('/-/test/clock');
      assert.equal(now.status, 200);
      assert.deepEqual(Object.keys(now.body), ['now', 'movable', 'frozen']);
      assert.equal(now.body.movable, false);
    });

    it('a hook on inbox.test is recorded and answered 200 without leaving the machine; deliveries long-poll', async () => {
      const hook = await t.request('POST', '/api/v4/projects/acme%2Fdemo/hooks', { body: { url: 'http://inbox.test/demo', push_events: true, token: 's3cret' } });
      assert.equal(hook.status, 201, hook.text);
      const before = (await t.get('/-/test/deliveries')).body as any[];
      const since = before.length ? before[before.length - 1].id : 0;
      const waiting = t.get(`/-/test/deliveries?since=${since}&wait=5`);
      const fired = await t.request('POST', `/api/v4/projects/acme%2Fdemo/hooks/${hook.body.id}/test/push_events`);
      assert.equal(fired.status, 201, fired.text);
      const got = await waiting;
      assert.equal(got.status, 200);
      assert.equal(got.body.length, 1);
      const d = got.body[0];
      assert.deepEqual(Object.keys(d).sort(), ['body', 'created_at', 'error', 'headers', 'id', 'method', 'origin', 'response', 'url']);
      assert.equal(d.method, 'POST');
      assert.equal(d.url, 'http://inbox.test/demo');
      assert.equal(d.headers['X-Service-Event'], 'Push Hook');
      assert.equal(JSON.parse(d.body).object_kind, 'push');
      assert.deepEqual(d.response, { status: 200, headers: {}, body: '' });
      assert.deepEqual(d.origin, { hook_id: hook.body.id, hook_type: 'project' });
      const empty = await t.get(`/-/test/deliveries?since=${d.id}&wait=0`);
      assert.deepEqual(empty.body, []);
      await t.request('POST', '/-/test/reset');
    });

    it('an export upload and a remote import are recorded too; the inbox takes the upload', async () => {
      const last = async () => ((await t.get('/-/test/deliveries')).body as any[]).at(-1)?.id ?? 0;
      const since = await last();
      const exported = await t.request('POST', '/api/v4/projects/acme%2Fdemo/export', { body: { upload: { url: 'http://inbox.test/upload?sig=1' } } });
      assert.equal(exported.status, 202, exported.text);
      await runImportExportJobs(t);
      const status = await t.get('/api/v4/projects/acme%2Fdemo/export');
      assert.equal(status.body.export_status, 'finished');
      const archive = await t.app.inject({ method: 'GET', url: '/api/v4/projects/acme%2Fdemo/export/download', headers: { 'private-token': t.rootToken } });
      const uploads = ((await t.get(`/-/test/deliveries?since=${since}`)).body as any[]).filter((d) => d.url === 'http://inbox.test/upload?sig=1');
      assert.equal(uploads.length, 1);
      assert.equal(uploads[0].method, 'PUT');
      assert.equal(uploads[0].headers['Content-Type'], 'application/gzip');
      assert.equal(uploads[0].headers['Content-Length'], String(archive.rawPayload.length));
      assert.equal(uploads[0].body, null);
      assert.deepEqual(uploads[0].response, { status: 200, headers: {}, body: '' });

      const since2 = await last();
      const imported = await t.request('POST', '/api/v4/projects/remote-import', { body: { url: 'http://inbox.test/archive.tar.gz', path: 'from-inbox' } });
      assert.equal(imported.status, 400, imported.text); // the inbox answers without a content type
      const asked = (await t.get(`/-/test/deliveries?since=${since2}`)).body as any[];
      assert.deepEqual(asked.map((d) => [d.method, d.url, d.response?.status]), [['HEAD', 'http://inbox.test/archive.tar.gz', 200]]);
      await t.request('POST', '/-/test/reset');
    });

    it('a seed declares CI variables of groups and projects', async () => {
      const r = await t.request('POST', '/-/test/seed', { body: { seed: {
        groups: [{ path: 'vars', variables: [{ key: 'GROUP_VAR', value: 'g', protected: true }] }],
        projects: [{ path: 'vars/app', variables: [{ key: 'DEPLOY_TOKEN', value: 'secret-123', masked: true, environment_scope: 'production' }] }],
      } } });
      assert.equal(r.status, 204, r.text);
      const g = await t.get('/api/v4/groups/vars/variables/GROUP_VAR');
      assert.equal(g.status, 200, g.text);
      assert.deepEqual([g.body.value, g.body.protected], ['g', true]);
      const p = await t.get('/api/v4/projects/vars%2Fapp/variables/DEPLOY_TOKEN');
      assert.equal(p.status, 200, p.text);
      assert.deepEqual([p.body.value, p.body.masked, p.body.environment_scope], ['secret-123', true, 'production']);
      const bad = await t.request('POST', '/-/test/seed', { body: { seed: { projects: [{ path: 'x', variables: [{ key: 'K' }] }] } } });
      assert.equal(bad.status, 400);
      assert.match(bad.body.message, /projects\.0\.variables\.0: value is missing/);
    });

    it("a seed imports projects from export archives, the reference's and Anvil's; a missing file or one that is no archive is refused", async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'anvil-seed-import-'));
      try {
        const reference = path.join(dir, 'reference.tar.gz');
        fs.writeFileSync(reference, fixtureArchive());
        // an export Anvil made, of the seeded acme/demo
        assert.equal((await t.request('POST', '/api/v4/projects/acme%2Fdemo/export', { body: {} })).status, 202);
        await runImportExportJobs(t);
        const exported = await t.app.inject({ method: 'GET', url: '/api/v4/projects/acme%2Fdemo/export/download', headers: { 'private-token': t.rootToken } });
        assert.equal(exported.statusCode, 200);
        const ours = path.join(dir, 'demo.tar.gz');
        fs.writeFileSync(ours, exported.rawPayload);

        const r = await t.request('POST', '/-/test/seed', { body: { seed: {
          projects: [
            { path: 'acme/imported', import: reference, members: [{ user: 'alice', access_level: 30 }] },
            { path: 'acme/again', import: ours, description: 'Seeded again', branches: ['from-seed'] },
          ],
        } } });
        assert.equal(r.status, 204, r.text);
        const imported = await t.get('/api/v4/projects/acme%2Fimported');
        assert.equal(imported.status, 200);
        assert.deepEqual([imported.body.import_status, imported.body.default_branch, imported.body.description],
          ['finished', 'master', 'Nisi et repellendus ut enim quo accusamus vel magnam.']);
        assert.match(await gitText(['for-each-ref', '--format=%(refname)'], { gitDir: repositoryDir(t.c, imported.body.id) }), /refs\/heads\/feature\nrefs\/heads\/master\nrefs\/tags\/v1\.0\.0/);
        assert.equal((await t.get('/api/v4/projects/acme%2Fimported', ALICE)).status, 200, 'alice is a member');
        const again = await t.get('/api/v4/projects/acme%2Fagain');
        assert.deepEqual([again.body.description, again.body.default_branch], ['Seeded again', 'main']);
        assert.equal((await t.get('/api/v4/projects/acme%2Fagain/repository/files/README.md/raw?ref=from-seed')).text, '# demo');
        // the import ran during the seed: no work of it is left for after a reset
        assert.equal((await t.request('POST', '/-/test/reset')).status, 204);
        assert.equal((await t.get('/api/v4/projects/acme%2Fagain/repository/files/README.md/raw?ref=main')).text, '# demo');

        const refused = async (file: string, pattern: RegExp) => {
          const bad = await t.request('POST', '/-/test/seed', { body: { seed: { projects: [{ path: 'acme/broken', import: file }] } } });
          assert.equal(bad.status, 400, bad.text);
          assert.match(bad.body.message, pattern);
          assert.equal((await t.get('/api/v4/projects/acme%2Fbroken')).status, 404);
        };
        await refused(path.join(dir, 'nothing.tar.gz'), /projects\.0\.import: no file .*nothing\.tar\.gz/);
        fs.writeFileSync(path.join(dir, 'notes.txt'), 'not an archive\n');
        await refused(path.join(dir, 'notes.txt'), /projects\.0\.import: .*notes\.txt is not an export archive \(a \.tar\.gz\)/);
        const bad = await t.request('POST', '/-/test/seed', { body: { seed: { projects: [{ path: 'acme/broken', import: ours, files: { a: 'b' } }] } } });
        assert.match(bad.body.message, /projects\.0\.files: cannot go with import/);
        // gzip, but no export inside: the import's own reason
        fs.writeFileSync(path.join(dir, 'empty.tar.gz'), zlib.gzipSync('hello'));
        const failed = await t.request('POST', '/-/test/seed', { body: { seed: { projects: [{ path: 'acme/empty', import: path.join(dir, 'empty.tar.gz') }] } } });
        assert.equal(failed.status, 400);
        assert.match(failed.body.message, /projects\.0 \(acme\/empty\): the import of .*empty\.tar\.gz failed: ./);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
        await t.request('POST', '/-/test/reset');
      }
    });

    it('the OpenAPI document lists the test endpoints under their own tag', async () => {
      const doc = (await t.get('/api/v4/openapi.json')).body;
      const ops = Object.entries(doc.paths).filter(([p]) => p.startsWith('/-/test/'));
      assert.ok(ops.length >= 6);
      for (const [, methods] of ops) for (const op of Object.values(methods as object)) assert.deepEqual((op as any).tags, ['testing']);
    });
  });

  describe(`test mode with the test clock (${dialect})`, () => {
    let t: TestApp;
    before(async () => {
      t = await buildTestApp(dialect, { ANVIL_TEST_MODE: 'true', ANVIL_TEST_CLOCK: 'true' });
    });
    after(async () => t.close());
    afterEach(() => resetClock());

    it('advance and set move the clock; bad input is 400', async () => {
      const set = await t.request('POST', '/-/test/clock', { body: { set: '2030-01-01T00:00:00Z' } });
      assert.equal(set.status, 201);
      assert.match(set.body.now, /^2030-01-01T00:00:0\d\.\d{3}Z$/);
      assert.equal(set.body.movable, true);
      const adv = await t.request('POST', '/-/test/clock', { body: { advance: '25h' } });
      assert.match(adv.body.now, /^2030-01-02T01:00:0\d\.\d{3}Z$/);
      assert.equal((await t.request('POST', '/-/test/clock', { body: { advance: 'soon' } })).status, 400);
      assert.equal((await t.request('POST', '/-/test/clock', { body: { set: 'tomorrow' } })).status, 400);
      assert.equal((await t.request('POST', '/-/test/clock', { body: {} })).status, 400);
      assert.equal((await t.request('POST', '/-/test/clock', { body: { advance: '1h', set: '2030-01-01' } })).status, 400);
    });
  });
}
