import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { statementsRun } from '../../src/db/dialect.js';
import { DIALECTS, EXTERNAL_URL, buildTestApp, type TestApp } from '../helpers/build.js';
import { links, seedManyUsers } from '../helpers/users.js';

for (const dialect of DIALECTS) {
  describe(`users: more than 10,000 (${dialect})`, () => {
    let t: TestApp;
    before(async () => {
      t = await buildTestApp(dialect);
      await seedManyUsers(t, 10_001, 'bulk');
    });
    after(async () => t.close());

    it('drops x-total, x-total-pages and rel="last" above 10,000 users, and still pages on', async () => {
      const r = await t.get('/api/v4/users?per_page=100&page=2');
      assert.equal(r.status, 200);
      assert.equal(r.body.length, 100);
      assert.equal(r.headers['x-total'], undefined);
      assert.equal(r.headers['x-total-pages'], undefined);
      assert.equal(r.headers['x-page'], '2');
      assert.equal(r.headers['x-next-page'], '3');
      assert.equal(r.headers['x-prev-page'], '1');
      const l = links(r.headers.link);
      assert.deepEqual(Object.keys(l).sort(), ['first', 'next', 'prev']);
      assert.equal(l.next, `${EXTERNAL_URL}/api/v4/users?per_page=100&page=3`);
      // newest first: page 2 of 10,002 users (root + the seeded ones) starts 100 below the top id
      const top = (await t.get('/api/v4/users?per_page=1')).body[0].id;
      assert.equal(r.body[0].id, top - 100);

      const next = await t.request('GET', l.next.slice(EXTERNAL_URL.length));
      assert.equal(next.status, 200);
      assert.equal(next.body[0].id, top - 200);
    });

    it('a filtered list at or below 10,000 counts again', async () => {
      const r = await t.get('/api/v4/users?search=bulk999&per_page=5');
      // bulk999 and bulk9990..bulk9999
      assert.equal(r.headers['x-total'], '11');
      assert.equal(r.headers['x-total-pages'], '3');
      assert.ok(links(r.headers.link).last);
    });

    it('a list found past 10,000 is not walked again for a while: its next first page runs one statement fewer', async () => {
      const statementsOf = async (url: string) => {
        const from = statementsRun(t.c.db);
        const r = await t.get(url);
        return { r, statements: statementsRun(t.c.db) - from };
      };
      const first = await statementsOf('/api/v4/users?search=bulk&per_page=3');
      const again = await statementsOf('/api/v4/users?search=bulk&per_page=3');
      assert.equal(again.statements, first.statements - 1);
      assert.deepEqual(again.r.body, first.r.body);
      assert.equal(again.r.headers['x-total'], undefined);
      assert.equal(again.r.headers['x-next-page'], '2');
    });

    it('another database asking the same list is counted for itself', async () => {
      assert.equal((await t.get('/api/v4/users?search=bulk&per_page=3')).headers['x-total'], undefined);
      const other = await buildTestApp(dialect);
      try {
        await seedManyUsers(other, 5, 'bulk');
        const r = await other.get('/api/v4/users?search=bulk&per_page=3');
        assert.equal(r.headers['x-total'], '5');
      } finally {
        await other.close();
      }
    });
  });
}
