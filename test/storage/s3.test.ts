// The S3 backend against a real S3-protocol server on loopback: the same suite as the local
// store, the container wired to it by ANVIL_BLOB_URL, and its settings checked at start.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS, buildTestApp, type TestApp } from '../helpers/build.js';
import { startS3, S3_KEY, untilStored, type TestS3 } from '../helpers/s3.js';
import { S3BlobStorage, type S3Location } from '../../src/storage/s3.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { blobStorageSuite, readAll } from './suite.js';
import { multipart, PNG } from '../helpers/project_resources.js';
import { makeProject } from '../helpers/projects.js';
import { fixtureArchive, postImport, runImportExportJobs } from '../helpers/import_export.js';
import { PYTHON, pythonGitlabSkip } from '../helpers/clients.js';
import { freePort } from '../helpers/git.js';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { PutObjectCommand } from '@aws-sdk/client-s3';

let s3: TestS3;
before(async () => { s3 = await startS3(); });
after(async () => s3.close());

/** An object as an exporter leaves it in its bucket, with a gzip type; back once the server shows it whole (untilStored). */
async function putGzip(key: string, body: Buffer): Promise<void> {
  const storage = new S3BlobStorage(location(''));
  await storage.client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: key, Body: body, ContentType: 'application/gzip' }));
  await untilStored(storage, key, body.length);
}

const location = (prefix: string): S3Location => ({
  bucket: s3.bucket, prefix, endpoint: s3.endpoint, region: 'us-east-1', accessKeyId: S3_KEY, secretAccessKey: S3_KEY, forcePathStyle: true,
});

describe('S3 blob storage', () => {
  let s: S3BlobStorage;
  before(() => { s = new S3BlobStorage(location('suite')); });
  blobStorageSuite({ store: () => s, second: () => new S3BlobStorage(location('suite')), elsewhere: () => new S3BlobStorage(location('other')) });

  it('keys live below the prefix; the bucket root works too', async () => {
    const root = new S3BlobStorage(location(''));
    await s.put('p/x', Buffer.from('1'));
    assert.deepEqual(await root.stat('suite/p/x'), { size: 1 });
    const listed = [];
    for await (const b of root.list('suite/p/')) listed.push(b.key);
    assert.deepEqual(listed, ['suite/p/x']);
  });
});

describe('ANVIL_BLOB_URL settings', () => {
  it('reads the bucket, prefix, endpoint, region and credentials; refuses malformed ones', () => {
    const c = loadConfig({ ANVIL_DATA_DIR: '/tmp/anvil-config-test', ANVIL_SECRET_KEY: 'x'.repeat(32), ...s3.env('a/b/') });
    assert.deepEqual(c.blobStore, {
      kind: 's3', bucket: s3.bucket, prefix: 'a/b', endpoint: s3.endpoint, region: 'us-east-1', accessKeyId: S3_KEY, secretAccessKey: S3_KEY, forcePathStyle: true,
    });
    assert.deepEqual(loadConfig({ ANVIL_DATA_DIR: '/tmp/anvil-config-test', ANVIL_SECRET_KEY: 'x'.repeat(32) }).blobStore, { kind: 'local' });
    const bad = (env: Record<string, string>, re: RegExp) =>
      assert.throws(() => loadConfig({ ANVIL_DATA_DIR: '/tmp/anvil-config-test', ANVIL_SECRET_KEY: 'x'.repeat(32), ...env }), (e: Error) => e instanceof ConfigError && re.test(e.message));
    bad({ ANVIL_BLOB_URL: 'http://bucket' }, /must look like s3:\/\/bucket/);
    bad({ ANVIL_BLOB_URL: 's3://bucket/../x' }, /invalid prefix/);
    bad({ ANVIL_BLOB_URL: 's3://bucket', ANVIL_S3_ENDPOINT: 'ftp://x' }, /ANVIL_S3_ENDPOINT must be an http\(s\) URL/);
    bad({ ANVIL_BLOB_URL: 's3://bucket', ANVIL_S3_ACCESS_KEY_ID: 'k' }, /go together/);
  });
});

