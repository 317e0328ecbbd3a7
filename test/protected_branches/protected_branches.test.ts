import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS, buildTestApp, keysOf, type TestApp } from '../helpers/build.js';
import { makeProject } from '../helpers/projects.js';
import { makeGroup, addMember as addGroupMember } from '../helpers/groups.js';
import { ACCESS_ENTRY_KEYS, PROTECTED_BRANCH_KEYS, branchTip, commitOn, setBranch } from '../helpers/branches.js';

type U = { id: number; username: string; token: string };

async function addProjectMember(t: TestApp, projectId: number, userId: number, level: number): Promise<void> {
  const r = await t.request('POST', `/api/v4/projects/${projectId}/members`, { body: { user_id: userId, access_level: level } });
  assert.equal(r.status, 201, r.text);
}

const role = (level: number, description: string) => ({ access_level: level, access_level_description: description, user_id: null, group_id: null });

for (const dialect of DIALECTS) {
  describe(`protected branches (${dialect})`, () => {
    let t: TestApp;
    let owner: U;
    before(async () => {
      t = await buildTestApp(dialect);
      owner = await t.createUser({ name: 'Olga Owner' });
      const s = await t.request('PUT', '/api/v4/application/settings', { body: { default_branch_protection: 0 } });
      assert.equal(s.status, 200, s.text);
    });
    after(async () => t.close());

    const project = (body: Record<string, unknown> = {}) =>
      makeProject(t, owner.token, { name: `p${Math.random().toString(36).slice(2, 8)}`, initialize_with_readme: true, ...body });
    const protect = (p: any, body: Record<string, unknown>, token = owner.token) => t.request('POST', `/api/v4/projects/${p.id}/protected_branches`, { token, body });

    it('protect with defaults: 201 and the exact shape (maintainers push, merge, unprotect)', async () => {
      const p = await project();
      const r = await protect(p, { name: 'main' });
      assert.equal(r.status, 201, r.text);
      assert.equal(r.headers['content-type'], 'application/json');
      assert.deepEqual(keysOf(r.body), PROTECTED_BRANCH_KEYS);
      assert.equal(r.body.name, 'main');
      assert.deepEqual(r.body.push_access_levels, [role(40, 'Maintainers')]);
      assert.deepEqual(r.body.merge_access_levels, [role(40, 'Maintainers')]);
      assert.deepEqual(r.body.unprotect_access_levels, [role(40, 'Maintainers')]);
      assert.equal(r.body.allow_force_push, false);
      assert.equal(r.body.code_owner_approval_required, false);
      for (const e of r.body.push_access_levels) assert.deepEqual(keysOf(e), ACCESS_ENTRY_KEYS);

      const dup = await protect(p, { name: 'main' });
      assert.equal(dup.status, 409);
      assert.deepEqual(dup.body, { message: "Protected branch 'main' already exists" });
    });

    it('protect with levels, force push, code owners, and user / group / role entries', async () => {
      const p = await project();
      const dev = await t.createUser({ name: 'Dev Eloper' });
      await addProjectMember(t, p.id, dev.id, 30);
      const g = await makeGroup(t, { name: 'Shared Team', token: owner.token });
      const share = await t.request('POST', `/api/v4/projects/${p.id}/share`, { token: owner.token, body: { group_id: g.id, group_access: 30 } });
      assert.equal(share.status, 201, share.text);
      const r = await protect(p, {
        name: 'release/*',
        push_access_level: 0,
        merge_access_level: 30,
        unprotect_access_level: 60,
        allow_force_push: true,
        code_owner_approval_required: true,
        allowed_to_push: [{ user_id: dev.id }, { group_id: g.id }],
        allowed_to_merge: [{ access_level: 40 }],
      });
      assert.equal(r.status, 201, r.text);
      assert.deepEqual(r.body.push_access_levels, [
        role(0, 'No one'),
        { access_level: null, access_level_description: 'Dev Eloper', user_id: dev.id, group_id: null },
        { access_level: null, access_level_description: 'Shared Team', user_id: null, group_id: g.id },
      ]);
      assert.deepEqual(r.body.merge_access_levels, [role(30, 'Developers + Maintainers'), role(40, 'Maintainers')]);
      assert.deepEqual(r.body.unprotect_access_levels, [role(60, 'Instance admins')]);
      assert.equal(r.body.allow_force_push, true);
      assert.equal(r.body.code_owner_approval_required, true);

      // allowed_to_* alone: no default maintainer entry
      const only = await protect(p, { name: 'only-users', allowed_to_push: [{ user_id: dev.id }] });
      assert.equal(only.status, 201, only.text);
      assert.deepEqual(only.body.push_access_levels.map((e: any) => e.user_id), [dev.id]);
      assert.deepEqual(only.body.merge_access_levels, [role(40, 'Maintainers')]);
    });

    it('protect: users must be members and groups must share the project (422 with the reference messages); bad levels 400', async () => {
      const p = await project();
      const outsider = await t.createUser();
      const g = await makeGroup(t);
      const r = await protect(p, { name: 'x', allowed_to_push: [{ user_id: outsider.id }], allowed_to_merge: [{ group_id: g.id }] });
      assert.equal(r.status, 422);
      assert.deepEqual(r.body, { message: ['Push access levels user is not a member of the project', 'Merge access levels group does not have access to the project'] });
      const bad = await protect(p, { name: 'x', push_access_level: 35 });
      assert.equal(bad.status, 400);
      assert.deepEqual(bad.body, { error: 'push_access_level does not have a valid value' });
      assert.deepEqual((await protect(p, {})).body, { message: '400 (Bad request) "name" not given' });
      assert.equal((await t.get(`/api/v4/projects/${p.id}/protected_branches`, owner.token)).body.length, 0);
    });

    it('list with search, get by name or wildcard, PATCH code owners, DELETE; 404 for unknown names', async () => {
      const p = await project();
      for (const name of ['main', 'release/*', '*-stable', 'feature-x']) assert.equal((await protect(p, { name })).status, 201);
      const list = await t.get(`/api/v4/projects/${p.id}/protected_branches`, owner.token);
      assert.equal(list.status, 200);
      assert.equal(list.headers['x-total'], '4');
      assert.deepEqual(list.body.map((b: any) => b.name), ['main', 'release/*', '*-stable', 'feature-x']);
      for (const b of list.body) assert.deepEqual(keysOf(b), PROTECTED_BRANCH_KEYS);
      const found = await t.get(`/api/v4/projects/${p.id}/protected_branches?search=stable`, owner.token);
      assert.deepEqual(found.body.map((b: any) => b.name), ['*-stable']);

      const wild = await t.get(`/api/v4/projects/${p.id}/protected_branches/release%2F*`, owner.token);
      assert.equal(wild.status, 200);
      assert.equal(wild.body.name, 'release/*');
      // the rule's own name only: a branch the wildcard covers is not a rule
      const covered = await t.get(`/api/v4/projects/${p.id}/protected_branches/release%2F1`, owner.token);
      assert.equal(covered.status, 404);
      assert.deepEqual(covered.body, { message: '404 Not found' });

      const patched = await t.request('PATCH', `/api/v4/projects/${p.id}/protected_branches/main`, { token: owner.token, body: { code_owner_approval_required: true } });
      assert.equal(patched.status, 200);
      assert.equal(patched.body.code_owner_approval_required, true);
      assert.deepEqual(keysOf(patched.body), PROTECTED_BRANCH_KEYS);

      const del = await t.request('DELETE', `/api/v4/projects/${p.id}/protected_branches/*-stable`, { token: owner.token });
      assert.equal(del.status, 204);
      assert.equal((await t.request('DELETE', `/api/v4/projects/${p.id}/protected_branches/*-stable`, { token: owner.token })).status, 404);
      assert.equal((await t.request('PATCH', `/api/v4/projects/${p.id}/protected_branches/nope`, { token: owner.token, body: {} })).status, 404);
      assert.equal((await t.get(`/api/v4/projects/${p.id}/protected_branches`, owner.token)).body.length, 3);
    });

    it('permissions: maintainers manage; developers 403; strangers 404; no token 401; read_api token cannot write', async () => {
      const p = await project();
      const dev = await t.createUser();
      const maint = await t.createUser();
      const stranger = await t.createUser();
      const reader = await t.createUser({ scopes: ['read_api'] });
      await addProjectMember(t, p.id, dev.id, 30);
      await addProjectMember(t, p.id, maint.id, 40);
      await addProjectMember(t, p.id, reader.id, 40);
      const url = `/api/v4/projects/${p.id}/protected_branches`;
      assert.equal((await protect(p, { name: 'by-maint' }, maint.token)).status, 201);
      assert.deepEqual((await protect(p, { name: 'by-dev' }, dev.token)).body, { message: '403 Forbidden' });
      assert.equal((await t.get(url, dev.token)).status, 403);
      assert.equal((await t.get(url, stranger.token)).status, 404);
      assert.equal((await t.get(url, null)).status, 401);
      assert.equal((await t.get(url, reader.token)).status, 200);
      assert.equal((await protect(p, { name: 'by-reader' }, reader.token)).status, 403);
      assert.equal((await t.request('DELETE', `${url}/by-maint`, { token: dev.token })).status, 403);
    });

    it('new projects protect their default branch as default_branch_protection says; a group setting overrides', async () => {
      const levels = async (p: any) => {
        const r = await t.get(`/api/v4/projects/${p.id}/protected_branches`, owner.token);
        return r.body.map((b: any) => [b.name, b.push_access_levels.map((e: any) => e.access_level), b.merge_access_levels.map((e: any) => e.access_level)]);
      };
      const setting = async (v: number) => assert.equal((await t.request('PUT', '/api/v4/application/settings', { body: { default_branch_protection: v } })).status, 200);
      try {
        await setting(2);
        assert.deepEqual(await levels(await project()), [['main', [40], [40]]]);
        await setting(1);
        assert.deepEqual(await levels(await project({ default_branch: 'trunk' })), [['trunk', [30], [30]]]);
        await setting(0);
        assert.deepEqual(await levels(await project()), []);
        // a group's own setting wins over the instance's
        const g = await makeGroup(t, { token: owner.token });
        assert.equal((await t.request('PUT', `/api/v4/groups/${g.id}`, { token: owner.token, body: { default_branch_protection: 2 } })).status, 200);
        assert.deepEqual(await levels(await project({ namespace_id: g.id })), [['main', [40], [40]]]);
      } finally {
        await setting(0);
      }
    });

    it('branch API through the checks: a wildcard-protected branch is created and deleted by maintainers, not developers', async () => {
      const p = await project();
      const dev = await t.createUser();
      const maint = await t.createUser();
      await addProjectMember(t, p.id, dev.id, 30);
      await addProjectMember(t, p.id, maint.id, 40);
      assert.equal((await protect(p, { name: 'release-*' })).status, 201);
      const create = (token: string, branch: string) => t.request('POST', `/api/v4/projects/${p.id}/repository/branches`, { token, body: { branch, ref: 'main' } });

      const refused = await create(dev.token, 'release-1');
      assert.equal(refused.status, 400);
      assert.deepEqual(refused.body, { message: 'You are not allowed to create protected branches on this project.' });
      assert.equal(await branchTip(t, p.id, 'release-1'), null);
      // developers create unprotected branches
      assert.equal((await create(dev.token, 'topic-1')).status, 201);

      const made = await create(maint.token, 'release-1');
      assert.equal(made.status, 201, made.text);
      assert.equal(made.body.protected, true);

      const devDelete = await t.request('DELETE', `/api/v4/projects/${p.id}/repository/branches/release-1`, { token: dev.token });
      assert.equal(devDelete.status, 400);
      assert.deepEqual(devDelete.body, {
        message: 'You are not allowed to delete protected branches from this project. Only a project maintainer or owner can delete a protected branch.',
      });
      assert.ok(await branchTip(t, p.id, 'release-1'));
      assert.equal((await t.request('DELETE', `/api/v4/projects/${p.id}/repository/branches/release-1`, { token: maint.token })).status, 204);
      assert.equal(await branchTip(t, p.id, 'release-1'), null);
    });

    it('branch API: developers may create a protected branch they may merge into from a protected commit; the exact rule wins over none', async () => {
      const p = await project();
      const dev = await t.createUser();
      await addProjectMember(t, p.id, dev.id, 30);
      await protect(p, { name: 'main' });
      await protect(p, { name: 'stable-*', push_access_level: 40, merge_access_level: 30 });
      const side = await commitOn(t, p.id, 'side', { 's.txt': 's' }, 'side', 'main');
      const create = (branch: string, ref: string) => t.request('POST', `/api/v4/projects/${p.id}/repository/branches`, { token: dev.token, body: { branch, ref } });
      // the commit of an unprotected branch is not a safe basis
      const unsafe = await create('stable-1', side);
      assert.equal(unsafe.status, 400);
      assert.deepEqual(unsafe.body, { message: 'You can only use an existing protected branch ref as the basis of a new protected branch.' });
      const ok = await create('stable-1', 'main');
      assert.equal(ok.status, 201, ok.text);
      assert.equal(ok.body.can_push, false);
      assert.equal(ok.body.developers_can_merge, true);
    });

    it('rules: every matching rule counts (most permissive wins); force push and code owners via the checks', async () => {
      const { checkRefUpdates } = await import('../../src/domain/repository/protection.js');
      const { findProjectById } = await import('../../src/db/repos/projects.js');
      const { authenticate } = await import('../../src/domain/auth/service.js');
      const p = await project();
      const dev = await t.createUser();
      await addProjectMember(t, p.id, dev.id, 30);
      const row = (await findProjectById(t.c.db, p.id))!;
      const devActor = (await authenticate(t.c, { kind: 'token', value: dev.token }))!;
      const main = (await branchTip(t, p.id, 'main'))!;
      await setBranch(t, p.id, 'stable-1', main);
      await protect(p, { name: 'stable-1' });
      await protect(p, { name: 'stable-*', push_access_level: 30 });
      const next = await commitOn(t, p.id, 'scratch', { 'n.txt': 'n' }, 'n', 'main');
      const push = (over: object) => checkRefUpdates(t.c, devActor, row, [{ ref: 'refs/heads/stable-1', oldSha: main, newSha: next, force: false, ...over }]);
      await push({}); // the wildcard lets developers push although the exact rule does not
      await assert.rejects(push({ force: true }), (e: any) => e.detail.message === 'You are not allowed to force push code to a protected branch on this project.');
      const unprotected = await t.request('PATCH', `/api/v4/projects/${p.id}/protected_branches/stable-1`, { token: owner.token, body: { code_owner_approval_required: true } });
      assert.equal(unprotected.status, 200);
      // CODEOWNERS on the branch tip: docs/ owned, last match wins (README.md released by a later owner-less line)
      const withOwners = await commitOn(t, p.id, 'stable-1', { '.service/CODEOWNERS': '*.md @olga\ndocs/ @olga\n/README.md\n' }, 'owners');
      const touch = (paths: string[]) => checkRefUpdates(t.c, devActor, row, [{ ref: 'refs/heads/stable-1', oldSha: withOwners, newSha: next, force: false, changedPaths: paths }]);
      await touch(['src/a.ts', 'README.md']);
      await assert.rejects(touch(['docs/guide/x.txt']), (e: any) => /match patterns defined in `CODEOWNERS`[\s\S]*- docs\//.test(e.detail.message));
      await assert.rejects(touch(['sub/notes.md']), (e: any) => /- \*\.md/.test(e.detail.message));
      // git push may not delete a protected branch, whoever pushes
      const owner2 = (await authenticate(t.c, { kind: 'token', value: owner.token }))!;
      await assert.rejects(
        checkRefUpdates(t.c, owner2, row, [{ ref: 'refs/heads/stable-1', oldSha: withOwners, newSha: '0'.repeat(40), force: false }]),
        (e: any) => e.detail.message === 'You can only delete protected branches using the web interface.',
      );
    });
  });
}
