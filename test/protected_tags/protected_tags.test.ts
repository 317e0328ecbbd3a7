// Protected tags (API, enforcement on git push and the tags API, CI_COMMIT_REF_PROTECTED) and the
// tags API's create and delete, against the real git client and the listening server.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS, keysOf } from '../helpers/build.js';
import { buildGitTestApp, clone, cloneUrl, commitFiles, gitOk, runGit, serverGit, type GitTestApp } from '../helpers/git.js';
import { makeProject } from '../helpers/projects.js';
import { CI_FILE, createPipelineOk, putFiles, SIMPLE_CI } from '../helpers/ci.js';
import { findPipeline } from '../../src/db/repos/ci_pipelines.js';
import { findProjectById } from '../../src/db/repos/projects.js';
import { predefinedVariables } from '../../src/domain/ci/variables.js';

type U = { id: number; username: string; token: string };

const TAG_KEYS = ['commit', 'message', 'name', 'protected', 'release', 'target'];

for (const dialect of DIALECTS) {
  describe(`protected tags and the tags API (${dialect})`, () => {
    let t: GitTestApp;
    let owner: U;
    let dev: U;
    let maint: U;
    let reporter: U;
    let stranger: U;
    before(async () => {
      t = await buildGitTestApp(dialect);
      owner = await t.createUser({ name: 'Olive Owner' });
      dev = await t.createUser();
      maint = await t.createUser();
      reporter = await t.createUser();
      stranger = await t.createUser();
    });
    after(async () => t.close());

    async function setup(): Promise<any> {
      const p = await makeProject(t, owner.token, { name: `t${Math.random().toString(36).slice(2, 8)}`, initialize_with_readme: true });
      for (const [u, level] of [[dev, 30], [maint, 40], [reporter, 20]] as const) {
        const r = await t.request('POST', `/api/v4/projects/${p.id}/members`, { token: owner.token, body: { user_id: u.id, access_level: level } });
        assert.equal(r.status, 201, r.text);
      }
      return p;
    }
    const tagSha = async (p: any, tag: string) => {
      const r = await serverGit(t, p.id, ['rev-parse', '--verify', '--quiet', `refs/tags/${tag}`]);
      return r.code === 0 ? r.stdout.trim() : null;
    };
    const protect = (p: any, body: Record<string, unknown>, token = owner.token) =>
      t.request('POST', `/api/v4/projects/${p.id}/protected_tags`, { token, body });

    it('protects, lists, gets and unprotects tags with the reference shapes and errors', async () => {
      const p = await setup();
      const base = `/api/v4/projects/${p.id}/protected_tags`;
      const made = await protect(p, { name: 'release-*', create_access_level: 30 });
      assert.equal(made.status, 201, made.text);
      assert.deepEqual(made.body, {
        name: 'release-*',
        create_access_levels: [{ access_level: 30, access_level_description: 'Developers + Maintainers', user_id: null, group_id: null }],
      });
      // default: maintainers; allowed_to_create adds a user entry
      const v1 = await protect(p, { name: 'v1.0', allowed_to_create: [{ user_id: dev.id }, { access_level: 40 }] });
      assert.equal(v1.status, 201, v1.text);
      assert.deepEqual(v1.body.create_access_levels, [
        { access_level: null, access_level_description: (await t.get(`/api/v4/users/${dev.id}`)).body.name, user_id: dev.id, group_id: null },
        { access_level: 40, access_level_description: 'Maintainers', user_id: null, group_id: null },
      ]);
      const plain = await protect(p, { name: 'stable' });
      assert.deepEqual(plain.body.create_access_levels, [{ access_level: 40, access_level_description: 'Maintainers', user_id: null, group_id: null }]);

      const dup = await protect(p, { name: 'stable' });
      assert.equal(dup.status, 422);
      assert.deepEqual(dup.body, { message: ['Name has already been taken'] });
      const notMember = await protect(p, { name: 'x', allowed_to_create: [{ user_id: stranger.id }] });
      assert.equal(notMember.status, 422);
      assert.deepEqual(notMember.body, { message: ['Create access levels user is not a member of the project'] });
      const badLevel = await protect(p, { name: 'y', create_access_level: 35 });
      assert.equal(badLevel.status, 400);
      const noName = await t.request('POST', base, { token: owner.token, body: {} });
      assert.equal(noName.status, 400);
      assert.deepEqual(noName.body, { message: '400 (Bad request) "name" not given' });

      const list = await t.get(base, maint.token);
      assert.equal(list.status, 200);
      assert.deepEqual(list.body.map((x: any) => x.name), ['release-*', 'v1.0', 'stable']);
      assert.deepEqual(keysOf(list.body[0]), ['create_access_levels', 'name']);
      assert.equal(list.headers['x-total'], '3');
      const one = await t.get(`${base}/${encodeURIComponent('release-*')}`, owner.token);
      assert.equal(one.status, 200);
      assert.deepEqual(one.body, made.body);
      assert.equal((await t.get(`${base}/nope`, owner.token)).status, 404);
      assert.deepEqual((await t.get(`${base}/nope`, owner.token)).body, { message: '404 Not found' });

      // developers and reporters: 403; strangers to a private project: 404; no token: 401
      assert.equal((await t.get(base, dev.token)).status, 403);
      assert.equal((await protect(p, { name: 'z' }, dev.token)).status, 403);
      assert.equal((await t.get(base, reporter.token)).status, 403);
      assert.equal((await t.get(base, stranger.token)).status, 404);
      assert.equal((await t.get(base, null)).status, 401);
      assert.equal((await t.request('DELETE', `${base}/stable`, { token: dev.token })).status, 403);

      assert.equal((await t.request('DELETE', `${base}/stable`, { token: owner.token })).status, 204);
      assert.equal((await t.request('DELETE', `${base}/stable`, { token: owner.token })).status, 404);
      assert.deepEqual((await t.get(base, owner.token)).body.map((x: any) => x.name), ['release-*', 'v1.0']);
    });

    it('creates lightweight and annotated tags, refuses bad input with the reference messages, deletes them', async () => {
      const p = await setup();
      const base = `/api/v4/projects/${p.id}/repository/tags`;
      const head = (await t.get(`/api/v4/projects/${p.id}/repository/branches/main`, dev.token)).body.commit.id;

      const light = await t.request('POST', base, { token: dev.token, body: { tag_name: 'v0.1', ref: 'main' } });
      assert.equal(light.status, 201, light.text);
      assert.deepEqual(keysOf(light.body), TAG_KEYS);
      assert.equal(light.body.name, 'v0.1');
      assert.equal(light.body.message, null);
      assert.equal(light.body.target, head);
      assert.equal(light.body.commit.id, head);
      assert.equal(light.body.protected, false);
      assert.equal(light.body.release, null);

      const annotated = await t.request('POST', base, { token: dev.token, body: { tag_name: 'v0.2', ref: head, message: '  Release 0.2\n' } });
      assert.equal(annotated.status, 201, annotated.text);
      assert.equal(annotated.body.message, 'Release 0.2');
      assert.notEqual(annotated.body.target, head);
      assert.equal(annotated.body.commit.id, head);
      assert.equal((await serverGit(t, p.id, ['cat-file', '-t', 'refs/tags/v0.2'])).stdout.trim(), 'tag');
      const tagger = (await serverGit(t, p.id, ['cat-file', 'tag', 'refs/tags/v0.2'])).stdout;
      assert.match(tagger, new RegExp(`^tagger User ${dev.username} <${dev.username}@example.com> \\d+ \\+0000$`, 'm'));

      const cases: [Record<string, unknown>, number, unknown][] = [
        [{ tag_name: 'v0.1', ref: 'main' }, 400, { message: 'Tag v0.1 already exists' }],
        [{ tag_name: 'bad..name', ref: 'main' }, 400, { message: 'Tag name invalid' }],
        [{ tag_name: 'v9', ref: 'no-such-branch' }, 400, { message: 'Target no-such-branch is invalid' }],
        [{ tag_name: 'main', ref: 'main' }, 400, { message: 'You cannot use default branch name to create a tag' }],
        [{ ref: 'main' }, 400, { message: '400 (Bad request) "tag_name" not given' }],
        [{ tag_name: 'v9' }, 400, { message: '400 (Bad request) "ref" not given' }],
      ];
      for (const [body, status, answer] of cases) {
        const r = await t.request('POST', base, { token: dev.token, body });
        assert.equal(r.status, status, JSON.stringify(body));
        assert.deepEqual(r.body, answer, JSON.stringify(body));
      }
      assert.equal((await t.request('POST', base, { token: reporter.token, body: { tag_name: 'r', ref: 'main' } })).status, 403);
      assert.equal((await t.request('POST', base, { token: stranger.token, body: { tag_name: 'r', ref: 'main' } })).status, 404);
      assert.equal((await t.request('POST', base, { token: null, body: { tag_name: 'r', ref: 'main' } })).status, 401);

      // list filters still apply to created tags
      const listed = await t.get(`${base}?order_by=name&sort=asc&search=v0`, dev.token);
      assert.deepEqual(listed.body.map((x: any) => x.name), ['v0.1', 'v0.2']);
      const suffix = await t.get(`${base}?search=${encodeURIComponent('.2$')}`, dev.token);
      assert.deepEqual(suffix.body.map((x: any) => x.name), ['v0.2']);

      assert.equal((await t.request('DELETE', `${base}/v0.1`, { token: reporter.token })).status, 403);
      assert.equal((await t.request('DELETE', `${base}/nope`, { token: dev.token })).status, 404);
      assert.deepEqual((await t.request('DELETE', `${base}/nope`, { token: dev.token })).body, { message: '404 Tag Not Found' });
      const stale = await t.request('DELETE', `${base}/v0.1`, { token: dev.token, headers: { 'if-unmodified-since': 'Mon, 01 Jan 2001 00:00:00 GMT' } });
      assert.equal(stale.status, 412);
      assert.equal((await t.request('DELETE', `${base}/v0.1`, { token: dev.token })).status, 204);
      assert.equal(await tagSha(p, 'v0.1'), null);
      assert.equal((await t.get(`${base}/v0.1`, dev.token)).status, 404);
    });

    it('the tags API honours protected tags: create entries, maintainers-only deletion, `protected` in the entity', async () => {
      const p = await setup();
      const base = `/api/v4/projects/${p.id}/repository/tags`;
      assert.equal((await protect(p, { name: 'release-*' })).status, 201);
      const refused = await t.request('POST', base, { token: dev.token, body: { tag_name: 'release-1', ref: 'main' } });
      assert.equal(refused.status, 400);
      assert.deepEqual(refused.body, { message: 'You are not allowed to create this tag as it is protected.' });
      assert.equal(await tagSha(p, 'release-1'), null);

      const ok = await t.request('POST', base, { token: maint.token, body: { tag_name: 'release-1', ref: 'main', message: 'one' } });
      assert.equal(ok.status, 201, ok.text);
      assert.equal(ok.body.protected, true);
      assert.equal((await t.get(`${base}/release-1`, reporter.token)).body.protected, true);

      // a developer may not delete a protected tag (403); a maintainer may, through the API
      assert.equal((await t.request('DELETE', `${base}/release-1`, { token: dev.token })).status, 403);
      assert.equal((await t.request('DELETE', `${base}/release-1`, { token: maint.token })).status, 204);

      // "No one" may create: even a maintainer's deletion is refused with the check's words
      assert.equal((await protect(p, { name: 'frozen', create_access_level: 0 })).status, 201);
      assert.equal((await serverGit(t, p.id, ['tag', 'frozen', 'main'])).code, 0);
      const frozen = await t.request('DELETE', `${base}/frozen`, { token: maint.token });
      assert.equal(frozen.status, 400);
      assert.deepEqual(frozen.body, { message: 'You are not allowed to create this tag as it is protected.' });
      assert.ok(await tagSha(p, 'frozen'));
    });

    it('git push: protected tags are created only by allowed users, never moved, deleted only through the API', async () => {
      const p = await setup();
      assert.equal((await protect(p, { name: 'v*', create_access_level: 40 })).status, 201);
      const devDir = (await clone(t, cloneUrl(p.http_url_to_repo, dev.token))).dir;
      await gitOk(t, ['tag', 'v1', 'HEAD'], { cwd: devDir });
      const refused = await runGit(t, ['push', 'origin', 'refs/tags/v1'], { cwd: devDir });
      assert.notEqual(refused.code, 0);
      assert.match(refused.stderr, /You are not allowed to create this tag as it is protected\./);
      assert.equal(await tagSha(p, 'v1'), null);
      // unprotected tags: developers push them
      await gitOk(t, ['tag', 'nightly', 'HEAD'], { cwd: devDir });
      await gitOk(t, ['push', 'origin', 'refs/tags/nightly'], { cwd: devDir });
      assert.ok(await tagSha(p, 'nightly'));

      const mDir = (await clone(t, cloneUrl(p.http_url_to_repo, maint.token))).dir;
      await gitOk(t, ['tag', '-a', 'v1', '-m', 'one', 'HEAD'], { cwd: mDir });
      await gitOk(t, ['push', 'origin', 'refs/tags/v1'], { cwd: mDir });
      const v1 = await tagSha(p, 'v1');
      assert.ok(v1);

      await commitFiles(t, mDir, { 'x.txt': 'x\n' }, 'next');
      await gitOk(t, ['tag', '-f', '-a', 'v1', '-m', 'moved', 'HEAD'], { cwd: mDir });
      const moved = await runGit(t, ['push', '--force', 'origin', 'refs/tags/v1'], { cwd: mDir });
      assert.notEqual(moved.code, 0);
      assert.match(moved.stderr, /Protected tags cannot be updated\./);
      const deleted = await runGit(t, ['push', 'origin', ':refs/tags/v1'], { cwd: mDir });
      assert.notEqual(deleted.code, 0);
      assert.match(deleted.stderr, /You can only delete protected tags using the web interface\./);
      const devDelete = await runGit(t, ['push', 'origin', ':refs/tags/v1'], { cwd: devDir });
      assert.match(devDelete.stderr, /You are not allowed to delete protected tags from this project\. Only a project maintainer or owner can delete a protected tag\./);
      assert.equal(await tagSha(p, 'v1'), v1);
    });

    it('CI_COMMIT_REF_PROTECTED is true for a protected tag; a pipeline on it needs create rights', async () => {
      const p = await setup();
      await putFiles(t, p.id, { [CI_FILE]: SIMPLE_CI }, { token: owner.token });
      assert.equal((await protect(p, { name: 'rel-*' })).status, 201);
      assert.equal((await t.request('POST', `/api/v4/projects/${p.id}/repository/tags`, { token: maint.token, body: { tag_name: 'rel-1', ref: 'main' } })).status, 201);
      assert.equal((await t.request('POST', `/api/v4/projects/${p.id}/repository/tags`, { token: dev.token, body: { tag_name: 'open-1', ref: 'main' } })).status, 201);
      const project = (await findProjectById(t.c.db, p.id))!;

      const onRel = await createPipelineOk(t, p.id, 'rel-1', { token: maint.token });
      const relVars = await predefinedVariables(t.c, project, (await findPipeline(t.c.db, onRel.id))!);
      assert.equal(relVars.CI_COMMIT_TAG, 'rel-1');
      assert.equal(relVars.CI_COMMIT_REF_PROTECTED, 'true');
      const onOpen = await createPipelineOk(t, p.id, 'open-1', { token: dev.token });
      assert.equal((await predefinedVariables(t.c, project, (await findPipeline(t.c.db, onOpen.id))!)).CI_COMMIT_REF_PROTECTED, 'false');

      const devOnRel = await t.request('POST', `/api/v4/projects/${p.id}/pipeline`, { token: dev.token, body: { ref: 'rel-1' } });
      assert.equal(devOnRel.status, 400);
      assert.deepEqual(devOnRel.body, { message: { base: ["Insufficient permissions for protected ref 'rel-1'"] } });
    });
  });
}
