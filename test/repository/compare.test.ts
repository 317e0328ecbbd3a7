// The compare API (the reference's Compare entity: commits oldest first, the diff from the merge
// base or straight, unknown refs, other users' private projects) and the branches' diverging counts.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS, buildTestApp, keysOf, type TestApp } from '../helpers/build.js';
import { commit, makeRepoProject } from '../helpers/repository_content.js';

const COMPARE_KEYS = ['commit', 'commits', 'compare_same_ref', 'compare_timeout', 'diffs', 'web_url'];

for (const dialect of DIALECTS) {
  describe(`compare API and diverging counts (${dialect})`, () => {
    let t: TestApp;
    let p: any;
    before(async () => {
      t = await buildTestApp(dialect);
      p = await makeRepoProject(t, { path: 'cmp', visibility: 'private' });
      assert.equal((await t.request('POST', `/api/v4/projects/${p.id}/repository/branches`, { body: { branch: 'topic', ref: 'main' } })).status, 201);
      await commit(t, p.id, { branch: 'topic', commit_message: 'Topic one', actions: [{ action: 'create', file_path: 'topic.txt', content: 'one\n' }] });
      await commit(t, p.id, { branch: 'topic', commit_message: 'Topic two', actions: [{ action: 'update', file_path: 'topic.txt', content: 'one\ntwo\n' }] });
      await commit(t, p.id, { commit_message: 'Main only', actions: [{ action: 'create', file_path: 'main.txt', content: 'main\n' }] });
    });
    after(async () => t.close());

    it('lists the commits to has that from has not, oldest first, and the diff from their merge base', async () => {
      const r = await t.get(`/api/v4/projects/${p.id}/repository/compare?from=main&to=topic`);
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(keysOf(r.body), COMPARE_KEYS);
      assert.deepEqual(r.body.commits.map((c: any) => c.title), ['Topic one', 'Topic two']);
      assert.equal(r.body.commit.title, 'Topic two');
      assert.deepEqual(r.body.diffs.map((d: any) => d.new_path), ['topic.txt']);
      assert.equal(r.body.compare_same_ref, false);
      assert.equal(r.body.compare_timeout, false);
      assert.match(r.body.web_url, /\/cmp\/-\/compare\/main\.\.\.topic$/);
      // straight: from main itself, so main's own file shows as removed
      const straight = await t.get(`/api/v4/projects/${p.id}/repository/compare?from=main&to=topic&straight=true`);
      assert.deepEqual(straight.body.diffs.map((d: any) => [d.new_path, d.deleted_file]).sort(), [['main.txt', true], ['topic.txt', false]]);
      const same = await t.get(`/api/v4/projects/${p.id}/repository/compare?from=main&to=main`);
      assert.deepEqual([same.body.compare_same_ref, same.body.commit, same.body.commits, same.body.diffs], [true, null, [], []]);
    });

    it('an unknown ref is 404 Ref Not Found; a missing parameter 400; another user\'s private project 404', async () => {
      const r = await t.get(`/api/v4/projects/${p.id}/repository/compare?from=main&to=nowhere`);
      assert.deepEqual([r.status, r.body], [404, { message: '404 Ref Not Found' }]);
      assert.equal((await t.get(`/api/v4/projects/${p.id}/repository/compare?from=main`)).status, 400);
      const other = await t.createUser();
      assert.equal((await t.get(`/api/v4/projects/${p.id}/repository/compare?from=main&to=topic`, other.token)).status, 404);
    });

    it('diverging counts: behind and ahead of the default branch per named branch, unknown names left out', async () => {
      const r = await t.get(`/api/v4/projects/${p.id}/repository/diverging_commit_counts?names[]=topic&names[]=main&names[]=nowhere`);
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(r.body, { topic: { behind: 1, ahead: 2 }, main: { behind: 0, ahead: 0 } });
      const other = await t.createUser();
      assert.equal((await t.get(`/api/v4/projects/${p.id}/repository/diverging_commit_counts?names[]=topic`, other.token)).status, 404);
    });
  });
}
