import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS, buildTestApp, keysOf, type TestApp } from '../helpers/build.js';
import { addMember as addProjectMember, makeProject } from '../helpers/projects.js';
import { addMember, makeGroup } from '../helpers/groups.js';

type U = { id: number; username: string; token: string };

const GROUP_LABEL_KEYS = ['color', 'description', 'description_html', 'id', 'name', 'subscribed', 'text_color'];
const PROJECT_LABEL_KEYS = [...GROUP_LABEL_KEYS, 'is_project_label', 'priority'].sort();
const COUNT_KEYS = ['closed_issues_count', 'open_issues_count', 'open_merge_requests_count'];

for (const dialect of DIALECTS) {
  describe(`labels (${dialect})`, () => {
    let t: TestApp;
    let owner: U;
    let reporter: U;
    let guest: U;
    let stranger: U;
    let group: { id: number; full_path: string };
    let p: any;
    let other: any;

    before(async () => {
      t = await buildTestApp(dialect);
      owner = await t.createUser();
      reporter = await t.createUser();
      guest = await t.createUser();
      stranger = await t.createUser();
      group = await makeGroup(t, { token: owner.token, path: 'team' });
      p = await makeProject(t, owner.token, { path: 'app', namespace_id: group.id });
      other = await makeProject(t, owner.token, { path: 'lib', namespace_id: group.id });
      await addProjectMember(t, 'Project', p.id, reporter.id, 20);
      await addProjectMember(t, 'Project', p.id, guest.id, 10);
    });
    after(async () => t.close());

    const base = () => `/api/v4/projects/${p.id}/labels`;

    it('creates a project label with priority, reads it by id and by title, lists it', async () => {
      const r = await t.request('POST', base(), { token: reporter.token, body: { name: 'bug', color: '#d9534f', description: 'Something *broken*', priority: 3 } });
      assert.equal(r.status, 201, r.text);
      assert.equal(r.headers['content-type'], 'application/json');
      assert.deepEqual(keysOf(r.body), PROJECT_LABEL_KEYS);
      assert.equal(r.body.name, 'bug');
      assert.equal(r.body.color, '#d9534f');
      assert.equal(r.body.text_color, '#FFFFFF');
      assert.equal(r.body.description_html, 'Something <em>broken</em>');
      assert.equal(r.body.priority, 3);
      assert.equal(r.body.is_project_label, true);
      assert.equal(r.body.subscribed, false);

      const byId = await t.get(`${base()}/${r.body.id}`, guest.token);
      assert.equal(byId.status, 200);
      assert.deepEqual(byId.body, r.body);
      const byTitle = await t.get(`${base()}/bug`, guest.token);
      assert.equal(byTitle.body.id, r.body.id);

      // A CSS colour name is kept as its hex value; a light colour gets dark text.
      const named = await t.request('POST', base(), { token: owner.token, body: { name: 'docs', color: 'yellow' } });
      assert.equal(named.status, 201, named.text);
      assert.equal(named.body.color, '#FFFF00');
      assert.equal(named.body.text_color, '#1F1E24');
      assert.equal(named.body.priority, null);
      assert.equal(named.body.description, null);
      assert.equal(named.body.description_html, '');

      const list = await t.get(base(), guest.token);
      assert.equal(list.status, 200);
      assert.equal(list.headers['x-total'], '2');
      assert.deepEqual(list.body.map((l: any) => l.name), ['bug', 'docs']);
    });

    it('refuses bad input, a taken name, too low a role, strangers and anonymous callers', async () => {
      const missing = await t.request('POST', base(), { token: owner.token, body: { name: 'x' } });
      assert.equal(missing.status, 400);
      assert.deepEqual(missing.body, { message: '400 (Bad request) "color" not given' });
      const badColor = await t.request('POST', base(), { token: owner.token, body: { name: 'x', color: 'notacolor' } });
      assert.equal(badColor.status, 400);
      assert.deepEqual(badColor.body, { message: { color: ['must be a valid color code'] } });
      const comma = await t.request('POST', base(), { token: owner.token, body: { name: 'a,b', color: '#fff' } });
      assert.equal(comma.status, 400);
      assert.deepEqual(comma.body, { message: { title: ['is invalid'] } });
      const taken = await t.request('POST', base(), { token: owner.token, body: { name: 'bug', color: '#fff' } });
      assert.equal(taken.status, 409);
      assert.deepEqual(taken.body, { message: 'Label already exists' });
      const asGuest = await t.request('POST', base(), { token: guest.token, body: { name: 'g', color: '#fff' } });
      assert.equal(asGuest.status, 403);
      assert.deepEqual(asGuest.body, { message: '403 Forbidden' });
      const asStranger = await t.get(base(), stranger.token);
      assert.equal(asStranger.status, 404);
      assert.deepEqual(asStranger.body, { message: '404 Project Not Found' });
      const anon = await t.get(base(), null);
      assert.equal(anon.status, 401);
      const unknown = await t.get(`${base()}/nope`, owner.token);
      assert.equal(unknown.status, 404);
      assert.deepEqual(unknown.body, { message: '404 Label Not Found' });
      const noChange = await t.request('PUT', `${base()}/bug`, { token: owner.token, body: {} });
      assert.equal(noChange.status, 400);
      assert.deepEqual(noChange.body, { error: 'new_name, color, description, priority are missing, at least one parameter must be provided' });
      const neither = await t.request('PUT', base(), { token: owner.token, body: { color: '#000' } });
      assert.equal(neither.status, 400);
      assert.deepEqual(neither.body, { error: 'label_id, name are missing, exactly one parameter must be provided' });
    });

    it('updates name, colour, description and priority; removing the priority with null', async () => {
      const r = await t.request('PUT', `${base()}/bug`, { token: reporter.token, body: { new_name: 'defect', color: '#000000', priority: 1 } });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.name, 'defect');
      assert.equal(r.body.color, '#000000');
      assert.equal(r.body.priority, 1);
      assert.equal(r.body.description, 'Something *broken*');
      const taken = await t.request('PUT', `${base()}/defect`, { token: reporter.token, body: { new_name: 'docs' } });
      assert.equal(taken.status, 400);
      assert.deepEqual(taken.body, { message: { title: ['has already been taken'] } });
      const cleared = await t.request('PUT', base(), { token: reporter.token, body: { name: 'defect', priority: null } });
      assert.equal(cleared.status, 200, cleared.text);
      assert.equal(cleared.body.priority, null);
    });

    it('a project lists its groups\' labels (not with include_ancestor_groups=false), and changes only its own', async () => {
      const g = await t.request('POST', `/api/v4/groups/${group.id}/labels`, { token: owner.token, body: { name: 'area', color: '#336699' } });
      assert.equal(g.status, 201, g.text);
      assert.deepEqual(keysOf(g.body), GROUP_LABEL_KEYS);
      const list = await t.get(base(), guest.token);
      const area = list.body.find((l: any) => l.name === 'area');
      assert.equal(area.is_project_label, false);
      const own = await t.get(`${base()}?include_ancestor_groups=false`, guest.token);
      assert.ok(!own.body.some((l: any) => l.name === 'area'));
      // Group labels are changed through their group; the project sees none of its own by that name.
      const put = await t.request('PUT', `${base()}/area`, { token: owner.token, body: { color: '#000' } });
      assert.equal(put.status, 404);
      const groupPut = await t.request('PUT', `/api/v4/groups/${group.id}/labels/area`, { token: owner.token, body: { description: 'Where' } });
      assert.equal(groupPut.status, 200, groupPut.text);
      assert.equal(groupPut.body.description, 'Where');
      // A group label may take a priority in a project.
      const prio = await t.request('PUT', `/api/v4/groups/${group.id}/labels/area`, { token: owner.token, body: { priority: 2 } });
      assert.equal(prio.status, 400);
      const groupList = await t.get(`/api/v4/groups/${group.id}/labels?with_counts=true`, owner.token);
      assert.equal(groupList.status, 200);
      assert.deepEqual(keysOf(groupList.body[0]), [...GROUP_LABEL_KEYS, ...COUNT_KEYS].sort());
      assert.deepEqual(groupList.body.map((l: any) => l.name), ['area']);
      const withProjects = await t.get(`/api/v4/groups/${group.id}/labels?only_group_labels=false`, owner.token);
      assert.deepEqual(withProjects.body.map((l: any) => l.name), ['area', 'defect', 'docs']);
      const search = await t.get(`${base()}?search=WHER`, guest.token);
      assert.deepEqual(search.body.map((l: any) => l.name), ['area']);
    });

    it('subscribes and unsubscribes, 304 when nothing changes', async () => {
      const sub = await t.request('POST', `${base()}/docs/subscribe`, { token: guest.token });
      assert.equal(sub.status, 201, sub.text);
      assert.deepEqual(keysOf(sub.body), GROUP_LABEL_KEYS);
      assert.equal(sub.body.subscribed, true);
      const again = await t.request('POST', `${base()}/docs/subscribe`, { token: guest.token });
      assert.equal(again.status, 304);
      const seen = await t.get(`${base()}/docs`, guest.token);
      assert.equal(seen.body.subscribed, true);
      const notForOthers = await t.get(`${base()}/docs`, reporter.token);
      assert.equal(notForOthers.body.subscribed, false);
      const unsub = await t.request('POST', `${base()}/docs/unsubscribe`, { token: guest.token });
      assert.equal(unsub.status, 201);
      assert.equal(unsub.body.subscribed, false);
      const unsubAgain = await t.request('POST', `${base()}/docs/unsubscribe`, { token: guest.token });
      assert.equal(unsubAgain.status, 304);
    });

    it('promotes a project label to its group, merging the same title of its sibling projects', async () => {
      const mine = await t.request('POST', base(), { token: owner.token, body: { name: 'ops', color: '#123456', description: 'Operations' } });
      const theirs = await t.request('POST', `/api/v4/projects/${other.id}/labels`, { token: owner.token, body: { name: 'ops', color: '#654321' } });
      assert.equal(theirs.status, 201);
      const asReporter = await t.request('PUT', `${base()}/ops/promote`, { token: reporter.token });
      assert.equal(asReporter.status, 403);
      const r = await t.request('PUT', `${base()}/ops/promote`, { token: owner.token });
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(keysOf(r.body), GROUP_LABEL_KEYS);
      assert.equal(r.body.name, 'ops');
      assert.equal(r.body.color, '#123456');
      assert.notEqual(r.body.id, mine.body.id);
      const inOther = await t.get(`/api/v4/projects/${other.id}/labels/ops`, owner.token);
      assert.equal(inOther.body.id, r.body.id);
      assert.equal(inOther.body.is_project_label, false);
      const gone = await t.get(`/api/v4/projects/${other.id}/labels/${theirs.body.id}`, owner.token);
      assert.equal(gone.status, 404);

      const personal = await makeProject(t, owner.token, { path: 'mine' });
      await t.request('POST', `/api/v4/projects/${personal.id}/labels`, { token: owner.token, body: { name: 'x', color: '#fff' } });
      const noGroup = await t.request('PUT', `/api/v4/projects/${personal.id}/labels/x/promote`, { token: owner.token });
      assert.equal(noGroup.status, 400);
      assert.deepEqual(noGroup.body, { message: 'Failed to promote project label to group label' });
    });

    it('deletes by title or id (204), group labels through the group; strangers see no group', async () => {
      const del = await t.request('DELETE', `${base()}/docs`, { token: reporter.token });
      assert.equal(del.status, 204);
      const gone = await t.get(`${base()}/docs`, reporter.token);
      assert.equal(gone.status, 404);
      const asGuest = await t.request('DELETE', `${base()}/defect`, { token: guest.token });
      assert.equal(asGuest.status, 403);
      const strangerGroup = await t.get(`/api/v4/groups/${group.id}/labels`, stranger.token);
      assert.equal(strangerGroup.status, 404);
      assert.deepEqual(strangerGroup.body, { message: '404 Group Not Found' });
      await addMember(t, group.id, stranger.id, 10, owner.token);
      const asGroupGuest = await t.request('POST', `/api/v4/groups/${group.id}/labels`, { token: stranger.token, body: { name: 'z', color: '#fff' } });
      assert.equal(asGroupGuest.status, 403);
      const g = await t.get(`/api/v4/groups/${group.id}/labels/area`, stranger.token);
      const gdel = await t.request('DELETE', `/api/v4/groups/${group.id}/labels?label_id=${g.body.id}`, { token: owner.token });
      assert.equal(gdel.status, 204);
    });
  });
}
