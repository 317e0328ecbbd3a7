// Answers are compressed as the client asks: a page and an API answer come back in br or gzip when
// asked, byte for byte the same once decompressed, and plain when not asked. What must not be
// compressed (archives, binary files, small answers) is sent as it is.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import zlib from 'node:zlib';
import { DIALECTS, buildTestApp, type TestApp } from '../helpers/build.js';
import { commit, makeRepoProject } from '../helpers/repository_content.js';

// An archive as a repository holds one: already packed, binary.
const PACKED = zlib.gzipSync(Buffer.concat([Buffer.alloc(8192), Buffer.from(crypto.randomBytes(4096))]));

for (const dialect of DIALECTS) {
  describe(`compression (${dialect})`, () => {
    let t: TestApp;
    let project: any;
    before(async () => {
      t = await buildTestApp(dialect);
      project = await makeRepoProject(t, { visibility: 'public' });
      await commit(t, project.id, {
        actions: [
          { action: 'create', file_path: 'packed.gz', encoding: 'base64', content: PACKED.toString('base64') },
          { action: 'create', file_path: 'notes.txt', content: 'a line of notes\n'.repeat(500) },
        ],
      });
    });
    after(() => t.close());

    const get = (url: string, headers: Record<string, string> = {}) =>
      t.app.inject({ method: 'GET', url, headers: { 'private-token': t.rootToken, ...headers } });
    const decode = { br: zlib.brotliDecompressSync, gzip: zlib.gunzipSync } as const;

    for (const [what, url] of [
      ['a page', () => new URL(project.web_url).pathname],
      ['an API answer', () => `/api/v4/projects/${project.id}`],
      ['a raw text file', () => `/api/v4/projects/${project.id}/repository/files/notes.txt/raw?ref=main`],
    ] as const) {
      it(`${what}: br and gzip when asked, the same bytes once decompressed, plain otherwise`, async () => {
        const plain = await get(url());
        assert.equal(plain.statusCode, 200);
        assert.equal(plain.headers['content-encoding'], undefined);
        assert.ok(plain.rawPayload.length > 1024, `${plain.rawPayload.length} bytes`);
        for (const enc of ['br', 'gzip'] as const) {
          const r = await get(url(), { 'accept-encoding': enc === 'br' ? 'gzip, deflate, br' : 'gzip' });
          assert.equal(r.statusCode, 200);
          assert.equal(r.headers['content-encoding'], enc);
          assert.match(String(r.headers.vary), /accept-encoding/i);
          assert.equal(r.headers['content-type'], plain.headers['content-type']);
          const body = decode[enc](r.rawPayload);
          assert.ok(r.rawPayload.length < body.length / 2, `${enc}: ${r.rawPayload.length} of ${body.length} bytes`);
          // A page carries a fresh CSRF token or request id at most: compare the API answers exactly.
          if (what === 'a page') assert.match(body.toString(), /<\/html>\s*$/);
          else assert.deepEqual(body, plain.rawPayload);
        }
      });
    }

    it('sends packed and binary files and small answers as they are', async () => {
      const asks = { 'accept-encoding': 'gzip, br' };
      for (const url of [`/api/v4/projects/${project.id}/repository/files/packed.gz/raw?ref=main`, `${new URL(project.web_url).pathname}/-/raw/main/packed.gz`]) {
        const bin = await get(url, asks);
        assert.equal(bin.statusCode, 200, url);
        assert.equal(bin.headers['content-type'], 'application/octet-stream');
        assert.equal(bin.headers['content-encoding'], undefined);
        assert.deepEqual(bin.rawPayload, PACKED);
      }
      const small = await get('/api/v4/version', asks);
      assert.equal(small.statusCode, 200);
      assert.equal(small.headers['content-encoding'], undefined);
    });
  });
}
