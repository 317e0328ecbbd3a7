import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS, buildTestApp, keysOf, type TestApp } from '../helpers/build.js';
import { PROJECT_SIMPLE_KEYS } from '../helpers/keys.js';
import { addMember, makeGroup } from '../helpers/groups.js';
import { runDueProjectJobs } from '../helpers/project_jobs.js';
import { makeProject } from '../helpers/projects.js';

const SIMPLE_KEYS = PROJECT_SIMPLE_KEYS;

for (const dialect of DIALECTS) {
  describe(`project forks (${dialect})`, () => {
    let t: TestApp;
    before(async () => {
      t = await buildTestApp(dialect);
    });
    after(async () => t.close());

    const get = async (url: string, token?: string | null) => {
      const r = await t.get(url, token);
      assert.equal(r.status, 200, r.text);
      return r.body;
    };

    it('forks into the caller namespace: full form with forked_from_project, counts, copied settings, repository copy queued', async () => {
      const owner = await t.createUser();
      const forker = await t.createUser({ username: 'forker_one' });
      const source = await makeProject(t, owner.token, { name: 'Upstream', path: 'upstream', visibility: 'public', description: 'the source', ci_config_path: 'ci/x.yml' });
      const r = await t.request('POST', `/api/v4/projects/${source.id}/fork`, { token: forker.token });
      assert.equal(r.status, 201, r.text);
      const f = r.body;
      assert.deepEqual(keysOf(f), keysOf({ ...(await get(`/api/v4/projects/${f.id}`, forker.token)) }));
      assert.equal(f.path_with_namespace, 'forker_one/upstream');
      assert.equal(f.name, 'Upstream');
      assert.equal(f.description, 'the source');
      assert.equal(f.visibility, 'public');
      assert.equal(f.creator_id, forker.id);
      assert.equal(f.import_status, 'scheduled');
      assert.deepEqual(f.permissions.project_access, { access_level: 50, notification_level: 3 });
      assert.deepEqual(keysOf(f.forked_from_project), SIMPLE_KEYS);
      assert.equal(f.forked_from_project.id, source.id);
      assert.equal(f.forked_from_project.path_with_namespace, source.path_with_namespace);
      assert.equal(f.forked_from_project.forks_count, 1);
      assert.equal((await get(`/api/v4/projects/${source.id}`, owner.token)).forks_count, 1);
      const created = await get(`/api/v4/projects/${f.id}/events`, forker.token);
      assert.deepEqual(created.map((e: any) => [e.action_name, e.author_id]), [['created', forker.id]]);

      // the repository copy job (the place for the git work) finishes the import
      await runDueProjectJobs(t);
      assert.equal((await get(`/api/v4/projects/${f.id}`, forker.token)).import_status, 'finished');
    });

    it('target namespace by namespace_id, namespace_path or namespace; name, path, description and visibility', async () => {
      const owner = await t.createUser();
      const dev = await t.createUser();
      const source = await makeProject(t, owner.token, { name: 'lib', visibility: 'internal' });
      const g = await makeGroup(t, { token: dev.token, visibility: 'public' });
      const byId = await t.request('POST', `/api/v4/projects/${source.id}/fork`, {
        token: dev.token,
        body: { namespace_id: g.id, name: 'Lib Fork', path: 'lib-fork', description: 'mine', visibility: 'public' },
      });
      assert.equal(byId.status, 201, byId.text);
      assert.equal(byId.body.path_with_namespace, `${g.full_path}/lib-fork`);
      assert.equal(byId.body.name, 'Lib Fork');
      assert.equal(byId.body.description, 'mine');
      // never more visible than the source
      assert.equal(byId.body.visibility, 'internal');
      assert.equal(byId.body.namespace.kind, 'group');

      const byPath = await t.request('POST', `/api/v4/projects/${source.id}/fork`, { token: dev.token, body: { namespace_path: g.full_path, path: 'lib-two', name: 'Lib Two', visibility: 'private' } });
      assert.equal(byPath.status, 201, byPath.text);
      assert.equal(byPath.body.visibility, 'private');
      const byOld = await t.request('POST', `/api/v4/projects/${source.id}/fork`, { token: dev.token, body: { namespace: g.full_path, path: 'lib-three', name: 'Lib Three' } });
      assert.equal(byOld.status, 201, byOld.text);
      assert.equal(byOld.body.namespace.id, g.id);
      assert.equal((await get(`/api/v4/projects/${source.id}`, owner.token)).forks_count, 3);

      const badVisibility = await t.request('POST', `/api/v4/projects/${source.id}/fork`, { token: dev.token, body: { visibility: 'secret' } });
      assert.equal(badVisibility.status, 400);
    });

    it('refuses: same path in the target (409), a namespace the caller may not create in (404), unknown or hidden namespaces (404)', async () => {
      const owner = await t.createUser({ username: 'fork_owner' });
      const guest = await t.createUser();
      const source = await makeProject(t, owner.token, { name: 'same', visibility: 'public' });
      // into the namespace it lives in, with its own name and path
      const same = await t.request('POST', `/api/v4/projects/${source.id}/fork`, { token: owner.token });
      assert.equal(same.status, 409);
      assert.deepEqual(same.body, { message: { name: ['has already been taken'], path: ['has already been taken'] } });
      // the same namespace with another path and name is fine
      const other = await t.request('POST', `/api/v4/projects/${source.id}/fork`, { token: owner.token, body: { path: 'same-2', name: 'same 2' } });
      assert.equal(other.status, 201, other.text);
      assert.equal(other.body.forked_from_project.id, source.id);

      const g = await makeGroup(t, { token: owner.token, visibility: 'public' });
      await addMember(t, g.id, guest.id, 10, owner.token);
      const noRight = await t.request('POST', `/api/v4/projects/${source.id}/fork`, { token: guest.token, body: { namespace_id: g.id } });
      assert.equal(noRight.status, 404);
      assert.deepEqual(noRight.body, { message: '404 Target Namespace Not Found' });
      const unknown = await t.request('POST', `/api/v4/projects/${source.id}/fork`, { token: guest.token, body: { namespace_id: 999999 } });
      assert.deepEqual([unknown.status, unknown.body], [404, { message: '404 Namespace Not Found' }]);
      const someoneElses = await t.request('POST', `/api/v4/projects/${source.id}/fork`, { token: guest.token, body: { namespace_path: 'fork_owner' } });
      assert.deepEqual([someoneElses.status, someoneElses.body], [404, { message: '404 Namespace Not Found' }]);
      const hiddenGroup = await makeGroup(t, { token: owner.token, visibility: 'private' });
      const hidden = await t.request('POST', `/api/v4/projects/${source.id}/fork`, { token: guest.token, body: { namespace_id: hiddenGroup.id } });
      assert.deepEqual([hidden.status, hidden.body], [404, { message: '404 Namespace Not Found' }]);
      assert.equal((await t.request('POST', `/api/v4/projects/${source.id}/fork`, { token: guest.token, body: { namespace_id: 'abc' } })).status, 400);
    });

    it('fork permissions: 401 without a token, 403 read_api, 404 for a project the caller cannot see', async () => {
      const owner = await t.createUser();
      const stranger = await t.createUser();
      const reader = await t.createUser({ scopes: ['read_api'] });
      const secret = await makeProject(t, owner.token, { name: 'secret-src' });
      const pub = await makeProject(t, owner.token, { name: 'public-src', visibility: 'public' });
      assert.equal((await t.request('POST', `/api/v4/projects/${pub.id}/fork`, { token: null })).status, 401);
      assert.equal((await t.request('POST', `/api/v4/projects/${pub.id}/fork`, { token: reader.token })).status, 403);
      const r = await t.request('POST', `/api/v4/projects/${secret.id}/fork`, { token: stranger.token });
      assert.deepEqual([r.status, r.body], [404, { message: '404 Project Not Found' }]);
    });

    it('GET /projects/:id/forks: direct forks the caller may see, filters, forked_from_project only while the source is visible', async () => {
      const owner = await t.createUser();
      const a = await t.createUser();
      const b = await t.createUser();
      const stranger = await t.createUser();
      const source = await makeProject(t, owner.token, { name: 'forkable', visibility: 'public' });
      const fa = (await t.request('POST', `/api/v4/projects/${source.id}/fork`, { token: a.token })).body;
      const fb = (await t.request('POST', `/api/v4/projects/${source.id}/fork`, { token: b.token, body: { visibility: 'private' } })).body;
      // a fork of a fork is not a direct fork of the source
      const ffa = (await t.request('POST', `/api/v4/projects/${fa.id}/fork`, { token: b.token, body: { path: 'deeper', name: 'deeper' } })).body;
      assert.equal(ffa.forked_from_project.id, fa.id);

      const ids = (list: any[]) => list.map((p) => p.id);
      assert.deepEqual(ids(await get(`/api/v4/projects/${source.id}/forks`, stranger.token)), [fa.id]);
      assert.deepEqual(ids(await get(`/api/v4/projects/${source.id}/forks`, b.token)), [fb.id, fa.id]);
      assert.deepEqual(ids(await get(`/api/v4/projects/${source.id}/forks`, t.rootToken)), [fb.id, fa.id]);
      const anon = await get(`/api/v4/projects/${source.id}/forks`, null);
      assert.deepEqual(ids(anon), [fa.id]);
      assert.deepEqual(keysOf(anon[0]), SIMPLE_KEYS);
      assert.deepEqual(ids(await get(`/api/v4/projects/${source.id}/forks?visibility=private`, b.token)), [fb.id]);
      assert.deepEqual(ids(await get(`/api/v4/projects/${source.id}/forks?owned=true`, a.token)), [fa.id]);
      assert.deepEqual(ids(await get(`/api/v4/projects/${source.id}/forks?order_by=id&sort=asc`, b.token)), [fa.id, fb.id]);
      const full = await get(`/api/v4/projects/${source.id}/forks`, stranger.token);
      assert.equal(full[0].forked_from_project.id, source.id);

      // once the source is private, others see the fork without it
      await t.request('PUT', `/api/v4/projects/${source.id}`, { token: owner.token, body: { visibility: 'private' } });
      const fork = await get(`/api/v4/projects/${fa.id}`, stranger.token);
      assert.equal('forked_from_project' in fork, false);
      assert.equal((await get(`/api/v4/projects/${fa.id}`, owner.token)).forked_from_project.id, source.id);
      assert.equal((await t.get(`/api/v4/projects/${source.id}/forks`, stranger.token)).status, 404);
    });

    it('fork relation: maintainers create it (409 when already a fork), owners remove it (204, then 304); counts follow', async () => {
      const owner = await t.createUser();
      const dev = await t.createUser();
      const maint = await t.createUser();
      const source = await makeProject(t, owner.token, { name: 'rel-source', visibility: 'public' });
      const other = await makeProject(t, owner.token, { name: 'rel-other', visibility: 'public' });
      const p = await makeProject(t, owner.token, { name: 'rel-target' });
      const { addMember: addProjectMember } = await import('../helpers/projects.js');
      await addProjectMember(t, 'Project', p.id, dev.id, 30);
      await addProjectMember(t, 'Project', p.id, maint.id, 40);

      assert.equal((await t.request('POST', `/api/v4/projects/${p.id}/fork/${source.id}`, { token: dev.token })).status, 403);
      const unknown = await t.request('POST', `/api/v4/projects/${p.id}/fork/999999`, { token: maint.token });
      assert.deepEqual([unknown.status, unknown.body], [404, { message: '404 Project Not Found' }]);
      const r = await t.request('POST', `/api/v4/projects/${p.id}/fork/${source.id}`, { token: maint.token });
      assert.equal(r.status, 201, r.text);
      assert.equal(r.body.forked_from_project.id, source.id);
      assert.equal((await get(`/api/v4/projects/${source.id}`, owner.token)).forks_count, 1);
      const again = await t.request('POST', `/api/v4/projects/${p.id}/fork/${other.id}`, { token: maint.token });
      assert.deepEqual([again.status, again.body], [409, { message: 'Project already forked' }]);

      assert.equal((await t.request('DELETE', `/api/v4/projects/${p.id}/fork`, { token: maint.token })).status, 403);
      const del = await t.request('DELETE', `/api/v4/projects/${p.id}/fork`, { token: owner.token });
      assert.equal(del.status, 204);
      assert.equal(del.text, '');
      assert.equal((await t.request('DELETE', `/api/v4/projects/${p.id}/fork`, { token: owner.token })).status, 304);
      assert.equal((await get(`/api/v4/projects/${source.id}`, owner.token)).forks_count, 0);
      assert.equal('forked_from_project' in (await get(`/api/v4/projects/${p.id}`, owner.token)), false);
    });

    it('deleting a fork lowers the source count; deleting the source leaves its forks standing alone', async () => {
      const owner = await t.createUser();
      const a = await t.createUser();
      const source = await makeProject(t, owner.token, { name: 'del-source', visibility: 'public' });
      const f1 = (await t.request('POST', `/api/v4/projects/${source.id}/fork`, { token: a.token })).body;
      const f2 = (await t.request('POST', `/api/v4/projects/${source.id}/fork`, { token: a.token, body: { path: 'del-2', name: 'del 2' } })).body;
      assert.equal((await get(`/api/v4/projects/${source.id}`, owner.token)).forks_count, 2);
      assert.equal((await t.request('DELETE', `/api/v4/projects/${f1.id}`, { token: a.token })).status, 202);
      assert.equal((await get(`/api/v4/projects/${source.id}`, owner.token)).forks_count, 1);
      assert.equal((await t.request('DELETE', `/api/v4/projects/${source.id}`, { token: owner.token })).status, 202);
      const alone = await get(`/api/v4/projects/${f2.id}`, a.token);
      assert.equal('forked_from_project' in alone, false);
    });
  });
}
