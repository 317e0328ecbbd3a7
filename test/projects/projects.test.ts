import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS, EXTERNAL_URL, buildTestApp, keysOf, type TestApp } from '../helpers/build.js';
import { PROJECT_FULL_KEYS, PROJECT_FULL_KEYS_MAINTAINER, PROJECT_SIMPLE_KEYS } from '../helpers/keys.js';
import { addMember, makeGroup, makeProject } from '../helpers/projects.js';
import { gitText } from '../../src/git/git.js';
import { repositoryDir } from '../../src/domain/repository/service.js';

const SIMPLE_KEYS = PROJECT_SIMPLE_KEYS;

const FULL_KEYS = PROJECT_FULL_KEYS;
const FULL_KEYS_MAINTAINER = PROJECT_FULL_KEYS_MAINTAINER;

const enc = encodeURIComponent;

for (const dialect of DIALECTS) {
  describe(`projects (${dialect})`, () => {
    let t: TestApp;
    before(async () => {
      t = await buildTestApp(dialect);
    });
    after(async () => t.close());

    describe('POST /projects', () => {
      it('creates a project in the caller namespace with the full form, the caller as owner', async () => {
        const u = await t.createUser({ username: 'alice' });
        const r = await t.request('POST', '/api/v4/projects', { token: u.token, body: { name: 'My Project', description: 'hello', topics: ['Ruby', 'go', 'ruby'] } });
        assert.equal(r.status, 201);
        assert.equal(r.headers['content-type'], 'application/json');
        const p = r.body;
        assert.deepEqual(keysOf(p), FULL_KEYS_MAINTAINER);
        assert.equal(p.path, 'my-project');
        assert.equal(p.name, 'My Project');
        assert.equal(p.path_with_namespace, 'alice/my-project');
        assert.equal(p.name_with_namespace, `${'User alice'} / My Project`);
        assert.equal(p.web_url, `${EXTERNAL_URL}/alice/my-project`);
        assert.equal(p.http_url_to_repo, `${EXTERNAL_URL}/alice/my-project.git`);
        // the SSH server's default port (2222) is named in an ssh:// URL; port 22 gives the scp-like form (test/ssh/)
        assert.equal(p.ssh_url_to_repo, 'ssh://git@anvil.test:2222/alice/my-project.git');
        assert.equal(p.visibility, 'private');
        assert.equal(p.default_branch, 'main');
        assert.equal(p.readme_url, null);
        assert.deepEqual(p.topics, ['Ruby', 'go']);
        assert.deepEqual(p.tag_list, ['Ruby', 'go']);
        assert.deepEqual(p.owner, { id: u.id, name: 'User alice', created_at: p.owner.created_at });
        assert.deepEqual(p.namespace, { id: p.namespace.id, name: 'User alice', path: 'alice', kind: 'user', full_path: 'alice' });
        assert.deepEqual(p.permissions, { project_access: { access_level: 50, notification_level: 3 }, group_access: null });
        assert.equal(p.creator_id, u.id);
        assert.deepEqual(p.shared_with_groups, []);
        assert.equal(p.import_status, 'none');
        assert.equal(p.merge_method, 'merge');
        assert.equal(p.squash_option, 'default_off');
        assert.equal(p.issues_enabled, true);
        assert.match(p.runners_token, /^GR1348941/);
        assert.equal(p.forked_from_project, undefined);
        assert.deepEqual(p._links, {
          self: `${EXTERNAL_URL}/api/v4/projects/${p.id}`,
          issues: `${EXTERNAL_URL}/api/v4/projects/${p.id}/issues`,
          merge_requests: `${EXTERNAL_URL}/api/v4/projects/${p.id}/merge_requests`,
          repo_branches: `${EXTERNAL_URL}/api/v4/projects/${p.id}/repository/branches`,
          labels: `${EXTERNAL_URL}/api/v4/projects/${p.id}/labels`,
          events: `${EXTERNAL_URL}/api/v4/projects/${p.id}/events`,
          members: `${EXTERNAL_URL}/api/v4/projects/${p.id}/members`,
          cluster_agents: `${EXTERNAL_URL}/api/v4/projects/${p.id}/cluster_agents`,
        });
      });

      it('derives the name from the path, keeps a valid name as the path, and records every editable setting', async () => {
        const u = await t.createUser();
        const a = await makeProject(t, u.token, { path: 'only-path' });
        assert.equal(a.name, 'only-path');
        const b = await makeProject(t, u.token, { name: 'Valid_Name.1' });
        assert.equal(b.path, 'Valid_Name.1');
        const c = await makeProject(t, u.token, {
          name: 'settings',
          visibility: 'internal',
          default_branch: 'trunk',
          initialize_with_readme: true,
          issues_enabled: false,
          merge_requests_enabled: false,
          jobs_enabled: false,
          wiki_enabled: false,
          snippets_enabled: false,
          container_registry_access_level: 'private',
          security_and_compliance_access_level: 'enabled',
          resolve_outdated_diff_discussions: true,
          shared_runners_enabled: false,
          ci_default_git_depth: 5,
          ci_forward_deployment_enabled: false,
          ci_separated_caches: false,
          public_jobs: false,
          only_allow_merge_if_pipeline_succeeds: true,
          allow_merge_on_skipped_pipeline: true,
          restrict_user_defined_variables: true,
          only_allow_merge_if_all_discussions_are_resolved: true,
          remove_source_branch_after_merge: false,
          request_access_enabled: false,
          merge_method: 'ff',
          squash_option: 'always',
          autoclose_referenced_issues: false,
          suggestion_commit_message: 'suggest',
          merge_commit_template: 'merge %{title}',
          squash_commit_template: 'squash',
          tag_list: 'x,y',
        });
        assert.equal(c.visibility, 'internal');
        assert.equal(c.default_branch, 'trunk');
        assert.equal(c.readme_url, `${EXTERNAL_URL}/${c.path_with_namespace}/-/blob/trunk/README.md`);
        for (const k of ['issues_enabled', 'merge_requests_enabled', 'jobs_enabled', 'wiki_enabled', 'snippets_enabled', 'shared_runners_enabled',
          'ci_forward_deployment_enabled', 'ci_separated_caches', 'public_jobs', 'remove_source_branch_after_merge', 'request_access_enabled',
          'autoclose_referenced_issues']) assert.equal(c[k], false, k);
        for (const k of ['resolve_outdated_diff_discussions', 'only_allow_merge_if_pipeline_succeeds', 'allow_merge_on_skipped_pipeline',
          'restrict_user_defined_variables', 'only_allow_merge_if_all_discussions_are_resolved']) assert.equal(c[k], true, k);
        assert.equal(c.container_registry_access_level, 'private');
        assert.equal(c.container_registry_enabled, true); // the owner is a member
        assert.equal(c.security_and_compliance_access_level, 'enabled');
        assert.equal(c.ci_default_git_depth, 5);
        assert.equal(c.merge_method, 'ff');
        assert.equal(c.squash_option, 'always');
        assert.equal(c.suggestion_commit_message, 'suggest');
        assert.equal(c.merge_commit_template, 'merge %{title}');
        assert.equal(c.squash_commit_template, 'squash');
        assert.deepEqual(c.topics, ['x', 'y']);
        // issues and merge requests are off: their links go
        assert.deepEqual(Object.keys(c._links).sort(), ['cluster_agents', 'events', 'labels', 'members', 'repo_branches', 'self']);
      });

      it('refuses bad input in the reference words', async () => {
        const u = await t.createUser();
        let r = await t.request('POST', '/api/v4/projects', { token: u.token, body: { description: 'x' } });
        assert.equal(r.status, 400);
        assert.deepEqual(r.body, { error: 'name, path are missing, at least one parameter must be provided' });

        await makeProject(t, u.token, { name: 'dup' });
        r = await t.request('POST', '/api/v4/projects', { token: u.token, body: { name: 'dup' } });
        assert.equal(r.status, 400);
        assert.deepEqual(r.body, { message: { name: ['has already been taken'], path: ['has already been taken'] } });
        r = await t.request('POST', '/api/v4/projects', { token: u.token, body: { name: 'other', path: 'DUP' } });
        assert.deepEqual(r.body, { message: { path: ['has already been taken'] } });

        r = await t.request('POST', '/api/v4/projects', { token: u.token, body: { name: 'v', visibility: 'secret' } });
        assert.equal(r.status, 400);
        assert.deepEqual(r.body, { error: 'visibility does not have a valid value' });

        r = await t.request('POST', '/api/v4/projects', { token: u.token, body: { name: 'v', merge_method: 'squash' } });
        assert.deepEqual(r.body, { error: 'merge_method does not have a valid value' });

        r = await t.request('POST', '/api/v4/projects', { token: u.token, body: { path: '-bad' } });
        assert.equal(r.status, 400);
        assert.deepEqual(Object.keys(r.body.message).sort(), ['name', 'path']); // the name comes from the path

        const other = await t.createUser();
        const ns = await t.c.db.selectFrom('users').select('namespace_id').where('id', '=', other.id).executeTakeFirstOrThrow();
        r = await t.request('POST', '/api/v4/projects', { token: u.token, body: { name: 'intruder', namespace_id: ns.namespace_id } });
        assert.equal(r.status, 400);
        assert.deepEqual(r.body, { message: { namespace: ['is not valid'] } });
        r = await t.request('POST', '/api/v4/projects', { token: u.token, body: { name: 'nowhere', namespace_id: 999999 } });
        assert.deepEqual(r.body, { message: { namespace: ['is not valid'] } });
      });

      it('401 without a token, 403 insufficient_scope with read_api', async () => {
        const r = await t.request('POST', '/api/v4/projects', { token: null, body: { name: 'x' } });
        assert.equal(r.status, 401);
        assert.deepEqual(r.body, { message: '401 Unauthorized' });
        const ro = await t.createUser({ scopes: ['read_api'] });
        const s = await t.request('POST', '/api/v4/projects', { token: ro.token, body: { name: 'x' } });
        assert.equal(s.status, 403);
        assert.equal(s.body.error, 'insufficient_scope');
      });

      it('creates in a group per its project_creation_level, capped by the group visibility', async () => {
        const dev = await t.createUser();
        const guest = await t.createUser();
        const g = await makeGroup(t, 'creators', { visibility: 10 });
        await addMember(t, 'Namespace', g.id, dev.id, 30);
        await addMember(t, 'Namespace', g.id, guest.id, 10);
        const p = await makeProject(t, dev.token, { name: 'gp', namespace_id: g.id });
        assert.equal(p.owner, null);
        assert.deepEqual(p.namespace, { id: g.id, name: 'creators', path: 'creators', kind: 'group', full_path: 'creators' });
        assert.deepEqual(p.permissions, { project_access: null, group_access: { access_level: 30, notification_level: 3 } });
        assert.equal(p.runners_token, undefined); // developers do not see it
        assert.deepEqual(keysOf(p), FULL_KEYS);
        let r = await t.request('POST', '/api/v4/projects', { token: guest.token, body: { name: 'gp2', namespace_id: g.id } });
        assert.deepEqual(r.body, { message: { namespace: ['is not valid'] } });
        r = await t.request('POST', '/api/v4/projects', { token: dev.token, body: { name: 'gp3', namespace_id: g.id, visibility: 'public' } });
        assert.equal(r.status, 400);
        assert.deepEqual(r.body, { message: { visibility_level: ['public is not allowed in a internal group.'] } });
        const m = await makeGroup(t, 'maintainers-only', { creationLevel: 'maintainer' });
        await addMember(t, 'Namespace', m.id, dev.id, 30);
        r = await t.request('POST', '/api/v4/projects', { token: dev.token, body: { name: 'gp4', namespace_id: m.id } });
        assert.equal(r.status, 400);
      });

      it('admin POST /projects/user/:user_id creates in that user namespace; others get 403', async () => {
        const u = await t.createUser({ username: 'bob' });
        const r = await t.request('POST', `/api/v4/projects/user/${u.id}`, { body: { name: 'made-for-bob' } });
        assert.equal(r.status, 201);
        assert.equal(r.body.path_with_namespace, 'bob/made-for-bob');
        assert.equal(r.body.creator_id, u.id);
        assert.equal(r.body.owner.id, u.id);
        const own = await t.get(`/api/v4/projects/${r.body.id}`, u.token);
        assert.equal(own.body.permissions.project_access.access_level, 50);
        const forbidden = await t.request('POST', `/api/v4/projects/user/${u.id}`, { token: u.token, body: { name: 'x' } });
        assert.equal(forbidden.status, 403);
        const missing = await t.request('POST', `/api/v4/projects/user/${u.id}`, { body: {} });
        assert.deepEqual(missing.body, { message: '400 (Bad request) "name" not given' });
        const unknown = await t.request('POST', '/api/v4/projects/user/999999', { body: { name: 'x' } });
        assert.equal(unknown.status, 404);
        assert.deepEqual(unknown.body, { message: '404 User Not Found' });
      });
    });

    describe('GET /projects/:id', () => {
      it('by id or URL-encoded path; anonymous gets the simple form of a public project, 404 for a private one', async () => {
        const u = await t.createUser({ username: 'carol' });
        const pub = await makeProject(t, u.token, { name: 'pub', visibility: 'public' });
        const priv = await makeProject(t, u.token, { name: 'priv' });
        const byPath = await t.get(`/api/v4/projects/${enc('carol/pub')}`, u.token);
        assert.equal(byPath.status, 200);
        assert.equal(byPath.body.id, pub.id);
        assert.deepEqual(keysOf(byPath.body), FULL_KEYS_MAINTAINER);
        const anon = await t.get(`/api/v4/projects/${pub.id}`, null);
        assert.equal(anon.status, 200);
        assert.deepEqual(keysOf(anon.body), SIMPLE_KEYS);
        const hidden = await t.get(`/api/v4/projects/${priv.id}`, null);
        assert.equal(hidden.status, 404);
        assert.deepEqual(hidden.body, { message: '404 Project Not Found' });
        const stranger = await t.createUser();
        assert.equal((await t.get(`/api/v4/projects/${priv.id}`, stranger.token)).status, 404);
        assert.equal((await t.get(`/api/v4/projects/${enc('carol/priv')}`, stranger.token)).status, 404);
        assert.equal((await t.get('/api/v4/projects/999999', u.token)).status, 404);
        // a signed-in non-member sees the full form of a public project, without the runners token
        const seen = await t.get(`/api/v4/projects/${pub.id}`, stranger.token);
        assert.deepEqual(keysOf(seen.body), FULL_KEYS);
        assert.deepEqual(seen.body.permissions, { project_access: null, group_access: null });
      });

      it('statistics for reporters and above, license on request', async () => {
        const u = await t.createUser();
        const p = await makeProject(t, u.token, { name: 'stats', visibility: 'public' });
        const r = await t.get(`/api/v4/projects/${p.id}?statistics=true&license=true&with_custom_attributes=true`, u.token);
        // An empty repository: no commits, but its bare skeleton takes some bytes (test/repository/languages.test.ts checks sizes).
        const size = r.body.statistics.repository_size;
        assert.ok(size > 0);
        assert.deepEqual(r.body.statistics, {
          commit_count: 0, storage_size: size, repository_size: size, wiki_size: 0, lfs_objects_size: 0, job_artifacts_size: 0,
          pipeline_artifacts_size: 0, packages_size: 0, snippets_size: 0, uploads_size: 0,
        });
        assert.equal(r.body.license, null);
        assert.equal(r.body.license_url, null);
        assert.deepEqual(keysOf(r.body), [...FULL_KEYS_MAINTAINER, 'license', 'license_url', 'statistics'].sort());
        const stranger = await t.createUser();
        const s = await t.get(`/api/v4/projects/${p.id}?statistics=true`, stranger.token);
        assert.equal(s.body.statistics, undefined);
      });
    });

    describe('PUT /projects/:id', () => {
      it('maintainers edit settings; names and visibility are for owners; developers get 403', async () => {
        const owner = await t.createUser();
        const maint = await t.createUser();
        const dev = await t.createUser();
        const p = await makeProject(t, owner.token, { name: 'edit-me' });
        await addMember(t, 'Project', p.id, maint.id, 40);
        await addMember(t, 'Project', p.id, dev.id, 30);
        let r = await t.request('PUT', `/api/v4/projects/${p.id}`, { token: maint.token, body: { description: 'new', merge_method: 'rebase_merge', topics: 'a,b' } });
        assert.equal(r.status, 200);
        assert.equal(r.body.description, 'new');
        assert.equal(r.body.merge_method, 'rebase_merge');
        assert.deepEqual(r.body.topics, ['a', 'b']);
        assert.match(r.body.runners_token, /^GR/);
        r = await t.request('PUT', `/api/v4/projects/${p.id}`, { token: dev.token, body: { description: 'nope' } });
        assert.equal(r.status, 403);
        assert.deepEqual(r.body, { message: '403 Forbidden' });
        r = await t.request('PUT', `/api/v4/projects/${p.id}`, { token: maint.token, body: { name: 'Renamed' } });
        assert.equal(r.status, 403);
        r = await t.request('PUT', `/api/v4/projects/${p.id}`, { token: maint.token, body: { visibility: 'public' } });
        assert.equal(r.status, 403);
        r = await t.request('PUT', `/api/v4/projects/${p.id}`, { token: owner.token, body: { name: 'Renamed', visibility: 'public' } });
        assert.equal(r.status, 200);
        assert.equal(r.body.name, 'Renamed');
        assert.equal(r.body.visibility, 'public');
        r = await t.request('PUT', `/api/v4/projects/${p.id}`, { token: owner.token, body: {} });
        assert.equal(r.status, 400);
        assert.match(r.body.error, /^name, path, description, .* are missing, at least one parameter must be provided$/);
        const stranger = await t.createUser();
        r = await t.request('PUT', `/api/v4/projects/${p.id}`, { token: stranger.token, body: { description: 'x' } });
        assert.equal(r.status, 403); // it is public now: visible, but not theirs
        const priv = await makeProject(t, owner.token, { name: 'still-private' });
        r = await t.request('PUT', `/api/v4/projects/${priv.id}`, { token: stranger.token, body: { description: 'x' } });
        assert.equal(r.status, 404);
      });

      it("default_branch: an existing branch moves HEAD; one that does not exist is the reference's 400 and changes nothing", async () => {
        const p = await makeProject(t, t.rootToken, { name: 'heads', initialize_with_readme: true });
        assert.equal((await t.request('POST', `/api/v4/projects/${p.id}/repository/branches`, { body: { branch: 'develop', ref: 'main' } })).status, 201);
        let r = await t.request('PUT', `/api/v4/projects/${p.id}`, { body: { default_branch: 'nope', description: 'not applied' } });
        assert.deepEqual([r.status, r.body], [400, { message: { base: ["Could not change HEAD: branch 'nope' does not exist"] } }]);
        const unchanged = (await t.get(`/api/v4/projects/${p.id}`)).body;
        assert.deepEqual([unchanged.default_branch, unchanged.description], ['main', null]);
        r = await t.request('PUT', `/api/v4/projects/${p.id}`, { body: { default_branch: 'main' } });
        assert.equal(r.status, 200, 'the current default branch is no change');
        r = await t.request('PUT', `/api/v4/projects/${p.id}`, { body: { default_branch: 'develop' } });
        assert.deepEqual([r.status, r.body.default_branch], [200, 'develop']);
        assert.equal(await gitText(['symbolic-ref', 'HEAD'], { gitDir: repositoryDir(t.c, p.id) }), 'refs/heads/develop', 'a clone checks out develop');
        const branches = (await t.get(`/api/v4/projects/${p.id}/repository/branches`)).body;
        assert.deepEqual(branches.filter((b: any) => b.default).map((b: any) => b.name), ['develop']);
        // an empty repository has no branch to point HEAD at
        const empty = await makeProject(t, t.rootToken, { name: 'empty-heads' });
        r = await t.request('PUT', `/api/v4/projects/${empty.id}`, { body: { default_branch: 'trunk' } });
        assert.deepEqual([r.status, r.body], [400, { message: { base: ["Could not change HEAD: branch 'trunk' does not exist"] } }]);
      });

      it('a path change keeps the old path resolving; a path taken again stops redirecting', async () => {
        const u = await t.createUser({ username: 'dave' });
        const p = await makeProject(t, u.token, { name: 'old-name' });
        const r = await t.request('PUT', `/api/v4/projects/${p.id}`, { token: u.token, body: { path: 'new-name' } });
        assert.equal(r.status, 200);
        assert.equal(r.body.path_with_namespace, 'dave/new-name');
        const old = await t.get(`/api/v4/projects/${enc('dave/old-name')}`, u.token);
        assert.equal(old.status, 200);
        assert.equal(old.body.id, p.id);
        assert.equal(old.body.path_with_namespace, 'dave/new-name');
        const fresh = await makeProject(t, u.token, { name: 'fresh', path: 'old-name' });
        assert.equal((await t.get(`/api/v4/projects/${enc('dave/old-name')}`, u.token)).body.id, fresh.id);
        const dup = await t.request('PUT', `/api/v4/projects/${p.id}`, { token: u.token, body: { path: 'OLD-name' } });
        assert.deepEqual(dup.body, { message: { path: ['has already been taken'] } });
      });
    });

    describe('PUT /projects/:id/transfer', () => {
      it('moves to a group the owner may create in, keeping a redirect; refuses otherwise', async () => {
        const u = await t.createUser({ username: 'erin' });
        const g = await makeGroup(t, 'target-grp', { visibility: 10 });
        const other = await makeGroup(t, 'not-mine', { visibility: 20 });
        await addMember(t, 'Namespace', g.id, u.id, 40);
        const p = await makeProject(t, u.token, { name: 'mover', visibility: 'public' });
        let r = await t.request('PUT', `/api/v4/projects/${p.id}/transfer`, { token: u.token, body: { namespace: 'not-mine' } });
        assert.equal(r.status, 400);
        assert.deepEqual(r.body, { message: 'Failed to transfer project {:new_namespace=>["You don\'t have permission to transfer projects into that namespace."]}' });
        r = await t.request('PUT', `/api/v4/projects/${p.id}/transfer`, { token: u.token, body: { namespace: 'no-such-ns' } });
        assert.equal(r.status, 404);
        assert.deepEqual(r.body, { message: '404 Namespace Not Found' });
        r = await t.request('PUT', `/api/v4/projects/${p.id}/transfer`, { token: u.token, body: { namespace: g.id } });
        assert.equal(r.status, 200);
        assert.equal(r.body.path_with_namespace, 'target-grp/mover');
        assert.equal(r.body.visibility, 'internal'); // lowered to the group's
        assert.equal(r.body.owner, null);
        const old = await t.get(`/api/v4/projects/${enc('erin/mover')}`, u.token);
        assert.equal(old.body.id, p.id);
        r = await t.request('PUT', `/api/v4/projects/${p.id}/transfer`, { token: u.token, body: { namespace: g.id } });
        assert.deepEqual(r.body, { message: 'Failed to transfer project {:new_namespace=>["Project is already in this namespace."]}' });
        assert.ok(other.id);
        // a maintainer (not owner) of the project may not transfer it
        const m = await t.createUser();
        await addMember(t, 'Project', p.id, m.id, 40);
        r = await t.request('PUT', `/api/v4/projects/${p.id}/transfer`, { token: m.token, body: { namespace: 'erin' } });
        assert.equal(r.status, 403);
      });
    });

    describe('DELETE /projects/:id', () => {
      it('owners and admins delete (202); maintainers 403; strangers 404', async () => {
        const u = await t.createUser();
        const m = await t.createUser();
        const s = await t.createUser();
        const p = await makeProject(t, u.token, { name: 'doomed' });
        await addMember(t, 'Project', p.id, m.id, 40);
        assert.equal((await t.request('DELETE', `/api/v4/projects/${p.id}`, { token: m.token })).status, 403);
        assert.equal((await t.request('DELETE', `/api/v4/projects/${p.id}`, { token: s.token })).status, 404);
        const r = await t.request('DELETE', `/api/v4/projects/${p.id}`, { token: u.token });
        assert.equal(r.status, 202);
        assert.deepEqual(r.body, { message: '202 Accepted' });
        assert.equal((await t.get(`/api/v4/projects/${p.id}`, u.token)).status, 404);
        const q = await makeProject(t, u.token, { name: 'doomed-by-admin' });
        assert.equal((await t.request('DELETE', `/api/v4/projects/${q.id}`)).status, 202);
      });
    });
  });

  describe(`projects and instance settings (${dialect})`, () => {
    let t: TestApp;
    before(async () => {
      t = await buildTestApp(dialect);
    });
    after(async () => t.close());

    it('takes the default visibility and branch from the settings; restricted levels are refused to non-admins', async () => {
      const s = await t.request('PUT', '/api/v4/application/settings', {
        body: { default_project_visibility: 'internal', default_branch_name: 'trunk', restricted_visibility_levels: ['public'] },
      });
      assert.equal(s.status, 200, s.text);
      const u = await t.createUser();
      const p = await makeProject(t, u.token, { name: 'defaults' });
      assert.equal(p.visibility, 'internal');
      assert.equal(p.default_branch, 'trunk');
      const r = await t.request('POST', '/api/v4/projects', { token: u.token, body: { name: 'loud', visibility: 'public' } });
      assert.equal(r.status, 400);
      assert.deepEqual(r.body, { message: { visibility_level: ['Public has been restricted by your administrator'] } });
      const admin = await t.request('POST', '/api/v4/projects', { body: { name: 'loud', visibility: 'public' } });
      assert.equal(admin.status, 201);
      assert.equal(admin.body.visibility, 'public');
    });
  });

  describe(`project lists (${dialect})`, () => {
    let t: TestApp;
    let owner: { id: number; username: string; token: string };
    let member: { id: number; username: string; token: string };
    let groupMember: { id: number; username: string; token: string };
    let stranger: { id: number; username: string; token: string };
    let external: { id: number; username: string; token: string };
    const ids: Record<string, number> = {};

    before(async () => {
      t = await buildTestApp(dialect);
      owner = await t.createUser({ username: 'lister' });
      member = await t.createUser();
      groupMember = await t.createUser();
      stranger = await t.createUser();
      external = await t.createUser({ external: true });
      for (const v of ['private', 'internal', 'public'] as const) {
        ids[v] = (await makeProject(t, owner.token, { name: `${v}-proj`, visibility: v, topics: v === 'public' ? ['alpha', 'beta'] : ['alpha'], description: `the ${v} one` })).id;
      }
      await addMember(t, 'Project', ids.private, member.id, 20);
      const top = await makeGroup(t, 'top');
      const sub = await makeGroup(t, 'sub', { parentId: top.id, parentPath: 'top' });
      await addMember(t, 'Namespace', top.id, groupMember.id, 30);
      await addMember(t, 'Namespace', sub.id, owner.id, 50);
      ids.deep = (await makeProject(t, owner.token, { name: 'deep', namespace_id: sub.id })).id;
      ids.archived = (await makeProject(t, owner.token, { name: 'old-stuff', visibility: 'public' })).id;
      await t.c.db.updateTable('projects').set({ archived: 1, last_activity_at: '2020-01-01T00:00:00.000Z' }).where('id', '=', ids.archived).execute();
    });
    after(async () => t.close());

    const list = async (query: string, token: string | null) => {
      const r = await t.get(`/api/v4/projects${query}`, token);
      assert.equal(r.status, 200, r.text);
      return r.body.map((p: any) => p.id) as number[];
    };
    const sorted = (a: number[]) => [...a].sort((x, y) => x - y);

    it('visibility matrix: anonymous, signed-in, external, member, inherited group member, admin', async () => {
      assert.deepEqual(sorted(await list('', null)), sorted([ids.public, ids.archived]));
      assert.deepEqual(sorted(await list('', stranger.token)), sorted([ids.internal, ids.public, ids.archived]));
      assert.deepEqual(sorted(await list('', external.token)), sorted([ids.public, ids.archived]));
      assert.deepEqual(sorted(await list('', member.token)), sorted([ids.private, ids.internal, ids.public, ids.archived]));
      assert.deepEqual(sorted(await list('', groupMember.token)), sorted([ids.deep, ids.internal, ids.public, ids.archived]));
      const all = await list('?per_page=100', t.rootToken);
      for (const id of Object.values(ids)) assert.ok(all.includes(id));
      // and one by one
      assert.equal((await t.get(`/api/v4/projects/${ids.internal}`, external.token)).status, 404);
      assert.equal((await t.get(`/api/v4/projects/${ids.internal}`, stranger.token)).status, 200);
      assert.equal((await t.get(`/api/v4/projects/${ids.deep}`, groupMember.token)).status, 200);
      assert.equal((await t.get(`/api/v4/projects/${ids.deep}`, stranger.token)).status, 404);
    });

    it('anonymous and simple=true get the simple form; signed-in the full form with pagination headers', async () => {
      const anon = await t.get('/api/v4/projects', null);
      for (const p of anon.body) assert.deepEqual(keysOf(p), SIMPLE_KEYS);
      const simple = await t.get('/api/v4/projects?simple=true', stranger.token);
      for (const p of simple.body) assert.deepEqual(keysOf(p), SIMPLE_KEYS);
      const full = await t.get('/api/v4/projects?per_page=2', stranger.token);
      for (const p of full.body) assert.deepEqual(keysOf(p), FULL_KEYS);
      assert.equal(full.headers['x-total'], '3');
      assert.equal(full.headers['x-per-page'], '2');
      assert.equal(full.headers['x-next-page'], '2');
      assert.match(String(full.headers.link), /rel="next"/);
    });

    it('filters: owned, membership, min_access_level, visibility, archived, search, topic, last activity, ids, features, starred, imported', async () => {
      assert.deepEqual(sorted(await list('?owned=true', owner.token)), sorted([ids.private, ids.internal, ids.public, ids.deep, ids.archived]));
      assert.deepEqual(await list('?owned=true', member.token), []);
      assert.deepEqual(await list('?membership=true', member.token), [ids.private]);
      assert.deepEqual(await list('?membership=true', groupMember.token), [ids.deep]);
      assert.deepEqual(await list('?min_access_level=30', member.token), []);
      assert.deepEqual(await list('?min_access_level=20', member.token), [ids.private]);
      assert.deepEqual(await list('?min_access_level=30', groupMember.token), [ids.deep]);
      assert.deepEqual(await list('?owned=true', null), []);
      assert.deepEqual(await list('?visibility=internal', stranger.token), [ids.internal]);
      assert.deepEqual(await list('?archived=true', stranger.token), [ids.archived]);
      assert.deepEqual(sorted(await list('?archived=false', stranger.token)), sorted([ids.internal, ids.public]));
      assert.deepEqual(await list('?search=PUBLIC-p', stranger.token), [ids.public]);
      assert.deepEqual(await list('?search=the%20internal', stranger.token), [ids.internal]);
      assert.deepEqual(await list('?search=top', groupMember.token), []);
      assert.deepEqual(await list('?search=top&search_namespaces=true', groupMember.token), [ids.deep]);
      assert.deepEqual(await list('?topic=alpha,BETA', stranger.token), [ids.public]);
      assert.deepEqual(sorted(await list('?topic=alpha', stranger.token)), sorted([ids.internal, ids.public]));
      const beta = (await t.get('/api/v4/topics?search=beta', stranger.token)).body[0];
      assert.equal(beta.name, 'beta');
      assert.deepEqual(await list(`?topic_id=${beta.id}`, stranger.token), [ids.public]);
      assert.deepEqual(await list('?topic_id=999999', stranger.token), []);
      assert.deepEqual(await list('?last_activity_before=2021-01-01T00:00:00Z', stranger.token), [ids.archived]);
      assert.ok(!(await list('?last_activity_after=2021-01-01T00:00:00Z', stranger.token)).includes(ids.archived));
      const bad = await t.get('/api/v4/projects?last_activity_after=yesterday-ish', stranger.token);
      assert.equal(bad.status, 400);
      assert.deepEqual(bad.body, { error: 'last_activity_after is invalid' });
      assert.deepEqual(sorted(await list(`?id_after=${ids.internal}&id_before=${ids.archived}`, owner.token)), sorted([ids.public, ids.deep]));
      // An id past what the id column holds filters like any other (the reference compares numbers).
      assert.deepEqual(await list('?id_after=2147483648', owner.token), []);
      assert.deepEqual(sorted(await list('?id_before=2147483648', stranger.token)), sorted(await list('', stranger.token)));
      await t.request('PUT', `/api/v4/projects/${ids.internal}`, { token: owner.token, body: { issues_enabled: false, merge_requests_enabled: false } });
      assert.ok(!(await list('?with_issues_enabled=true', stranger.token)).includes(ids.internal));
      assert.ok(!(await list('?with_merge_requests_enabled=true', stranger.token)).includes(ids.internal));
      assert.ok((await list('', stranger.token)).includes(ids.internal));
      assert.deepEqual(await list('?starred=true', owner.token), []);
      assert.deepEqual(await list('?imported=true', owner.token), []);
      assert.deepEqual(await list('?with_programming_language=Ruby', owner.token), []);
      const badLevel = await t.get('/api/v4/projects?min_access_level=25', owner.token);
      assert.deepEqual(badLevel.body, { error: 'min_access_level does not have a valid value' });
      const badOrder = await t.get('/api/v4/projects?order_by=stars', owner.token);
      assert.deepEqual(badOrder.body, { error: 'order_by does not have a valid value' });
    });

    it('orderings: default created_at desc, id, name, path, updated_at, last_activity_at, similarity, admin-only sizes', async () => {
      const all = sorted(await list('?per_page=100', owner.token));
      assert.deepEqual(await list('?per_page=100', owner.token), [...all].reverse());
      assert.deepEqual(await list('?order_by=id&sort=asc&per_page=100', owner.token), all);
      const byName = await t.get('/api/v4/projects?order_by=name&sort=asc&per_page=100', owner.token);
      const names = byName.body.map((p: any) => p.name);
      assert.deepEqual(names, [...names].sort());
      const byPath = await t.get('/api/v4/projects?order_by=path&sort=desc&per_page=100', owner.token);
      const paths = byPath.body.map((p: any) => p.path);
      assert.deepEqual(paths, [...paths].sort().reverse());
      const byActivity = await list('?order_by=last_activity_at&sort=asc&per_page=100', owner.token);
      assert.equal(byActivity[0], ids.archived);
      await t.request('PUT', `/api/v4/projects/${ids.private}`, { token: owner.token, body: { description: 'touched' } });
      assert.equal((await list('?order_by=updated_at&per_page=100', owner.token))[0], ids.private);
      // similarity: an exact path match ranks first
      const sim = await list('?search=deep&order_by=similarity', owner.token);
      assert.equal(sim[0], ids.deep);
      // size orderings fall back to the default for non-admins; admins get id order (sizes are zero)
      assert.deepEqual(await list('?order_by=storage_size&per_page=100', owner.token), await list('?per_page=100', owner.token));
      const adminSizes = await list('?order_by=storage_size&sort=asc&per_page=100', t.rootToken);
      assert.deepEqual(adminSizes, sorted(adminSizes));
    });

    it('keyset pages with order_by=id: Link rel=next only, absent at the end with an empty array', async () => {
      const all = sorted(await list('?per_page=100', owner.token));
      const seen: number[] = [];
      let url: string | null = '/api/v4/projects?pagination=keyset&order_by=id&sort=asc&per_page=2';
      let pages = 0;
      while (url) {
        const r = await t.get(url, owner.token);
        assert.equal(r.status, 200);
        assert.equal(r.headers['x-total'], undefined);
        seen.push(...r.body.map((p: any) => p.id));
        const link = r.headers.link as string | undefined;
        if (link) {
          assert.match(link, /^<[^>]+>; rel="next"$/);
          url = link.slice(1, link.indexOf('>')).replace(EXTERNAL_URL, '');
        } else {
          url = null;
        }
        pages += 1;
      }
      assert.deepEqual(seen, all);
      assert.ok(pages >= 3);
      const end = await t.get(`/api/v4/projects?pagination=keyset&order_by=id&sort=asc&per_page=2&id_after=${all[all.length - 1]}`, owner.token);
      assert.deepEqual(end.body, []);
      assert.equal(end.headers.link, undefined);
      const desc = await t.get('/api/v4/projects?pagination=keyset&order_by=id&per_page=2', owner.token);
      assert.deepEqual(desc.body.map((p: any) => p.id), [...all].reverse().slice(0, 2));
      assert.match(String(desc.headers.link), /id_before=/);
      const past = await t.get('/api/v4/projects?pagination=keyset&order_by=id&per_page=2&id_before=2147483648', owner.token);
      assert.deepEqual([past.status, past.body.map((p: any) => p.id)], [200, desc.body.map((p: any) => p.id)]);
      const anon = await t.get('/api/v4/projects?pagination=keyset&order_by=id&per_page=1', null);
      assert.equal(anon.status, 200);
      const refused = await t.get('/api/v4/projects?pagination=keyset&order_by=name', owner.token);
      assert.equal(refused.status, 405);
      assert.deepEqual(refused.body, { error: 'Keyset pagination is not yet available for this type of request' });
    });

    it('offset pages stop at 50,000 records with the reference 405', async () => {
      const r = await t.get('/api/v4/projects?page=2501&per_page=20', owner.token);
      assert.equal(r.status, 405);
      assert.deepEqual(r.body, {
        error:
          'Offset pagination has a maximum allowed offset of 50000 for requests that return objects of type Project. Remaining records can be retrieved using keyset pagination.',
      });
      assert.equal((await t.get('/api/v4/projects?page=2500&per_page=20', owner.token)).status, 200);
      assert.equal((await t.get(`/api/v4/users/${owner.id}/projects?page=501&per_page=100`, owner.token)).status, 405);
    });

    it('GET /users/:user_id/projects: the personal namespace only, by id or username; private profiles hide them', async () => {
      const mine = sorted(await (async () => (await t.get(`/api/v4/users/${owner.username}/projects`, stranger.token)).body.map((p: any) => p.id))());
      assert.deepEqual(mine, sorted([ids.internal, ids.public, ids.archived]));
      const byId = await t.get(`/api/v4/users/${owner.id}/projects`, null);
      assert.deepEqual(sorted(byId.body.map((p: any) => p.id)), sorted([ids.public, ids.archived]));
      for (const p of byId.body) assert.deepEqual(keysOf(p), SIMPLE_KEYS);
      const missing = await t.get('/api/v4/users/no-such-user/projects', stranger.token);
      assert.equal(missing.status, 404);
      assert.deepEqual(missing.body, { message: '404 User Not Found' });
      await t.c.db.updateTable('users').set({ private_profile: 1 }).where('id', '=', owner.id).execute();
      assert.deepEqual((await t.get(`/api/v4/users/${owner.id}/projects`, stranger.token)).body, []);
      assert.equal((await t.get(`/api/v4/users/${owner.id}/projects`, owner.token)).body.length, 4);
      await t.c.db.updateTable('users').set({ private_profile: 0 }).where('id', '=', owner.id).execute();
    });

    it('GET /groups/:id/projects: the group, with include_subgroups the groups below; hidden groups 404', async () => {
      const top = await t.get(`/api/v4/groups/top/projects`, groupMember.token);
      assert.equal(top.status, 200);
      assert.deepEqual(top.body, []);
      const withSubs = await t.get(`/api/v4/groups/top/projects?include_subgroups=true`, groupMember.token);
      assert.deepEqual(withSubs.body.map((p: any) => p.id), [ids.deep]);
      assert.deepEqual(keysOf(withSubs.body[0]), FULL_KEYS);
      const sub = await t.get(`/api/v4/groups/${enc('top/sub')}/projects`, owner.token);
      assert.deepEqual(sub.body.map((p: any) => p.id), [ids.deep]);
      const hidden = await t.get('/api/v4/groups/top/projects', stranger.token);
      assert.equal(hidden.status, 404);
      assert.deepEqual(hidden.body, { message: '404 Group Not Found' });
    });
  });
}
