import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS, EXTERNAL_URL, buildTestApp, keysOf, type TestApp } from '../helpers/build.js';
import { makeProject } from '../helpers/projects.js';
import { COMMIT_KEYS } from '../helpers/keys.js';
import { BRANCH_KEYS, branchTip, commitOn, makeCommit, repoDir, setBranch } from '../helpers/branches.js';
import { testQueue, waitFor } from '../helpers/queue.js';
import { registerBackgroundJobs } from '../../src/domain/background.js';
import { DELETE_MERGED_BRANCHES_JOB } from '../../src/domain/branches/service.js';
import { git } from '../../src/git/git.js';

async function addProjectMember(t: TestApp, projectId: number, userId: number, level: number): Promise<void> {
  const r = await t.request('POST', `/api/v4/projects/${projectId}/members`, { body: { user_id: userId, access_level: level } });
  assert.equal(r.status, 201, r.text);
}

/** Runs the queued merged-branches jobs as a node's workers would. */
async function runBranchJobs(t: TestApp): Promise<void> {
  const queue = testQueue(t.c.db);
  registerBackgroundJobs({ ...t.c, queue }, [DELETE_MERGED_BRANCHES_JOB]);
  queue.start();
  try {
    await waitFor('branch jobs', async () => {
      const left = await t.c.db.selectFrom('background_jobs').select('id').where('kind', '=', 'delete_merged_branches').where('state', 'in', ['queued', 'running']).execute();
      return left.length === 0;
    });
  } finally {
    await queue.stop();
  }
}

