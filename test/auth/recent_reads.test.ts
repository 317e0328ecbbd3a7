// Reads kept for half a second (src/shared/recent_reads.ts): with two nodes on one database, a token
// revoked, a user blocked, a membership removed or a project changed through node A counts on node
// B within one second, even when B has just served it; node A counts it at once. The cache's own
// rules run on a fake clock.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { RecentReads, TTL_MS } from '../../src/shared/recent_reads.js';
import { DIALECTS, buildOtherNode, buildTestApp, type Res, type TestApp } from '../helpers/build.js';
import { makeProject } from '../helpers/projects.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Milliseconds from now until `ask` answers `status` (polled every 20 ms); fails past 3 s. */
async function msUntil(status: number, ask: () => Promise<Res>): Promise<number> {
  const start = performance.now();
  for (;;) {
    const r = await ask();
    const ms = performance.now() - start;
    if (r.status === status) return ms;
    assert.ok(ms < 3000, `still ${r.status} after ${Math.round(ms)} ms: ${r.text}`);
    await sleep(20);
  }
}

describe('reads kept for half a second', () => {
  it('keeps a value for its time to live from the start of its read, then reads again', async () => {
    let now = 0;
    let loads = 0;
    const cache = new RecentReads<string>(500, () => now);
    const load = async () => {
      loads += 1;
      now += 10; // the read itself takes time
      return `v${loads}`;
    };
    assert.equal(await cache.read('k', load), 'v1');
    now = 499;
    assert.equal(await cache.read('k', load), 'v1');
    now = 500; // 500 ms after the read began, though only 490 after it ended
    assert.equal(await cache.read('k', load), 'v2');
    assert.equal(loads, 2);
  });

  it('does not keep nothing, and does not keep a read that began before forgetAll()', async () => {
    const cache = new RecentReads<string>(500, () => 0);
    let loads = 0;
    assert.equal(await cache.read('unknown', async () => (loads++, undefined)), undefined);
    assert.equal(await cache.read('unknown', async () => (loads++, undefined)), undefined);
    assert.equal(loads, 2);

    const stale = cache.read('k', async () => {
      cache.forgetAll(); // a change lands while the row is being read
      return 'old';
    });
    assert.equal(await stale, 'old');
    assert.equal(await cache.read('k', async () => 'new'), 'new');
    assert.equal(await cache.read('k', async () => 'newer'), 'new');
  });

  it('has a time to live under one second', () => {
    assert.ok(TTL_MS < 1000);
  });
});

