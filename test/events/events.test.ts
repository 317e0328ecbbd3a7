import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS, EXTERNAL_URL, buildTestApp, keysOf, type TestApp } from '../helpers/build.js';
import { EVENT_KEYS, PUSH_DATA_KEYS, daysAgo, eventAt } from '../helpers/events.js';
import { addMember, makeGroup } from '../helpers/groups.js';
import { makeProject } from '../helpers/projects.js';
import { waitFor } from '../helpers/queue.js';
import { EVENTS_PRUNE_JOB, pruneOldEvents, recordEvent } from '../../src/domain/events/service.js';

type User = { id: number; username: string; token: string };
const enc = encodeURIComponent;
const YEAR_MS = 365.25 * 86_400_000;

for (const dialect of DIALECTS) {
  describe(`events (${dialect})`, () => {
    let t: TestApp;
    before(async () => {
      t = await buildTestApp(dialect);
    });
    after(async () => t.close());

    const events = async (url: string, token?: string | null) => {
      const r = await t.get(url, token);
      assert.equal(r.status, 200, `${url}: ${r.text}`);
      return r.body as any[];
    };
    const actions = (list: any[]) => list.map((e) => e.action_name);

    describe('recording', () => {
      let alice: User, bob: User;
      before(async () => {
        alice = await t.createUser();
        bob = await t.createUser();
      });

      it('creating a project records `created` by its creator, with no target', async () => {
        const p = await makeProject(t, alice.token, { name: 'recorded', visibility: 'public' });
        const list = await events(`/api/v4/projects/${p.id}/events`, alice.token);
        assert.equal(list.length, 1);
        const e = list[0];
        assert.deepEqual(keysOf(e), EVENT_KEYS);
        assert.deepEqual(
          { ...e, id: 0, created_at: '' },
          {
            id: 0,
            title: null,
            project_id: p.id,
            action_name: 'created',
            target_id: null,
            target_iid: null,
            target_type: null,
            author_id: alice.id,
            target_title: null,
            created_at: '',
            author: { id: alice.id, username: alice.username, name: `User ${alice.username}`, state: 'active', avatar_url: null, web_url: `${EXTERNAL_URL}/${alice.username}` },
            author_username: alice.username,
          },
        );
        assert.match(e.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      });

      it('an admin creating a project for a user records it as that user’s', async () => {
        const r = await t.request('POST', `/api/v4/projects/user/${bob.id}`, { body: { name: 'for-bob' } });
        assert.equal(r.status, 201, r.text);
        const list = await events(`/api/v4/projects/${r.body.id}/events`);
        assert.deepEqual(list.map((e) => [e.action_name, e.author_id]), [['created', bob.id]]);
      });

      it('editing a project records `updated` by the editor', async () => {
        const p = await makeProject(t, alice.token, { name: 'edited' });
        const r = await t.request('PUT', `/api/v4/projects/${p.id}`, { token: alice.token, body: { description: 'changed' } });
        assert.equal(r.status, 200, r.text);
        const list = await events(`/api/v4/projects/${p.id}/events`, alice.token);
        assert.deepEqual(list.map((e) => [e.action_name, e.author_id, e.target_type]), [['updated', alice.id, null], ['created', alice.id, null]]);
      });

      it('adding and removing a project member records `joined` and `left` by the member', async () => {
        const p = await makeProject(t, alice.token, { name: 'team' });
        let r = await t.request('POST', `/api/v4/projects/${p.id}/members`, { token: alice.token, body: { user_id: bob.id, access_level: 30 } });
        assert.equal(r.status, 201, r.text);
        r = await t.request('DELETE', `/api/v4/projects/${p.id}/members/${bob.id}`, { token: alice.token });
        assert.equal(r.status, 204, r.text);
        const list = await events(`/api/v4/projects/${p.id}/events`, alice.token);
        assert.deepEqual(list.map((e) => [e.action_name, e.author_id, e.project_id]), [['left', bob.id, p.id], ['joined', bob.id, p.id], ['created', alice.id, p.id]]);
      });

      it('group memberships record nothing, as in the reference', async () => {
        const g = await makeGroup(t, { token: alice.token });
        await addMember(t, g.id, bob.id, 30, alice.token);
        const list = await events(`/api/v4/users/${bob.id}/events`, bob.token);
        assert.equal(list.some((e) => e.action_name === 'joined' && e.project_id === null), false);
      });

      it('push events carry push_data and name what the push did', async () => {
        const p = await makeProject(t, alice.token, { name: 'pushed' });
        const push = { commitCount: 2, refType: 'branch' as const, commitFrom: 'a'.repeat(40), commitTo: 'b'.repeat(40), ref: 'main', commitTitle: 'Fix it' };
        await recordEvent(t.c, { action: 'pushed', authorId: alice.id, projectId: p.id, push: { ...push, action: 'pushed' } });
        await recordEvent(t.c, { action: 'pushed', authorId: alice.id, projectId: p.id, push: { ...push, action: 'created', commitFrom: null, ref: 'topic' } });
        await recordEvent(t.c, { action: 'pushed', authorId: alice.id, projectId: p.id, push: { ...push, action: 'removed', commitTo: null, commitCount: 0, ref: 'topic' } });
        const list = await events(`/api/v4/projects/${p.id}/events?action=pushed`, alice.token);
        assert.deepEqual(actions(list), ['deleted', 'pushed new', 'pushed to']);
        for (const e of list) {
          assert.deepEqual(keysOf(e), [...EVENT_KEYS, 'push_data'].sort());
          assert.deepEqual(keysOf(e.push_data), PUSH_DATA_KEYS);
        }
        assert.deepEqual(list[2].push_data, {
          commit_count: 2, action: 'pushed', ref_type: 'branch', commit_from: 'a'.repeat(40), commit_to: 'b'.repeat(40), ref: 'main', commit_title: 'Fix it',
        });
        assert.equal(list[1].push_data.commit_from, null);
        // Only push events carry push_data.
        const created = (await events(`/api/v4/projects/${p.id}/events?action=created`, alice.token))[0];
        assert.equal('push_data' in created, false);
      });

      it('events with a target name it, with target_iid falling back to the id', async () => {
        const p = await makeProject(t, alice.token, { name: 'targets' });
        await recordEvent(t.c, { action: 'created', authorId: alice.id, projectId: p.id, target: { type: 'Issue', id: 501, iid: 7, title: 'A bug' } });
        await recordEvent(t.c, { action: 'merged', authorId: alice.id, projectId: p.id, target: { type: 'MergeRequest', id: 601, iid: 3, title: 'Feature' } });
        await recordEvent(t.c, { action: 'commented', authorId: alice.id, projectId: p.id, target: { type: 'Note', id: 701, title: null } });
        const list = await events(`/api/v4/projects/${p.id}/events?sort=asc`, alice.token);
        assert.deepEqual(
          list.map((e) => [e.action_name, e.target_type, e.target_id, e.target_iid, e.target_title]),
          [
            ['created', null, null, null, null],
            ['opened', 'Issue', 501, 7, 'A bug'],
            ['accepted', 'MergeRequest', 601, 3, 'Feature'],
            ['commented on', 'Note', 701, 701, null],
          ],
        );
      });
    });

    describe('GET /events', () => {
      let owner: User, member: User, other: User;
      let shared: { id: number }, otherProject: { id: number };
      before(async () => {
        owner = await t.createUser();
        member = await t.createUser();
        other = await t.createUser();
        shared = await makeProject(t, owner.token, { name: 'shared' });
        otherProject = await makeProject(t, other.token, { name: 'elsewhere', visibility: 'public' });
        await t.request('POST', `/api/v4/projects/${shared.id}/members`, { token: owner.token, body: { user_id: member.id, access_level: 30 } });
        await t.request('PUT', `/api/v4/projects/${otherProject.id}`, { token: other.token, body: { description: 'x' } });
      });

      it("lists the caller's own events, newest first", async () => {
        const list = await events('/api/v4/events', owner.token);
        assert.deepEqual(list.map((e) => [e.action_name, e.project_id, e.author_id]), [['created', shared.id, owner.id]]);
        const mine = await events('/api/v4/events', member.token);
        assert.deepEqual(mine.map((e) => [e.action_name, e.project_id]), [['joined', shared.id]]);
      });

      it("scope=all adds everyone's events in the caller's projects, and nothing from other projects", async () => {
        const list = await events('/api/v4/events?scope=all', owner.token);
        assert.deepEqual(list.map((e) => [e.action_name, e.author_id]), [['joined', member.id], ['created', owner.id]]);
        const other_ = await events('/api/v4/events?scope=all', other.token);
        assert.deepEqual(other_.map((e) => [e.action_name, e.project_id]), [['updated', otherProject.id], ['created', otherProject.id]]);
        // any other scope is the caller's own list
        assert.deepEqual(actions(await events('/api/v4/events?scope=mine', owner.token)), ['created']);
      });

      it('needs a signed-in caller with read_user, read_api or api', async () => {
        let r = await t.get('/api/v4/events', null);
        assert.equal(r.status, 401);
        assert.deepEqual(r.body, { message: '401 Unauthorized' });
        for (const scope of ['read_user', 'read_api']) {
          const u = await t.createUser({ scopes: [scope] });
          r = await t.get('/api/v4/events', u.token);
          assert.equal(r.status, 200, `${scope}: ${r.text}`);
        }
        const repoOnly = await t.createUser({ scopes: ['read_repository'] });
        r = await t.get('/api/v4/events', repoOnly.token);
        assert.equal(r.status, 403);
        assert.equal(r.body.error, 'insufficient_scope');
      });
    });

    describe('visibility', () => {
      let owner: User, member: User, outsider: User, hidden: User;
      let secret: { id: number; path_with_namespace: string }, open: { id: number };
      before(async () => {
        owner = await t.createUser();
        member = await t.createUser();
        outsider = await t.createUser();
        hidden = await t.createUser({ extra: { private_profile: 1 } });
        secret = await makeProject(t, owner.token, { name: 'secret', visibility: 'private' });
        open = await makeProject(t, owner.token, { name: 'open', visibility: 'public' });
        await t.request('POST', `/api/v4/projects/${secret.id}/members`, { token: owner.token, body: { user_id: member.id, access_level: 10 } });
        await makeProject(t, hidden.token, { name: 'hidden-public', visibility: 'public' });
      });

      it("GET /users/:id/events hides events in projects the caller cannot see", async () => {
        const forOutsider = await events(`/api/v4/users/${owner.id}/events`, outsider.token);
        assert.deepEqual(forOutsider.map((e) => e.project_id), [open.id]);
        const anonymous = await events(`/api/v4/users/${owner.username}/events`, null);
        assert.deepEqual(anonymous.map((e) => e.project_id), [open.id]);
        const forMember = await events(`/api/v4/users/${owner.id}/events`, member.token);
        assert.deepEqual(forMember.map((e) => e.project_id), [open.id, secret.id]);
        const forAdmin = await events(`/api/v4/users/${owner.id}/events`);
        assert.deepEqual(forAdmin.map((e) => e.project_id), [open.id, secret.id]);
      });

      it('GET /users/:id/events of a private profile is empty for others, full for its owner and admins', async () => {
        assert.deepEqual(await events(`/api/v4/users/${hidden.id}/events`, outsider.token), []);
        assert.deepEqual(await events(`/api/v4/users/${hidden.id}/events`, null), []);
        assert.equal((await events(`/api/v4/users/${hidden.id}/events`, hidden.token)).length, 1);
        assert.equal((await events(`/api/v4/users/${hidden.id}/events`)).length, 1);
      });

      it('GET /users/:id/events: 404 for an unknown user; read_user is enough, read_repository is not', async () => {
        let r = await t.get('/api/v4/users/999999/events');
        assert.equal(r.status, 404);
        assert.deepEqual(r.body, { message: '404 User Not Found' });
        r = await t.get('/api/v4/users/nobody-here/events');
        assert.equal(r.status, 404);
        const ru = await t.createUser({ scopes: ['read_user'] });
        r = await t.get(`/api/v4/users/${owner.id}/events`, ru.token);
        assert.equal(r.status, 200);
        const repoOnly = await t.createUser({ scopes: ['read_repository'] });
        r = await t.get(`/api/v4/users/${owner.id}/events`, repoOnly.token);
        assert.equal(r.status, 403);
        assert.equal(r.body.error, 'insufficient_scope');
      });

      it("GET /projects/:id/events: a private project is 404 to others; members, admins see it; read_user is not enough", async () => {
        let r = await t.get(`/api/v4/projects/${secret.id}/events`, outsider.token);
        assert.equal(r.status, 404);
        assert.deepEqual(r.body, { message: '404 Project Not Found' });
        r = await t.get(`/api/v4/projects/${secret.id}/events`, null);
        assert.equal(r.status, 404);
        assert.deepEqual(actions(await events(`/api/v4/projects/${enc(secret.path_with_namespace)}/events`, member.token)), ['joined', 'created']);
        assert.equal((await events(`/api/v4/projects/${secret.id}/events`)).length, 2);
        assert.deepEqual(actions(await events(`/api/v4/projects/${open.id}/events`, null)), ['created']);
        r = await t.get('/api/v4/projects/999999/events');
        assert.equal(r.status, 404);
        const ru = await t.createUser({ scopes: ['read_user'] });
        r = await t.get(`/api/v4/projects/${open.id}/events`, ru.token);
        assert.equal(r.status, 403);
        assert.equal(r.body.error, 'insufficient_scope');
      });

      it('an event about a project that is gone is seen by its author and admins only', async () => {
        await recordEvent(t.c, { action: 'destroyed', authorId: owner.id, projectId: null, target: { type: 'Project', id: 424242, title: 'gone' } });
        const own = await events('/api/v4/events?target_type=project', owner.token);
        assert.deepEqual(own.map((e) => [e.action_name, e.project_id, e.target_type, e.target_id, e.target_title]), [['destroyed', null, 'Project', 424242, 'gone']]);
        assert.equal((await events(`/api/v4/users/${owner.id}/events?target_type=project`)).length, 1);
        assert.deepEqual(await events(`/api/v4/users/${owner.id}/events?target_type=project`, outsider.token), []);
        assert.deepEqual(await events('/api/v4/events?scope=all&target_type=project', owner.token), []);
      });
    });

    describe('filters, order and pages', () => {
      let u: User;
      let p: { id: number };
      const ids: Record<string, number> = {};
      before(async () => {
        u = await t.createUser();
        p = await makeProject(t, u.token, { name: 'filters' });
        // created (now, by makeProject) plus four events on known days
        ids.jan10 = await eventAt(t, { action: 'commented', authorId: u.id, projectId: p.id, target: { type: 'Note', id: 1 } }, '2025-01-10T12:00:00.000Z');
        ids.jan11a = await eventAt(t, { action: 'closed', authorId: u.id, projectId: p.id, target: { type: 'Issue', id: 2, iid: 1, title: 'I' } }, '2025-01-11T00:00:00.000Z');
        ids.jan11b = await eventAt(t, { action: 'updated', authorId: u.id, projectId: p.id }, '2025-01-11T23:59:59.999Z');
        ids.jan12 = await eventAt(t, { action: 'created', authorId: u.id, projectId: p.id, target: { type: 'Milestone', id: 3, iid: 1, title: 'M' } }, '2025-01-12T00:00:00.000Z');
      });

      const listIds = async (query: string) => (await events(`/api/v4/projects/${p.id}/events?${query}`, u.token)).map((e) => e.id);

      it('before and after exclude the day they name', async () => {
        assert.deepEqual(await listIds('before=2025-01-11'), [ids.jan10]);
        assert.deepEqual(await listIds('after=2025-01-11&before=2026-01-01'), [ids.jan12]);
        assert.deepEqual(await listIds('after=2025-01-10&before=2025-01-12'), [ids.jan11b, ids.jan11a]);
        assert.deepEqual(await listIds('after=2025-01-12&before=2025-01-12'), []);
        const r = await t.get(`/api/v4/projects/${p.id}/events?before=someday`, u.token);
        assert.equal(r.status, 400);
        assert.deepEqual(r.body, { error: 'before is invalid' });
        const r2 = await t.get(`/api/v4/projects/${p.id}/events?after=2025-13-45`, u.token);
        assert.equal(r2.status, 400);
        assert.deepEqual(r2.body, { error: 'after is invalid' });
      });

      it('action filters by the action; an unknown action filters nothing, as in the reference', async () => {
        assert.deepEqual(await listIds('action=closed'), [ids.jan11a]);
        assert.deepEqual(await listIds('action=commented'), [ids.jan10]);
        assert.equal((await listIds('action=created')).length, 2);
        assert.equal((await listIds('action=bogus')).length, 5);
      });

      it('target_type takes the lower-case names only', async () => {
        assert.deepEqual(await listIds('target_type=issue'), [ids.jan11a]);
        assert.deepEqual(await listIds('target_type=milestone'), [ids.jan12]);
        assert.deepEqual(await listIds('target_type=note'), [ids.jan10]);
        assert.deepEqual(await listIds('target_type=merge_request'), []);
        const r = await t.get(`/api/v4/projects/${p.id}/events?target_type=Issue`, u.token);
        assert.equal(r.status, 400);
        assert.deepEqual(r.body, { error: 'target_type does not have a valid value' });
      });

      it('sorts by creation time, newest first unless sort=asc', async () => {
        const desc = await listIds('');
        assert.equal(desc.length, 5);
        assert.deepEqual(desc.slice(1), [ids.jan12, ids.jan11b, ids.jan11a, ids.jan10]);
        assert.deepEqual(await listIds('sort=asc'), [...desc].reverse());
        assert.deepEqual(await listIds('sort=desc'), desc);
        const r = await t.get(`/api/v4/projects/${p.id}/events?sort=up`, u.token);
        assert.equal(r.status, 400);
        assert.deepEqual(r.body, { error: 'sort does not have a valid value' });
      });

      it('pages with the usual headers', async () => {
        const r = await t.get(`/api/v4/users/${u.id}/events?per_page=2&page=2&sort=asc`, u.token);
        assert.equal(r.status, 200);
        assert.deepEqual(r.body.map((e: any) => e.id), [ids.jan11b, ids.jan12]);
        assert.equal(r.headers['x-page'], '2');
        assert.equal(r.headers['x-per-page'], '2');
        assert.equal(r.headers['x-prev-page'], '1');
        assert.equal(r.headers['x-next-page'], '3');
        assert.equal(r.headers['x-total'], '5');
        assert.equal(r.headers['x-total-pages'], '3');
        const link = String(r.headers.link);
        assert.match(link, new RegExp(`<${EXTERNAL_URL}/api/v4/users/${u.id}/events\\?[^>]*page=3[^>]*>; rel="next"`));
        assert.match(link, /rel="first"/);
        assert.match(link, /rel="last"/);
        const keyset = await t.get(`/api/v4/users/${u.id}/events?pagination=keyset`, u.token);
        assert.equal(keyset.status, 405);
      });
    });

    describe('three-year retention', () => {
      it('events older than three years are not listed', async () => {
        const u = await t.createUser();
        const p = await makeProject(t, u.token, { name: 'old' });
        const now = Date.now();
        const old = await eventAt(t, { action: 'updated', authorId: u.id, projectId: p.id }, new Date(now - 3 * YEAR_MS - 86_400_000).toISOString());
        const recent = await eventAt(t, { action: 'updated', authorId: u.id, projectId: p.id }, new Date(now - 3 * YEAR_MS + 86_400_000).toISOString());
        for (const url of [`/api/v4/projects/${p.id}/events`, '/api/v4/events', `/api/v4/users/${u.id}/events`]) {
          const list = await events(`${url}${url.includes('?') ? '&' : '?'}sort=asc`, u.token);
          assert.equal(list.some((e) => e.id === old), false, url);
          assert.equal(list[0].id, recent, url);
        }
        // an `after` further back than the cutoff does not bring them back
        const list = await events(`/api/v4/projects/${p.id}/events?after=2000-01-01`, u.token);
        assert.equal(list.some((e) => e.id === old), false);
      });

      it('pruning deletes them (with their push data) and only them; running it again deletes nothing', async () => {
        const u = await t.createUser();
        const p = await makeProject(t, u.token, { name: 'prune' });
        const push = { commitCount: 1, action: 'pushed' as const, refType: 'branch' as const, commitFrom: null, commitTo: null, ref: 'main', commitTitle: null };
        const oldIds: number[] = [];
        for (let i = 0; i < 3; i++) oldIds.push(await eventAt(t, { action: 'pushed', authorId: u.id, projectId: p.id, push }, daysAgo(4 * 366 + i)));
        const kept = await eventAt(t, { action: 'updated', authorId: u.id, projectId: p.id }, daysAgo(30));
        const removed = await pruneOldEvents(t.c);
        assert.ok(removed >= 3);
        const left = await t.c.db.selectFrom('events').select('id').where('id', 'in', [...oldIds, kept]).execute();
        assert.deepEqual(left.map((r) => r.id), [kept]);
        const payloads = await t.c.db.selectFrom('push_event_payloads').select('event_id').where('event_id', 'in', oldIds).execute();
        assert.deepEqual(payloads, []);
        assert.equal(await pruneOldEvents(t.c), 0);
      });
    });
  });

  describe(`events_prune job (${dialect})`, () => {
    let t: TestApp;
    before(async () => {
      t = await buildTestApp(dialect, { ANVIL_QUEUE_WORKERS: '1' });
    });
    after(async () => t.close());

    it('a node with workers queues one daily prune; a run deletes old events and queues the next a day later', async () => {
      const jobs = () => t.c.db.selectFrom('background_jobs').selectAll().where('kind', '=', EVENTS_PRUNE_JOB).orderBy('id').execute();
      let queued = await jobs();
      assert.equal(queued.length, 1);
      assert.equal(queued[0].state, 'queued');
      assert.ok(Date.parse(queued[0].run_at) > Date.now());

      const u = await t.createUser();
      const p = await makeProject(t, u.token, { name: 'job' });
      const old = await eventAt(t, { action: 'updated', authorId: u.id, projectId: p.id }, daysAgo(5 * 365));

      await t.c.db.updateTable('background_jobs').set({ run_at: new Date(Date.now() - 1000).toISOString() }).where('id', '=', queued[0].id).execute();
      t.c.queue.start();
      await waitFor('prune done', async () => (await jobs())[0].state === 'done');
      assert.equal(await t.c.db.selectFrom('events').select('id').where('id', '=', old).executeTakeFirst(), undefined);
      queued = await jobs();
      assert.equal(queued.length, 2);
      assert.equal(queued[1].state, 'queued');
      const next = Date.parse(queued[1].run_at) - Date.now();
      assert.ok(next > 23 * 3600_000 && next <= 24 * 3600_000, String(next));
    });
  });
}
