// Merging for real: each merge method's history (git log --graph), squash, removal of the source
// branch, the reference's refusals (401, 405, 406, 409), rebase, the merge ref, and what a request
// changes (commits, changes, diffs, versions, participants, reviewers), on both dialects.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS, buildTestApp, keysOf, type TestApp } from '../helpers/build.js';
import { addMember, makeProject } from '../helpers/projects.js';
import { branchTip, commitOn, repoDir } from '../helpers/branches.js';
import { MR_KEYS } from '../helpers/merge_requests.js';
import { COMMIT_KEYS } from '../helpers/keys.js';
import { gitText } from '../../src/git/git.js';

type U = { id: number; username: string; token: string };

for (const dialect of DIALECTS) {
  describe(`merging merge requests (${dialect})`, () => {
    let t: TestApp;
    let owner: U;
    let dev: U;
    let maint: U;
    before(async () => {
      t = await buildTestApp(dialect);
      owner = await t.createUser({ name: 'Owen Owner' });
      dev = await t.createUser({ name: 'Dee Dev' });
      maint = await t.createUser();
      assert.equal((await t.request('PUT', '/api/v4/application/settings', { body: { default_branch_protection: 0 } })).status, 200);
    });
    after(async () => t.close());

    async function project(settings: Record<string, unknown> = {}): Promise<any> {
      const p = await makeProject(t, owner.token, { name: `p${Math.random().toString(36).slice(2, 8)}`, initialize_with_readme: true });
      await addMember(t, 'Project', p.id, dev.id, 30);
      await addMember(t, 'Project', p.id, maint.id, 40);
      if (Object.keys(settings).length) assert.equal((await t.request('PUT', `/api/v4/projects/${p.id}`, { token: owner.token, body: settings })).status, 200);
      return p;
    }
    const open = async (p: any, source: string, body: Record<string, unknown> = {}) => {
      const r = await t.request('POST', `/api/v4/projects/${p.id}/merge_requests`, { token: dev.token, body: { source_branch: source, target_branch: 'main', title: `Merge ${source}`, ...body } });
      assert.equal(r.status, 201, r.text);
      return r.body;
    };
    const merge = (p: any, iid: number, token: string, body: Record<string, unknown> = {}) =>
      t.request('PUT', `/api/v4/projects/${p.id}/merge_requests/${iid}/merge`, { token, body });
    const graph = (p: any) => gitText(['log', '--graph', '--format=%s', 'main'], { gitDir: repoDir(t, p.id) });
    const parents = async (p: any, sha: string) => (await gitText(['rev-list', '--parents', '-n', '1', sha], { gitDir: repoDir(t, p.id) })).split(' ').slice(1);

    it('merge commit method: a merge commit with the default message, the target moved through the push path, source branch removed', async () => {
      const p = await project();
      const main0 = (await branchTip(t, p.id, 'main'))!;
      const head = await commitOn(t, p.id, 'feature', { 'f.txt': 'f\n' }, 'Add f', main0);
      const main1 = await commitOn(t, p.id, 'main', { 'm.txt': 'm\n' }, 'Main moves');
      const mr = await open(p, 'feature', { remove_source_branch: true });
      assert.equal(mr.force_remove_source_branch, true);
      const r = await merge(p, mr.iid, dev.token, { sha: head });
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(keysOf(r.body), MR_KEYS);
      assert.equal(r.body.state, 'merged');
      assert.equal(r.body.merged_by.id, dev.id);
      assert.equal(r.body.merge_user.id, dev.id);
      assert.notEqual(r.body.merged_at, null);
      assert.equal(r.body.should_remove_source_branch, true);
      const tip = (await branchTip(t, p.id, 'main'))!;
      assert.equal(r.body.merge_commit_sha, tip);
      assert.deepEqual(await parents(p, tip), [main1, head]);
      const message = await gitText(['log', '-1', '--format=%B', tip], { gitDir: repoDir(t, p.id) });
      assert.equal(message.trim(), `Merge branch 'feature' into 'main'\n\nMerge feature\n\nSee merge request ${p.path_with_namespace}!${mr.iid}`);
      assert.equal(await graph(p), `*   Merge branch 'feature' into 'main'\n|\\  \n| * Add f\n* | Main moves\n|/  \n* Initial commit`);
      assert.equal(await branchTip(t, p.id, 'feature'), null);
      // the merge is a push like any other: its event is there
      const events = await t.get(`/api/v4/projects/${p.id}/events?action=pushed`, owner.token);
      assert.ok(events.body.some((e: any) => e.push_data.ref === 'main' && e.push_data.commit_to === tip && e.author_id === dev.id), JSON.stringify(events.body));
      const again = await merge(p, mr.iid, dev.token);
      assert.equal(again.status, 405);
      assert.deepEqual(again.body, { message: '405 Method Not Allowed' });
    });

    it('refuses: 409 for a stale sha, 405 for a draft or closed request, 406 on conflicts, 401 for who may not merge', async () => {
      const p = await project();
      const main0 = (await branchTip(t, p.id, 'main'))!;
      await commitOn(t, p.id, 'a', { 'a.txt': 'a\n' }, 'a', main0);
      const mr = await open(p, 'a');
      const stale = await merge(p, mr.iid, dev.token, { sha: main0 });
      assert.equal(stale.status, 409);
      assert.deepEqual(stale.body, { message: `SHA does not match HEAD of source branch: ${mr.sha}` });
      await t.request('PUT', `/api/v4/projects/${p.id}/merge_requests/${mr.iid}`, { token: dev.token, body: { title: 'Draft: a' } });
      assert.equal((await merge(p, mr.iid, dev.token)).status, 405);
      await t.request('PUT', `/api/v4/projects/${p.id}/merge_requests/${mr.iid}`, { token: dev.token, body: { title: 'a', state_event: 'close' } });
      assert.equal((await merge(p, mr.iid, dev.token)).status, 405);

      await commitOn(t, p.id, 'c', { 'README.md': 'theirs\n' }, 'c', main0);
      await commitOn(t, p.id, 'main', { 'README.md': 'ours\n' }, 'ours');
      const conflicted = await open(p, 'c');
      const r = await merge(p, conflicted.iid, dev.token);
      assert.equal(r.status, 406);
      assert.deepEqual(r.body, { message: 'Branch cannot be merged' });

      // main protected: maintainers push, developers merge; then no one merges
      const prot = await t.request('POST', `/api/v4/projects/${p.id}/protected_branches`, { token: owner.token, body: { name: 'main', push_access_level: 40, merge_access_level: 30 } });
      assert.equal(prot.status, 201, prot.text);
      await commitOn(t, p.id, 'b', { 'b.txt': 'b\n' }, 'b', (await branchTip(t, p.id, 'main'))!);
      const mrB = await open(p, 'b');
      assert.deepEqual(mrB.user, { can_merge: true });
      assert.equal((await merge(p, mrB.iid, dev.token)).status, 200);
      await t.request('DELETE', `/api/v4/projects/${p.id}/protected_branches/main`, { token: owner.token });
      await t.request('POST', `/api/v4/projects/${p.id}/protected_branches`, { token: owner.token, body: { name: 'main', push_access_level: 30, merge_access_level: 40 } });
      await commitOn(t, p.id, 'd', { 'd.txt': 'd\n' }, 'd', (await branchTip(t, p.id, 'main'))!);
      const mrD = await open(p, 'd');
      assert.deepEqual(mrD.user, { can_merge: false });
      const refused = await merge(p, mrD.iid, dev.token);
      assert.equal(refused.status, 401);
      assert.deepEqual(refused.body, { message: '401 Unauthorized' });
      assert.equal((await merge(p, mrD.iid, maint.token)).status, 200);
    });

    it('fast-forward method: 406 until rebased (PUT …/rebase), then the target is the source head, history linear', async () => {
      const p = await project({ merge_method: 'ff' });
      const main0 = (await branchTip(t, p.id, 'main'))!;
      await commitOn(t, p.id, 'ff', { 'one.txt': '1\n' }, 'One', main0);
      await commitOn(t, p.id, 'ff', { 'two.txt': '2\n' }, 'Two');
      await commitOn(t, p.id, 'main', { 'm.txt': 'm\n' }, 'Main moves');
      const mr = await open(p, 'ff');
      assert.equal(mr.detailed_merge_status, 'need_rebase');
      assert.equal((await merge(p, mr.iid, dev.token)).status, 406);
      const rb = await t.request('PUT', `/api/v4/projects/${p.id}/merge_requests/${mr.iid}/rebase`, { token: dev.token });
      assert.equal(rb.status, 202, rb.text);
      assert.deepEqual(rb.body, { rebase_in_progress: true });
      const after = await t.get(`/api/v4/projects/${p.id}/merge_requests/${mr.iid}?include_rebase_in_progress=true`, dev.token);
      assert.equal(after.body.rebase_in_progress, false);
      assert.equal(after.body.merge_error, null);
      assert.equal(after.body.detailed_merge_status, 'mergeable');
      const r = await merge(p, mr.iid, dev.token);
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.merge_commit_sha, null);
      assert.equal(await branchTip(t, p.id, 'main'), after.body.sha);
      assert.equal(await graph(p), '* Two\n* One\n* Main moves\n* Initial commit');
      const versions = await t.get(`/api/v4/projects/${p.id}/merge_requests/${mr.iid}/versions`, dev.token);
      assert.equal(versions.body.length, 2); // before and after the rebase
    });

    it('semi-linear method: a merge commit over a source on top of the target; squash makes one commit', async () => {
      const p = await project({ merge_method: 'rebase_merge' });
      const main0 = (await branchTip(t, p.id, 'main'))!;
      await commitOn(t, p.id, 's', { 'one.txt': '1\n' }, 'One', main0);
      const head = await commitOn(t, p.id, 's', { 'two.txt': '2\n' }, 'Two');
      const mr = await open(p, 's');
      const r = await merge(p, mr.iid, dev.token, { squash: true, squash_commit_message: 'One and two' });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.squash, true);
      const tip = (await branchTip(t, p.id, 'main'))!;
      const squash = r.body.squash_commit_sha;
      assert.notEqual(squash, null);
      assert.deepEqual(await parents(p, tip), [main0, squash]);
      assert.deepEqual(await parents(p, squash), [main0]);
      assert.equal(await gitText(['rev-parse', `${squash}^{tree}`], { gitDir: repoDir(t, p.id) }), await gitText(['rev-parse', `${head}^{tree}`], { gitDir: repoDir(t, p.id) }));
      assert.equal(await graph(p), `*   Merge branch 's' into 'main'\n|\\  \n| * One and two\n|/  \n* Initial commit`);
    });

    it('a merge commit template fills its placeholders', async () => {
      const p = await project({ merge_commit_template: '%{title} (%{reference})\n\n%{issues}\nfrom %{source_branch} to %{target_branch}' });
      await commitOn(t, p.id, 'tpl', { 't.txt': 't\n' }, 't', (await branchTip(t, p.id, 'main'))!);
      const mr = await open(p, 'tpl');
      assert.equal((await merge(p, mr.iid, dev.token)).status, 200);
      const message = await gitText(['log', '-1', '--format=%B', 'main'], { gitDir: repoDir(t, p.id) });
      assert.equal(message.trim(), `Merge tpl (${p.path_with_namespace}!${mr.iid})\n\nfrom tpl to main`);
    });

    it('commits, changes, diffs, versions, participants, reviewers, merge_ref and the merge base', async () => {
      const p = await project();
      const main0 = (await branchTip(t, p.id, 'main'))!;
      const c1 = await commitOn(t, p.id, 'v', { 'v.txt': 'one\n' }, 'First', main0);
      const mr = await open(p, 'v', { reviewer_ids: [maint.id], assignee_id: owner.id });
      const base = `/api/v4/projects/${p.id}/merge_requests/${mr.iid}`;
      const c2 = await commitOn(t, p.id, 'v', { 'v.txt': 'two\n', 'w.txt': 'w\n' }, 'Second');
      const commits = await t.get(`${base}/commits`, dev.token);
      assert.equal(commits.status, 200);
      assert.deepEqual(commits.body.map((x: any) => x.id), [c2, c1]);
      assert.deepEqual(keysOf(commits.body[0]), COMMIT_KEYS);
      const changes = await t.get(`${base}/changes`, dev.token);
      assert.deepEqual(keysOf(changes.body), [...MR_KEYS, 'changes', 'overflow'].sort());
      assert.deepEqual(changes.body.changes.map((d: any) => d.new_path), ['v.txt', 'w.txt']);
      assert.equal(changes.body.changes[0].new_file, true);
      assert.match(changes.body.changes[0].diff, /^@@ -0,0 \+1 @@\n\+two\n/);
      assert.equal(changes.body.changes_count, '2');
      const diffs = await t.get(`${base}/diffs?per_page=1`, dev.token);
      assert.deepEqual(diffs.body.map((d: any) => d.new_path), ['v.txt']);
      assert.equal(diffs.headers['x-total'], '2');
      const versions = await t.get(`${base}/versions`, dev.token);
      assert.equal(versions.body.length, 2);
      assert.deepEqual(versions.body.map((v: any) => v.head_commit_sha), [c2, c1]);
      assert.deepEqual(keysOf(versions.body[0]), ['base_commit_sha', 'created_at', 'head_commit_sha', 'id', 'merge_request_id', 'patch_id_sha', 'real_size', 'start_commit_sha', 'state']);
      const old = await t.get(`${base}/versions/${versions.body[1].id}`, dev.token);
      assert.deepEqual(old.body.commits.map((x: any) => x.id), [c1]);
      assert.deepEqual(old.body.diffs.map((d: any) => d.new_path), ['v.txt']);
      assert.match(old.body.diffs[0].diff, /\+one/);
      assert.equal((await t.get(`${base}/versions/999999`, dev.token)).status, 404);
      const participants = await t.get(`${base}/participants`, dev.token);
      assert.deepEqual(participants.body.map((u: any) => u.id), [dev.id, owner.id, maint.id]);
      const reviewers = await t.get(`${base}/reviewers`, dev.token);
      assert.deepEqual(reviewers.body.map((r: any) => [r.user.id, r.state]), [[maint.id, 'unreviewed']]);
      const ref = await t.get(`${base}/merge_ref`, dev.token);
      assert.equal(ref.status, 200, ref.text);
      assert.deepEqual(await parents(p, ref.body.commit_id), [main0, c2]);
      assert.equal(await gitText(['rev-parse', `refs/merge-requests/${mr.iid}/merge`], { gitDir: repoDir(t, p.id) }), ref.body.commit_id);
      assert.equal(await gitText(['rev-parse', `refs/merge-requests/${mr.iid}/head`], { gitDir: repoDir(t, p.id) }), c2);
      const mb = await t.get(`/api/v4/projects/${p.id}/repository/merge_base?refs[]=main&refs[]=v`, dev.token);
      assert.equal(mb.status, 200);
      assert.equal(mb.body.id, main0);
      const one = await t.get(`/api/v4/projects/${p.id}/repository/merge_base?refs[]=main`, dev.token);
      assert.deepEqual([one.status, one.body], [400, { message: 'Provide at least 2 refs' }]);
      const unknown = await t.get(`/api/v4/projects/${p.id}/repository/merge_base?refs[]=main&refs[]=nope`, dev.token);
      assert.deepEqual([unknown.status, unknown.body], [400, { message: 'Could not find ref: nope' }]);
    });
  });
}
