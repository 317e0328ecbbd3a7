// kill -9 during an export and during an import: another node takes the job over once the lease
// has run out, and each ends finished, never stuck in `started`.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS, buildTestApp, type TestApp } from '../helpers/build.js';
import { makeRepoProject } from '../helpers/repository_content.js';
import { plannedJob } from '../helpers/ci.js';
import { refSha } from '../helpers/repository.js';
import { postImport } from '../helpers/import_export.js';
import { spawnWorker, waitFor, type ChildWorker } from '../helpers/queue.js';
import { insertFinishedPipelinesBulk } from '../../src/db/repos/bulk_ci.js';
import { findExport, findImport } from '../../src/db/repos/project_import_export.js';
import { runExportUpload } from '../../src/domain/import_export/export.js';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';

const FIXTURE = '../import_export/fixtures/worker.ts';

for (const dialect of DIALECTS) {
  describe(`export and import survive kill -9 (${dialect})`, () => {
    let t: TestApp;
    const children: ChildWorker[] = [];
    const node = async () => {
      const w = spawnWorker(t.c.config, { WORKER_LEASE_MS: '1500', ANVIL_SECRET_KEY: 'k'.repeat(40) }, FIXTURE);
      children.push(w);
      await w.line(/^ready$/);
      return w;
    };
    const kill = async (w: ChildWorker) => {
      w.child.kill('SIGKILL');
      assert.equal((await w.exited).signal, 'SIGKILL');
    };
    before(async () => { t = await buildTestApp(dialect, { ANVIL_SECRET_KEY: 'k'.repeat(40) }); });
    after(async () => {
      for (const w of children) if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGKILL');
      await t.close();
    });

    it('an export and then an import, each killed while started, finish on the next node', async () => {
      const p = await makeRepoProject(t, { name: 'Crashy' });
      const sha = await refSha(t, p.id, 'refs/heads/main');
      // enough rows that the job is still running when the test kills its node
      await insertFinishedPipelinesBulk(t.c.db, { projectId: p.id, userId: 1, sha, pipelines: 1500, jobsPerPipeline: 6, options: JSON.stringify(plannedJob('x')) });

      const exportStatus = async () => (await t.get(`/api/v4/projects/${p.id}/export`)).body.export_status;
      assert.equal((await t.request('POST', `/api/v4/projects/${p.id}/export`, {})).status, 202);
      const first = await node();
      await waitFor('the export to start', async () => (await exportStatus()) === 'started', 60_000);
      await kill(first);
      assert.equal(await exportStatus(), 'started', 'killed mid-export');
      const second = await node();
      await waitFor('the export to end', async () => ['finished', 'none'].includes(await exportStatus()), 120_000);
      assert.equal(await exportStatus(), 'finished');
      await kill(second);

      const archive = await t.app.inject({ method: 'GET', url: `/api/v4/projects/${p.id}/export/download`, headers: { 'private-token': t.rootToken } });
      assert.equal(archive.statusCode, 200);
      const r = await postImport(t, archive.rawPayload, [['path', 'crashy-copy']]);
      assert.equal(r.status, 201, r.text);
      const importStatus = async () => (await t.get(`/api/v4/projects/${r.body.id}/import`)).body.import_status;
      const third = await node();
      await waitFor('the import to start', async () => (await importStatus()) === 'started', 60_000);
      await kill(third);
      assert.equal(await importStatus(), 'started', 'killed mid-import');
      const fourth = await node();
      await waitFor('the import to end', async () => ['finished', 'failed'].includes(await importStatus()), 120_000);
      const st = (await t.get(`/api/v4/projects/${r.body.id}/import`)).body;
      assert.equal(st.import_status, 'finished', st.import_error);
      const count = await t.c.db.selectFrom('ci_pipelines').select((eb) => eb.fn.countAll<number>().as('n')).where('project_id', '=', r.body.id).executeTakeFirstOrThrow();
      assert.equal(Number(count.n), 1500, 'the import landed once, whole');
      await kill(fourth);
    });

    it('upload[url]: a node killed while sending; the next node sends the archive again, and a finished upload is not sent twice', async () => {
      // the receiver holds the first request open (the node dies before any answer), then takes each one whole
      const got: { length: number; body: Buffer }[] = [];
      let held = 0;
      const server = http.createServer((req, res) => {
        if (held++ === 0) return void req.resume();
        const chunks: Buffer[] = [];
        req.on('data', (d: Buffer) => chunks.push(d));
        req.on('end', () => {
          got.push({ length: Number(req.headers['content-length']), body: Buffer.concat(chunks) });
          res.writeHead(200).end();
        });
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/upload`;
      await t.request('PUT', '/api/v4/application/settings', { body: { allow_local_requests_from_web_hooks_and_services: true } });
      try {
        const p = await makeRepoProject(t, { name: 'Uploading' });
        const exportStatus = async () => (await t.get(`/api/v4/projects/${p.id}/export`)).body.export_status;
        assert.equal((await t.request('POST', `/api/v4/projects/${p.id}/export`, { body: { upload: { url } } })).status, 202);
        const first = await node();
        await waitFor('the upload to start', () => held > 0, 60_000);
        assert.equal(await exportStatus(), 'started', 'uploading is still started, as the spec has it');
        await kill(first);
        assert.equal(await exportStatus(), 'started');
        const second = await node();
        await waitFor('the export to finish', async () => (await exportStatus()) === 'finished', 60_000);
        await kill(second);
        // downloaded by another maintainer: root's one download a minute went to the test before
        const maintainer = await t.createUser();
        assert.equal((await t.request('POST', `/api/v4/projects/${p.id}/members`, { body: { user_id: maintainer.id, access_level: 40 } })).status, 201);
        const archive = await t.app.inject({ method: 'GET', url: `/api/v4/projects/${p.id}/export/download`, headers: { 'private-token': maintainer.token } });
        assert.equal(archive.statusCode, 200);
        assert.equal(got.length, 1);
        assert.ok(got[0]!.body.equals(archive.rawPayload), 'the second node sent the whole archive');
        const e = (await findExport(t.c.db, p.id))!;
        assert.deepEqual([e.status, e.error, e.upload_url_encrypted], ['finished', null, null]);
        // the job delivered again (at least once): nothing is sent for a finished upload
        await runExportUpload(t.c, { projectId: p.id, run: e.run }, { attempts: 1, maxAttempts: 5 });
        assert.equal(got.length, 1);
        assert.equal(held, 2);
      } finally {
        await t.request('PUT', '/api/v4/application/settings', { body: { allow_local_requests_from_web_hooks_and_services: false } });
        server.closeAllConnections();
        server.close();
      }
    });

    it('an import that stops its node on every try fails for good on the last one: a readable error, no files left', async () => {
      // the archive's server answers the request's HEAD, then holds every download open: each node
      // dies while the import is `started`, as a node dies that an archive drives out of memory
      const downloads: string[] = [];
      const server = http.createServer((req, res) => {
        if (req.method === 'HEAD') return void res.writeHead(200, { 'content-type': 'application/gzip', 'content-length': '1000' }).end();
        downloads.push(req.url ?? '');
        res.writeHead(200, { 'content-type': 'application/gzip', 'content-length': '1000' });
        res.write(Buffer.alloc(10));
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/a.tar.gz`;
      await t.request('PUT', '/api/v4/application/settings', { body: { allow_local_requests_from_web_hooks_and_services: true } });
      try {
        const r = await t.request('POST', '/api/v4/projects/remote-import', { body: { url, path: 'kills-its-node' } });
        assert.equal(r.status, 201, r.text);
        const status = async () => (await t.get(`/api/v4/projects/${r.body.id}/import`)).body;
        for (let run = 1; run <= 2; run++) {
          const w = await node();
          await waitFor(`download ${run}`, () => downloads.length === run, 60_000);
          assert.equal((await status()).import_status, 'started');
          await kill(w);
        }
        const last = await node();
        await waitFor('the import to end', async () => (await status()).import_status !== 'started', 60_000);
        const st = await status();
        assert.deepEqual([st.import_status, st.import_error], ['failed', 'The import stopped before it finished 2 times (the server ran out of memory or restarted); it is not tried again']);
        assert.equal(downloads.length, 2, 'the last try did not download again');
        const job = await t.c.db.selectFrom('background_jobs').select(['state', 'attempts']).where('kind', '=', 'project_import').where('payload', 'like', `%:${r.body.id}}`).executeTakeFirstOrThrow();
        assert.deepEqual([job.state, job.attempts], ['done', 3]);
        assert.equal(fs.existsSync(path.join(t.c.config.dataDir, 'tmp', `import-${r.body.id}`)), false, 'its working folder is gone');
        const imp = await findImport(t.c.db, r.body.id);
        assert.deepEqual([imp?.archive_key, imp?.source_url_encrypted], [null, null]);
        await kill(last);
      } finally {
        await t.request('PUT', '/api/v4/application/settings', { body: { allow_local_requests_from_web_hooks_and_services: false } });
        server.closeAllConnections();
        server.close();
      }
    });
  });
}
