import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS, EXTERNAL_URL, buildTestApp, keysOf, type TestApp } from '../helpers/build.js';
import { addMember as addProjectMember, makeProject } from '../helpers/projects.js';
import { makeGroup } from '../helpers/groups.js';

type U = { id: number; username: string; token: string };

const COMMON = ['created_at', 'description', 'due_date', 'expired', 'id', 'iid', 'start_date', 'state', 'title', 'updated_at', 'web_url'];
const PROJECT_KEYS = [...COMMON, 'project_id'].sort();
const GROUP_KEYS = [...COMMON, 'group_id'].sort();

for (const dialect of DIALECTS) {
  describe(`milestones (${dialect})`, () => {
    let t: TestApp;
    let owner: U;
    let reporter: U;
    let guest: U;
    let stranger: U;
    let group: { id: number; full_path: string };
    let p: any;

    before(async () => {
      t = await buildTestApp(dialect);
      owner = await t.createUser();
      reporter = await t.createUser();
      guest = await t.createUser();
      stranger = await t.createUser();
      group = await makeGroup(t, { token: owner.token, path: 'plan' });
      p = await makeProject(t, owner.token, { path: 'app', namespace_id: group.id });
      await addProjectMember(t, 'Project', p.id, reporter.id, 20);
      await addProjectMember(t, 'Project', p.id, guest.id, 10);
    });
    after(async () => t.close());

    const base = () => `/api/v4/projects/${p.id}/milestones`;

    it('creates project milestones with iids per project, reads and lists them with filters', async () => {
      const a = await t.request('POST', base(), { token: reporter.token, body: { title: 'v1.0', description: 'First', due_date: '2000-01-31', start_date: '2000-01-01' } });
      assert.equal(a.status, 201, a.text);
      assert.deepEqual(keysOf(a.body), PROJECT_KEYS);
      assert.equal(a.body.iid, 1);
      assert.equal(a.body.project_id, p.id);
      assert.equal(a.body.state, 'active');
      assert.equal(a.body.expired, true);
      assert.equal(a.body.web_url, `${EXTERNAL_URL}/plan/app/-/milestones/1`);
      const b = await t.request('POST', base(), { token: reporter.token, body: { title: 'v2.0' } });
      assert.equal(b.body.iid, 2);
      assert.equal(b.body.due_date, null);
      assert.equal(b.body.expired, false);

      const got = await t.get(`${base()}/${a.body.id}`, guest.token);
      assert.equal(got.status, 200);
      assert.deepEqual(got.body, a.body);

      const all = await t.get(base(), guest.token);
      assert.equal(all.headers['x-total'], '2');
      // Soonest due first, those without a due date last.
      assert.deepEqual(all.body.map((m: any) => m.title), ['v1.0', 'v2.0']);
      assert.deepEqual((await t.get(`${base()}?iids[]=2`, guest.token)).body.map((m: any) => m.iid), [2]);
      assert.deepEqual((await t.get(`${base()}?title=v1.0`, guest.token)).body.map((m: any) => m.iid), [1]);
      assert.deepEqual((await t.get(`${base()}?search=FIRST`, guest.token)).body.map((m: any) => m.iid), [1]);
    });

    it('closes and reopens with state_event; filters by state', async () => {
      const list = await t.get(base(), owner.token);
      const id = list.body[0].id;
      const closed = await t.request('PUT', `${base()}/${id}`, { token: reporter.token, body: { state_event: 'close' } });
      assert.equal(closed.status, 200, closed.text);
      assert.equal(closed.body.state, 'closed');
      assert.deepEqual((await t.get(`${base()}?state=closed`, owner.token)).body.map((m: any) => m.id), [id]);
      assert.equal((await t.get(`${base()}?state=active`, owner.token)).body.length, 1);
      const active = await t.request('PUT', `${base()}/${id}`, { token: reporter.token, body: { state_event: 'activate', title: 'v1.0.0' } });
      assert.equal(active.body.state, 'active');
      assert.equal(active.body.title, 'v1.0.0');
    });

    it('refuses bad input, taken titles, low roles, strangers, anonymous callers', async () => {
      const noTitle = await t.request('POST', base(), { token: owner.token, body: {} });
      assert.equal(noTitle.status, 400);
      assert.deepEqual(noTitle.body, { message: '400 (Bad request) "title" not given' });
      const taken = await t.request('POST', base(), { token: owner.token, body: { title: 'v2.0' } });
      assert.equal(taken.status, 400);
      assert.deepEqual(taken.body, { message: 'Failed to create milestone {:title=>["has already been taken"]}' });
      const dates = await t.request('POST', base(), { token: owner.token, body: { title: 'x', start_date: '2030-02-01', due_date: '2030-01-01' } });
      assert.equal(dates.status, 400);
      assert.deepEqual(dates.body, { message: 'Failed to create milestone {:due_date=>["must be greater than start date"]}' });
      const badState = await t.request('GET', `${base()}?state=open`, { token: owner.token });
      assert.equal(badState.status, 400);
      assert.deepEqual(badState.body, { error: 'state does not have a valid value' });
      const badEvent = await t.request('PUT', `${base()}/1`, { token: owner.token, body: { state_event: 'reopen' } });
      assert.equal(badEvent.status, 400);
      assert.deepEqual(badEvent.body, { error: 'state_event does not have a valid value' });
      const none = await t.request('PUT', `${base()}/1`, { token: owner.token, body: {} });
      assert.equal(none.status, 400);
      assert.deepEqual(none.body, { error: 'title, description, start_date, due_date, state_event are missing, at least one parameter must be provided' });
      const asGuest = await t.request('POST', base(), { token: guest.token, body: { title: 'g' } });
      assert.equal(asGuest.status, 403);
      const stranger404 = await t.get(base(), stranger.token);
      assert.equal(stranger404.status, 404);
      assert.deepEqual(stranger404.body, { message: '404 Project Not Found' });
      const anon = await t.get(base(), null);
      assert.equal(anon.status, 401);
      const unknown = await t.get(`${base()}/999999`, owner.token);
      assert.equal(unknown.status, 404);
      assert.deepEqual(unknown.body, { message: '404 Milestone Not Found' });
    });

    it('group milestones: create, list with the project\'s include_ancestors, promote a project milestone, delete', async () => {
      const g = await t.request('POST', `/api/v4/groups/${group.id}/milestones`, { token: owner.token, body: { title: 'Q1' } });
      assert.equal(g.status, 201, g.text);
      assert.deepEqual(keysOf(g.body), GROUP_KEYS);
      assert.equal(g.body.web_url, `${EXTERNAL_URL}/groups/plan/-/milestones/1`);
      const withGroup = await t.get(`${base()}?include_ancestors=true`, guest.token);
      assert.ok(withGroup.body.some((m: any) => m.id === g.body.id));
      const own = await t.get(base(), guest.token);
      assert.ok(!own.body.some((m: any) => m.id === g.body.id));

      const pm = await t.request('POST', base(), { token: owner.token, body: { title: 'Q2' } });
      const promoted = await t.request('POST', `${base()}/${pm.body.id}/promote`, { token: owner.token });
      assert.equal(promoted.status, 200, promoted.text);
      assert.equal(promoted.text, '200');
      const groupList = await t.get(`/api/v4/groups/${group.id}/milestones`, owner.token);
      assert.deepEqual(groupList.body.map((m: any) => m.title).sort(), ['Q1', 'Q2']);
      assert.equal((await t.get(`${base()}/${pm.body.id}`, owner.token)).status, 404);

      const personal = await makeProject(t, owner.token, { path: 'solo' });
      const solo = await t.request('POST', `/api/v4/projects/${personal.id}/milestones`, { token: owner.token, body: { title: 'S' } });
      const noGroup = await t.request('POST', `/api/v4/projects/${personal.id}/milestones/${solo.body.id}/promote`, { token: owner.token });
      assert.equal(noGroup.status, 400);
      assert.deepEqual(noGroup.body, { message: 'Project does not belong to a group.' });

      const del = await t.request('DELETE', `/api/v4/groups/${group.id}/milestones/${g.body.id}`, { token: owner.token });
      assert.equal(del.status, 204);
      assert.equal((await t.get(`/api/v4/groups/${group.id}/milestones/${g.body.id}`, owner.token)).status, 404);
      const delProject = await t.request('DELETE', `${base()}/${own.body[0].id}`, { token: guest.token });
      assert.equal(delProject.status, 403);
    });
  });
}
