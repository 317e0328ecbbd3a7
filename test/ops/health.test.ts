import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { DIALECTS, buildTestApp, type TestApp } from '../helpers/build.js';

const OK_BODY = { status: 'ok', db_check: [{ status: 'ok' }], data_dir_check: [{ status: 'ok' }] };

for (const dialect of DIALECTS) {
  describe(`health probes (${dialect})`, () => {
    let t: TestApp;
    before(async () => {
      t = await buildTestApp(dialect);
    });
    after(async () => t.close());

    it('/-/health answers 200 plain text without a token', async () => {
      const r = await t.get('/-/health', null);
      assert.equal(r.status, 200);
      assert.equal(r.headers['content-type'], 'text/plain');
      assert.equal(r.text, 'Anvil OK');
      assert.ok(r.headers['x-request-id']);
    });

    it('/-/liveness answers {"status":"ok"} as JSON without a token', async () => {
      const r = await t.get('/-/liveness', null);
      assert.equal(r.status, 200);
      assert.equal(r.headers['content-type'], 'application/json');
      assert.equal(r.text, '{"status":"ok"}');
    });

    it('/-/readiness checks the database and the data dir, with or without all=1', async () => {
      for (const url of ['/-/readiness', '/-/readiness?all=1']) {
        const r = await t.get(url, null);
        assert.equal(r.status, 200);
        assert.equal(r.headers['content-type'], 'application/json');
        assert.deepEqual(r.body, OK_BODY);
      }
      // the write probe leaves nothing behind in the data dir
      assert.deepEqual(fs.readdirSync(t.c.config.dataDir).filter((f) => f.startsWith('.readiness')), []);
    });

    it('a token is not needed, and a wrong one does not matter', async () => {
      const r = await t.get('/-/readiness', 'not-a-real-token-at-all');
      assert.equal(r.status, 200);
    });

    it('only GET: other methods on the probes are 404 like any unknown route', async () => {
      const r = await t.request('POST', '/-/health', { token: null });
      assert.equal(r.status, 404);
    });
  });

  describe(`readiness failures (${dialect})`, () => {
    it('503 naming data_dir_check when the data directory is unusable, 200 again once it is back', async () => {
      const t = await buildTestApp(dialect);
      const dir = t.c.config.dataDir;
      try {
        // The SQLite file lives in the data dir and stays open; put a plain file where the directory was.
        fs.renameSync(dir, `${dir}.moved`);
        fs.writeFileSync(dir, 'not a directory');
        const r = await t.get('/-/readiness', null);
        assert.equal(r.status, 503);
        assert.equal(r.headers['content-type'], 'application/json');
        assert.deepEqual(r.body, {
          status: 'failed',
          db_check: [{ status: 'ok' }],
          data_dir_check: [{ status: 'failed', message: 'Data directory check failed' }],
        });
        assert.equal((await t.get('/-/liveness', null)).status, 200);
        fs.rmSync(dir);
        fs.renameSync(`${dir}.moved`, dir);
        assert.equal((await t.get('/-/readiness', null)).status, 200);
      } finally {
        if (fs.existsSync(`${dir}.moved`)) fs.rmSync(`${dir}.moved`, { recursive: true });
        await t.close();
      }
    });

    it('503 naming db_check when the database is unreachable; health and liveness stay 200', async () => {
      const t = await buildTestApp(dialect);
      try {
        await t.c.db.destroy();
        const r = await t.get('/-/readiness', null);
        assert.equal(r.status, 503);
        assert.equal(r.headers['content-type'], 'application/json');
        assert.deepEqual(r.body, {
          status: 'failed',
          db_check: [{ status: 'failed', message: 'Database check failed' }],
          data_dir_check: [{ status: 'ok' }],
        });
        assert.equal((await t.get('/-/health', null)).status, 200);
        assert.equal((await t.get('/-/liveness', null)).status, 200);
      } finally {
        await t.close(); // destroying twice is harmless
      }
    });
  });
}
