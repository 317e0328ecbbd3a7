// The repository tree: entries of a directory at a ref, recursive, paged, and its 404s.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS, buildTestApp, keysOf, type TestApp } from '../helpers/build.js';
import { commit, makeRepoProject, memberWith } from '../helpers/repository_content.js';

for (const dialect of DIALECTS) {
  describe(`repository tree API (${dialect})`, () => {
    let t: TestApp;
    let p: any;
    before(async () => {
      t = await buildTestApp(dialect);
      p = await makeRepoProject(t, { visibility: 'public' });
      await commit(t, p.id, {
        actions: [
          { action: 'create', file_path: 'src/lib/a.ts', content: 'a' },
          { action: 'create', file_path: 'src/b.ts', content: 'b' },
          { action: 'create', file_path: 'zeta.txt', content: 'z' },
          { action: 'create', file_path: 'bin/run', content: '#!/bin/sh\n', execute_filemode: true },
        ],
      });
      await commit(t, p.id, { branch: 'other', start_branch: 'main', actions: [{ action: 'create', file_path: 'only-other', content: 'o' }] });
    });
    after(async () => t.close());

    const url = (q = '') => `/api/v4/projects/${p.id}/repository/tree${q}`;

    it('lists the root: directories first, then files, by name, with id/name/type/path/mode', async () => {
      const r = await t.get(url(), null);
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(r.body.map((e: any) => [e.name, e.type, e.mode]), [
        ['bin', 'tree', '040000'],
        ['src', 'tree', '040000'],
        ['README.md', 'blob', '100644'],
        ['zeta.txt', 'blob', '100644'],
      ]);
      assert.deepEqual(keysOf(r.body[0]), ['id', 'mode', 'name', 'path', 'type']);
      assert.match(r.body[0].id, /^[0-9a-f]{40}$/);
      assert.equal(r.headers['x-total'], '4');
    });

    it('lists a sub-directory by path, recursively, and at another ref', async () => {
      let r = await t.get(url('?path=src'));
      assert.deepEqual(r.body.map((e: any) => e.path), ['src/lib', 'src/b.ts']);
      r = await t.get(url('?recursive=true&path=src'));
      assert.deepEqual(r.body.map((e: any) => e.path).sort(), ['src/b.ts', 'src/lib', 'src/lib/a.ts']);
      r = await t.get(url('?path=bin'));
      assert.deepEqual(r.body.map((e: any) => [e.name, e.mode]), [['run', '100755']]);
      r = await t.get(url('?ref=other'));
      assert.ok(r.body.some((e: any) => e.name === 'only-other'));
      assert.ok(!(await t.get(url())).body.some((e: any) => e.name === 'only-other'));
    });

    it('pages with the usual headers', async () => {
      const all = (await t.get(url('?recursive=true&per_page=100'))).body;
      assert.equal(all.length, 8);
      const p1 = await t.get(url('?recursive=true&per_page=3'));
      assert.equal(p1.body.length, 3);
      assert.equal(p1.headers['x-total'], '8');
      assert.equal(p1.headers['x-total-pages'], '3');
      assert.equal(p1.headers['x-next-page'], '2');
      const p3 = await t.get(url('?recursive=true&per_page=3&page=3'));
      assert.deepEqual([...p1.body, ...(await t.get(url('?recursive=true&per_page=3&page=2'))).body, ...p3.body], all);
      assert.equal(p3.headers['x-next-page'], '');
    });

    it('404 Tree Not Found for an unknown ref, a missing path, a file path or an empty repository', async () => {
      for (const q of ['?ref=nope', '?path=nowhere', '?path=zeta.txt']) {
        const r = await t.get(url(q));
        assert.deepEqual([r.status, r.body], [404, { message: '404 Tree Not Found' }], q);
      }
      const empty = await makeRepoProject(t, { initialize_with_readme: false });
      const r = await t.get(`/api/v4/projects/${empty.id}/repository/tree`);
      assert.deepEqual([r.status, r.body], [404, { message: '404 Tree Not Found' }]);
    });

    it('private: anonymous 404, guest 403, reporter 200', async () => {
      const priv = await makeRepoProject(t);
      const u = `/api/v4/projects/${priv.id}/repository/tree`;
      const anon = await t.get(u, null);
      assert.deepEqual([anon.status, anon.body], [404, { message: '404 Project Not Found' }]);
      assert.equal((await t.get(u, (await memberWith(t, priv.id, 10)).token)).status, 403);
      assert.equal((await t.get(u, (await memberWith(t, priv.id, 20)).token)).status, 200);
    });
  });
}
