// Who may read a project's code through the API (the reference's download_code): reporters and
// above, admins, and public access — a public project, or an internal one for signed-in users who
// are NOT external. An external guest of an internal project sees the project but not its code:
// branches, commits, tree and push events. (One copy of this rule used to let anything internal
// through, whatever the caller.)
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS, buildTestApp, type TestApp } from '../helpers/build.js';
import { SIMPLE_CI, createPipelineOk, makeCiProject, putFiles } from '../helpers/ci.js';
import { addMember, makeProject } from '../helpers/projects.js';

const FORBIDDEN = { message: '403 Forbidden' };
const NOT_FOUND = { message: '404 Project Not Found' };

for (const dialect of DIALECTS) {
  describe(`code access for external users (${dialect})`, () => {
    let t: TestApp;
    let owner: { id: number; username: string; token: string };
    let extGuest: { id: number; token: string };
    let extReporter: { id: number; token: string };
    let extStranger: { id: number; token: string };
    let stranger: { id: number; token: string };
    let internal: { id: number };
    before(async () => {
      t = await buildTestApp(dialect);
      owner = await t.createUser();
      extGuest = await t.createUser({ external: true });
      extReporter = await t.createUser({ external: true });
      extStranger = await t.createUser({ external: true });
      stranger = await t.createUser();
      internal = await makeProject(t, owner.token, { name: 'inside', visibility: 'internal', initialize_with_readme: true });
      await addMember(t, 'Project', internal.id, extGuest.id, 10);
      await addMember(t, 'Project', internal.id, extReporter.id, 20);
      await putFiles(t, internal.id, { 'a.txt': 'a\n' }, { token: owner.token }); // a push event
    });
    after(async () => t.close());

    const CODE_PATHS = ['repository/branches', 'repository/branches/main', 'repository/commits', 'repository/tree'];

    it('an external guest of an internal project sees the project but not its code (403)', async () => {
      assert.equal((await t.get(`/api/v4/projects/${internal.id}`, extGuest.token)).status, 200);
      for (const p of CODE_PATHS) {
        const r = await t.get(`/api/v4/projects/${internal.id}/${p}`, extGuest.token);
        assert.equal(r.status, 403, p);
        assert.deepEqual(r.body, FORBIDDEN, p);
      }
    });

    it('an external reporter, and a signed-in user who is not external, read the code', async () => {
      for (const who of [extReporter, stranger]) {
        for (const p of CODE_PATHS) assert.equal((await t.get(`/api/v4/projects/${internal.id}/${p}`, who.token)).status, 200, p);
      }
    });

    it('an external user who is not a member does not see the project at all (404)', async () => {
      for (const p of ['', ...CODE_PATHS.map((x) => `/${x}`)]) {
        const r = await t.get(`/api/v4/projects/${internal.id}${p}`, extStranger.token);
        assert.equal(r.status, 404, p);
        assert.deepEqual(r.body, NOT_FOUND, p);
      }
    });

    it('push events name commits: hidden from the external guest, in the project list and across projects', async () => {
      const pushed = (events: any[]) => events.filter((e) => e.action_name.startsWith('pushed')).length;
      const forReporter = await t.get(`/api/v4/projects/${internal.id}/events`, extReporter.token);
      assert.equal(forReporter.status, 200);
      assert.ok(pushed(forReporter.body) > 0);
      const forGuest = await t.get(`/api/v4/projects/${internal.id}/events`, extGuest.token);
      assert.equal(forGuest.status, 200);
      assert.ok(forGuest.body.length > 0, 'other events stay');
      assert.equal(pushed(forGuest.body), 0);
      // The owner's own activity, as each of them sees it.
      assert.ok(pushed((await t.get(`/api/v4/users/${owner.id}/events`, extReporter.token)).body) > 0);
      assert.equal(pushed((await t.get(`/api/v4/users/${owner.id}/events`, extGuest.token)).body), 0);
      assert.ok(pushed((await t.get(`/api/v4/users/${owner.id}/events`, stranger.token)).body) > 0);
    });

    it('can_create_merge_request_in needs download_code: false for the external guest and for a guest of a private project', async () => {
      assert.equal((await t.get(`/api/v4/projects/${internal.id}`, extGuest.token)).body.can_create_merge_request_in, false);
      assert.equal((await t.get(`/api/v4/projects/${internal.id}`, extReporter.token)).body.can_create_merge_request_in, true);
      assert.equal((await t.get(`/api/v4/projects/${internal.id}`, stranger.token)).body.can_create_merge_request_in, true);
      const priv = await makeProject(t, owner.token, { name: 'secret', visibility: 'private' });
      await addMember(t, 'Project', priv.id, stranger.id, 10);
      assert.equal((await t.get(`/api/v4/projects/${priv.id}`, stranger.token)).body.can_create_merge_request_in, false);
      await addMember(t, 'Project', priv.id, extReporter.id, 20);
      assert.equal((await t.get(`/api/v4/projects/${priv.id}`, extReporter.token)).body.can_create_merge_request_in, true);
    });

    it("read_pipeline is public access too: without public jobs, a pipeline of the internal project is not the external guest's (403)", async () => {
      const ci = await makeCiProject(t, SIMPLE_CI, { token: owner.token, body: { visibility: 'internal', public_jobs: false } });
      await addMember(t, 'Project', ci.id, extGuest.id, 10);
      await addMember(t, 'Project', ci.id, extReporter.id, 20);
      const pipeline = await createPipelineOk(t, ci.id, 'main', { token: owner.token });
      const url = `/api/v4/projects/${ci.id}/pipelines/${pipeline.id}`;
      const r = await t.get(url, extGuest.token);
      assert.equal(r.status, 403);
      assert.deepEqual(r.body, FORBIDDEN);
      assert.equal((await t.get(url, extReporter.token)).status, 200);
      assert.equal((await t.get(url, stranger.token)).status, 200);
    });
  });
}
