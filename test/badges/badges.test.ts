import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS, buildTestApp, keysOf, type TestApp } from '../helpers/build.js';
import { addMember as addProjectMember, makeProject } from '../helpers/projects.js';
import { addMember, makeGroup } from '../helpers/groups.js';
import { branchTip, commitOn } from '../helpers/branches.js';
import { serverGitTag } from '../helpers/badges.js';

type U = { id: number; username: string; token: string };

const BADGE_KEYS = ['id', 'image_url', 'kind', 'link_url', 'name', 'rendered_image_url', 'rendered_link_url'];

for (const dialect of DIALECTS) {
  describe(`badges (${dialect})`, () => {
    let t: TestApp;
    let owner: U;
    let dev: U;
    let stranger: U;
    let top: { id: number; full_path: string };
    let sub: { id: number; full_path: string };
    let p: any;

    before(async () => {
      t = await buildTestApp(dialect);
      owner = await t.createUser({ name: 'Olga Owner' });
      dev = await t.createUser({ name: 'Dev Eloper' });
      stranger = await t.createUser({ name: 'Stan Ger' });
      top = await makeGroup(t, { token: owner.token, path: 'top-org' });
      sub = await makeGroup(t, { token: owner.token, path: 'sub-team', parent_id: top.id });
      p = await makeProject(t, owner.token, { name: 'My Widget', path: 'widget', namespace_id: sub.id, initialize_with_readme: true });
      await addProjectMember(t, 'Project', p.id, dev.id, 30);
    });
    after(async () => t.close());

    const base = () => `/api/v4/projects/${p.id}/badges`;

    it('create, get, update, delete a project badge with placeholders resolved and escaped', async () => {
      const sha = await branchTip(t, p.id, 'main');
      const created = await t.request('POST', base(), {
        token: owner.token,
        body: {
          name: 'Coverage',
          link_url: 'https://ci.example.com/%{project_path}/-/commits/%{default_branch}?sha=%{commit_sha}&id=%{project_id}',
          image_url: 'https://img.example.com/%{project_name}/%{project_title}/%{group_name}/%{unknown}.svg',
        },
      });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.headers['content-type'], 'application/json');
      assert.deepEqual(keysOf(created.body), BADGE_KEYS);
      assert.equal(created.body.kind, 'project');
      assert.equal(created.body.name, 'Coverage');
      assert.equal(created.body.rendered_link_url, `https://ci.example.com/top-org/sub-team/widget/-/commits/main?sha=${sha}&id=${p.id}`);
      // The title's space is escaped; an unknown placeholder stays and is escaped as a whole.
      assert.equal(created.body.rendered_image_url, 'https://img.example.com/widget/My%20Widget/top-org/sub-team/%25%7Bunknown%7D.svg');

      const got = await t.request('GET', `${base()}/${created.body.id}`, { token: dev.token });
      assert.equal(got.status, 200);
      assert.deepEqual(got.body, created.body);

      const upd = await t.request('PUT', `${base()}/${created.body.id}`, { token: owner.token, body: { image_url: 'https://img.example.com/%{project_id}.svg' } });
      assert.equal(upd.status, 200, upd.text);
      assert.equal(upd.body.name, 'Coverage');
      assert.equal(upd.body.link_url, created.body.link_url);
      assert.equal(upd.body.rendered_image_url, `https://img.example.com/${p.id}.svg`);

      const del = await t.request('DELETE', `${base()}/${created.body.id}`, { token: owner.token });
      assert.equal(del.status, 204);
      assert.equal(del.text, '');
      const gone = await t.request('GET', `${base()}/${created.body.id}`, { token: owner.token });
      assert.equal(gone.status, 404);
      assert.deepEqual(gone.body, { message: '404 Not found' });
    });

    it('latest_tag and the escaped placeholder form resolve too', async () => {
      const sha = await branchTip(t, p.id, 'main');
      await serverGitTag(t, p.id, 'v1.2.0', sha!);
      const r = await t.request('GET', `${base()}/render?link_url=${encodeURIComponent('https://x.example/%25%7Bproject_id%7D/%{latest_tag}')}&image_url=${encodeURIComponent('https://x.example/a b/ü')}`, {
        token: owner.token,
      });
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(r.body, {
        link_url: 'https://x.example/%25%7Bproject_id%7D/%{latest_tag}',
        image_url: 'https://x.example/a b/ü',
        rendered_link_url: `https://x.example/${p.id}/v1.2.0`,
        rendered_image_url: 'https://x.example/a%20b/%C3%BC',
      });
    });

    it('the list holds the project badges and those of its groups and their ancestors; name filters case-sensitively', async () => {
      const topBadge = await t.request('POST', `/api/v4/groups/${top.id}/badges`, { token: owner.token, body: { name: 'Top', link_url: 'https://t.example/%{project_path}', image_url: 'https://t.example/i.svg' } });
      assert.equal(topBadge.status, 201, topBadge.text);
      assert.equal(topBadge.body.kind, 'group');
      const subBadge = await t.request('POST', `/api/v4/groups/${sub.id}/badges`, { token: owner.token, body: { name: 'sub', link_url: 'https://s.example', image_url: 'https://s.example/i.svg' } });
      assert.equal(subBadge.status, 201, subBadge.text);
      // A group's rendered URLs use its newest project (sub-team has widget; top-org has none).
      assert.equal(topBadge.body.rendered_link_url, 'https://t.example/%25%7Bproject_path%7D');
      const own = await t.request('POST', base(), { token: owner.token, body: { name: 'Sub', link_url: 'https://o.example', image_url: 'https://o.example/i.svg' } });
      assert.equal(own.status, 201);

      const list = await t.request('GET', base(), { token: dev.token });
      assert.equal(list.status, 200);
      assert.equal(list.headers['x-total'], '3');
      assert.deepEqual(list.body.map((b: any) => [b.name, b.kind]), [['Top', 'group'], ['sub', 'group'], ['Sub', 'project']]);
      assert.equal(list.body[0].rendered_link_url, 'https://t.example/top-org/sub-team/widget');

      const named = await t.request('GET', `${base()}?name=Sub`, { token: dev.token });
      assert.deepEqual(named.body.map((b: any) => b.id), [own.body.id]);

      const groupList = await t.request('GET', `/api/v4/groups/${sub.id}/badges`, { token: owner.token });
      assert.deepEqual(groupList.body.map((b: any) => b.id), [subBadge.body.id]);
      assert.equal(groupList.body[0].kind, 'group');

      // A group badge is read through the project but changed or removed only through its group.
      const viaProject = await t.request('GET', `${base()}/${topBadge.body.id}`, { token: dev.token });
      assert.equal(viaProject.status, 200);
      assert.equal(viaProject.body.kind, 'group');
      const put = await t.request('PUT', `${base()}/${topBadge.body.id}`, { token: owner.token, body: { name: 'x' } });
      assert.equal(put.status, 403);
      assert.deepEqual(put.body, { message: 'To update a Group badge please use the Group endpoint' });
      const del = await t.request('DELETE', `${base()}/${topBadge.body.id}`, { token: owner.token });
      assert.equal(del.status, 403);
      assert.deepEqual(del.body, { message: 'To delete a Group badge please use the Group endpoint' });
      const gdel = await t.request('DELETE', `/api/v4/groups/${top.id}/badges/${topBadge.body.id}`, { token: owner.token });
      assert.equal(gdel.status, 204);
      // Another project's badge is not this project's.
      const other = await makeProject(t, owner.token, { name: 'other' });
      const foreign = await t.request('GET', `/api/v4/projects/${other.id}/badges/${own.body.id}`, { token: owner.token });
      assert.equal(foreign.status, 404);
      for (const id of [subBadge.body.id]) await t.request('DELETE', `/api/v4/groups/${sub.id}/badges/${id}`, { token: owner.token });
      await t.request('DELETE', `${base()}/${own.body.id}`, { token: owner.token });
    });

    it('bad input: missing URL, invalid URLs, bad id', async () => {
      const missingLink = await t.request('POST', base(), { token: owner.token, body: { image_url: 'https://i.example' } });
      assert.equal(missingLink.status, 400);
      assert.deepEqual(missingLink.body, { message: '400 (Bad request) "link_url" not given' });
      const missingImage = await t.request('POST', base(), { token: owner.token, body: { link_url: 'https://i.example' } });
      assert.deepEqual(missingImage.body, { message: '400 (Bad request) "image_url" not given' });

      const ftp = await t.request('POST', base(), { token: owner.token, body: { link_url: 'ftp://x.example/a', image_url: 'https://i.example' } });
      assert.equal(ftp.status, 400);
      assert.deepEqual(ftp.body, { message: { link_url: ['is blocked: Only allowed schemes are http, https'] } });
      const both = await t.request('POST', base(), { token: owner.token, body: { link_url: 'not a url', image_url: '' } });
      assert.equal(both.status, 400);
      assert.deepEqual(both.body, { message: { link_url: ['is blocked: Only allowed schemes are http, https'], image_url: ['must be a valid URL'] } });
      const js = await t.request('GET', `${base()}/render?link_url=javascript:alert(1)&image_url=https://i.example`, { token: owner.token });
      assert.equal(js.status, 400);
      assert.deepEqual(js.body, { message: { link_url: ['is blocked: Only allowed schemes are http, https'] } });
      const missingRender = await t.request('GET', `${base()}/render?link_url=https://i.example`, { token: owner.token });
      assert.deepEqual(missingRender.body, { message: '400 (Bad request) "image_url" not given' });

      const badId = await t.request('GET', `${base()}/abc`, { token: owner.token });
      assert.equal(badId.status, 400);
      assert.deepEqual(badId.body, { error: 'badge_id is invalid' });
      const unknown = await t.request('PUT', `${base()}/999999`, { token: owner.token, body: { name: 'x' } });
      assert.equal(unknown.status, 404);
      assert.deepEqual(unknown.body, { message: '404 Not found' });
      const b = await t.request('POST', base(), { token: owner.token, body: { link_url: 'https://a.example', image_url: 'https://i.example' } });
      const badPut = await t.request('PUT', `${base()}/${b.body.id}`, { token: owner.token, body: { link_url: 'mailto:x@y' } });
      assert.equal(badPut.status, 400);
      assert.deepEqual(badPut.body, { message: { link_url: ['is blocked: Only allowed schemes are http, https'] } });
      await t.request('DELETE', `${base()}/${b.body.id}`, { token: owner.token });
    });

    it('roles: maintainers manage project badges, owners group badges; others 403 or 404; no token 401', async () => {
      const body = { link_url: 'https://a.example', image_url: 'https://i.example' };
      const asDev = await t.request('POST', base(), { token: dev.token, body });
      assert.equal(asDev.status, 403);
      assert.deepEqual(asDev.body, { message: '403 Forbidden' });
      const render = await t.request('GET', `${base()}/render?link_url=https://a.example&image_url=https://i.example`, { token: dev.token });
      assert.equal(render.status, 403);
      const asStranger = await t.request('GET', base(), { token: stranger.token });
      assert.equal(asStranger.status, 404);
      assert.deepEqual(asStranger.body, { message: '404 Project Not Found' });
      const noToken = await t.request('POST', base(), { token: null, body });
      assert.equal(noToken.status, 401);
      assert.deepEqual(noToken.body, { message: '401 Unauthorized' });
      const anonList = await t.request('GET', base(), { token: null });
      assert.equal(anonList.status, 404);

      const maint = await t.createUser();
      await addProjectMember(t, 'Project', p.id, maint.id, 40);
      const ok = await t.request('POST', base(), { token: maint.token, body });
      assert.equal(ok.status, 201);
      await t.request('DELETE', `${base()}/${ok.body.id}`, { token: maint.token });

      const groupMaint = await t.createUser();
      await addMember(t, sub.id, groupMaint.id, 40, owner.token);
      const g = await t.request('POST', `/api/v4/groups/${sub.id}/badges`, { token: groupMaint.token, body });
      assert.equal(g.status, 403);
      const gl = await t.request('GET', `/api/v4/groups/${sub.id}/badges`, { token: groupMaint.token });
      assert.equal(gl.status, 200);
      const gs = await t.request('GET', `/api/v4/groups/${sub.id}/badges`, { token: stranger.token });
      assert.equal(gs.status, 404);
      assert.deepEqual(gs.body, { message: '404 Group Not Found' });

      // A public project's badges are there for anyone.
      const pub = await makeProject(t, owner.token, { name: 'pub', visibility: 'public' });
      const pb = await t.request('POST', `/api/v4/projects/${pub.id}/badges`, { token: owner.token, body });
      const anon = await t.request('GET', `/api/v4/projects/${pub.id}/badges`, { token: null });
      assert.equal(anon.status, 200);
      assert.deepEqual(anon.body.map((x: any) => x.id), [pb.body.id]);
      const anonOne = await t.request('GET', `/api/v4/projects/${pub.id}/badges/${pb.body.id}`, { token: null });
      assert.equal(anonOne.status, 200);
    });

    it('group endpoints: get, change, render with the newest project, remove; bad input', async () => {
      const g = `/api/v4/groups/${sub.id}/badges`;
      const b = await t.request('POST', g, { token: owner.token, body: { link_url: 'https://g.example/%{project_name}', image_url: 'https://g.example/i.svg' } });
      assert.equal(b.status, 201);
      assert.deepEqual(keysOf(b.body), BADGE_KEYS);
      assert.equal(b.body.name, null);
      assert.equal(b.body.rendered_link_url, 'https://g.example/widget');
      const got = await t.request('GET', `${g}/${b.body.id}`, { token: owner.token });
      assert.deepEqual(got.body, b.body);
      const put = await t.request('PUT', `${g}/${b.body.id}`, { token: owner.token, body: { name: 'Group', link_url: 'https://g2.example' } });
      assert.equal(put.status, 200);
      assert.equal(put.body.name, 'Group');
      assert.equal(put.body.link_url, 'https://g2.example');
      assert.equal(put.body.image_url, 'https://g.example/i.svg');
      const render = await t.request('GET', `${g}/render?link_url=https://r.example/%25{project_id}&image_url=https://r.example/i.svg`, { token: owner.token });
      assert.equal(render.status, 200);
      assert.equal(render.body.rendered_link_url, `https://r.example/${p.id}`);
      const bad = await t.request('PUT', `${g}/${b.body.id}`, { token: owner.token, body: { image_url: 'file:///etc/passwd' } });
      assert.deepEqual(bad.body, { message: { image_url: ['is blocked: Only allowed schemes are http, https'] } });
      // A project's badge is not the group's.
      const own = await t.request('POST', base(), { token: owner.token, body: { link_url: 'https://o.example', image_url: 'https://o.example/i.svg' } });
      assert.equal((await t.request('GET', `${g}/${own.body.id}`, { token: owner.token })).status, 404);
      assert.equal((await t.request('DELETE', `${g}/${b.body.id}`, { token: owner.token })).status, 204);
      assert.equal((await t.request('GET', `${g}/${b.body.id}`, { token: owner.token })).status, 404);
      await t.request('DELETE', `${base()}/${own.body.id}`, { token: owner.token });
    });

    it('commit_sha follows the default branch', async () => {
      const q = await makeProject(t, owner.token, { name: 'shas', initialize_with_readme: true });
      const sha = await commitOn(t, q.id, 'main', { 'a.txt': 'a' });
      const r = await t.request('GET', `/api/v4/projects/${q.id}/badges/render?link_url=https://x.example/%25{commit_sha}&image_url=https://x.example/%25{default_branch}`, { token: owner.token });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.rendered_link_url, `https://x.example/${sha}`);
      assert.equal(r.body.rendered_image_url, 'https://x.example/main');
    });
  });
}
