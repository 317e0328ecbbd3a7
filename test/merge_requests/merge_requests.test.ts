// Merge requests: the resource (create, get, list with filters and pages, update, delete), exact
// shapes and the reference's refusals, on both dialects.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS, EXTERNAL_URL, buildTestApp, keysOf, type TestApp } from '../helpers/build.js';
import { addMember, makeGroup, makeProject } from '../helpers/projects.js';
import { branchTip, commitOn } from '../helpers/branches.js';
import { MR_BASIC_KEYS, MR_KEYS, MR_SIMPLE_KEYS } from '../helpers/merge_requests.js';

type U = { id: number; username: string; token: string };

for (const dialect of DIALECTS) {
  describe(`merge requests (${dialect})`, () => {
    let t: TestApp;
    let owner: U;
    let dev: U;
    let reporter: U;
    let stranger: U;
    before(async () => {
      t = await buildTestApp(dialect);
      owner = await t.createUser();
      dev = await t.createUser();
      reporter = await t.createUser();
      stranger = await t.createUser();
      // No default protection: these tests shape protection themselves.
      assert.equal((await t.request('PUT', '/api/v4/application/settings', { body: { default_branch_protection: 0 } })).status, 200);
    });
    after(async () => t.close());

    async function project(body: Record<string, unknown> = {}): Promise<any> {
      const p = await makeProject(t, owner.token, { name: `p${Math.random().toString(36).slice(2, 8)}`, initialize_with_readme: true, ...body });
      await addMember(t, 'Project', p.id, dev.id, 30);
      await addMember(t, 'Project', p.id, reporter.id, 20);
      return p;
    }
    const open = (p: any, token: string, body: Record<string, unknown>) => t.request('POST', `/api/v4/projects/${p.id}/merge_requests`, { token, body });

    it('opens a merge request with the exact shape: iid, references, web_url, sha, diff_refs, merge status, changes_count', async () => {
      const p = await project();
      const main = (await branchTip(t, p.id, 'main'))!;
      const head = await commitOn(t, p.id, 'feature', { 'a.txt': 'a\n', 'b.txt': 'b\n' }, 'Add a and b', main);
      const r = await open(p, dev.token, {
        source_branch: 'feature', target_branch: 'main', title: 'Add files', description: '- [x] one\n- [ ] two', assignee_ids: [owner.id], reviewer_ids: [reporter.id],
      });
      assert.equal(r.status, 201, r.text);
      const mr = r.body;
      assert.deepEqual(keysOf(mr), MR_KEYS);
      assert.equal(mr.iid, 1);
      assert.equal(mr.project_id, p.id);
      assert.equal(mr.state, 'opened');
      assert.equal(mr.author.id, dev.id);
      assert.deepEqual(mr.assignees.map((u: any) => u.id), [owner.id]);
      assert.equal(mr.assignee.id, owner.id);
      assert.deepEqual(mr.reviewers.map((u: any) => u.id), [reporter.id]);
      assert.equal(mr.sha, head);
      assert.deepEqual(mr.diff_refs, { base_sha: main, head_sha: head, start_sha: main });
      assert.equal(mr.merge_status, 'can_be_merged');
      assert.equal(mr.detailed_merge_status, 'mergeable');
      assert.equal(mr.has_conflicts, false);
      assert.equal(mr.changes_count, '2');
      assert.equal(mr.reference, '!1');
      assert.deepEqual(mr.references, { short: '!1', relative: '!1', full: `${p.path_with_namespace}!1` });
      assert.equal(mr.web_url, `${EXTERNAL_URL}/${p.path_with_namespace}/-/merge_requests/1`);
      assert.deepEqual(mr.time_stats, { time_estimate: 0, total_time_spent: 0, human_time_estimate: null, human_total_time_spent: null });
      assert.deepEqual(mr.task_completion_status, { count: 2, completed_count: 1 });
      assert.deepEqual(mr.user, { can_merge: true });
      assert.equal(mr.draft, false);
      assert.equal(mr.head_pipeline, null);
      assert.equal(mr.milestone, null);
      assert.deepEqual(mr.labels, []);

      const got = await t.get(`/api/v4/projects/${p.id}/merge_requests/1`, reporter.token);
      assert.equal(got.status, 200);
      assert.deepEqual(keysOf(got.body), MR_KEYS);
      assert.deepEqual(got.body.user, { can_merge: false });
      const second = await open(p, dev.token, { source_branch: 'feature', target_branch: 'main', title: 'again' });
      assert.equal(second.status, 409);
      assert.deepEqual(second.body, { message: ['Another open merge request already exists for this source branch: !1'] });
    });

    it('refuses bad input as the reference: missing params, same branch, unknown branches', async () => {
      const p = await project();
      await commitOn(t, p.id, 'x', { 'x.txt': 'x\n' }, 'x', 'main');
      const missing = await open(p, dev.token, { source_branch: 'x', target_branch: 'main' });
      assert.equal(missing.status, 400);
      assert.deepEqual(missing.body, { message: '400 (Bad request) "title" not given' });
      const same = await open(p, dev.token, { source_branch: 'main', target_branch: 'main', title: 't' });
      assert.equal(same.status, 422);
      assert.deepEqual(same.body, { message: ["You can't use same project/branch for source and target"] });
      const nope = await open(p, dev.token, { source_branch: 'nope', target_branch: 'main', title: 't' });
      assert.equal(nope.status, 400);
      assert.deepEqual(nope.body, { message: { source_branch: ['does not exist'] } });
      const nope2 = await open(p, dev.token, { source_branch: 'x', target_branch: 'nope', title: 't' });
      assert.deepEqual(nope2.body, { message: { target_branch: ['does not exist'] } });
    });

    it('answers 401 without a token, 404 for a private project and an unknown iid, 403 for a reporter creating or a stranger deleting', async () => {
      const p = await project();
      await commitOn(t, p.id, 'y', { 'y.txt': 'y\n' }, 'y', 'main');
      assert.equal((await t.request('POST', `/api/v4/projects/${p.id}/merge_requests`, { token: '', body: { source_branch: 'y', target_branch: 'main', title: 't' } })).status, 401);
      const hidden = await open(p, stranger.token, { source_branch: 'y', target_branch: 'main', title: 't' });
      assert.equal(hidden.status, 404);
      assert.deepEqual(hidden.body, { message: '404 Project Not Found' });
      const rep = await open(p, reporter.token, { source_branch: 'y', target_branch: 'main', title: 't' });
      assert.equal(rep.status, 403);
      assert.equal((await t.get(`/api/v4/projects/${p.id}/merge_requests/99`, dev.token)).status, 404);
      assert.deepEqual((await t.get(`/api/v4/projects/${p.id}/merge_requests/99`, dev.token)).body, { message: '404 Not found' });
      assert.equal((await t.get(`/api/v4/projects/${p.id}/merge_requests`, stranger.token)).status, 404);
      const made = await open(p, dev.token, { source_branch: 'y', target_branch: 'main', title: 't' });
      assert.equal(made.status, 201);
      assert.equal((await t.request('DELETE', `/api/v4/projects/${p.id}/merge_requests/${made.body.iid}`, { token: dev.token })).status, 403);
      assert.equal((await t.request('DELETE', `/api/v4/projects/${p.id}/merge_requests/${made.body.iid}`, { token: owner.token })).status, 204);
      assert.equal((await t.get(`/api/v4/projects/${p.id}/merge_requests/${made.body.iid}`, dev.token)).status, 404);
    });

    it('updates: title and draft, close and reopen, assignees; at least one parameter', async () => {
      const p = await project();
      await commitOn(t, p.id, 'u', { 'u.txt': 'u\n' }, 'u', 'main');
      const mr = (await open(p, dev.token, { source_branch: 'u', target_branch: 'main', title: 'Draft: first' })).body;
      assert.equal(mr.draft, true);
      assert.equal(mr.work_in_progress, true);
      assert.equal(mr.detailed_merge_status, 'draft_status');
      const url = `/api/v4/projects/${p.id}/merge_requests/${mr.iid}`;
      const none = await t.request('PUT', url, { token: dev.token, body: {} });
      assert.equal(none.status, 400);
      assert.match(none.body.error, /^assignee_id, assignee_ids, .* are missing, at least one parameter must be provided$/);
      const renamed = await t.request('PUT', url, { token: dev.token, body: { title: 'Ready now', assignee_id: dev.id } });
      assert.equal(renamed.status, 200, renamed.text);
      assert.equal(renamed.body.draft, false);
      assert.equal(renamed.body.assignee.id, dev.id);
      const closed = await t.request('PUT', url, { token: dev.token, body: { state_event: 'close' } });
      assert.equal(closed.body.state, 'closed');
      assert.equal(closed.body.closed_by.id, dev.id);
      assert.notEqual(closed.body.closed_at, null);
      const reopened = await t.request('PUT', url, { token: dev.token, body: { state_event: 'reopen' } });
      assert.equal(reopened.body.state, 'opened');
      const bad = await t.request('PUT', url, { token: dev.token, body: { state_event: 'merge' } });
      assert.equal(bad.status, 400);
      assert.deepEqual(bad.body, { error: 'state_event does not have a valid value' });
      assert.equal((await t.request('PUT', url, { token: reporter.token, body: { title: 'x' } })).status, 403);
    });

    it('lists with filters, view=simple, iids, not[], search, offset and keyset pages; group and global lists', async () => {
      const g = await makeGroup(t, `g${Math.random().toString(36).slice(2, 8)}`);
      await addMember(t, 'Namespace', g.id, owner.id, 50);
      const p = await project({ namespace_id: g.id });
      for (const b of ['l1', 'l2', 'l3']) await commitOn(t, p.id, b, { [`${b}.txt`]: b }, b, 'main');
      await open(p, dev.token, { source_branch: 'l1', target_branch: 'main', title: 'Fix the parser', assignee_id: owner.id });
      await open(p, owner.token, { source_branch: 'l2', target_branch: 'main', title: 'Draft: add docs', description: 'about the parser' });
      await open(p, dev.token, { source_branch: 'l3', target_branch: 'main', title: 'Speed up' });
      const base = `/api/v4/projects/${p.id}/merge_requests`;
      const all = await t.get(base, reporter.token);
      assert.equal(all.status, 200);
      assert.equal(all.headers['x-total'], '3');
      assert.deepEqual(all.body.map((m: any) => m.iid), [3, 2, 1]);
      for (const m of all.body) assert.deepEqual(keysOf(m), MR_BASIC_KEYS);
      const simple = await t.get(`${base}?view=simple`, reporter.token);
      for (const m of simple.body) assert.deepEqual(keysOf(m), MR_SIMPLE_KEYS);
      const iids = (q: string, token = reporter.token) => t.get(`${base}?${q}`, token).then((r) => (assert.equal(r.status, 200, r.text), r.body.map((m: any) => m.iid)));
      assert.deepEqual(await iids(`author_id=${dev.id}`), [3, 1]);
      assert.deepEqual(await iids(`author_username=${owner.username}`), [2]);
      assert.deepEqual(await iids(`assignee_id=${owner.id}`), [1]);
      assert.deepEqual(await iids('assignee_id=None'), [3, 2]);
      assert.deepEqual(await iids('assignee_id=any'), [1]);
      assert.deepEqual(await iids('wip=yes'), [2]);
      assert.deepEqual(await iids('wip=no'), [3, 1]);
      assert.deepEqual(await iids('search=parser'), [2, 1]);
      assert.deepEqual(await iids('search=parser&in=title'), [1]);
      assert.deepEqual(await iids('source_branch=l2'), [2]);
      assert.deepEqual(await iids(`not[author_id]=${dev.id}`), [2]);
      assert.deepEqual(await iids('iids[]=1&iids[]=3'), [3, 1]);
      assert.deepEqual(await iids('order_by=title&sort=asc'), [2, 1, 3]);
      assert.deepEqual(await iids('state=closed'), []);
      assert.deepEqual(await iids('milestone=None'), [3, 2, 1]);
      assert.deepEqual(await iids('labels=bug'), []);
      const bad = await t.get(`${base}?assignee_id=someone`, reporter.token);
      assert.equal(bad.status, 400);
      assert.deepEqual(bad.body, { error: 'assignee_id should be an integer, none or any' });
      const excl = await t.get(`${base}?author_id=1&author_username=x`, reporter.token);
      assert.deepEqual(excl.body, { error: 'author_id, author_username are mutually exclusive' });
      const badState = await t.get(`${base}?state=open`, reporter.token);
      assert.deepEqual(badState.body, { error: 'state does not have a valid value' });

      const page1 = await t.get(`${base}?per_page=2`, reporter.token);
      assert.deepEqual(page1.body.map((m: any) => m.iid), [3, 2]);
      assert.equal(page1.headers['x-next-page'], '2');
      const k1 = await t.get(`${base}?pagination=keyset&per_page=2&order_by=created_at&sort=desc`, reporter.token);
      assert.deepEqual(k1.body.map((m: any) => m.iid), [3, 2]);
      const next = /<([^>]+)>; rel="next"/.exec(k1.headers.link as string)![1];
      const k2 = await t.get(next.replace(EXTERNAL_URL, ''), reporter.token);
      assert.deepEqual(k2.body.map((m: any) => m.iid), [1]);

      const group = await t.get(`/api/v4/groups/${g.id}/merge_requests?state=opened`, owner.token);
      assert.equal(group.status, 200, group.text);
      assert.deepEqual(group.body.map((m: any) => m.iid), [3, 2, 1]);
      const mine = await t.get('/api/v4/merge_requests', dev.token);
      assert.deepEqual(mine.body.filter((m: any) => m.project_id === p.id).map((m: any) => m.iid), [3, 1]);
      const assigned = await t.get('/api/v4/merge_requests?scope=assigned_to_me', owner.token);
      assert.deepEqual(assigned.body.filter((m: any) => m.project_id === p.id).map((m: any) => m.iid), [1]);
      const strangers = await t.get('/api/v4/merge_requests?scope=all', stranger.token);
      assert.equal(strangers.body.filter((m: any) => m.project_id === p.id).length, 0);
      assert.equal((await t.get('/api/v4/merge_requests', '')).status, 401);
    });

    it('reports conflicts: has_conflicts and cannot_be_merged; a new push makes a new version', async () => {
      const p = await project();
      const main = (await branchTip(t, p.id, 'main'))!;
      await commitOn(t, p.id, 'c', { 'README.md': 'theirs\n' }, 'c', main);
      await commitOn(t, p.id, 'main', { 'README.md': 'ours\n' }, 'main change');
      const mr = (await open(p, dev.token, { source_branch: 'c', target_branch: 'main', title: 'conflict' })).body;
      assert.equal(mr.merge_status, 'cannot_be_merged');
      assert.equal(mr.has_conflicts, true);
      assert.equal(mr.detailed_merge_status, 'broken_status');
    });
  });
}