for (const dialect of DIALECTS) {
  describe(`an app whose blobs live in S3 (${dialect})`, () => {
    let t: TestApp;
    before(async () => { t = await buildTestApp(dialect, { ...s3.env(`node-${dialect}`), ANVIL_REMOTE_IMPORT_S3_ENDPOINT: s3.endpoint, ANVIL_REMOTE_IMPORT_OBJSTORE: 'true' }); });
    after(async () => t.close());

    it('the container uses the S3 store; uploads go there and are served back', async () => {
      assert.ok(t.c.storage instanceof S3BlobStorage);
      const p = await makeProject(t, t.rootToken, { name: `s3-${dialect}` });
      const m = multipart([], [{ name: 'file', filename: 'pic.png', content: PNG, type: 'image/png' }]);
      const up = await t.request('POST', `/api/v4/projects/${p.id}/uploads`, { payload: m.payload, headers: m.headers });
      assert.equal(up.status, 201, up.text);
      const keys = [];
      for await (const b of new S3BlobStorage(location(`node-${dialect}`)).list(`projects/${p.id}/uploads/`)) keys.push(b.key);
      assert.equal(keys.length, 1);
      const served = await t.app.inject({ method: "GET", url: up.body.full_path, headers: { "private-token": t.rootToken } });
      assert.equal(served.statusCode, 200);
      assert.ok(served.rawPayload.equals(PNG));
      assert.ok((await readAll((await t.c.storage.get(keys[0]!))!)).equals(PNG));
    });

    it('exports and imports through the S3 store (the archive, its uploads, the import file)', async () => {
      const p = await makeProject(t, t.rootToken, { name: `s3-export-${dialect}`, initialize_with_readme: true });
      const m = multipart([], [{ name: 'file', filename: 'notes.txt', content: 'attached', type: 'text/plain' }]);
      const up = await t.request('POST', `/api/v4/projects/${p.id}/uploads`, { payload: m.payload, headers: m.headers });
      assert.equal((await t.request('POST', `/api/v4/projects/${p.id}/export`, {})).status, 202);
      await runImportExportJobs(t);
      assert.equal((await t.get(`/api/v4/projects/${p.id}/export`)).body.export_status, 'finished');
      const archive = await t.app.inject({ method: 'GET', url: `/api/v4/projects/${p.id}/export/download`, headers: { 'private-token': t.rootToken } });
      assert.equal(archive.statusCode, 200);
      const r = await postImport(t, archive.rawPayload, [['path', `s3-copy-${dialect}`]]);
      assert.equal(r.status, 201, r.text);
      await runImportExportJobs(t);
      const st = (await t.get(`/api/v4/projects/${r.body.id}/import`)).body;
      assert.equal(st.import_status, 'finished', st.import_error);
      const copied = await t.app.inject({ method: 'GET', url: `/${st.path_with_namespace}${up.body.url}`, headers: { 'private-token': t.rootToken } });
      assert.equal(copied.body, 'attached');
      const left = [];
      for await (const b of t.c.storage.list(`imports/${r.body.id}/`)) left.push(b.key);
      assert.deepEqual(left, [], 'the import file is removed once imported');
    });

    it('remote-import-objstore and python-gitlab\'s remote-import-s3: the object is checked in the request and downloaded by the job, through a signed URL', async () => {
      const theirs = new S3BlobStorage(location(''));
      await putGzip(`their-exports/${dialect}.tar.gz`, fixtureArchive());
      const body = (path: string, fileKey: string, keyId = S3_KEY) => ({
        path, region: 'us-east-1', bucket_name: s3.bucket, file_key: fileKey, access_key_id: keyId, secret_access_key: S3_KEY,
      });
      // the signed URL goes through the outbound rules like any other: this bucket is on loopback
      const blocked = await t.request('POST', '/api/v4/projects/remote-import-objstore', { body: body(`blocked-${dialect}`, `their-exports/${dialect}.tar.gz`) });
      assert.deepEqual([blocked.status, blocked.body], [400, { message: 'File url is blocked: Requests to localhost are not allowed' }]);
      await t.request('PUT', '/api/v4/application/settings', { body: { allow_local_requests_from_web_hooks_and_services: true } });
      try {
        const a = await t.request('POST', '/api/v4/projects/remote-import-objstore', { body: body(`from-bucket-${dialect}`, `their-exports/${dialect}.tar.gz`) });
        assert.equal(a.status, 201, a.text);
        assert.equal(a.body.import_status, 'scheduled');
        const b = await t.request('POST', '/api/v4/projects/remote-import-s3', { body: body(`from-s3-${dialect}`, `their-exports/${dialect}.tar.gz`) });
        assert.equal(b.status, 201, b.text);
        // checked, not copied: an object removed before the job runs is missed by the job
        await putGzip(`their-exports/gone-${dialect}.tar.gz`, fixtureArchive());
        const gone = await t.request('POST', '/api/v4/projects/remote-import-s3', { body: body(`gone-${dialect}`, `their-exports/gone-${dialect}.tar.gz`) });
        assert.equal(gone.status, 201, gone.text);
        await theirs.delete(`their-exports/gone-${dialect}.tar.gz`);
        await runImportExportJobs(t);
        for (const id of [a.body.id, b.body.id]) {
          const st = (await t.get(`/api/v4/projects/${id}/import`)).body;
          assert.equal(st.import_status, 'finished', st.import_error);
          assert.equal((await t.get(`/api/v4/projects/${id}/custom_attributes`)).body.length, 2);
        }
        const missed = (await t.get(`/api/v4/projects/${gone.body.id}/import`)).body;
        assert.deepEqual([missed.import_status, missed.import_error], ['failed', 'Failed to download the import file: the server answered 404']);

        const who = await t.createUser(); // imports are limited to six a minute per user
        const missingKey = await t.request('POST', '/api/v4/projects/remote-import-s3', { token: who.token, body: body(`nothing-${dialect}`, 'no/such.tar.gz') });
        assert.deepEqual([missingKey.status, missingKey.body], [400, { message: `File not found 'no/such.tar.gz' in '${s3.bucket}'` }]);
        // (this server does not check V4 signatures, but refuses an unknown key id; test/storage/presign.test.ts checks the signing)
        const badSecret = await t.request('POST', '/api/v4/projects/remote-import-s3', { token: who.token, body: body(`badkey-${dialect}`, `their-exports/${dialect}.tar.gz`, 'NOBODY') });
        assert.deepEqual([badSecret.status, badSecret.body], [400, { message: `Failed to open 'their-exports/${dialect}.tar.gz' in '${s3.bucket}': 403 Forbidden` }]);
        await theirs.put(`their-exports/untyped-${dialect}.bin`, Buffer.from('x'));
        await untilStored(theirs, `their-exports/untyped-${dialect}.bin`, 1);
        const untyped = await t.request('POST', '/api/v4/projects/remote-import-s3', { token: who.token, body: body(`untyped-${dialect}`, `their-exports/untyped-${dialect}.bin`) });
        assert.equal(untyped.status, 400);
        assert.match(untyped.body.message, /^Content type '.*' not allowed\. \(Allowed: application\/gzip, application\/x-tar, application\/x-gzip\)$/);
        const noRegion = await t.request('POST', '/api/v4/projects/remote-import-objstore', { body: { ...body('x', 'y'), region: undefined } });
        assert.deepEqual([noRegion.status, noRegion.body], [400, { message: '400 (Bad request) "region" not given' }]);
        for (const path of ['nothing', 'badkey', 'untyped']) {
          assert.equal((await t.get(`/api/v4/projects/${encodeURIComponent(`${who.username}/${path}-${dialect}`)}`)).status, 404, 'no project for a refused request');
        }
      } finally {
        await t.request('PUT', '/api/v4/application/settings', { body: { allow_local_requests_from_web_hooks_and_services: false } });
      }
    });

    it("python-gitlab's projects.remote_import_s3 starts an import from the bucket", { skip: pythonGitlabSkip() }, async () => {
      await putGzip(`their-exports/py-${dialect}.tar.gz`, fixtureArchive());
      await t.request('PUT', '/api/v4/application/settings', { body: { allow_local_requests_from_web_hooks_and_services: true } });
      const port = await freePort();
      await t.app.listen({ port, host: '127.0.0.1' });
      const script = [
        'import gitlab, json, sys',
        `gl = gitlab.Gitlab("http://127.0.0.1:${port}", private_token=sys.argv[1])`,
        `r = gl.projects.remote_import_s3(path="py-s3-${dialect}", region="us-east-1", bucket_name="${s3.bucket}", file_key="their-exports/py-${dialect}.tar.gz", access_key_id="${S3_KEY}", secret_access_key="${S3_KEY}")`,
        'print(json.dumps({"status": r["import_status"], "path": r["path"], "id": r["id"]}))',
      ].join('\n');
      const { stdout } = await promisify(execFile)(PYTHON, ['-c', script, t.rootToken]);
      const seen = JSON.parse(stdout.trim());
      assert.deepEqual({ ...seen, id: null }, { status: 'scheduled', path: `py-s3-${dialect}`, id: null });
      await runImportExportJobs(t);
      await t.request('PUT', '/api/v4/application/settings', { body: { allow_local_requests_from_web_hooks_and_services: false } });
      assert.equal((await t.get(`/api/v4/projects/${seen.id}/import`)).body.import_status, 'finished');
    });
  });
}
