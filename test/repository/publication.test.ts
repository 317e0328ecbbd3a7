// Ref changes are published from one place: a push event per ref with the reference's push_data
// (or one bulk event above push_event_activities_limit), last_activity_at, a statistics refresh,
// and the `repository_push` announcement for the hook deliverer. Push events show only to callers
// who may download the code.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS, buildTestApp, type TestApp } from '../helpers/build.js';
import { addMember, makeProject } from '../helpers/projects.js';
import { actorOf, deleteRef, jobsOf, refSha, setRef, writeCommit } from '../helpers/repository.js';
import { checkRepositoryPushPayload, commitTitle, publishRefChanges } from '../../src/domain/repository/ref_changes.js';
import { findProjectById } from '../../src/db/repos/projects.js';
import { ZERO_SHA } from '../../src/git/repository.js';

const LONG = 'A commit title that is much longer than seventy characters, so it gets cut off here';
const pushData = (e: any) => e.push_data;

for (const dialect of DIALECTS) {
  describe(`ref change publication (${dialect})`, () => {
    let t: TestApp;
    let root: any;
    before(async () => {
      t = await buildTestApp(dialect);
      root = (await t.get('/api/v4/user')).body;
    });
    after(async () => t.close());

    const row = async (id: number) => (await findProjectById(t.c.db, id))!;
    const pushEvents = async (id: number, token: string | null = t.rootToken) => {
      const r = await t.get(`/api/v4/projects/${id}/events?action=pushed&sort=asc`, token);
      assert.equal(r.status, 200, r.text);
      return r.body as any[];
    };

    it('an update of a branch records one event with exact push_data, moves last_activity_at and announces the change', async () => {
      const p = await makeProject(t, t.rootToken, { name: 'pub-update', initialize_with_readme: true });
      const old = await refSha(t, p.id, 'refs/heads/main');
      const second = await writeCommit(t, p.id, old, 'Second\n\nbody text', { 'README.md': 'two' });
      const third = await writeCommit(t, p.id, second, `${LONG}\nmore`, { 'README.md': 'three' });
      await setRef(t, p.id, 'refs/heads/main', third);
      await t.c.db.updateTable('projects').set({ last_activity_at: '2020-01-01T00:00:00.000Z' }).where('id', '=', p.id).execute();

      await publishRefChanges(t.c, await actorOf(t, root.id), await row(p.id), [{ ref: 'refs/heads/main', oldSha: old, newSha: third, force: false }]);

      const events = await pushEvents(p.id);
      assert.equal(events.length, 1);
      assert.equal(events[0].action_name, 'pushed to');
      assert.equal(events[0].author_id, root.id);
      assert.deepEqual(pushData(events[0]), {
        commit_count: 2,
        action: 'pushed',
        ref_type: 'branch',
        commit_from: old,
        commit_to: third,
        ref: 'main',
        commit_title: 'A commit title that is much longer than seventy characters, so it g...',
      });
      const after = (await t.get(`/api/v4/projects/${p.id}`)).body.last_activity_at;
      assert.ok(Date.parse(after) > Date.parse('2025-01-01T00:00:00Z'), after);

      const announced = (await jobsOf(t, 'repository_push')).filter((j) => j.payload.projectId === p.id);
      assert.deepEqual(announced.map((j) => j.payload), [
        { projectId: p.id, userId: root.id, changes: [{ ref: 'refs/heads/main', before: old, after: third }] },
      ]);
      assert.doesNotThrow(() => checkRepositoryPushPayload(announced[0].payload));
      const refreshes = (await jobsOf(t, 'repository_refresh')).filter((j) => j.payload.projectId === p.id && j.state === 'queued');
      assert.equal(refreshes.length, 1);
    });

    it('a new branch counts the commits its default branch lacks; removal and tags as the reference records them', async () => {
      const p = await makeProject(t, t.rootToken, { name: 'pub-create', initialize_with_readme: true });
      const base = await refSha(t, p.id, 'refs/heads/main');
      const feat = await writeCommit(t, p.id, base, 'Feature work', { 'README.md': 'feature' });
      await setRef(t, p.id, 'refs/heads/feature', feat);
      await setRef(t, p.id, 'refs/heads/same', base);
      await setRef(t, p.id, 'refs/tags/v1.0', base);
      const actor = await actorOf(t, root.id);
      await publishRefChanges(t.c, actor, await row(p.id), [
        { ref: 'refs/heads/feature', oldSha: ZERO_SHA, newSha: feat, force: false },
        { ref: 'refs/heads/same', oldSha: ZERO_SHA, newSha: base, force: false },
        { ref: 'refs/tags/v1.0', oldSha: ZERO_SHA, newSha: base, force: false },
      ]);
      await deleteRef(t, p.id, 'refs/heads/feature');
      await publishRefChanges(t.c, actor, await row(p.id), [{ ref: 'refs/heads/feature', oldSha: feat, newSha: ZERO_SHA, force: false }]);

      const events = await pushEvents(p.id);
      assert.deepEqual(events.map((e) => [e.action_name, pushData(e)]), [
        ['pushed new', { commit_count: 1, action: 'created', ref_type: 'branch', commit_from: null, commit_to: feat, ref: 'feature', commit_title: 'Feature work' }],
        ['pushed new', { commit_count: 0, action: 'created', ref_type: 'branch', commit_from: null, commit_to: base, ref: 'same', commit_title: null }],
        ['pushed new', { commit_count: 1, action: 'created', ref_type: 'tag', commit_from: null, commit_to: base, ref: 'v1.0', commit_title: 'Initial commit' }],
        ['deleted', { commit_count: 0, action: 'removed', ref_type: 'branch', commit_from: feat, commit_to: null, ref: 'feature', commit_title: null }],
      ]);
      // One announcement per publication, with every ref of it.
      const announced = (await jobsOf(t, 'repository_push')).filter((j) => j.payload.projectId === p.id).map((j) => j.payload.changes.length);
      assert.deepEqual(announced, [3, 1]);
    });

    it('a new default branch counts all its commits; counts given by the caller are kept', async () => {
      const p = await makeProject(t, t.rootToken, { name: 'pub-default' });
      const one = await writeCommit(t, p.id, null, 'One', { 'a.txt': '1' });
      const two = await writeCommit(t, p.id, one, 'Two', { 'a.txt': '2' });
      await setRef(t, p.id, 'refs/heads/main', two);
      const actor = await actorOf(t, root.id);
      await publishRefChanges(t.c, actor, await row(p.id), [{ ref: 'refs/heads/main', oldSha: ZERO_SHA, newSha: two, force: false }]);
      await publishRefChanges(t.c, actor, await row(p.id), [{ ref: 'refs/heads/main', oldSha: one, newSha: two, force: false, commitCount: 1, commitTitle: 'Given' }]);
      assert.deepEqual((await pushEvents(p.id)).map((e) => [pushData(e).commit_count, pushData(e).commit_title]), [[2, 'Two'], [1, 'Given']]);
    });

    it('more refs of one kind than push_event_activities_limit make one bulk event', async () => {
      assert.equal((await t.request('PUT', '/api/v4/application/settings', { body: { push_event_activities_limit: 2 } })).status, 200);
      try {
        const p = await makeProject(t, t.rootToken, { name: 'pub-bulk', initialize_with_readme: true });
        const base = await refSha(t, p.id, 'refs/heads/main');
        const names = ['b1', 'b2', 'b3'];
        for (const n of names) await setRef(t, p.id, `refs/heads/${n}`, base);
        await setRef(t, p.id, 'refs/tags/t1', base);
        await publishRefChanges(t.c, await actorOf(t, root.id), await row(p.id), [
          ...names.map((n) => ({ ref: `refs/heads/${n}`, oldSha: ZERO_SHA, newSha: base, force: false })),
          { ref: 'refs/tags/t1', oldSha: ZERO_SHA, newSha: base, force: false },
        ]);
        const events = await pushEvents(p.id);
        assert.deepEqual(events.map(pushData), [
          { commit_count: 0, action: 'created', ref_type: 'branch', commit_from: null, commit_to: null, ref: null, commit_title: null },
          { commit_count: 1, action: 'created', ref_type: 'tag', commit_from: null, commit_to: base, ref: 't1', commit_title: 'Initial commit' },
        ]);
      } finally {
        await t.request('PUT', '/api/v4/application/settings', { body: { push_event_activities_limit: 3 } });
      }
    });

    it('push events show only to callers who may download the code', async () => {
      const priv = await makeProject(t, t.rootToken, { name: 'pub-private', initialize_with_readme: true, visibility: 'private' });
      const pub = await makeProject(t, t.rootToken, { name: 'pub-public', initialize_with_readme: true, visibility: 'public' });
      const guest = await t.createUser();
      const reporter = await t.createUser();
      await addMember(t, 'Project', priv.id, guest.id, 10);
      await addMember(t, 'Project', priv.id, reporter.id, 20);
      await addMember(t, 'Project', pub.id, guest.id, 10);
      const actor = await actorOf(t, root.id);
      for (const p of [priv, pub]) {
        const sha = await refSha(t, p.id, 'refs/heads/main');
        await setRef(t, p.id, 'refs/heads/topic', sha);
        await publishRefChanges(t.c, actor, await row(p.id), [{ ref: 'refs/heads/topic', oldSha: ZERO_SHA, newSha: sha, force: false }]);
      }
      // The project's list.
      assert.equal((await pushEvents(priv.id, guest.token)).length, 0);
      assert.equal((await pushEvents(priv.id, reporter.token)).length, 1);
      assert.equal((await pushEvents(pub.id, guest.token)).length, 1);
      assert.equal((await pushEvents(pub.id, null)).length, 1);
      // The cross-project lists.
      const all = async (token: string) =>
        ((await t.get('/api/v4/events?scope=all&action=pushed', token)).body as any[]).map((e) => e.project_id).sort((a, b) => a - b);
      assert.deepEqual(await all(guest.token), [pub.id]);
      assert.deepEqual(await all(reporter.token), [priv.id]);
      const byRoot = async (token: string | null) =>
        ((await t.get(`/api/v4/users/${root.id}/events?action=pushed&per_page=100`, token)).body as any[]).filter((e) => [priv.id, pub.id].includes(e.project_id)).map((e) => e.project_id);
      assert.deepEqual(await byRoot(guest.token), [pub.id]);
      assert.deepEqual((await byRoot(reporter.token)).sort(), [priv.id, pub.id].sort());
      assert.deepEqual(await byRoot(null), [pub.id]);
    });

    it('the announcement payload is checked; titles are cut as the reference cuts them', () => {
      assert.throws(() => checkRepositoryPushPayload({ projectId: 1, userId: 1, changes: [] }), /invalid repository_push payload/);
      assert.throws(() => checkRepositoryPushPayload({ projectId: 1, userId: 1, changes: [{ ref: 'main', before: ZERO_SHA, after: ZERO_SHA }] }));
      assert.equal(commitTitle('  short  \nsecond'), 'short');
      assert.equal(commitTitle('x'.repeat(70)), 'x'.repeat(70));
      assert.equal(commitTitle('x'.repeat(71)), `${'x'.repeat(67)}...`);
    });
  });
}