for (const dialect of DIALECTS) {
  describe(`two nodes on one database (${dialect})`, () => {
    let a: TestApp;
    let b: Awaited<ReturnType<typeof buildOtherNode>>;
    before(async () => {
      a = await buildTestApp(dialect);
      b = await buildOtherNode(a);
    });
    after(async () => {
      await b.close();
      await a.close();
    });

    it('a token revoked on node A is refused on node B within one second, and on A at once', async () => {
      const u = await a.createUser();
      const self = await b.get('/api/v4/personal_access_tokens/self', u.token);
      assert.equal(self.status, 200);
      assert.equal((await b.get('/api/v4/user', u.token)).status, 200); // B has it cached now

      const revoked = await a.request('DELETE', `/api/v4/personal_access_tokens/${self.body.id}`, { token: u.token });
      assert.equal(revoked.status, 204);
      assert.equal((await a.get('/api/v4/user', u.token)).status, 401);
      const ms = await msUntil(401, () => b.get('/api/v4/user', u.token));
      assert.ok(ms <= 1000, `node B refused after ${Math.round(ms)} ms`);
    });

    it('a user blocked on node A is refused on node B within one second, and on A at once', async () => {
      const u = await a.createUser();
      assert.equal((await b.get('/api/v4/user', u.token)).status, 200);
      assert.equal((await a.get('/api/v4/user', u.token)).status, 200);

      assert.equal((await a.request('POST', `/api/v4/users/${u.id}/block`)).status, 201);
      const onA = await a.get('/api/v4/user', u.token);
      assert.equal(onA.status, 403);
      assert.equal(onA.body.message, '403 Forbidden - Your account has been blocked.');
      const ms = await msUntil(403, () => b.get('/api/v4/user', u.token));
      assert.ok(ms <= 1000, `node B refused after ${Math.round(ms)} ms`);
    });

    it('a membership removed on node A is refused on node B within one second (404 on a private project)', async () => {
      const u = await a.createUser();
      const p = await makeProject(a, a.rootToken, { name: `cached-${dialect}`, visibility: 'private' });
      assert.equal((await a.request('POST', `/api/v4/projects/${p.id}/members`, { body: { user_id: u.id, access_level: 30 } })).status, 201);
      assert.equal((await b.get(`/api/v4/projects/${p.id}`, u.token)).status, 200);

      assert.equal((await a.request('DELETE', `/api/v4/projects/${p.id}/members/${u.id}`)).status, 204);
      assert.equal((await a.get(`/api/v4/projects/${p.id}`, u.token)).status, 404);
      const ms = await msUntil(404, () => b.get(`/api/v4/projects/${p.id}`, u.token));
      assert.ok(ms <= 1000, `node B refused after ${Math.round(ms)} ms`);
    });

    it('GET /projects/:id: a change made on node A shows on A at once and on node B within one second', async () => {
      const u = await a.createUser();
      const p = await makeProject(a, a.rootToken, { name: `kept-${dialect}`, visibility: 'private' });
      // B keeps what it read for the user and for root
      assert.equal((await b.get(`/api/v4/projects/${p.id}`, u.token)).status, 404);
      assert.deepEqual((await b.get(`/api/v4/projects/${p.id}`)).body.topics, []);
      // a new membership (an insert) and a new topic count at once on A
      assert.equal((await a.request('POST', `/api/v4/projects/${p.id}/members`, { body: { user_id: u.id, access_level: 30 } })).status, 201);
      const onA = await a.get(`/api/v4/projects/${p.id}`, u.token);
      assert.equal(onA.status, 200);
      assert.equal(onA.body.permissions.project_access.access_level, 30);
      assert.equal((await a.request('PUT', `/api/v4/projects/${p.id}`, { body: { topics: ['kept'], description: 'changed' } })).status, 200);
      assert.deepEqual((await a.get(`/api/v4/projects/${p.id}`)).body.topics, ['kept']);
      // and within a second on B
      assert.ok((await msUntil(200, () => b.get(`/api/v4/projects/${p.id}`, u.token))) <= 1000);
      const start = performance.now();
      for (;;) {
        const r = await b.get(`/api/v4/projects/${p.id}`);
        if (r.body.description === 'changed') {
          assert.deepEqual(r.body.topics, ['kept']);
          break;
        }
        assert.ok(performance.now() - start <= 1000, 'node B still shows the old project');
        await sleep(20);
      }
      // a write straight through this process's database counts at once too
      await a.c.db.updateTable('projects').set({ description: 'direct' }).where('id', '=', p.id).execute();
      assert.equal((await a.get(`/api/v4/projects/${p.id}`)).body.description, 'direct');
      await a.c.db.deleteFrom('members').where('source_type', '=', 'Project').where('source_id', '=', p.id).where('user_id', '=', u.id).execute();
      assert.equal((await a.get(`/api/v4/projects/${p.id}`, u.token)).status, 404);
    });

    it('a change written straight to the database by this process counts at once on this node', async () => {
      const u = await a.createUser();
      assert.equal((await a.get('/api/v4/user', u.token)).status, 200);
      await a.c.db.updateTable('users').set({ name: 'Renamed Directly' }).where('id', '=', u.id).execute();
      assert.equal((await a.get('/api/v4/user', u.token)).body.name, 'Renamed Directly');
      await a.c.db.updateTable('personal_access_tokens').set({ revoked: 1 }).where('user_id', '=', u.id).execute();
      assert.equal((await a.get('/api/v4/user', u.token)).status, 401);
    });
  });
}
