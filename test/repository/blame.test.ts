// GET /projects/:id/repository/files/:file_path/blame: runs of consecutive lines with the commit
// that last changed them, a line range, and the reference's errors and visibility.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS, buildTestApp, keysOf, type TestApp } from '../helpers/build.js';
import { commit, makeRepoProject } from '../helpers/repository_content.js';

const COMMIT_KEYS = ['author_email', 'author_name', 'authored_date', 'committed_date', 'committer_email', 'committer_name', 'id', 'message', 'parent_ids'];

for (const dialect of DIALECTS) {
  describe(`repository file blame (${dialect})`, () => {
    let t: TestApp;
    let p: any;
    let first: any;
    let second: any;
    before(async () => {
      t = await buildTestApp(dialect);
      p = await makeRepoProject(t);
      first = await commit(t, p.id, { commit_message: 'Add the list\n\nwith a body', actions: [{ action: 'create', file_path: 'src/list.txt', content: 'one\ntwo\nthree\n' }] });
      second = await commit(t, p.id, {
        commit_message: 'Change two',
        author_name: 'Ada Lovelace',
        author_email: 'ada@example.com',
        actions: [{ action: 'update', file_path: 'src/list.txt', content: 'one\nTWO\nthree\n' }],
      });
    });
    after(async () => t.close());

    const blame = (q: string, path = 'src/list.txt', token?: string | null) =>
      t.get(`/api/v4/projects/${p.id}/repository/files/${encodeURIComponent(path)}/blame?${q}`, token);

    it('answers runs of lines with their commit, in file order', async () => {
      const r = await blame('ref=main');
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(r.body.map((b: any) => [b.commit.id, b.lines]), [
        [first.id, ['one']],
        [second.id, ['TWO']],
        [first.id, ['three']],
      ]);
      for (const b of r.body) assert.deepEqual(keysOf(b), ['commit', 'lines']);
      assert.deepEqual(keysOf(r.body[1].commit), COMMIT_KEYS);
      assert.equal(r.body[1].commit.author_name, 'Ada Lovelace');
      assert.equal(r.body[1].commit.author_email, 'ada@example.com');
      assert.deepEqual(r.body[1].commit.parent_ids, [first.id]);
      assert.equal(r.body[0].commit.message, 'Add the list\n\nwith a body');
      assert.match(r.body[0].commit.authored_date, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}/);
      // at the first commit, every line is its own
      const old = await blame(`ref=${first.id}`);
      assert.deepEqual(old.body.map((b: any) => [b.commit.id, b.lines]), [[first.id, ['one', 'two', 'three']]]);
    });

    it('a range of lines (1-based, inclusive; an end past the file is cut)', async () => {
      const r = await blame('ref=main&range[start]=2&range[end]=9');
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(r.body.map((b: any) => [b.commit.id, b.lines]), [
        [second.id, ['TWO']],
        [first.id, ['three']],
      ]);
      assert.equal((await blame('ref=main&range[start]=3&range[end]=2')).status, 400);
      assert.equal((await blame('ref=main&range[start]=0&range[end]=2')).status, 400);
      assert.equal((await blame('ref=main&range[start]=5&range[end]=6')).status, 400);
    });

    it('400 without ref, 404 for a missing file or ref, 404 for a private project to a stranger', async () => {
      assert.deepEqual([(await blame('')).status, (await blame('')).body], [400, { message: '400 (Bad request) "ref" not given' }]);
      assert.deepEqual([(await blame('ref=main', 'nope.txt')).body], [{ message: '404 File Not Found' }]);
      assert.deepEqual((await blame('ref=nobranch')).body, { message: '404 Commit Not Found' });
      const stranger = await t.createUser();
      assert.equal((await blame('ref=main', 'src/list.txt', stranger.token)).status, 404);
      assert.equal((await blame('ref=main', 'src/list.txt', null)).status, 404);
    });
  });
}
