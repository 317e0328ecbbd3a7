// Project aliases: the admin endpoints, and the alias working in the API and over git with the
// project's own access rules and push enforcement.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../helpers/build.js';
import { buildGitTestApp, clone, cloneUrl, commitFiles, runGit, type GitTestApp } from '../helpers/git.js';
import { addMember, makeProject } from '../helpers/projects.js';

for (const dialect of DIALECTS) {
  describe(`project aliases (${dialect})`, () => {
    let t: GitTestApp;
    let owner: { id: number; username: string; token: string };
    before(async () => {
      t = await buildGitTestApp(dialect);
      owner = await t.createUser();
    });
    after(async () => t.close());

    it('create, list, show, delete exactly as the spec; bad input changes nothing', async () => {
      const p = await makeProject(t, owner.token, { name: 'aliased' });
      const r = await t.request('POST', '/api/v4/project_aliases', { body: { project_id: p.id, name: 'short' } });
      assert.equal(r.status, 201, r.text);
      assert.deepEqual(r.body, { id: r.body.id, project_id: p.id, name: 'short' });
      // by path too
      const byPath = await t.request('POST', '/api/v4/project_aliases', { body: { project_id: `${owner.username}/aliased`, name: 'short2' } });
      assert.equal(byPath.status, 201);

      const dup = await t.request('POST', '/api/v4/project_aliases', { body: { project_id: p.id, name: 'short' } });
      assert.equal(dup.status, 400);
      assert.deepEqual(dup.body, { message: { name: ['has already been taken'] } });
      const taken = await t.request('POST', '/api/v4/project_aliases', { body: { project_id: p.id, name: owner.username } });
      assert.deepEqual(taken.body, { message: { name: ['has already been taken'] } });
      assert.equal((await t.request('POST', '/api/v4/project_aliases', { body: { project_id: p.id } })).body.message, '400 (Bad request) "name" not given');
      assert.equal((await t.request('POST', '/api/v4/project_aliases', { body: { name: 'x1' } })).body.message, '400 (Bad request) "project_id" not given');
      assert.equal((await t.request('POST', '/api/v4/project_aliases', { body: { project_id: 999999, name: 'x2' } })).status, 404);
      assert.equal((await t.request('POST', '/api/v4/project_aliases', { body: { project_id: p.id, name: 'a/b' } })).status, 400);

      const list = await t.get('/api/v4/project_aliases');
      assert.equal(list.status, 200);
      assert.deepEqual(list.body.map((a: any) => a.name), ['short', 'short2']);
      assert.deepEqual((await t.get('/api/v4/project_aliases/short')).body, r.body);
      assert.deepEqual((await t.get('/api/v4/project_aliases/nope')).body, { message: '404 Not found' });

      assert.equal((await t.get('/api/v4/project_aliases', owner.token)).status, 403);
      assert.equal((await t.request('POST', '/api/v4/project_aliases', { token: owner.token, body: { project_id: p.id, name: 'mine' } })).status, 403);
      assert.equal((await t.get('/api/v4/project_aliases', null)).status, 401);

      assert.equal((await t.request('DELETE', '/api/v4/project_aliases/short2')).status, 204);
      assert.equal((await t.request('DELETE', '/api/v4/project_aliases/short2')).status, 404);
      assert.deepEqual((await t.get('/api/v4/project_aliases')).body.map((a: any) => a.name), ['short']);
    });

    it('GET /projects/<alias> answers as the project; git clone and push through the alias keep the access rules', async () => {
      const p = await makeProject(t, owner.token, { name: 'viaalias', initialize_with_readme: true });
      assert.equal((await t.request('POST', '/api/v4/project_aliases', { body: { project_id: p.id, name: 'va' } })).status, 201);
      const byId = await t.get(`/api/v4/projects/${p.id}`, owner.token);
      const byAlias = await t.get('/api/v4/projects/va', owner.token);
      assert.equal(byAlias.status, 200);
      assert.deepEqual(byAlias.body, byId.body);
      const stranger = await t.createUser();
      assert.deepEqual((await t.get('/api/v4/projects/va', stranger.token)).body, { message: '404 Project Not Found' });

      const aliasUrl = `${t.url}/va.git`;
      const cloned = await clone(t, cloneUrl(aliasUrl, owner.token));
      assert.equal(cloned.code, 0, cloned.stderr);
      const anon = await clone(t, aliasUrl);
      assert.notEqual(anon.code, 0);

      await commitFiles(t, cloned.dir, { 'x.txt': 'x' }, 'via alias');
      const pushed = await runGit(t, ['push', '--quiet', 'origin', 'HEAD:main'], { cwd: cloned.dir });
      assert.equal(pushed.code, 0, pushed.stderr);

      // A developer may not push to the protected default branch through the alias either.
      const dev = await t.createUser();
      await addMember(t, 'Project', p.id, dev.id, 30);
      const devClone = await clone(t, cloneUrl(aliasUrl, dev.token));
      assert.equal(devClone.code, 0, devClone.stderr);
      await commitFiles(t, devClone.dir, { 'y.txt': 'y' }, 'dev');
      const refused = await runGit(t, ['push', 'origin', 'HEAD:main'], { cwd: devClone.dir });
      assert.notEqual(refused.code, 0);
      assert.match(refused.stderr, /not allowed to push/);

      // Deleting the project removes its aliases.
      assert.equal((await t.request('DELETE', `/api/v4/projects/${p.id}`)).status, 202);
      assert.equal((await t.get('/api/v4/project_aliases/va')).status, 404);
    });

    it('a group or user named as an alias is created (the reference checks an alias only against other aliases); each keeps answering', async () => {
      const p = await makeProject(t, owner.token, { name: 'aliasclash' });
      assert.equal((await t.request('POST', '/api/v4/project_aliases', { body: { project_id: p.id, name: 'clash' } })).status, 201);
      const g = await t.request('POST', '/api/v4/groups', { body: { name: 'clash', path: 'clash' } });
      assert.equal(g.status, 201, g.text);
      assert.equal((await t.request('POST', '/api/v4/project_aliases', { body: { project_id: p.id, name: 'clash2' } })).status, 201);
      const u = await t.request('POST', '/api/v4/users', { body: { username: 'clash2', name: 'Clash', email: 'clash2@example.com', password: 'password123456' } });
      assert.equal(u.status, 201, u.text);
      assert.equal((await t.get('/api/v4/users?username=clash2')).body[0].id, u.body.id);
      assert.equal((await t.get('/api/v4/projects/clash2', owner.token)).body.id, p.id);
      assert.equal((await t.request('POST', '/api/v4/project_aliases', { body: { project_id: p.id, name: 'clash3' } })).status, 201);
      const inGroup = await t.request('POST', '/api/v4/projects', { body: { name: 'clash3', namespace_id: g.body.id } });
      assert.equal(inGroup.status, 201, inGroup.text);
      assert.equal((await t.get('/api/v4/projects/clash', owner.token)).body.id, p.id, 'the alias still names its project');
      assert.equal((await t.get('/api/v4/groups/clash')).body.id, g.body.id);
      assert.equal((await t.get(`/api/v4/projects/${encodeURIComponent('clash/clash3')}`)).body.id, inGroup.body.id);
      assert.equal((await t.get('/api/v4/projects/clash3', owner.token)).body.id, p.id);
    });
  });
}