for (const dialect of DIALECTS) {
  describe(`branches (${dialect})`, () => {
    let t: TestApp;
    let owner: { id: number; username: string; token: string };
    before(async () => {
      t = await buildTestApp(dialect);
      owner = await t.createUser();
      // No default protection unless a test asks for it: these tests shape protection themselves.
      const s = await t.request('PUT', '/api/v4/application/settings', { body: { default_branch_protection: 0 } });
      assert.equal(s.status, 200, s.text);
    });
    after(async () => t.close());

    const readmeProject = (body: Record<string, unknown> = {}) => makeProject(t, owner.token, { name: `p${Math.random().toString(36).slice(2, 8)}`, initialize_with_readme: true, ...body });

    it('lists branches sorted by name with the exact Branch shape, merged, default and web_url', async () => {
      const p = await readmeProject({ visibility: 'public' });
      const main = (await branchTip(t, p.id, 'main'))!;
      await setBranch(t, p.id, 'zeta', main); // not merged: same commit as main (the reference's rule)
      const ahead = await commitOn(t, p.id, 'feature/x', { 'a.txt': 'a\n' }, 'Add a\n\nwith a body', main);
      const r = await t.get(`/api/v4/projects/${p.id}/repository/branches`, owner.token);
      assert.equal(r.status, 200);
      assert.equal(r.headers['content-type'], 'application/json');
      assert.equal(r.headers['x-total'], '3');
      assert.deepEqual(r.body.map((b: any) => b.name), ['feature/x', 'main', 'zeta']);
      for (const b of r.body) {
        assert.deepEqual(keysOf(b), BRANCH_KEYS);
        assert.deepEqual(keysOf(b.commit), COMMIT_KEYS);
      }
      const [fx, mn, zt] = r.body;
      assert.equal(fx.merged, false);
      assert.equal(mn.merged, false);
      assert.equal(zt.merged, false);
      assert.equal(mn.default, true);
      assert.equal(fx.default, false);
      assert.equal(fx.protected, false);
      assert.equal(fx.can_push, true);
      assert.equal(fx.developers_can_push, false);
      assert.equal(fx.web_url, `${EXTERNAL_URL}/${p.path_with_namespace}/-/tree/feature/x`);
      assert.equal(fx.commit.id, ahead);
      assert.equal(fx.commit.short_id, ahead.slice(0, 8));
      assert.deepEqual(fx.commit.parent_ids, [main]);
      assert.equal(fx.commit.title, 'Add a');
      assert.equal(fx.commit.message, 'Add a\n\nwith a body\n'); // as stored, like the reference
      assert.equal(fx.commit.author_name, 'Ada Author');
      assert.equal(fx.commit.author_email, 'ada@example.com');
      assert.equal(fx.commit.committer_name, 'Carl Committer');
      assert.equal(fx.commit.committer_email, 'carl@example.com');
      // 1700000000 = 2023-11-14T22:13:20Z, shown in the author's +02:00
      assert.equal(fx.commit.authored_date, '2023-11-15T00:13:20.000+02:00');
      assert.equal(fx.commit.committed_date, '2023-11-15T00:15:00.000+02:00');
      assert.equal(fx.commit.created_at, fx.commit.committed_date);
      assert.equal(fx.commit.web_url, `${EXTERNAL_URL}/${p.path_with_namespace}/-/commit/${ahead}`);

      // public repositories need no authentication
      const anon = await t.get(`/api/v4/projects/${p.id}/repository/branches`, null);
      assert.equal(anon.status, 200);
      assert.equal(anon.body.length, 3);
      assert.equal(anon.body[0].can_push, false);
    });

    it('search: ^prefix, suffix$, otherwise part of the name (case-insensitive); pages with headers', async () => {
      const p = await readmeProject();
      const main = (await branchTip(t, p.id, 'main'))!;
      for (const n of ['feature-one', 'feature-two', 'fix-one', 'release-1', 'hotfix-Feature']) await setBranch(t, p.id, n, main);
      const names = async (q: string) => (await t.get(`/api/v4/projects/${p.id}/repository/branches?search=${encodeURIComponent(q)}`, owner.token)).body.map((b: any) => b.name);
      assert.deepEqual(await names('^feature'), ['feature-one', 'feature-two']);
      assert.deepEqual(await names('one$'), ['feature-one', 'fix-one']);
      assert.deepEqual(await names('feature'), ['feature-one', 'feature-two', 'hotfix-Feature']);
      assert.deepEqual(await names('FIX'), ['fix-one', 'hotfix-Feature']);
      assert.deepEqual(await names('nothing'), []);
      // The term is text, not a pattern.
      assert.deepEqual(await names('.*'), []);
      assert.deepEqual(await names('^(fix'), []);
      assert.deepEqual(await names('E-1$'), ['release-1']);

      const p1 = await t.get(`/api/v4/projects/${p.id}/repository/branches?per_page=2&page=2`, owner.token);
      assert.deepEqual(p1.body.map((b: any) => b.name), ['fix-one', 'hotfix-Feature']);
      assert.equal(p1.headers['x-total'], '6');
      assert.equal(p1.headers['x-total-pages'], '3');
      assert.equal(p1.headers['x-page'], '2');
      assert.equal(p1.headers['x-next-page'], '3');
      assert.equal(p1.headers['x-prev-page'], '1');
    });

    it('get one branch (slash encoded as %2F); HEAD answers 204 or 404; unknown branch 404', async () => {
      const p = await readmeProject();
      await commitOn(t, p.id, 'feature/deep/x', { 'b.txt': 'b' }, 'b', 'main');
      const r = await t.get(`/api/v4/projects/${p.id}/repository/branches/feature%2Fdeep%2Fx`, owner.token);
      assert.equal(r.status, 200);
      assert.equal(r.body.name, 'feature/deep/x');
      assert.deepEqual(keysOf(r.body), BRANCH_KEYS);
      const missing = await t.get(`/api/v4/projects/${p.id}/repository/branches/nope`, owner.token);
      assert.equal(missing.status, 404);
      assert.deepEqual(missing.body, { message: '404 Branch Not Found' });
      // a prefix of a branch is not a branch
      assert.equal((await t.get(`/api/v4/projects/${p.id}/repository/branches/feature`, owner.token)).status, 404);

      const head = await t.request('HEAD', `/api/v4/projects/${p.id}/repository/branches/feature%2Fdeep%2Fx`, { token: owner.token });
      assert.equal(head.status, 204);
      assert.equal(head.text, '');
      const headMissing = await t.request('HEAD', `/api/v4/projects/${p.id}/repository/branches/nope`, { token: owner.token });
      assert.equal(headMissing.status, 404);
      assert.equal(headMissing.text, '');
    });

    it('read permissions: private project 404 for strangers and anonymous; guests 403; reporters read', async () => {
      const p = await readmeProject();
      const stranger = await t.createUser();
      const guest = await t.createUser();
      const reporter = await t.createUser();
      await addProjectMember(t, p.id, guest.id, 10);
      await addProjectMember(t, p.id, reporter.id, 20);
      const url = `/api/v4/projects/${p.id}/repository/branches`;
      assert.deepEqual((await t.get(url, stranger.token)).body, { message: '404 Project Not Found' });
      assert.equal((await t.get(url, null)).status, 404);
      assert.equal((await t.get(url, guest.token)).status, 403);
      assert.equal((await t.get(`${url}/main`, guest.token)).status, 403);
      const rep = await t.get(url, reporter.token);
      assert.equal(rep.status, 200);
      assert.equal(rep.body[0].can_push, false);
    });

    it('create from a branch name or a SHA; the reference errors for existing, invalid and unknown refs', async () => {
      const p = await readmeProject();
      const main = (await branchTip(t, p.id, 'main'))!;
      const url = `/api/v4/projects/${p.id}/repository/branches`;
      const a = await t.request('POST', url, { token: owner.token, body: { branch: 'from-name', ref: 'main' } });
      assert.equal(a.status, 201, a.text);
      assert.deepEqual(keysOf(a.body), BRANCH_KEYS);
      assert.equal(a.body.commit.id, main);
      assert.equal(a.body.merged, false); // same head as the default branch: not merged
      assert.equal(a.body.can_push, true);
      const b = await t.request('POST', url, { token: owner.token, body: { branch: 'from/sha', ref: main } });
      assert.equal(b.status, 201, b.text);
      assert.equal(await branchTip(t, p.id, 'from/sha'), main);

      const exists = await t.request('POST', url, { token: owner.token, body: { branch: 'from-name', ref: 'main' } });
      assert.equal(exists.status, 400);
      assert.deepEqual(exists.body, { message: 'Branch already exists' });
      for (const bad of ['bad..name', 'with space', 'ends.lock', '-dash', 'a:b', 'HEAD', 'refs/heads/x', 'x/']) {
        const r = await t.request('POST', url, { token: owner.token, body: { branch: bad, ref: 'main' } });
        assert.equal(r.status, 400, bad);
        assert.deepEqual(r.body, { message: 'Branch name is invalid' }, bad);
      }
      const unknown = await t.request('POST', url, { token: owner.token, body: { branch: 'ok-name', ref: 'no-such-ref' } });
      assert.equal(unknown.status, 400);
      assert.deepEqual(unknown.body, { message: 'Invalid reference name: no-such-ref' });
      const optionLike = await t.request('POST', url, { token: owner.token, body: { branch: 'ok-name', ref: '--all' } });
      assert.deepEqual(optionLike.body, { message: 'Invalid reference name: --all' });
      assert.equal(await branchTip(t, p.id, 'ok-name'), null);

      assert.deepEqual((await t.request('POST', url, { token: owner.token, body: { ref: 'main' } })).body, { message: '400 (Bad request) "branch" not given' });
      assert.deepEqual((await t.request('POST', url, { token: owner.token, body: { branch: 'x' } })).body, { message: '400 (Bad request) "ref" not given' });
      const blank = await t.request('POST', url, { token: owner.token, body: { branch: '', ref: '' } });
      assert.equal(blank.status, 400);
      assert.deepEqual(blank.body, { error: 'branch is empty, ref is empty' });
    });

    it('create: 401 without a token, 403 read_api token, 403 reporter, 404 stranger, 403 archived', async () => {
      const p = await readmeProject();
      const url = `/api/v4/projects/${p.id}/repository/branches`;
      const reporter = await t.createUser();
      const stranger = await t.createUser();
      const reader = await t.createUser({ scopes: ['read_api'] });
      await addProjectMember(t, p.id, reporter.id, 20);
      await addProjectMember(t, p.id, reader.id, 40);
      const body = { branch: 'nope', ref: 'main' };
      assert.equal((await t.request('POST', url, { token: null, body })).status, 401);
      const scoped = await t.request('POST', url, { token: reader.token, body });
      assert.equal(scoped.status, 403);
      assert.equal(scoped.body.error, 'insufficient_scope');
      assert.deepEqual((await t.request('POST', url, { token: reporter.token, body })).body, { message: '403 Forbidden' });
      assert.equal((await t.request('POST', url, { token: stranger.token, body })).status, 404);
      assert.equal((await t.request('POST', `/api/v4/projects/${p.id}/archive`, { token: owner.token })).status, 201);
      assert.equal((await t.request('POST', url, { token: owner.token, body })).status, 403);
      assert.equal(await branchTip(t, p.id, 'nope'), null);
    });

    it('create in an empty repository first makes the default branch, as the reference does', async () => {
      const p = await makeProject(t, owner.token, { name: 'emptyrepo' });
      const r = await t.request('POST', `/api/v4/projects/${p.id}/repository/branches`, { token: owner.token, body: { branch: 'topic', ref: 'main' } });
      assert.equal(r.status, 201, r.text);
      const main = await branchTip(t, p.id, 'main');
      assert.ok(main);
      assert.equal(r.body.commit.id, main);
      assert.equal(r.body.commit.title, 'Initial commit');
    });

    it('100 concurrent creations of one name: exactly one 201, the rest 400 "Branch already exists", no 500', async () => {
      const p = await readmeProject();
      const results = await Promise.all(
        Array.from({ length: 100 }, () => t.request('POST', `/api/v4/projects/${p.id}/repository/branches`, { token: owner.token, body: { branch: 'race', ref: 'main' } })),
      );
      const statuses = results.map((r) => r.status);
      assert.equal(statuses.filter((s) => s === 201).length, 1);
      assert.equal(statuses.filter((s) => s === 400).length, 99);
      for (const r of results.filter((x) => x.status === 400)) assert.deepEqual(r.body, { message: 'Branch already exists' });
      // one push event for the one creation
      const events = await t.c.db.selectFrom('push_event_payloads').select('ref').where('ref', '=', 'race').execute();
      assert.equal(events.length, 1);
    });

    it('delete: 204 and gone with a push event; 404 unknown; the default branch refused with the reference message', async () => {
      const p = await readmeProject();
      await setBranch(t, p.id, 'old/one', (await branchTip(t, p.id, 'main'))!);
      const del = await t.request('DELETE', `/api/v4/projects/${p.id}/repository/branches/old%2Fone`, { token: owner.token });
      assert.equal(del.status, 204);
      assert.equal(del.text, '');
      assert.equal(await branchTip(t, p.id, 'old/one'), null);
      const ev = await t.c.db.selectFrom('push_event_payloads').selectAll().where('ref', '=', 'old/one').execute();
      assert.equal(ev.length, 1);
      assert.equal(ev[0].action, 'removed');

      const again = await t.request('DELETE', `/api/v4/projects/${p.id}/repository/branches/old%2Fone`, { token: owner.token });
      assert.equal(again.status, 404);
      assert.deepEqual(again.body, { message: '404 Branch Not Found' });
      const dflt = await t.request('DELETE', `/api/v4/projects/${p.id}/repository/branches/main`, { token: owner.token });
      assert.equal(dflt.status, 400);
      assert.deepEqual(dflt.body, { message: 'The default branch of a project cannot be deleted.' });
      assert.ok(await branchTip(t, p.id, 'main'));
    });

    it('delete: If-Unmodified-Since before the tip was authored answers 412; reporter 403; stranger 404', async () => {
      const p = await readmeProject();
      await commitOn(t, p.id, 'dated', { 'd.txt': 'd' }, 'd', 'main'); // authored 2023-11-14
      const url = `/api/v4/projects/${p.id}/repository/branches/dated`;
      const early = await t.request('DELETE', url, { token: owner.token, headers: { 'if-unmodified-since': 'Mon, 01 Jan 2020 00:00:00 GMT' } });
      assert.equal(early.status, 412);
      const reporter = await t.createUser();
      await addProjectMember(t, p.id, reporter.id, 20);
      assert.equal((await t.request('DELETE', url, { token: reporter.token })).status, 403);
      assert.equal((await t.request('DELETE', url, { token: (await t.createUser()).token })).status, 404);
      assert.ok(await branchTip(t, p.id, 'dated'));
    });

    it('DELETE merged_branches: 202, then the job removes merged branches, keeping default, protected and unmerged ones', async () => {
      const p = await readmeProject();
      const main = (await branchTip(t, p.id, 'main'))!;
      await setBranch(t, p.id, 'merged-a', main);
      await setBranch(t, p.id, 'merged-b', main);
      await setBranch(t, p.id, 'release-1', main);
      await commitOn(t, p.id, 'unmerged', { 'u.txt': 'u' }, 'u', 'main');
      // main moves on: the three above are now behind it (merged); `same` sits on its head (not merged).
      const head = await commitOn(t, p.id, 'main', { 'm.txt': 'm' }, 'm');
      await setBranch(t, p.id, 'same', head);
      const prot = await t.request('POST', `/api/v4/projects/${p.id}/protected_branches`, { token: owner.token, body: { name: 'release-*' } });
      assert.equal(prot.status, 201, prot.text);

      const developer = await t.createUser();
      const reporter = await t.createUser();
      await addProjectMember(t, p.id, developer.id, 30);
      await addProjectMember(t, p.id, reporter.id, 20);
      assert.equal((await t.request('DELETE', `/api/v4/projects/${p.id}/repository/merged_branches`, { token: reporter.token })).status, 403);

      const r = await t.request('DELETE', `/api/v4/projects/${p.id}/repository/merged_branches`, { token: developer.token });
      assert.equal(r.status, 202);
      assert.deepEqual(r.body, { message: '202 Accepted' });
      assert.ok(await branchTip(t, p.id, 'merged-a'), 'nothing happens before the job runs');
      await runBranchJobs(t);
      const names = (await t.get(`/api/v4/projects/${p.id}/repository/branches`, owner.token)).body.map((b: any) => b.name);
      assert.deepEqual(names, ['main', 'release-1', 'same', 'unmerged']);
    });

    it('a branch just created from the default branch is not merged, and DELETE merged_branches keeps it', async () => {
      const p = await readmeProject();
      const url = `/api/v4/projects/${p.id}/repository/branches`;
      const created = await t.request('POST', url, { token: owner.token, body: { branch: 'feat1', ref: 'main' } });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.body.merged, false);
      assert.equal((await t.get(`${url}/feat1`, owner.token)).body.merged, false);
      assert.equal((await t.get(`${url}/main`, owner.token)).body.merged, false);
      assert.deepEqual((await t.get(url, owner.token)).body.map((b: any) => [b.name, b.merged]), [['feat1', false], ['main', false]]);
      const r = await t.request('DELETE', `/api/v4/projects/${p.id}/repository/merged_branches`, { token: owner.token });
      assert.equal(r.status, 202);
      await runBranchJobs(t);
      assert.deepEqual((await t.get(url, owner.token)).body.map((b: any) => b.name), ['feat1', 'main']);
    });

    it('can_push and developers_can_push follow the protection and the caller role', async () => {
      const p = await readmeProject();
      const main = (await branchTip(t, p.id, 'main'))!;
      await setBranch(t, p.id, 'stable-1', main);
      await setBranch(t, p.id, 'dev-1', main);
      const developer = await t.createUser();
      await addProjectMember(t, p.id, developer.id, 30);
      assert.equal((await t.request('POST', `/api/v4/projects/${p.id}/protected_branches`, { token: owner.token, body: { name: 'stable-*' } })).status, 201);
      assert.equal(
        (await t.request('POST', `/api/v4/projects/${p.id}/protected_branches`, { token: owner.token, body: { name: 'dev-*', push_access_level: 30, merge_access_level: 30 } })).status,
        201,
      );
      const asDev = await t.get(`/api/v4/projects/${p.id}/repository/branches`, developer.token);
      const byName = Object.fromEntries(asDev.body.map((b: any) => [b.name, b]));
      assert.equal(byName['stable-1'].protected, true);
      assert.equal(byName['stable-1'].can_push, false);
      assert.equal(byName['stable-1'].developers_can_push, false);
      assert.equal(byName['dev-1'].protected, true);
      assert.equal(byName['dev-1'].can_push, true);
      assert.equal(byName['dev-1'].developers_can_push, true);
      assert.equal(byName['dev-1'].developers_can_merge, true);
      assert.equal(byName.main.protected, false);
      assert.equal(byName.main.can_push, true);
      const asOwner = await t.get(`/api/v4/projects/${p.id}/repository/branches/stable-1`, owner.token);
      assert.equal(asOwner.body.can_push, true);
    });

    // Correctness at size only: the speed of this listing is measured by `npm run bench`, never here.
    it('lists 5,000 branches: the right page, totals and merged flags deep in the list', async () => {
      const p = await readmeProject();
      const main = (await branchTip(t, p.id, 'main'))!;
      const side = await makeCommit(t, p.id, { 'side.txt': 's' }, 'side', main);
      const lines = Array.from({ length: 5000 }, (_, i) => `create refs/heads/b${String(i).padStart(5, '0')} ${i % 2 ? main : side}\n`).join('');
      await git(['update-ref', '--stdin'], { gitDir: repoDir(t, p.id), input: lines });
      await commitOn(t, p.id, 'main', { 'm.txt': 'm' }, 'm'); // the odd ones fall behind main: merged
      const r = await t.get(`/api/v4/projects/${p.id}/repository/branches?per_page=100&page=20`, owner.token);
      assert.equal(r.status, 200);
      assert.equal(r.headers['x-total'], '5001');
      assert.equal(r.body.length, 100);
      assert.equal(r.body[0].name, 'b01900');
      assert.equal(r.body[0].merged, false);
      assert.equal(r.body[1].merged, true);
    });
  });
}
