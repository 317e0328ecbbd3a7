// upload[url] that fails: as in the reference's web upload strategy, the export still finishes,
// its archive stays downloadable, the upload is not retried, and the error is logged and kept on
// the export. Real loopback receivers: one that answers 500, one that is not listening.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { Writable } from 'node:stream';
import pino from 'pino';
import { DIALECTS, buildTestApp, type TestApp } from '../helpers/build.js';
import { makeRepoProject } from '../helpers/repository_content.js';
import { runImportExportJobs } from '../helpers/import_export.js';
import { findExport } from '../../src/db/repos/project_import_export.js';

/** A receiver that reads each request whole, records it and answers `status`. */
async function receiver(status: number) {
  const got: { method: string; length: number }[] = [];
  const server = http.createServer((req, res) => {
    let length = 0;
    req.on('data', (d: Buffer) => { length += d.length; });
    req.on('end', () => {
      got.push({ method: req.method!, length });
      res.writeHead(status).end('{"error":"nope"}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { got, url: `http://127.0.0.1:${(server.address() as { port: number }).port}/upload`, close: () => new Promise((r) => server.close(r)) };
}

for (const dialect of DIALECTS) {
  describe(`export upload[url] that fails (${dialect})`, () => {
    let t: TestApp;
    const logged: any[] = [];
    const log = pino({ level: 'info' }, new Writable({ write(chunk, _e, done) { logged.push(JSON.parse(String(chunk))); done(); } }));

    before(async () => { t = await buildTestApp(dialect, {}, { log }); });
    after(async () => t.close());

    /** Exports `projectId` with upload[url] as a fresh maintainer; returns the export status, the download and the kept error. */
    async function exportTo(projectId: number, url: string) {
      const who = await t.createUser();
      assert.equal((await t.request('POST', `/api/v4/projects/${projectId}/members`, { body: { user_id: who.id, access_level: 40 } })).status, 201);
      assert.equal((await t.request('POST', `/api/v4/projects/${projectId}/export`, { token: who.token, body: { upload: { url, http_method: 'POST' } } })).status, 202);
      await runImportExportJobs(t);
      const status = (await t.get(`/api/v4/projects/${projectId}/export`, who.token)).body.export_status;
      const download = await t.app.inject({ method: 'GET', url: `/api/v4/projects/${projectId}/export/download`, headers: { 'private-token': who.token } });
      return { status, download, error: (await findExport(t.c.db, projectId))?.error ?? null };
    }

    it('a receiver answering 500: finished, still downloadable, sent once, the error logged and kept', async () => {
      const r = await receiver(500);
      await t.request('PUT', '/api/v4/application/settings', { body: { allow_local_requests_from_web_hooks_and_services: true } });
      try {
        const p = await makeRepoProject(t, { name: 'Upload500' });
        const out = await exportTo(p.id, r.url);
        assert.equal(out.status, 'finished');
        assert.equal(out.download.statusCode, 200);
        assert.deepEqual(r.got, [{ method: 'POST', length: out.download.rawPayload.length }], 'sent once, whole, not retried');
        assert.equal(out.error, 'Error uploading the project. Code 500: Internal Server Error');
        const line = logged.find((l) => l.msg === 'After export strategy failed' && l.projectId === p.id);
        assert.equal(line?.error, 'Error uploading the project. Code 500: Internal Server Error');
        assert.ok(!JSON.stringify(logged).includes(r.url), 'the upload URL (it may carry a secret) is never logged');
      } finally {
        await t.request('PUT', '/api/v4/application/settings', { body: { allow_local_requests_from_web_hooks_and_services: false } });
        await r.close();
      }
    });

    it('a receiver that is not listening, and one the outbound rules refuse: finished, downloadable, the reason kept', async () => {
      const gone = await receiver(200);
      await gone.close(); // its port now refuses connections
      await t.request('PUT', '/api/v4/application/settings', { body: { allow_local_requests_from_web_hooks_and_services: true } });
      const p = await makeRepoProject(t, { name: 'UploadGone' });
      try {
        const out = await exportTo(p.id, gone.url);
        assert.deepEqual([out.status, out.download.statusCode], ['finished', 200]);
        assert.match(out.error ?? '', /ECONNREFUSED/);
      } finally {
        await t.request('PUT', '/api/v4/application/settings', { body: { allow_local_requests_from_web_hooks_and_services: false } });
      }
      const refused = await receiver(200);
      try {
        const out = await exportTo(p.id, refused.url);
        assert.deepEqual([out.status, out.download.statusCode], ['finished', 200]);
        assert.equal(out.error, 'URL is blocked: Requests to localhost are not allowed');
        assert.deepEqual(refused.got, [], 'nothing was sent');
      } finally {
        await refused.close();
      }
    });
  });
}
