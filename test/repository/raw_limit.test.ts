// raw_blob_request_limit: raw requests a minute for one file at one commit (default 300, 0 disables),
// answered 429 with rate_limiting_response_text like the other application limits.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS, buildTestApp, type TestApp } from '../helpers/build.js';
import { makeRepoProject } from '../helpers/repository_content.js';
import { putFiles } from '../helpers/ci.js';
import { resetClock, startOfRateWindow } from '../helpers/rate_window.js';

for (const dialect of DIALECTS) {
  describe(`raw_blob_request_limit (${dialect})`, () => {
    let t: TestApp;
    before(async () => {
      t = await buildTestApp(dialect);
    });
    after(async () => {
      resetClock();
      await t.close();
    });

    it('defaults to 300; over the limit one path at one commit answers 429 with the text; others go on', async () => {
      assert.equal((await t.get('/api/v4/application/settings')).body.raw_blob_request_limit, 300);
      const p = await makeRepoProject(t, { visibility: 'public' });
      await putFiles(t, p.id, { 'a.txt': 'alpha\n', 'b.txt': 'beta\n' });
      await t.request('PUT', '/api/v4/application/settings', { body: { raw_blob_request_limit: 3, rate_limiting_response_text: 'Slow down, please' } });
      const raw = (file: string, token?: string | null, ref = 'main') => t.get(`/api/v4/projects/${p.id}/repository/files/${file}/raw?ref=${ref}`, token);
      startOfRateWindow();
      for (let i = 0; i < 3; i++) {
        const ok = await raw('a.txt', i === 1 ? null : undefined);
        assert.equal(ok.status, 200);
        assert.equal(ok.text, 'alpha\n');
      }
      const over = await raw('a.txt', null);
      assert.equal(over.status, 429);
      assert.equal(over.text, 'Slow down, please\n');
      assert.match(String(over.headers['content-type']), /^text\/plain/);
      assert.equal(over.headers['ratelimit-name'], 'raw_blob_request_limit');
      assert.ok(Number(over.headers['retry-after']) >= 1);
      // Another file is counted on its own; so is the same file at another commit.
      assert.equal((await raw('b.txt')).status, 200);
      const sha = (await t.get(`/api/v4/projects/${p.id}/repository/commits/main`)).body.parent_ids[0];
      assert.equal((await raw('README.md', undefined, sha)).status, 200);
      // A missing file is 404 before any count.
      assert.equal((await raw('nope.txt')).status, 404);
      await t.request('PUT', '/api/v4/application/settings', { body: { raw_blob_request_limit: 0 } });
      for (let i = 0; i < 3; i++) assert.equal((await raw('a.txt')).status, 200);
    });
  });
}
