// The tags API and a commit's diff: the reference's shapes, order, search, paging, renames,
// binary files, unknown ids, and other users' private projects.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS, buildTestApp, keysOf, type TestApp } from '../helpers/build.js';
import { COMMIT_KEYS } from '../helpers/keys.js';
import { commit, makeRepoProject } from '../helpers/repository_content.js';
import { repositoryDir } from '../../src/domain/repository/service.js';
import { gitText } from '../../src/git/git.js';

const DIFF_KEYS = ['a_mode', 'b_mode', 'deleted_file', 'diff', 'new_file', 'new_path', 'old_path', 'renamed_file'];
const TAG_KEYS = ['commit', 'message', 'name', 'protected', 'release', 'target'];

for (const dialect of DIALECTS) {
  describe(`tags and commit diff API (${dialect})`, () => {
    let t: TestApp;
    let p: any;
    let change: any;
    before(async () => {
      t = await buildTestApp(dialect);
      p = await makeRepoProject(t, { path: 'diffs', visibility: 'private' });
      await commit(t, p.id, { actions: [{ action: 'create', file_path: 'old.txt', content: 'one\ntwo\nthree\n' }, { action: 'create', file_path: 'gone.txt', content: 'bye\n' }] });
      change = await commit(t, p.id, {
        commit_message: 'Edit, move, delete, add',
        actions: [
          { action: 'update', file_path: 'README.md', content: '# diffs\n\nchanged line\n' },
          { action: 'move', file_path: 'new.txt', previous_path: 'old.txt' },
          { action: 'delete', file_path: 'gone.txt' },
          { action: 'create', file_path: 'bin/data.bin', content: Buffer.from([0, 1, 2, 0, 255]).toString('base64'), encoding: 'base64' },
        ],
      });
      const dir = repositoryDir(t.c, p.id);
      const env = { GIT_COMMITTER_NAME: 'T', GIT_COMMITTER_EMAIL: 't@example.com', GIT_COMMITTER_DATE: '2030-01-01T00:00:00Z' };
      await gitText(['tag', 'v1.9', `${change.id}~1`], { gitDir: dir });
      await gitText(['tag', '-a', '-m', 'Release ten\n\nnotes', 'v1.10', change.id], { gitDir: dir, env });
    });
    after(async () => t.close());

    it('a commit\'s diff: one entry per file with the patch from its first hunk, renames found, binary without a patch', async () => {
      const r = await t.get(`/api/v4/projects/${p.id}/repository/commits/${change.id}/diff`);
      assert.equal(r.status, 200, r.text);
      assert.equal(r.headers['x-total'], '4');
      for (const d of r.body) assert.deepEqual(keysOf(d), DIFF_KEYS);
      const by = new Map(r.body.map((d: any) => [d.new_path, d]));
      const readme: any = by.get('README.md');
      assert.equal(readme.old_path, 'README.md');
      assert.equal(readme.new_file, false);
      assert.match(readme.diff, /^@@ -1,\d+ \+1,3 @@/);
      assert.match(readme.diff, /^\+changed line$/m);
      const moved: any = by.get('new.txt');
      assert.deepEqual([moved.old_path, moved.renamed_file, moved.diff], ['old.txt', true, '']);
      const gone: any = by.get('gone.txt');
      assert.deepEqual([gone.deleted_file, gone.b_mode, gone.a_mode], [true, '000000', '100644']);
      assert.equal(gone.diff, '@@ -1 +0,0 @@\n-bye\n');
      const bin: any = by.get('bin/data.bin');
      assert.deepEqual([bin.new_file, bin.diff], [true, '']);
      const page = await t.get(`/api/v4/projects/${p.id}/repository/commits/${change.id}/diff?per_page=3&page=2`);
      assert.equal(page.body.length, 1);
    });

    it('a root commit is diffed against the empty tree', async () => {
      const log = await t.get(`/api/v4/projects/${p.id}/repository/commits?per_page=100`);
      const root = log.body[log.body.length - 1];
      const r = await t.get(`/api/v4/projects/${p.id}/repository/commits/${root.id}/diff`);
      assert.equal(r.status, 200);
      assert.deepEqual(r.body.map((d: any) => [d.new_path, d.new_file]), [['README.md', true]]);
    });

    it('the diff of an unknown commit is 404; another user\'s private project is 404; no token is 404 too', async () => {
      assert.deepEqual((await t.get(`/api/v4/projects/${p.id}/repository/commits/${'0'.repeat(40)}/diff`)).body, { message: '404 Commit Not Found' });
      const other = await t.createUser();
      assert.equal((await t.get(`/api/v4/projects/${p.id}/repository/commits/${change.id}/diff`, other.token)).status, 404);
      assert.equal((await t.request('GET', `/api/v4/projects/${p.id}/repository/tags`, { token: null })).status, 404);
    });

    it('tags: newest first by default, annotated with their message and tag object, lightweight with none', async () => {
      const r = await t.get(`/api/v4/projects/${p.id}/repository/tags`);
      assert.equal(r.status, 200, r.text);
      for (const tag of r.body) {
        assert.deepEqual(keysOf(tag), TAG_KEYS);
        assert.deepEqual(keysOf(tag.commit), COMMIT_KEYS);
      }
      const [ten, nine] = r.body;
      assert.equal(ten.name, 'v1.10');
      assert.equal(ten.message, 'Release ten\n\nnotes');
      assert.equal(ten.commit.id, change.id);
      assert.notEqual(ten.target, change.id);
      assert.deepEqual([ten.release, ten.protected], [null, false]);
      assert.equal(nine.name, 'v1.9');
      assert.equal(nine.message, null);
      assert.equal(nine.target, nine.commit.id);
      const byName = await t.get(`/api/v4/projects/${p.id}/repository/tags?order_by=name&sort=asc`);
      assert.deepEqual(byName.body.map((x: any) => x.name), ['v1.10', 'v1.9']);
      const byVersion = await t.get(`/api/v4/projects/${p.id}/repository/tags?order_by=version&sort=asc`);
      assert.deepEqual(byVersion.body.map((x: any) => x.name), ['v1.9', 'v1.10']);
      const search = await t.get(`/api/v4/projects/${p.id}/repository/tags?search=10$`);
      assert.deepEqual(search.body.map((x: any) => x.name), ['v1.10']);
      const one = await t.get(`/api/v4/projects/${p.id}/repository/tags/v1.9`);
      assert.equal(one.body.name, 'v1.9');
      assert.deepEqual((await t.get(`/api/v4/projects/${p.id}/repository/tags/nope`)).body, { message: '404 Tag Not Found' });
      assert.equal((await t.get(`/api/v4/projects/${p.id}/repository/tags?order_by=size`)).status, 400);
    });
  });
}
