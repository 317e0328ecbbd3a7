// The import/export limits as instance settings, the export's upload hash, and the
// remote-import-objstore switch (off by default, as the reference's feature flag).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS, buildTestApp, type TestApp } from '../helpers/build.js';
import { addMember } from '../helpers/projects.js';
import { makeRepoProject } from '../helpers/repository_content.js';
import { postImport, runImportExportJobs } from '../helpers/import_export.js';
import { resetClock, startOfRateWindow } from '../helpers/rate_window.js';

const LIMITS = {
  project_export_limit: 6,
  project_download_export_limit: 1,
  project_import_limit: 6,
  group_export_limit: 6,
  group_download_export_limit: 1,
  group_import_limit: 6,
};
const THROTTLED = { message: { error: 'This endpoint has been requested too many times. Try again later.' } };
const objstoreBody = (path: string) => ({ path, region: 'us-east-1', bucket_name: 'b', file_key: 'k.tar.gz', access_key_id: 'a', secret_access_key: 's' });

for (const dialect of DIALECTS) {
  describe(`import/export limits and switches (${dialect})`, () => {
    let t: TestApp;
    before(async () => {
      t = await buildTestApp(dialect);
    });
    after(async () => {
      resetClock();
      await t.close();
    });

    it("the six limits are settings with the reference's names and defaults; negative values are refused", async () => {
      const s = (await t.get('/api/v4/application/settings')).body;
      for (const [name, value] of Object.entries(LIMITS)) assert.equal(s[name], value, name);
      const bad = await t.request('PUT', '/api/v4/application/settings', { body: { project_export_limit: -1 } });
      assert.equal(bad.status, 400);
      assert.deepEqual(bad.body, { message: { project_export_limit: ['must be greater than or equal to 0'] } });
      const notInt = await t.request('PUT', '/api/v4/application/settings', { body: { project_import_limit: 'many' } });
      assert.deepEqual([notInt.status, notInt.body], [400, { error: 'project_import_limit is invalid' }]);
      const u = await t.createUser();
      assert.equal((await t.request('PUT', '/api/v4/application/settings', { token: u.token, body: { project_export_limit: 100 } })).status, 403);
    });

    it('export and download limits follow the settings; 0 disables a limit', async () => {
      const own = await makeRepoProject(t, { name: 'Limited' });
      assert.equal((await t.request('POST', `/api/v4/projects/${own.id}/export`)).status, 202);
      await runImportExportJobs(t);
      const ok = await t.request('PUT', '/api/v4/application/settings', { body: { project_download_export_limit: 3, project_export_limit: 2 } });
      assert.equal(ok.status, 200);
      assert.equal(ok.body.project_download_export_limit, 3);
      const m = await t.createUser();
      await addMember(t, 'Project', own.id, m.id, 40);
      startOfRateWindow();
      for (let i = 0; i < 3; i++) assert.equal((await t.get(`/api/v4/projects/${own.id}/export/download`, m.token)).status, 200);
      const fourth = await t.get(`/api/v4/projects/${own.id}/export/download`, m.token);
      assert.deepEqual([fourth.status, fourth.body], [429, THROTTLED]);
      for (let i = 0; i < 2; i++) assert.equal((await t.request('POST', `/api/v4/projects/${own.id}/export`, { token: m.token })).status, 202);
      const third = await t.request('POST', `/api/v4/projects/${own.id}/export`, { token: m.token });
      assert.deepEqual([third.status, third.body], [429, THROTTLED]);
      await runImportExportJobs(t);
      await t.request('PUT', '/api/v4/application/settings', { body: { project_download_export_limit: 0 } });
      const n = await t.createUser();
      await addMember(t, 'Project', own.id, n.id, 40);
      for (let i = 0; i < 5; i++) assert.equal((await t.get(`/api/v4/projects/${own.id}/export/download`, n.token)).status, 200);
      await t.request('PUT', '/api/v4/application/settings', { body: { project_download_export_limit: 1, project_export_limit: 6 } });
    });

    it('the import limit follows project_import_limit', async () => {
      await t.request('PUT', '/api/v4/application/settings', { body: { project_import_limit: 1 } });
      const who = await t.createUser();
      startOfRateWindow();
      const first = await postImport(t, Buffer.from('not an archive'), [['path', 'limited-import']], who.token);
      assert.notEqual(first.status, 429);
      const second = await postImport(t, Buffer.from('not an archive'), [['path', 'limited-import-2']], who.token);
      assert.deepEqual([second.status, second.body], [429, THROTTLED]);
      await t.request('PUT', '/api/v4/application/settings', { body: { project_import_limit: 6 } });
      await runImportExportJobs(t);
    });

    it('POST /projects/:id/export with upload but no upload[url] is 400; with a url 202', async () => {
      const own = await makeRepoProject(t, { name: 'Uploaded' });
      const noUrl = await t.request('POST', `/api/v4/projects/${own.id}/export`, { body: { upload: { http_method: 'PUT' } } });
      assert.deepEqual([noUrl.status, noUrl.body], [400, { message: '400 (Bad request) "upload[url]" not given' }]);
      const form = await t.request('POST', `/api/v4/projects/${own.id}/export`, {
        payload: 'upload[http_method]=POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      assert.deepEqual([form.status, form.body], [400, { message: '400 (Bad request) "upload[url]" not given' }]);
      const badMethod = await t.request('POST', `/api/v4/projects/${own.id}/export`, { body: { upload: { url: 'https://example.com/x', http_method: 'GET' } } });
      assert.equal(badMethod.status, 400);
      const plain = await t.request('POST', `/api/v4/projects/${own.id}/export`, { body: {} });
      assert.deepEqual([plain.status, plain.body], [202, { message: '202 Accepted' }]);
      await runImportExportJobs(t);
    });

    it('remote-import-objstore is off by default: 404 after the parameters are checked (also at python-gitlab\'s path)', async () => {
      for (const path of ['/api/v4/projects/remote-import-objstore', '/api/v4/projects/remote-import-s3']) {
        const off = await t.request('POST', path, { body: objstoreBody('off') });
        assert.deepEqual([off.status, off.body], [404, { message: '404 Not Found' }]);
        const bad = await t.request('POST', path, { body: { path: 'x' } });
        assert.equal(bad.status, 400);
        assert.equal((await t.request('POST', path, { token: null, body: objstoreBody('anon') })).status, 401);
      }
    });

    it('ANVIL_REMOTE_IMPORT_OBJSTORE=true turns it on', async () => {
      const on = await buildTestApp(dialect, { ANVIL_REMOTE_IMPORT_OBJSTORE: 'true', ANVIL_REMOTE_IMPORT_S3_ENDPOINT: 'http://127.0.0.1:9' });
      try {
        assert.equal(on.c.config.remoteImportObjstoreEnabled, true);
        const r = await on.request('POST', '/api/v4/projects/remote-import-objstore', { body: objstoreBody('on') });
        assert.notEqual(r.status, 404);
        assert.ok(r.status === 400 || r.status === 201, `${r.status} ${r.text}`);
      } finally {
        await on.close();
      }
    });
  });
}
