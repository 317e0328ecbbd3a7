// Protected branches enforced on real pushes: the real git client against the listening server.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../helpers/build.js';
import { buildGitTestApp, clone, cloneUrl, commitFiles, gitOk, runGit, serverGit, type GitTestApp } from '../helpers/git.js';
import { makeProject } from '../helpers/projects.js';

type U = { id: number; username: string; token: string };

for (const dialect of DIALECTS) {
  describe(`protected branches on git push (${dialect})`, () => {
    let t: GitTestApp;
    let owner: U;
    let dev: U;
    let maint: U;
    before(async () => {
      t = await buildGitTestApp(dialect);
      owner = await t.createUser();
      dev = await t.createUser();
      maint = await t.createUser();
      // full protection: new projects' default branch is for maintainers
      assert.equal((await t.request('PUT', '/api/v4/application/settings', { body: { default_branch_protection: 2 } })).status, 200);
    });
    after(async () => t.close());

    async function setup(): Promise<any> {
      const p = await makeProject(t, owner.token, { name: `g${Math.random().toString(36).slice(2, 8)}`, initialize_with_readme: true });
      for (const [u, level] of [[dev, 30], [maint, 40]] as const) {
        const r = await t.request('POST', `/api/v4/projects/${p.id}/members`, { body: { user_id: u.id, access_level: level } });
        assert.equal(r.status, 201, r.text);
      }
      return p;
    }
    const tip = async (p: any, branch: string) => {
      const r = await serverGit(t, p.id, ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`]);
      return r.code === 0 ? r.stdout.trim() : null;
    };
    const cloneAs = async (p: any, u: U) => {
      const c = await clone(t, cloneUrl(p.http_url_to_repo, u.token));
      assert.equal(c.code, 0, c.stderr);
      return c.dir;
    };

    it('a developer cannot push to the protected default branch; a maintainer can; developers push new branches', async () => {
      const p = await setup();
      const before = await tip(p, 'main');
      const devDir = await cloneAs(p, dev);
      const devSha = await commitFiles(t, devDir, { 'dev.txt': 'dev\n' }, 'dev change');
      const refused = await runGit(t, ['push', 'origin', 'main'], { cwd: devDir });
      assert.notEqual(refused.code, 0);
      assert.match(refused.stderr, /You are not allowed to push code to protected branches on this project\./);
      assert.equal(await tip(p, 'main'), before);
      assert.equal((await serverGit(t, p.id, ['cat-file', '-e', devSha])).code === 0 && (await tip(p, 'main')) === devSha, false);

      const topic = await runGit(t, ['push', 'origin', 'HEAD:refs/heads/dev-topic'], { cwd: devDir });
      assert.equal(topic.code, 0, topic.stderr);
      assert.equal(await tip(p, 'dev-topic'), devSha);

      const mDir = await cloneAs(p, maint);
      const mSha = await commitFiles(t, mDir, { 'm.txt': 'm\n' }, 'maintainer change');
      await gitOk(t, ['push', 'origin', 'main'], { cwd: mDir });
      assert.equal(await tip(p, 'main'), mSha);
    });

    it('force push refused without allow_force_push, accepted with it', async () => {
      const p = await setup();
      const dir = await cloneAs(p, maint);
      const first = await commitFiles(t, dir, { 'a.txt': '1\n' }, 'one');
      await gitOk(t, ['push', 'origin', 'main'], { cwd: dir });
      await gitOk(t, ['reset', '--hard', 'HEAD~1'], { cwd: dir });
      const rewritten = await commitFiles(t, dir, { 'a.txt': '2\n' }, 'rewritten');
      const refused = await runGit(t, ['push', '--force', 'origin', 'main'], { cwd: dir });
      assert.notEqual(refused.code, 0);
      assert.match(refused.stderr, /You are not allowed to force push code to a protected branch on this project\./);
      assert.equal(await tip(p, 'main'), first);

      assert.equal((await t.request('DELETE', `/api/v4/projects/${p.id}/protected_branches/main`, { token: owner.token })).status, 204);
      const re = await t.request('POST', `/api/v4/projects/${p.id}/protected_branches`, { token: owner.token, body: { name: 'main', allow_force_push: true } });
      assert.equal(re.status, 201, re.text);
      await gitOk(t, ['push', '--force', 'origin', 'main'], { cwd: dir });
      assert.equal(await tip(p, 'main'), rewritten);
    });

    it('deleting a protected branch by push is refused (maintainer: web only; developer: maintainers only)', async () => {
      const p = await setup();
      const r = await t.request('POST', `/api/v4/projects/${p.id}/protected_branches`, { token: owner.token, body: { name: 'rel-*', push_access_level: 30 } });
      assert.equal(r.status, 201);
      const dir = await cloneAs(p, maint);
      await gitOk(t, ['push', 'origin', 'HEAD:refs/heads/rel-1'], { cwd: dir });
      const sha = await tip(p, 'rel-1');
      assert.ok(sha);
      const byMaint = await runGit(t, ['push', 'origin', '--delete', 'rel-1'], { cwd: dir });
      assert.notEqual(byMaint.code, 0);
      assert.match(byMaint.stderr, /You can only delete protected branches using the web interface\./);
      const devDir = await cloneAs(p, dev);
      const byDev = await runGit(t, ['push', 'origin', '--delete', 'rel-1'], { cwd: devDir });
      assert.notEqual(byDev.code, 0);
      assert.match(byDev.stderr, /Only a project maintainer or owner can delete a protected branch\./);
      assert.equal(await tip(p, 'rel-1'), sha);
      // the default branch cannot be deleted at all
      const dflt = await runGit(t, ['push', 'origin', '--delete', 'main'], { cwd: dir });
      assert.notEqual(dflt.code, 0);
      assert.ok(await tip(p, 'main'));
    });

    it('a user entry lets that developer push; code owners block pushes touching owned files', async () => {
      const p = await setup();
      // owners file first, pushed by a maintainer
      const mDir = await cloneAs(p, maint);
      await commitFiles(t, mDir, { 'CODEOWNERS': '/docs/ @someone\n*.lock @someone\n' }, 'owners');
      await gitOk(t, ['push', 'origin', 'main'], { cwd: mDir });
      assert.equal((await t.request('DELETE', `/api/v4/projects/${p.id}/protected_branches/main`, { token: owner.token })).status, 204);
      const prot = await t.request('POST', `/api/v4/projects/${p.id}/protected_branches`, {
        token: owner.token,
        body: { name: 'main', allowed_to_push: [{ user_id: dev.id }], code_owner_approval_required: true },
      });
      assert.equal(prot.status, 201, prot.text);

      const devDir = await cloneAs(p, dev);
      const free = await commitFiles(t, devDir, { 'src/app.txt': 'x\n' }, 'free change');
      await gitOk(t, ['push', 'origin', 'main'], { cwd: devDir });
      assert.equal(await tip(p, 'main'), free);

      await commitFiles(t, devDir, { 'docs/guide.md': 'owned\n' }, 'owned change');
      const refused = await runGit(t, ['push', 'origin', 'main'], { cwd: devDir });
      assert.notEqual(refused.code, 0);
      assert.match(refused.stderr, /match patterns defined in `CODEOWNERS`/);
      assert.match(refused.stderr, /- \/docs\//);
      assert.equal(await tip(p, 'main'), free);

      // the maintainer is no longer on the list (no role entry): refused too
      const m2 = await cloneAs(p, maint);
      await commitFiles(t, m2, { 'other.txt': 'o\n' }, 'maint');
      const mRefused = await runGit(t, ['push', 'origin', 'main'], { cwd: m2 });
      assert.match(mRefused.stderr, /You are not allowed to push code to protected branches on this project\./);
    });
  });
}
