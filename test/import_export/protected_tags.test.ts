// Protected tags travel in a project archive (the reference's protected_tags relation with its
// create_access_levels) and hold in the imported project: who may create, push or delete a
// protected tag there is who the archive said.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { DIALECTS, buildTestApp, type TestApp } from '../helpers/build.js';
import { addMember } from '../helpers/projects.js';
import { makeRepoProject } from '../helpers/repository_content.js';
import { putFiles } from '../helpers/ci.js';
import { setRef } from '../helpers/repository.js';
import { postImport, runImportExportJobs } from '../helpers/import_export.js';

type U = { id: number; username: string; token: string };

const protections = async (t: TestApp, id: number) =>
  (await t.get(`/api/v4/projects/${id}/protected_tags`)).body.map((p: any) => ({
    name: p.name,
    create: p.create_access_levels.map((l: any) => [l.access_level, l.user_id, l.group_id]),
  }));

for (const dialect of DIALECTS) {
  describe(`protected tags in export and import (${dialect})`, () => {
    let t: TestApp;
    let dev: U;
    let releaser: U;
    let source: any;
    let archive: Buffer;

    before(async () => {
      t = await buildTestApp(dialect);
      dev = await t.createUser();
      releaser = await t.createUser();
      source = await makeRepoProject(t, { name: 'Tagged', visibility: 'private' });
      const main = await putFiles(t, source.id, { 'a.txt': 'a\n' });
      await setRef(t, source.id, 'refs/tags/v1.0', main);
      await setRef(t, source.id, 'refs/tags/nightly-1', main);
      await addMember(t, 'Project', source.id, dev.id, 30);
      await addMember(t, 'Project', source.id, releaser.id, 30);
      const pt = (body: Record<string, unknown>) => t.request('POST', `/api/v4/projects/${source.id}/protected_tags`, { body });
      assert.equal((await pt({ name: 'v*', create_access_level: 40, allowed_to_create: [{ user_id: releaser.id }] })).status, 201);
      assert.equal((await pt({ name: 'nightly-*', create_access_level: 30 })).status, 201);
      const r = await t.request('POST', `/api/v4/projects/${source.id}/export`, { body: {} });
      assert.equal(r.status, 202);
      await runImportExportJobs(t);
      const res = await t.app.inject({ method: 'GET', url: `/api/v4/projects/${source.id}/export/download`, headers: { 'private-token': t.rootToken } });
      assert.equal(res.statusCode, 200);
      archive = res.rawPayload;
    });
    after(async () => t.close());

    it('the archive carries protected_tags with their create_access_levels, in the reference\'s fields', () => {
      const tar = zlib.gunzipSync(archive).toString('latin1');
      assert.ok(tar.includes('./tree/project/protected_tags.ndjson'));
      const line = tar.split('\n').find((l) => l.includes('"create_access_levels"') && l.includes('"v*"'));
      assert.ok(line, 'a protected tag record');
      const rec = JSON.parse(line!.slice(line!.indexOf('{')));
      assert.deepEqual(Object.keys(rec).sort(), ['create_access_levels', 'created_at', 'id', 'name', 'project_id', 'updated_at']);
      assert.deepEqual(
        rec.create_access_levels.map((l: any) => [l.access_level, l.user_id, l.group_id]).sort(),
        [[40, null, null], [null, releaser.id, null]].sort(),
      );
      assert.deepEqual(Object.keys(rec.create_access_levels[0]).sort(), ['access_level', 'created_at', 'group_id', 'id', 'protected_tag_id', 'updated_at', 'user_id']);
    });

    it('round trip: the imported project has the same protected tags, and they hold there', async () => {
      const r = await postImport(t, archive, [['path', 'tagged-copy']]);
      assert.equal(r.status, 201, r.text);
      await runImportExportJobs(t);
      const st = await t.get(`/api/v4/projects/${r.body.id}/import`);
      assert.equal(st.body.import_status, 'finished', st.text);
      assert.deepEqual(st.body.failed_relations, []);
      assert.deepEqual(await protections(t, r.body.id), await protections(t, source.id));

      const tags = `/api/v4/projects/${r.body.id}/repository/tags`;
      // A developer may not delete or create a `v*` tag; the user entry may; `nightly-*` is developers'.
      const del = await t.request('DELETE', `${tags}/v1.0`, { token: dev.token });
      assert.equal(del.status, 403, del.text);
      // Creating is refused in the ref check's words (the reference's Tags::CreateService: 400).
      const refused = await t.request('POST', tags, { token: dev.token, body: { tag_name: 'v2.0', ref: 'main' } });
      assert.equal(refused.status, 400, refused.text);
      assert.match(String(refused.body.message), /not allowed to create/);
      assert.equal((await t.request('POST', tags, { token: releaser.token, body: { tag_name: 'v2.0', ref: 'main' } })).status, 201);
      assert.equal((await t.request('POST', tags, { token: dev.token, body: { tag_name: 'nightly-2', ref: 'main' } })).status, 201);
      assert.equal((await t.get(`${tags}/v1.0`, dev.token)).status, 200, 'the tag came along');
    });

    it('a record that cannot be saved is one failed relation; the others land', async () => {
      const text = zlib.gunzipSync(archive).toString('latin1');
      assert.ok(text.includes('"nightly-*"'));
      // Same length, so the tar headers stay right: an access level the reference does not know.
      const at = text.indexOf('"name":"nightly-*"');
      const fixed = text.slice(0, at) + text.slice(at).replace('"access_level":30', '"access_level":31');
      const broken = Buffer.from(fixed, 'latin1');
      const r = await postImport(t, zlib.gzipSync(broken), [['path', 'tagged-broken']]);
      assert.equal(r.status, 201, r.text);
      await runImportExportJobs(t);
      const st = await t.get(`/api/v4/projects/${r.body.id}/import`);
      assert.equal(st.body.import_status, 'finished', st.text);
      assert.equal(st.body.failed_relations.length, 1);
      assert.equal(st.body.failed_relations[0].relation_name, 'protected_tags');
      assert.deepEqual((await protections(t, r.body.id)).map((p: any) => p.name), ['v*']);
    });
  });
}
