import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS, buildTestApp, type TestApp } from '../helpers/build.js';
import { makeProjectJobsDue, runDueProjectJobs } from '../helpers/project_jobs.js';
import { multipart } from '../helpers/project_resources.js';
import { addMember, makeProject } from '../helpers/projects.js';

const SETTINGS = '/api/v4/application/settings';
const today = () => new Date().toISOString().slice(0, 10);
const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);

for (const dialect of DIALECTS) {
  describe(`project archive, deletion, restore, languages (${dialect})`, () => {
    let t: TestApp;
    before(async () => {
      t = await buildTestApp(dialect);
    });
    after(async () => t.close());

    const upload = (projectId: number, token: string) => {
      const m = multipart([], [{ name: 'file', filename: 'notes.txt', content: Buffer.from('hello') }]);
      return t.request('POST', `/api/v4/projects/${projectId}/uploads`, { token, payload: m.payload, headers: m.headers });
    };
    /** A blob put under the project's prefix, to see it removed with the project. */
    const marker = (projectId: number) => t.c.storage.stat(`projects/${projectId}/marker`);

    it('archive and unarchive: owners, 201 with the project, idempotent; an archived project refuses content writes with 403', async () => {
      const owner = await t.createUser();
      const p = await makeProject(t, owner.token, { name: 'to-archive', visibility: 'public' });
      const r = await t.request('POST', `/api/v4/projects/${p.id}/archive`, { token: owner.token });
      assert.equal(r.status, 201);
      assert.equal(r.headers['content-type'], 'application/json');
      assert.equal(r.body.archived, true);
      assert.equal(r.body.id, p.id);
      assert.equal(r.body.can_create_merge_request_in, false);
      assert.ok('permissions' in r.body);
      const stamp = async () => (await t.c.db.selectFrom('projects').select('updated_at').where('id', '=', p.id).executeTakeFirstOrThrow()).updated_at;
      const archivedAt = await stamp();
      const again = await t.request('POST', `/api/v4/projects/${p.id}/archive`, { token: owner.token });
      assert.equal(again.status, 201);
      assert.equal(again.body.archived, true);
      assert.equal(await stamp(), archivedAt); // nothing changed

      // content writes are refused; settings stay editable
      const refused = await upload(p.id, owner.token);
      assert.deepEqual([refused.status, refused.body], [403, { message: '403 Forbidden' }]);
      const edit = await t.request('PUT', `/api/v4/projects/${p.id}`, { token: owner.token, body: { description: 'still editable' } });
      assert.equal(edit.status, 200, edit.text);
      assert.equal(edit.body.archived, true);
      assert.deepEqual((await t.get('/api/v4/projects?archived=true', owner.token)).body.map((x: any) => x.id), [p.id]);

      const un = await t.request('POST', `/api/v4/projects/${p.id}/unarchive`, { token: owner.token });
      assert.equal(un.status, 201);
      assert.equal(un.body.archived, false);
      assert.equal(un.body.can_create_merge_request_in, true);
      assert.equal((await t.request('POST', `/api/v4/projects/${p.id}/unarchive`, { token: owner.token })).body.archived, false);
      assert.equal((await upload(p.id, owner.token)).status, 201);
      // archive and unarchive are project updates in the events (the idempotent repeats record nothing)
      const updates = await t.get(`/api/v4/projects/${p.id}/events?action=updated`, owner.token);
      assert.equal(updates.status, 200, updates.text);
      assert.equal(updates.body.length, 3); // archive, the settings edit, unarchive
    });

    it('archive permissions: maintainers 403, strangers 404 on private and 403 on public, no token 401, read_api 403', async () => {
      const owner = await t.createUser();
      const maint = await t.createUser();
      const stranger = await t.createUser();
      const reader = await t.createUser({ scopes: ['read_api'] });
      const priv = await makeProject(t, owner.token, { name: 'arch-private' });
      const pub = await makeProject(t, owner.token, { name: 'arch-public', visibility: 'public' });
      await addMember(t, 'Project', priv.id, maint.id, 40);
      for (const action of ['archive', 'unarchive']) {
        assert.equal((await t.request('POST', `/api/v4/projects/${priv.id}/${action}`, { token: maint.token })).status, 403);
        const hidden = await t.request('POST', `/api/v4/projects/${priv.id}/${action}`, { token: stranger.token });
        assert.deepEqual([hidden.status, hidden.body], [404, { message: '404 Project Not Found' }]);
        assert.equal((await t.request('POST', `/api/v4/projects/${pub.id}/${action}`, { token: stranger.token })).status, 403);
        assert.equal((await t.request('POST', `/api/v4/projects/${pub.id}/${action}`, { token: null })).status, 401);
        assert.equal((await t.request('POST', `/api/v4/projects/${pub.id}/${action}`, { token: reader.token })).status, 403);
      }
      assert.equal((await t.request('POST', `/api/v4/projects/${priv.id}/archive`)).status, 201); // admin
      assert.equal((await t.get(`/api/v4/projects/${priv.id}`, owner.token)).body.archived, true);
    });

    it('immediate deletion: 202, gone from lookups and lists at once, rows and blobs removed', async () => {
      const owner = await t.createUser();
      const fan = await t.createUser();
      const p = await makeProject(t, owner.token, { name: 'gone-now', visibility: 'public' });
      await addMember(t, 'Project', p.id, fan.id, 30);
      await t.request('POST', `/api/v4/projects/${p.id}/star`, { token: fan.token });
      assert.equal((await upload(p.id, owner.token)).status, 201);
      await t.c.storage.put(`projects/${p.id}/marker`, Buffer.from('x'));
      assert.equal((await t.request('PUT', `/api/v4/projects/${p.id}/custom_attributes/team`, { body: { value: 'blue' } })).status, 200);

      const r = await t.request('DELETE', `/api/v4/projects/${p.id}`, { token: owner.token });
      assert.deepEqual([r.status, r.body], [202, { message: '202 Accepted' }]);
      assert.equal((await t.get(`/api/v4/projects/${p.id}`, owner.token)).status, 404);
      assert.equal((await t.get(`/api/v4/projects/${encodeURIComponent(p.path_with_namespace)}`, owner.token)).status, 404);
      assert.ok(!(await t.get('/api/v4/projects?per_page=100', owner.token)).body.some((x: any) => x.id === p.id));
      assert.equal(await marker(p.id), null);
      const members = await t.c.db.selectFrom('members').select('id').where('source_type', '=', 'Project').where('source_id', '=', p.id).execute();
      assert.deepEqual(members, []);
      const attributes = await t.c.db.selectFrom('custom_attributes').select('id').where('kind', '=', 'project').where('subject_id', '=', p.id).execute();
      assert.deepEqual(attributes, []);
      // the follow-up job (files outside the database) runs and finds nothing left to do
      await runDueProjectJobs(t);
      assert.equal((await t.request('DELETE', `/api/v4/projects/${p.id}`, { token: owner.token })).status, 404);
      const destroyed = (await t.get('/api/v4/events?action=destroyed', owner.token)).body;
      assert.deepEqual(destroyed.map((e: any) => [e.target_type, e.target_id, e.author_id]), [['Project', p.id, owner.id]]);
    });

    it('delete permissions and If-Unmodified-Since', async () => {
      const owner = await t.createUser();
      const maint = await t.createUser();
      const reader = await t.createUser({ scopes: ['read_api'] });
      const p = await makeProject(t, owner.token, { name: 'guarded', visibility: 'public' });
      await addMember(t, 'Project', p.id, maint.id, 40);
      assert.equal((await t.request('DELETE', `/api/v4/projects/${p.id}`, { token: maint.token })).status, 403);
      assert.equal((await t.request('DELETE', `/api/v4/projects/${p.id}`, { token: null })).status, 401);
      assert.equal((await t.request('DELETE', `/api/v4/projects/${p.id}`, { token: reader.token })).status, 403);
      const stale = await t.request('DELETE', `/api/v4/projects/${p.id}`, { token: owner.token, headers: { 'if-unmodified-since': 'Mon, 01 Jan 2001 00:00:00 GMT' } });
      assert.equal(stale.status, 412);
      assert.equal((await t.get(`/api/v4/projects/${p.id}`, owner.token)).status, 200);
    });

    it('delayed deletion end to end: marked and archived, restore, delete again, the job removes it when due', async () => {
      const owner = await t.createUser();
      const other = await t.createUser();
      const maint = await t.createUser();
      const put = await t.request('PUT', SETTINGS, { body: { delayed_project_deletion: true, deletion_adjourned_period: 3 } });
      assert.equal(put.status, 200, put.text);
      try {
        const p = await makeProject(t, owner.token, { name: 'adjourned', visibility: 'public' });
        await addMember(t, 'Project', p.id, maint.id, 40);
        await t.c.storage.put(`projects/${p.id}/marker`, Buffer.from('x'));
        const r = await t.request('DELETE', `/api/v4/projects/${p.id}`, { token: owner.token });
        assert.deepEqual([r.status, r.body], [202, { message: '202 Accepted' }]);

        // marked, archived, still visible and listed
        const marked = (await t.get(`/api/v4/projects/${p.id}`, owner.token)).body;
        assert.equal(marked.marked_for_deletion_on, today());
        assert.equal(marked.marked_for_deletion_at, today());
        assert.equal(marked.archived, true);
        assert.ok((await t.get('/api/v4/projects?per_page=100', other.token)).body.some((x: any) => x.id === p.id));
        // the removal is queued for deletion_adjourned_period days later
        const job = await t.c.db.selectFrom('background_jobs').selectAll().where('kind', '=', 'project_destroy').where('state', '=', 'queued').orderBy('id', 'desc').executeTakeFirstOrThrow();
        assert.deepEqual(JSON.parse(job.payload), { projectId: p.id });
        const delay = Date.parse(job.run_at) - Date.now();
        assert.ok(delay > 2.9 * 86_400_000 && delay <= 3 * 86_400_000, `run_at ${job.run_at}`);
        // a second DELETE changes nothing
        assert.equal((await t.request('DELETE', `/api/v4/projects/${p.id}`, { token: owner.token })).status, 202);
        assert.equal((await t.c.db.selectFrom('background_jobs').select('id').where('kind', '=', 'project_destroy').where('state', '=', 'queued').execute()).length, 1);

        // restore: owners only; clears the mark and the archive
        assert.equal((await t.request('POST', `/api/v4/projects/${p.id}/restore`, { token: maint.token })).status, 403);
        assert.equal((await t.request('POST', `/api/v4/projects/${p.id}/restore`, { token: other.token })).status, 403);
        assert.equal((await t.request('POST', `/api/v4/projects/${p.id}/restore`, { token: null })).status, 401);
        const restored = await t.request('POST', `/api/v4/projects/${p.id}/restore`, { token: owner.token });
        assert.equal(restored.status, 201);
        assert.equal(restored.body.marked_for_deletion_on, null);
        assert.equal(restored.body.marked_for_deletion_at, null);
        assert.equal(restored.body.archived, false);
        // restoring a project that is not marked (any more): the reference's 400
        const again = await t.request('POST', `/api/v4/projects/${p.id}/restore`, { token: owner.token });
        assert.equal(again.status, 400);
        assert.deepEqual(again.body, { message: 'Project has not been marked for deletion' });

        // the old job, once due, does nothing to a restored project
        await makeProjectJobsDue(t);
        await runDueProjectJobs(t);
        assert.equal((await t.get(`/api/v4/projects/${p.id}`, owner.token)).status, 200);
        assert.notEqual(await marker(p.id), null);

        // deleted again; the job that comes due before the mark is old enough puts itself off
        assert.equal((await t.request('DELETE', `/api/v4/projects/${p.id}`, { token: owner.token })).status, 202);
        await makeProjectJobsDue(t);
        await runDueProjectJobs(t);
        assert.equal((await t.get(`/api/v4/projects/${p.id}`, owner.token)).status, 200);
        const later = await t.c.db.selectFrom('background_jobs').selectAll().where('kind', '=', 'project_destroy').where('state', '=', 'queued').execute();
        assert.equal(later.length, 1);
        assert.equal(later[0].run_at.slice(0, 10) > today(), true);

        // once the mark is old enough and the job is due, the project and its files are gone
        await t.c.db.updateTable('projects').set({ marked_for_deletion_on: daysAgo(3) }).where('id', '=', p.id).execute();
        await makeProjectJobsDue(t);
        await runDueProjectJobs(t);
        assert.equal((await t.get(`/api/v4/projects/${p.id}`, owner.token)).status, 404);
        assert.equal(await marker(p.id), null);
        assert.equal((await t.c.db.selectFrom('projects').select('id').where('id', '=', p.id).execute()).length, 0);
        // the user who asked for the deletion is the author of the destruction
        const destroyed = (await t.get('/api/v4/events?action=destroyed', owner.token)).body;
        assert.deepEqual(destroyed.map((e: any) => [e.target_id, e.author_id]), [[p.id, owner.id]]);
      } finally {
        await t.request('PUT', SETTINGS, { body: { delayed_project_deletion: false } });
      }
    });

    it('restore of a project that is not marked: 400 in the reference words, the project unchanged; unknown projects 404', async () => {
      const owner = await t.createUser();
      const p = await makeProject(t, owner.token, { name: 'not-marked' });
      await t.request('POST', `/api/v4/projects/${p.id}/archive`, { token: owner.token });
      const r = await t.request('POST', `/api/v4/projects/${p.id}/restore`, { token: owner.token });
      assert.equal(r.status, 400);
      assert.deepEqual(r.body, { message: 'Project has not been marked for deletion' });
      assert.equal((await t.get(`/api/v4/projects/${p.id}`, owner.token)).body.archived, true);
      assert.equal((await t.request('POST', '/api/v4/projects/999999/restore', { token: owner.token })).status, 404);
    });

    it('languages: {} until repositories exist; 404 for projects the caller cannot see', async () => {
      const owner = await t.createUser();
      const stranger = await t.createUser();
      const pub = await makeProject(t, owner.token, { name: 'lang-public', visibility: 'public' });
      const priv = await makeProject(t, owner.token, { name: 'lang-private' });
      const r = await t.get(`/api/v4/projects/${pub.id}/languages`, null);
      assert.equal(r.status, 200);
      assert.equal(r.headers['content-type'], 'application/json');
      assert.equal(r.text, '{}');
      assert.equal((await t.get(`/api/v4/projects/${priv.id}/languages`, owner.token)).text, '{}');
      assert.deepEqual((await t.get(`/api/v4/projects/${priv.id}/languages`, stranger.token)).body, { message: '404 Project Not Found' });
      assert.equal((await t.get(`/api/v4/projects/${priv.id}/languages`, null)).status, 404);
    });
  });
}
