// Instance settings take effect: each test changes a setting through PUT /application/settings
// and observes the result through the API, as a client would.
import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS, buildTestApp, keysOf, type TestApp } from '../helpers/build.js';
import { makeGroup } from '../helpers/groups.js';
import { startSecondNode } from '../helpers/settings.js';
import { KEYS as USER_KEYS } from '../helpers/users.js';

const SETTINGS = '/api/v4/application/settings';

/** Fixed one-minute windows: a burst of hits must not straddle a minute boundary. */
async function freshMinute(): Promise<void> {
  const into = Date.now() % 60_000;
  if (into > 50_000) await new Promise((r) => setTimeout(r, 60_000 - into + 20));
}

let seq = 0;
const uniq = (p: string) => `${p}${++seq}${Math.random().toString(36).slice(2, 6)}`;

for (const dialect of DIALECTS) {
  describe(`settings take effect (${dialect})`, () => {
    let t: TestApp;
    before(async () => {
      t = await buildTestApp(dialect);
    });
    after(async () => t.close());

    const setting = async (body: Record<string, unknown>) => {
      const r = await t.request('PUT', SETTINGS, { body });
      assert.equal(r.status, 200, r.text);
      return r.body;
    };
    const createProject = (token: string, body: Record<string, unknown>) => t.request('POST', '/api/v4/projects', { token, body });

    describe('projects', () => {
      beforeEach(async () => {
        await setting({ default_project_visibility: 'private', restricted_visibility_levels: [], default_branch_name: '' });
      });

      it('default_project_visibility: new projects without a visibility get it', async () => {
        const u = await t.createUser();
        assert.equal((await createProject(u.token, { name: uniq('p') })).body.visibility, 'private');
        await setting({ default_project_visibility: 'internal' });
        const r = await createProject(u.token, { name: uniq('p') });
        assert.equal(r.status, 201, r.text);
        assert.equal(r.body.visibility, 'internal');
        // An explicit visibility still wins.
        assert.equal((await createProject(u.token, { name: uniq('p'), visibility: 'public' })).body.visibility, 'public');
      });

      it('restricted_visibility_levels: non-admins cannot create or switch projects to a restricted level; admins can', async () => {
        const u = await t.createUser();
        const own = await createProject(u.token, { name: uniq('p'), visibility: 'private' });
        assert.equal(own.status, 201);
        await setting({ restricted_visibility_levels: ['public'] });

        const created = await createProject(u.token, { name: uniq('p'), visibility: 'public' });
        assert.equal(created.status, 400);
        assert.deepEqual(created.body, { message: { visibility_level: ['Public has been restricted by your administrator'] } });

        const updated = await t.request('PUT', `/api/v4/projects/${own.body.id}`, { token: u.token, body: { visibility: 'public' } });
        assert.equal(updated.status, 400);
        assert.deepEqual(updated.body, { message: { visibility_level: ['Public has been restricted by your administrator'] } });
        // Levels not restricted stay available.
        const internal = await t.request('PUT', `/api/v4/projects/${own.body.id}`, { token: u.token, body: { visibility: 'internal' } });
        assert.equal(internal.status, 200, internal.text);

        const byAdmin = await createProject(t.rootToken, { name: uniq('p'), visibility: 'public' });
        assert.equal(byAdmin.status, 201, byAdmin.text);
        assert.equal(byAdmin.body.visibility, 'public');

        // Numeric levels (as some clients send them) restrict too.
        await setting({ restricted_visibility_levels: [10] });
        const r = await createProject(u.token, { name: uniq('p'), visibility: 'internal' });
        assert.deepEqual(r.body, { message: { visibility_level: ['Internal has been restricted by your administrator'] } });
      });

      it('default_branch_name: new projects take it as their default branch; unset means main', async () => {
        const u = await t.createUser();
        assert.equal((await createProject(u.token, { name: uniq('p') })).body.default_branch, 'main');
        await setting({ default_branch_name: 'trunk' });
        assert.equal((await createProject(u.token, { name: uniq('p') })).body.default_branch, 'trunk');
        assert.equal((await createProject(u.token, { name: uniq('p'), default_branch: 'dev' })).body.default_branch, 'dev');
      });
    });

    describe('groups', () => {
      beforeEach(async () => {
        await setting({ default_group_visibility: 'private', restricted_visibility_levels: [] });
      });

      it('default_group_visibility: new groups without a visibility get it; subgroups are lowered to their parent', async () => {
        await setting({ default_group_visibility: 'internal' });
        const path = uniq('g');
        const r = await t.request('POST', '/api/v4/groups', { body: { name: path, path } });
        assert.equal(r.status, 201, r.text);
        assert.equal(r.body.visibility, 'internal');
        const parent = await makeGroup(t, { visibility: 'private' });
        const sub = uniq('s');
        const s = await t.request('POST', '/api/v4/groups', { body: { name: sub, path: sub, parent_id: parent.id } });
        assert.equal(s.status, 201, s.text);
        assert.equal(s.body.visibility, 'private');
      });

      it('restricted_visibility_levels: non-admins cannot create or switch groups to a restricted level', async () => {
        const u = await t.createUser();
        const g = await makeGroup(t, { token: u.token, visibility: 'private' });
        await setting({ restricted_visibility_levels: ['internal'] });
        const path = uniq('g');
        const created = await t.request('POST', '/api/v4/groups', { token: u.token, body: { name: path, path, visibility: 'internal' } });
        assert.equal(created.status, 400);
        assert.deepEqual(created.body, { message: 'Failed to save group {:visibility_level=>["Internal has been restricted by your administrator"]}' });

        const updated = await t.request('PUT', `/api/v4/groups/${g.id}`, { token: u.token, body: { visibility: 'internal' } });
        assert.equal(updated.status, 400);
        assert.deepEqual(updated.body, { message: { visibility_level: ['Internal has been restricted by your administrator'] } });
        // Re-sending the current level is no change and passes.
        assert.equal((await t.request('PUT', `/api/v4/groups/${g.id}`, { token: u.token, body: { visibility: 'private' } })).status, 200);

        const byAdmin = await t.request('POST', '/api/v4/groups', { body: { name: `${path}a`, path: `${path}a`, visibility: 'internal' } });
        assert.equal(byAdmin.status, 201, byAdmin.text);
      });
    });

    describe('users', () => {
      beforeEach(async () => {
        await setting({ default_projects_limit: 100000, domain_allowlist: [], domain_denylist_enabled: false, domain_denylist: [] });
      });
      const newUser = (email: string, extra: Record<string, unknown> = {}) => {
        const username = uniq('u');
        return t.request('POST', '/api/v4/users', { body: { username, name: username, email, password: 'password123', ...extra } });
      };

      it('default_projects_limit: new users get it unless projects_limit is given', async () => {
        assert.equal((await newUser(`${uniq('a')}@example.com`)).body.projects_limit, 100000);
        await setting({ default_projects_limit: 3 });
        const r = await newUser(`${uniq('a')}@example.com`);
        assert.equal(r.status, 201, r.text);
        assert.equal(r.body.projects_limit, 3);
        assert.equal((await newUser(`${uniq('a')}@example.com`, { projects_limit: 7 })).body.projects_limit, 7);
      });

      it('projects_limit is enforced on personal projects (403 on POST /projects, 400 limit_reached for the admin route); group projects are not limited', async () => {
        await setting({ default_projects_limit: 2 });
        const u = await t.createUser();
        assert.equal((await createProject(u.token, { name: uniq('p') })).status, 201);
        assert.equal((await createProject(u.token, { name: uniq('p') })).status, 201);
        const third = await createProject(u.token, { name: uniq('p') });
        assert.equal(third.status, 403);
        assert.deepEqual(third.body, { message: ['Your project limit is 2 projects! Please contact your administrator to increase it'] });

        const forUser = await t.request('POST', `/api/v4/projects/user/${u.id}`, { body: { name: uniq('p') } });
        assert.equal(forUser.status, 400);
        assert.deepEqual(forUser.body, { message: { limit_reached: ['Your project limit is 2 projects! Please contact your administrator to increase it'] } });

        const g = await makeGroup(t, { token: u.token });
        assert.equal((await createProject(u.token, { name: uniq('p'), namespace_id: g.id })).status, 201);

        // Raising the user's limit lets them go on; 0 forbids personal projects altogether.
        assert.equal((await t.request('PUT', `/api/v4/users/${u.id}`, { body: { projects_limit: 3 } })).status, 200);
        assert.equal((await createProject(u.token, { name: uniq('p') })).status, 201);
        assert.equal((await t.request('PUT', `/api/v4/users/${u.id}`, { body: { projects_limit: 0 } })).status, 200);
        const none = await createProject(u.token, { name: uniq('p') });
        assert.equal(none.status, 403);
        assert.deepEqual(none.body, { message: ['Personal project creation is not allowed. Please contact your administrator with questions'] });
      });

      it('domain_denylist (with domain_denylist_enabled, wildcards) refuses new users\' e-mails', async () => {
        await setting({ domain_denylist: ['bad.test', '*.spam.test'] });
        // Listed but not enabled: no effect.
        assert.equal((await newUser(`${uniq('a')}@bad.test`)).status, 201);
        await setting({ domain_denylist_enabled: true });
        for (const email of [`${uniq('a')}@bad.test`, `${uniq('a')}@BAD.test`, `${uniq('a')}@x.spam.test`]) {
          const r = await newUser(email);
          assert.equal(r.status, 400, email);
          assert.deepEqual(r.body, { message: { email: ['is not from an allowed domain.'] } });
        }
        assert.equal((await newUser(`${uniq('a')}@notbad.test`)).status, 201);
        assert.equal((await newUser(`${uniq('a')}@spam.test`)).status, 201);
      });

      it('domain_allowlist admits only its domains, and wins over the denylist', async () => {
        await setting({ domain_allowlist: ['good.test', '*.corp.test'], domain_denylist_enabled: true, domain_denylist: ['good.test'] });
        const r = await newUser(`${uniq('a')}@other.test`);
        assert.equal(r.status, 400);
        assert.deepEqual(r.body, { message: { email: ['domain is not authorized for sign-up.'] } });
        assert.equal((await newUser(`${uniq('a')}@good.test`)).status, 201);
        assert.equal((await newUser(`${uniq('a')}@eu.corp.test`)).status, 201);
        await setting({ domain_allowlist: [] });
        assert.equal((await newUser(`${uniq('a')}@other.test`)).status, 201);
      });
    });

    it('password_authentication_enabled_for_web=false refuses the OAuth password grant (invalid_grant)', async () => {
      const u = await t.createUser({ password: 'secret-pass-1' });
      const grant = () =>
        t.request('POST', '/oauth/token', {
          token: null,
          payload: new URLSearchParams({ grant_type: 'password', username: u.username, password: 'secret-pass-1' }).toString(),
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        });
      assert.equal((await grant()).status, 200);
      await setting({ password_authentication_enabled_for_web: false });
      try {
        const r = await grant();
        assert.equal(r.status, 400);
        assert.equal(r.body.error, 'invalid_grant');
      } finally {
        await setting({ password_authentication_enabled_for_web: true });
      }
      assert.equal((await grant()).status, 200);
    });

    describe('GET /search and its rate limits', () => {
      beforeEach(async () => {
        await setting({ search_rate_limit: 0, search_rate_limit_unauthenticated: 0, rate_limiting_response_text: '' });
      });

      it('answers projects (simple form) and users (UserBasic) matching `search`, paginated', async () => {
        const u = await t.createUser({ username: uniq('findme') });
        const p = await createProject(u.token, { name: uniq('findable'), visibility: 'public' });
        await createProject(u.token, { name: uniq('hidden-findable'), visibility: 'private' });
        const other = await t.createUser();

        const projects = await t.get(`/api/v4/search?scope=projects&search=findable`, other.token);
        assert.equal(projects.status, 200, projects.text);
        assert.equal(projects.headers['content-type'], 'application/json');
        assert.deepEqual(projects.body.map((x: any) => x.id), [p.body.id]);
        // The reference's BasicProjectDetails: the list's simple form.
        const simple = await t.get(`/api/v4/projects?simple=true&search=findable`, other.token);
        assert.deepEqual(keysOf(projects.body[0]), keysOf(simple.body[0]));
        assert.equal(projects.headers['x-total'], '1');

        const users = await t.get(`/api/v4/search?scope=users&search=${u.username}`);
        assert.equal(users.status, 200, users.text);
        assert.deepEqual(users.body.map((x: any) => x.id), [u.id]);
        assert.deepEqual(keysOf(users.body[0]), USER_KEYS.basic);

        // Scopes whose records Anvil does not have yet find nothing.
        const issues = await t.get(`/api/v4/search?scope=issues&search=x`);
        assert.equal(issues.status, 200);
        assert.deepEqual(issues.body, []);
      });

      it('bad input: missing search or scope, unknown scope', async () => {
        assert.deepEqual((await t.get('/api/v4/search?scope=projects')).body, { message: '400 (Bad request) "search" not given' });
        assert.deepEqual((await t.get('/api/v4/search?search=x')).body, { message: '400 (Bad request) "scope" not given' });
        const r = await t.get('/api/v4/search?scope=groups&search=x');
        assert.equal(r.status, 400);
        assert.deepEqual(r.body, { error: 'scope does not have a valid value' });
      });

      it('search_rate_limit: per user per minute; 429 with the default text and Retry-After; 0 disables', async () => {
        const a = await t.createUser();
        const b = await t.createUser();
        await setting({ search_rate_limit: 2 });
        await freshMinute();
        const url = '/api/v4/search?scope=projects&search=zz';
        assert.equal((await t.get(url, a.token)).status, 200);
        assert.equal((await t.get(url, a.token)).status, 200);
        const r = await t.get(url, a.token);
        assert.equal(r.status, 429);
        assert.equal(r.headers['content-type'], 'text/plain');
        assert.equal(r.text, 'Retry later\n');
        const retryAfter = Number(r.headers['retry-after']);
        assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, String(r.headers['retry-after']));
        assert.equal(r.headers['ratelimit-limit'], '2');
        assert.equal(r.headers['ratelimit-observed'], '3');
        assert.equal(r.headers['ratelimit-remaining'], '0');
        // Another user has a count of their own.
        assert.equal((await t.get(url, b.token)).status, 200);

        await setting({ rate_limiting_response_text: 'Too many searches; wait a minute.' });
        const custom = await t.get(url, a.token);
        assert.equal(custom.status, 429);
        assert.equal(custom.text, 'Too many searches; wait a minute.\n');

        await setting({ search_rate_limit: 0 });
        for (let i = 0; i < 4; i++) assert.equal((await t.get(url, a.token)).status, 200);
      });

      it('search_rate_limit_unauthenticated: anonymous callers are counted per address', async () => {
        await setting({ search_rate_limit_unauthenticated: 1, search_rate_limit: 0 });
        await freshMinute();
        const url = '/api/v4/search?scope=projects&search=zz';
        const anon = (ip: string) => t.request('GET', url, { token: null, remoteAddress: ip });
        assert.equal((await anon('10.1.1.1')).status, 200);
        const r = await anon('10.1.1.1');
        assert.equal(r.status, 429);
        assert.equal(r.text, 'Retry later\n');
        assert.ok(Number(r.headers['retry-after']) >= 1);
        assert.equal((await anon('10.1.1.2')).status, 200);
        // Signed-in callers use their own (here disabled) limit.
        const u = await t.createUser();
        assert.equal((await t.request('GET', url, { token: u.token, remoteAddress: '10.1.1.1' })).status, 200);
      });

      it('the count is shared by every node on the same database', async () => {
        const second = await startSecondNode(t);
        try {
          const u = await t.createUser();
          await setting({ search_rate_limit: 2 });
          await freshMinute();
          const url = '/api/v4/search?scope=users&search=nobody';
          const onSecond = () => second.app.inject({ method: 'GET', url, headers: { 'private-token': u.token } });
          assert.equal((await t.get(url, u.token)).status, 200);
          // The other node reads the new limit from the database (its cache is new) and adds to the same count.
          assert.equal((await onSecond()).statusCode, 200);
          const r = await onSecond();
          assert.equal(r.statusCode, 429);
          assert.equal(r.body, 'Retry later\n');
          assert.equal((await t.get(url, u.token)).status, 429);
        } finally {
          await second.close();
        }
      });
    });
  });
}
