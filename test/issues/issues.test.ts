import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS, EXTERNAL_URL, buildTestApp, keysOf, type TestApp } from '../helpers/build.js';
import { addMember as addProjectMember, makeProject } from '../helpers/projects.js';
import { makeGroup } from '../helpers/groups.js';

type U = { id: number; username: string; token: string };

const LIST_KEYS = [
  '_links', 'assignee', 'assignees', 'author', 'closed_at', 'closed_by', 'confidential', 'created_at', 'description', 'discussion_locked', 'downvotes',
  'due_date', 'has_tasks', 'id', 'iid', 'issue_type', 'labels', 'merge_requests_count', 'milestone', 'moved_to_id', 'project_id', 'references',
  'service_desk_reply_to', 'severity', 'state', 'task_completion_status', 'time_stats', 'title', 'type', 'updated_at', 'upvotes', 'user_notes_count',
  'web_url', 'weight',
].sort();
const ONE_KEYS = [...LIST_KEYS, 'subscribed'].sort();
const WITH_TASKS = [...ONE_KEYS, 'task_status'].sort();

for (const dialect of DIALECTS) {
  describe(`issues (${dialect})`, () => {
    let t: TestApp;
    let owner: U;
    let reporter: U;
    let guest: U;
    let stranger: U;
    let group: { id: number; full_path: string };
    let p: any;
    let other: any;
    let milestone: any;

    before(async () => {
      t = await buildTestApp(dialect);
      owner = await t.createUser({ name: 'Olga Owner' });
      reporter = await t.createUser();
      guest = await t.createUser();
      stranger = await t.createUser();
      group = await makeGroup(t, { token: owner.token, path: 'tracker' });
      p = await makeProject(t, owner.token, { path: 'app', namespace_id: group.id, visibility: 'private' });
      other = await makeProject(t, owner.token, { path: 'other', namespace_id: group.id });
      await addProjectMember(t, 'Project', p.id, reporter.id, 20);
      await addProjectMember(t, 'Project', p.id, guest.id, 10);
      await t.request('POST', `/api/v4/projects/${p.id}/labels`, { token: owner.token, body: { name: 'bug', color: '#ff0000', priority: 1 } });
      milestone = (await t.request('POST', `/api/v4/projects/${p.id}/milestones`, { token: owner.token, body: { title: 'v1', due_date: '2999-01-01' } })).body;
    });
    after(async () => t.close());

    const base = () => `/api/v4/projects/${p.id}/issues`;

    it('opens an issue with labels, milestone, assignees and due date; reads it', async () => {
      const r = await t.request('POST', base(), {
        token: reporter.token,
        body: { title: 'Crash on start', description: '- [x] repro\n- [ ] fix', labels: 'bug,new-one', milestone_id: milestone.id, assignee_ids: [guest.id, stranger.id], due_date: '2030-05-01' },
      });
      assert.equal(r.status, 201, r.text);
      assert.deepEqual(keysOf(r.body), WITH_TASKS);
      assert.equal(r.body.task_status, '1 of 2 checklist items completed');
      assert.equal(r.body.iid, 1);
      assert.equal(r.body.state, 'opened');
      assert.deepEqual(r.body.labels, ['bug', 'new-one']);
      assert.equal(r.body.milestone.id, milestone.id);
      // A stranger cannot be assigned in a private project.
      assert.deepEqual(r.body.assignees.map((u: any) => u.id), [guest.id]);
      assert.equal(r.body.assignee.id, guest.id);
      assert.equal(r.body.author.id, reporter.id);
      assert.equal(r.body.due_date, '2030-05-01');
      assert.equal(r.body.confidential, false);
      assert.equal(r.body.discussion_locked, null);
      assert.equal(r.body.type, 'ISSUE');
      assert.equal(r.body.issue_type, 'issue');
      assert.equal(r.body.web_url, `${EXTERNAL_URL}/tracker/app/-/issues/1`);
      assert.deepEqual(r.body.references, { short: '#1', relative: '#1', full: 'tracker/app#1' });
      assert.deepEqual(r.body.task_completion_status, { count: 2, completed_count: 1 });
      assert.equal(r.body.has_tasks, true);
      assert.equal(r.body._links.self, `${EXTERNAL_URL}/api/v4/projects/${p.id}/issues/1`);
      assert.deepEqual(r.body.time_stats, { time_estimate: 0, total_time_spent: 0, human_time_estimate: null, human_total_time_spent: null });
      assert.equal(r.body.subscribed, true);

      const got = await t.get(`${base()}/1`, guest.token);
      assert.equal(got.status, 200);
      assert.equal(got.body.id, r.body.id);
      // The guest is assigned: they follow it.
      assert.equal(got.body.subscribed, true);
      const details = await t.get(`${base()}?with_labels_details=true`, guest.token);
      assert.deepEqual(keysOf(details.body[0].labels[0]), ['color', 'description', 'description_html', 'id', 'name', 'text_color']);
      const counted = await t.get(`/api/v4/projects/${p.id}/labels/bug?with_counts=true`, guest.token);
      assert.equal(counted.status, 200);
      const withCounts = await t.get(`/api/v4/projects/${p.id}/labels?with_counts=true`, guest.token);
      assert.equal(withCounts.body.find((l: any) => l.name === 'bug').open_issues_count, 1);
    });

    it('refuses bad input, strangers, anonymous callers; 404 for unknown issues', async () => {
      const noTitle = await t.request('POST', base(), { token: reporter.token, body: {} });
      assert.equal(noTitle.status, 400);
      assert.deepEqual(noTitle.body, { message: '400 (Bad request) "title" not given' });
      const blank = await t.request('POST', base(), { token: reporter.token, body: { title: ' ' } });
      assert.equal(blank.status, 400);
      assert.deepEqual(blank.body, { message: { title: ["can't be blank"] } });
      const badState = await t.get(`${base()}?state=open`, reporter.token);
      assert.equal(badState.status, 400);
      assert.deepEqual(badState.body, { error: 'state does not have a valid value' });
      const badOrder = await t.get(`${base()}?order_by=size`, reporter.token);
      assert.equal(badOrder.status, 400);
      assert.deepEqual(badOrder.body, { error: 'order_by does not have a valid value' });
      const none = await t.request('PUT', `${base()}/1`, { token: reporter.token, body: {} });
      assert.equal(none.status, 400);
      const strangerGet = await t.get(`${base()}/1`, stranger.token);
      assert.equal(strangerGet.status, 404);
      assert.deepEqual(strangerGet.body, { message: '404 Project Not Found' });
      const anon = await t.get(base(), null);
      assert.equal(anon.status, 404);
      const anonAll = await t.get('/api/v4/issues', null);
      assert.equal(anonAll.status, 401);
      const missing = await t.get(`${base()}/999`, reporter.token);
      assert.equal(missing.status, 404);
      assert.deepEqual(missing.body, { message: '404 Issue Not Found' });
      const guestDelete = await t.request('DELETE', `${base()}/1`, { token: reporter.token });
      assert.equal(guestDelete.status, 403);
    });

    it('confidential issues: reporters, the author and assignees see them; guests do not', async () => {
      const r = await t.request('POST', base(), { token: owner.token, body: { title: 'Secret', confidential: true } });
      assert.equal(r.status, 201, r.text);
      assert.equal(r.body.confidential, true);
      assert.equal((await t.get(`${base()}/${r.body.iid}`, guest.token)).status, 404);
      assert.equal((await t.get(`${base()}/${r.body.iid}`, reporter.token)).status, 200);
      const guestList = await t.get(`${base()}?confidential=true`, guest.token);
      assert.deepEqual(guestList.body, []);
      const reporterList = await t.get(`${base()}?confidential=true`, reporter.token);
      assert.deepEqual(reporterList.body.map((i: any) => i.iid), [r.body.iid]);
      await t.request('PUT', `${base()}/${r.body.iid}`, { token: owner.token, body: { assignee_ids: [guest.id] } });
      assert.equal((await t.get(`${base()}/${r.body.iid}`, guest.token)).status, 200);
      await t.request('PUT', `${base()}/${r.body.iid}`, { token: owner.token, body: { assignee_ids: [] } });
      assert.equal((await t.get(`${base()}/${r.body.iid}`, guest.token)).status, 404);
    });

    it('lists with filters: state, labels None/Any, milestone None/Any/Upcoming, author, assignee, iids, search, not[], order', async () => {
      const c = await t.request('POST', base(), { token: guest.token, body: { title: 'Plain idea', description: 'nothing' } });
      assert.equal(c.status, 201, c.text);
      // A guest's metadata is ignored.
      const g = await t.request('POST', base(), { token: guest.token, body: { title: 'Guest labels', labels: 'bug' } });
      assert.deepEqual(g.body.labels, []);
      const iids = async (q: string, token = owner.token) => (await t.get(`${base()}?${q}`, token)).body.map((i: any) => i.iid);
      assert.deepEqual(await iids('labels=bug'), [1]);
      assert.deepEqual(await iids('labels=None'), [4, 3, 2]);
      assert.deepEqual(await iids('labels=Any'), [1]);
      assert.deepEqual(await iids('milestone=v1'), [1]);
      assert.deepEqual(await iids('milestone=None'), [4, 3, 2]);
      assert.deepEqual(await iids('milestone=Any'), [1]);
      assert.deepEqual(await iids('milestone=Upcoming'), [1]);
      assert.deepEqual(await iids(`author_id=${guest.id}`), [4, 3]);
      assert.deepEqual(await iids(`author_username=${reporter.username}`), [1]);
      assert.deepEqual(await iids(`assignee_id=${guest.id}`), [1]);
      assert.deepEqual(await iids('assignee_id=None'), [4, 3, 2]);
      assert.deepEqual(await iids(`assignee_username[]=${guest.username}`), [1]);
      assert.deepEqual(await iids('iids[]=1&iids[]=3'), [3, 1]);
      assert.deepEqual(await iids('search=IDEA'), [3]);
      assert.deepEqual(await iids('search=nothing&in=title'), []);
      assert.deepEqual(await iids('not[labels]=bug'), [4, 3, 2]);
      assert.deepEqual(await iids(`not[author_id]=${guest.id}`), [2, 1]);
      assert.deepEqual(await iids('order_by=created_at&sort=asc'), [1, 2, 3, 4]);
      assert.deepEqual(await iids('order_by=due_date&sort=asc'), [1, 2, 3, 4]);
      assert.deepEqual(await iids('order_by=label_priority&sort=asc'), [1, 2, 3, 4]);
      assert.deepEqual(await iids('order_by=title&sort=asc'), [1, 4, 3, 2]);
      assert.deepEqual(await iids('scope=created_by_me', guest.token), [4, 3]);
      const page = await t.get(`${base()}?per_page=2`, owner.token);
      assert.equal(page.headers['x-total'], '4');
      assert.equal(page.headers['x-next-page'], '2');
      const keyset = await t.get(`${base()}?pagination=keyset&per_page=2&order_by=created_at&sort=desc`, owner.token);
      assert.equal(keyset.status, 200, keyset.text);
      assert.deepEqual(keyset.body.map((i: any) => i.iid), [4, 3]);
      const next = String(keyset.headers.link).match(/<([^>]+)>/)![1].replace(EXTERNAL_URL, '');
      assert.deepEqual((await t.get(next, owner.token)).body.map((i: any) => i.iid), [2, 1]);

      const mine = await t.get('/api/v4/issues', guest.token);
      assert.deepEqual(mine.body.map((i: any) => i.iid), [4, 3]);
      const everyone = await t.get('/api/v4/issues?scope=all', guest.token);
      assert.deepEqual(everyone.body.map((i: any) => i.iid), [4, 3, 1]);
      const groupList = await t.get(`/api/v4/groups/${group.id}/issues`, owner.token);
      assert.deepEqual(groupList.body.map((i: any) => i.iid), [4, 3, 2, 1]);
      const stats = await t.get(`${base()}/../issues_statistics`.replace('/issues/../', '/'), owner.token);
      assert.equal(stats.status, 200, stats.text);
      assert.deepEqual(stats.body, { statistics: { counts: { all: 4, closed: 0, opened: 4 } } });
      const guestStats = await t.get('/api/v4/issues_statistics?scope=all', guest.token);
      assert.deepEqual(guestStats.body, { statistics: { counts: { all: 3, closed: 0, opened: 3 } } });
      const milestoneIssues = await t.get(`/api/v4/projects/${p.id}/milestones/${milestone.id}/issues`, guest.token);
      assert.deepEqual(milestoneIssues.body.map((i: any) => i.iid), [1]);
    });

    it('updates: close and reopen, labels add/remove, milestone, lock; the author may edit, a guest may not', async () => {
      const closed = await t.request('PUT', `${base()}/1`, { token: reporter.token, body: { state_event: 'close', add_labels: 'extra', remove_labels: 'new-one', discussion_locked: true } });
      assert.equal(closed.status, 200, closed.text);
      assert.equal(closed.body.state, 'closed');
      assert.equal(closed.body.closed_by.id, reporter.id);
      assert.ok(closed.body.closed_at);
      assert.deepEqual(closed.body.labels, ['bug', 'extra']);
      assert.equal(closed.body.discussion_locked, true);
      const closedList = await t.get(`${base()}?state=closed`, owner.token);
      assert.deepEqual(closedList.body.map((i: any) => i.iid), [1]);
      const reopened = await t.request('PUT', `${base()}/1`, { token: reporter.token, body: { state_event: 'reopen', milestone_id: 0, labels: '' } });
      assert.equal(reopened.body.state, 'opened');
      assert.equal(reopened.body.closed_at, null);
      assert.equal(reopened.body.closed_by, null);
      assert.equal(reopened.body.milestone, null);
      assert.deepEqual(reopened.body.labels, []);
      const byAuthor = await t.request('PUT', `${base()}/3`, { token: guest.token, body: { title: 'Better idea' } });
      assert.equal(byAuthor.status, 200, byAuthor.text);
      assert.equal(byAuthor.body.title, 'Better idea');
      const hidden = await t.request('PUT', `${base()}/2`, { token: guest.token, body: { title: 'x' } });
      assert.equal(hidden.status, 404);
      const fifth = await t.request('POST', base(), { token: reporter.token, body: { title: 'Fifth' } });
      const notAuthor = await t.request('PUT', `${base()}/${fifth.body.iid}`, { token: guest.token, body: { title: 'x' } });
      assert.equal(notAuthor.status, 403);
      assert.deepEqual(notAuthor.body, { message: '403 Forbidden' });
    });

    it('time tracking, subscriptions, links, participants', async () => {
      const est = await t.request('POST', `${base()}/1/time_estimate`, { token: reporter.token, body: { duration: '1w 1d 3h30m' } });
      assert.equal(est.status, 201, est.text + JSON.stringify(est.headers));
      assert.deepEqual(est.body, { time_estimate: 6 * 8 * 3600 + 3 * 3600 + 1800, total_time_spent: 0, human_time_estimate: '1w 1d 3h 30m', human_total_time_spent: null });
      const spent = await t.request('POST', `${base()}/1/add_spent_time`, { token: reporter.token, body: { duration: '2h' } });
      assert.equal(spent.body.total_time_spent, 7200);
      const less = await t.request('POST', `${base()}/1/add_spent_time`, { token: reporter.token, body: { duration: '-30m' } });
      assert.equal(less.body.human_total_time_spent, '1h 30m');
      const bad = await t.request('POST', `${base()}/1/time_estimate`, { token: reporter.token, body: { duration: 'soon' } });
      assert.equal(bad.status, 400);
      const stats = await t.get(`${base()}/1/time_stats`, guest.token);
      assert.equal(stats.body.total_time_spent, 5400);
      const reset = await t.request('POST', `${base()}/1/reset_spent_time`, { token: reporter.token });
      assert.equal(reset.body.total_time_spent, 0);
      assert.equal((await t.request('POST', `${base()}/1/time_estimate`, { token: guest.token, body: { duration: '1h' } })).status, 403);

      const sub = await t.request('POST', `${base()}/5/subscribe`, { token: guest.token });
      assert.equal(sub.status, 201, sub.text);
      assert.equal(sub.body.subscribed, true);
      assert.equal((await t.request('POST', `${base()}/5/subscribe`, { token: guest.token })).status, 304);
      const unsub = await t.request('POST', `${base()}/5/unsubscribe`, { token: guest.token });
      assert.equal(unsub.body.subscribed, false);

      const link = await t.request('POST', `${base()}/1/links`, { token: reporter.token, body: { target_project_id: p.id, target_issue_iid: 5 } });
      assert.equal(link.status, 201, link.text);
      assert.equal(link.body.source_issue.iid, 1);
      assert.equal(link.body.target_issue.iid, 5);
      assert.equal(link.body.link_type, 'relates_to');
      const again = await t.request('POST', `${base()}/1/links`, { token: reporter.token, body: { target_project_id: p.id, target_issue_iid: 5 } });
      assert.equal(again.status, 409);
      const links = await t.get(`${base()}/5/links`, guest.token);
      assert.deepEqual(links.body.map((l: any) => [l.iid, l.link_type]), [[1, 'relates_to']]);
      const removed = await t.request('DELETE', `${base()}/5/links/${links.body[0].issue_link_id}`, { token: reporter.token });
      assert.equal(removed.status, 200, removed.text);
      assert.deepEqual((await t.get(`${base()}/5/links`, guest.token)).body, []);

      const people = await t.get(`${base()}/1/participants`, guest.token);
      assert.deepEqual(people.body.map((u: any) => u.id), [reporter.id, guest.id]);
    });

    it('move, clone, reorder, delete', async () => {
      const cloned = await t.request('POST', `${base()}/2/clone`, { token: owner.token, body: { to_project_id: other.id } });
      assert.equal(cloned.status, 201, cloned.text);
      assert.equal(cloned.body.project_id, other.id);
      assert.equal(cloned.body.iid, 1);
      const moved = await t.request('POST', `${base()}/2/move`, { token: owner.token, body: { to_project_id: other.id } });
      assert.equal(moved.status, 201, moved.text);
      assert.equal(moved.body.iid, 2);
      const old = await t.get(`${base()}/2`, owner.token);
      assert.equal(old.body.state, 'closed');
      assert.equal(old.body.moved_to_id, moved.body.id);
      const same = await t.request('POST', `${base()}/3/move`, { token: owner.token, body: { to_project_id: p.id } });
      assert.equal(same.status, 400);
      assert.deepEqual(same.body, { message: 'Cannot move issue to project it originates from!' });

      const all = (await t.get(base(), owner.token)).body;
      const [i1, i3] = [all.find((i: any) => i.iid === 1), all.find((i: any) => i.iid === 3)];
      const re = await t.request('PUT', `${base()}/4/reorder`, { token: owner.token, body: { move_after_id: i3.id, move_before_id: i1.id } });
      assert.equal(re.status, 200, re.text);
      const ordered = (await t.get(`${base()}?order_by=relative_position&sort=asc&iids[]=1&iids[]=3&iids[]=4`, owner.token)).body.map((i: any) => i.iid);
      assert.deepEqual(ordered, [3, 4, 1]);

      const del = await t.request('DELETE', `${base()}/4`, { token: owner.token });
      assert.equal(del.status, 204);
      assert.equal((await t.get(`${base()}/4`, owner.token)).status, 404);
      const byId = await t.get(`/api/v4/issues/${i1.id}`);
      assert.equal(byId.status, 200);
      assert.equal(byId.body.iid, 1);
      assert.equal((await t.get(`/api/v4/issues/${i1.id}`, owner.token)).status, 403);
    });
  });
}
