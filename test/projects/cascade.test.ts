// Deleting a project or a group leaves nothing of the project behind: rows, bot users, files.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS, buildTestApp, type TestApp } from '../helpers/build.js';
import { makeGroup } from '../helpers/groups.js';
import { makeProject } from '../helpers/projects.js';
import { multipart } from '../helpers/project_resources.js';

for (const dialect of DIALECTS) {
  describe(`deletion cascades (${dialect})`, () => {
    let t: TestApp;
    before(async () => {
      t = await buildTestApp(dialect);
    });
    after(async () => t.close());

    it("a deleted project's access-token bot is gone: its token is refused and the user is not found", async () => {
      const p = await makeProject(t, t.rootToken, { name: 'botted' });
      const tok = await t.request('POST', `/api/v4/projects/${p.id}/access_tokens`, { body: { name: 'ci', scopes: ['api'] } });
      assert.equal(tok.status, 201, tok.text);
      const botId = tok.body.user_id;
      assert.equal((await t.get('/api/v4/user', tok.body.token)).status, 200);

      assert.equal((await t.request('DELETE', `/api/v4/projects/${p.id}`)).status, 202);
      assert.equal((await t.get('/api/v4/user', tok.body.token)).status, 401);
      assert.equal((await t.get(`/api/v4/users/${botId}`)).status, 404);
    });

    it('a deleted group takes its projects (and subgroup projects) with it, uploads included', async () => {
      const g = await makeGroup(t, { path: 'doomed' });
      const sub = await makeGroup(t, { path: 'inner', parent_id: g.id });
      const top = await makeProject(t, t.rootToken, { name: 'top', namespace_id: g.id });
      const deep = await makeProject(t, t.rootToken, { name: 'deep', namespace_id: sub.id });
      const up = await t.request('POST', `/api/v4/projects/${deep.id}/uploads`, multipart([], [{ name: 'file', filename: 'a.txt', content: 'bytes' }]));
      assert.equal(up.status, 201, up.text);
      assert.ok(await t.c.storage.stat(`projects/${deep.id}/uploads/${up.body.url.split('/')[2]}/a.txt`));

      assert.equal((await t.request('DELETE', `/api/v4/groups/${g.id}`)).status, 202);
      for (const p of [top, deep]) assert.equal((await t.get(`/api/v4/projects/${p.id}`)).status, 404);
      assert.equal(await t.c.storage.stat(`projects/${deep.id}/uploads/${up.body.url.split('/')[2]}/a.txt`), null);
      const orphans = await t.c.db.selectFrom('members').select('id').where('source_type', '=', 'Project').where('source_id', 'in', [top.id, deep.id]).execute();
      assert.deepEqual(orphans, []);
    });
  });
}
