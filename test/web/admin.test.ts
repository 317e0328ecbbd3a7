// The admin area, personal access tokens, user and group pages in a real browser against the real
// server: an instance setting changed in the browser shows in the API; a system hook added in the
// browser receives user_create at a local receiver when a user is created in the browser; a token
// created in the browser works once shown and fails once revoked; non-admins get the 404 page;
// a logged-out visitor sees public user and group pages.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { DIALECTS } from '../helpers/build.js';
import { startReceiver, type Receiver } from '../helpers/hooks.js';
import { WEB_ROOT_PASSWORD, launchBrowser, screenshot, seriousA11yViolations, signIn, startWebServer, type WebServer } from '../helpers/web.js';

for (const dialect of DIALECTS) {
  describe(`web interface: admin area, access tokens, user and group pages (${dialect})`, () => {
    let s: WebServer;
    let browser: Browser;
    let receiver: Receiver;
    let ctx: BrowserContext;
    let page: Page;
    let alice: Awaited<ReturnType<WebServer['createUser']>>;
    let bob: Awaited<ReturnType<WebServer['createUser']>>;
    let team: any;
    let sub: any;
    let tool: any;

    before(async () => {
      s = await startWebServer(dialect);
      browser = await launchBrowser();
      receiver = await startReceiver();
      alice = await s.createUser('alice');
      bob = await s.createUser('bob');
      assert.equal((await s.api('PUT', `/users/${alice.id}`, { bio: 'Builds anvils.\nAnd hammers.', website_url: 'https://alice.example', job_title: 'Smith' })).status, 200);
      team = (await s.api('POST', '/groups', { name: 'Forge Team', path: 'forge-team', visibility: 'public', description: 'Everything about forging' }, alice.token)).body;
      sub = (await s.api('POST', '/groups', { name: 'Tools', path: 'tools', parent_id: team.id, visibility: 'public' }, alice.token)).body;
      tool = (await s.api('POST', '/projects', { name: 'hammer', namespace_id: team.id, visibility: 'public', initialize_with_readme: true }, alice.token)).body;
      await s.api('POST', '/projects', { name: 'notes', visibility: 'public', initialize_with_readme: true }, alice.token);
      assert.equal((await s.api('POST', `/groups/${team.id}/members`, { user_id: bob.id, access_level: 30 }, alice.token)).status, 201);
    });
    after(async () => {
      await browser?.close();
      await receiver?.close();
      await s?.stop();
    });

    const fresh = async () => {
      await ctx?.close();
      ctx = await browser.newContext({ baseURL: s.url });
      page = await ctx.newPage();
      page.on('dialog', (d) => void d.accept());
      return page;
    };
    const path = (webUrl: string) => new URL(webUrl).pathname;

    it('the admin overview counts users, projects and groups as the API does', async () => {
      await fresh();
      await signIn(page, s.url, 'root', WEB_ROOT_PASSWORD);
      await page.getByRole('link', { name: 'Admin', exact: true }).click();
      await page.waitForURL(`${s.url}/admin`);
      const total = async (p: string) => (await fetch(`${s.url}/api/v4${p}`, { headers: { 'private-token': 'web-root-token-0123456789abcdef' } })).headers.get('x-total');
      for (const [name, p] of [['Users', '/users'], ['Projects', '/projects'], ['Groups', '/groups?all_available=true']] as const) {
        const section = page.getByRole('region', { name });
        assert.equal((await section.locator('.stat-count').textContent())?.trim(), await total(p), name);
      }
      await page.getByRole('region', { name: 'Users' }).getByRole('link', { name: 'User alice' }).waitFor();
      assert.deepEqual(await seriousA11yViolations(page), []);
      await screenshot(page, `${dialect}-admin-overview`);
    });

    it('an instance setting changed in the browser is what the API answers; a bad value shows the API\'s refusal', async () => {
      assert.equal((await s.api('PUT', '/application/settings', { allow_local_requests_from_system_hooks: false })).status, 200);
      await page.goto('/admin/application_settings');
      const outbound = page.getByRole('region', { name: 'Outbound requests' });
      const box = outbound.getByLabel('Allow requests to the local network from system hooks');
      assert.equal(await box.isChecked(), false);
      await box.check();
      await outbound.getByRole('button', { name: 'Save changes' }).click();
      await outbound.getByRole('status').filter({ hasText: 'Settings saved.' }).waitFor();
      const signIn = page.getByRole('region', { name: 'Sign-in restrictions' });
      await s.api('PUT', '/application/settings', { sign_in_text: 'Welcome, smiths' });
      await page.reload();
      assert.equal(await signIn.getByLabel('Sign-in text').inputValue(), 'Welcome, smiths');
      await signIn.getByLabel('Sign-in text').fill('');
      await signIn.getByLabel('Session duration (minutes)').fill('720');
      await signIn.getByRole('button', { name: 'Save changes' }).click();
      await signIn.getByRole('status').filter({ hasText: 'Settings saved.' }).waitFor();
      const visibility = page.getByRole('region', { name: 'Visibility and access controls' });
      await visibility.getByLabel('Default project visibility').selectOption('internal');
      await visibility.getByRole('group', { name: /Restricted visibility levels/ }).getByLabel('Public').check();
      await visibility.getByRole('button', { name: 'Save changes' }).click();
      await visibility.getByRole('status').filter({ hasText: 'Settings saved.' }).waitFor();
      const whitelist = outbound.getByLabel(/Local IP addresses and domain names/);
      await whitelist.fill('10.0.0.1, build.internal');
      await outbound.getByRole('button', { name: 'Save changes' }).click();
      await outbound.getByRole('status').filter({ hasText: 'Settings saved.' }).waitFor();
      assert.deepEqual((await s.api('GET', '/application/settings')).body.outbound_local_requests_whitelist, ['10.0.0.1', 'build.internal']);
      // a list can be emptied again
      await page.reload();
      assert.equal(await whitelist.inputValue(), '10.0.0.1, build.internal');
      await whitelist.fill('');
      await outbound.getByRole('button', { name: 'Save changes' }).click();
      await outbound.getByRole('status').filter({ hasText: 'Settings saved.' }).waitFor();
      assert.deepEqual((await s.api('GET', '/application/settings')).body.outbound_local_requests_whitelist, []);
      const now = (await s.api('GET', '/application/settings')).body;
      assert.equal(now.allow_local_requests_from_system_hooks, true);
      assert.equal(now.session_expire_delay, 720);
      assert.ok(!now.sign_in_text, 'a text setting can be cleared');
      assert.equal(now.default_project_visibility, 'internal');
      assert.deepEqual(now.restricted_visibility_levels, ['public']);
      // the page shows the stored values after a reload
      await page.reload();
      assert.equal(await page.getByLabel('Session duration (minutes)').inputValue(), '720');
      assert.equal(await page.getByLabel('Default project visibility').inputValue(), 'internal');
      // a value the API refuses: its message beside the form, nothing stored
      await page.getByLabel('Default projects limit per user').fill('-5');
      await visibility.getByRole('button', { name: 'Save changes' }).click();
      await visibility.getByRole('alert').filter({ hasText: 'default_projects_limit' }).waitFor();
      assert.equal((await s.api('GET', '/application/settings')).body.default_projects_limit, 100000);
      assert.deepEqual(await seriousA11yViolations(page), []);
      await screenshot(page, `${dialect}-admin-settings`);
      await s.api('PUT', '/application/settings', { restricted_visibility_levels: [], default_project_visibility: 'private' });
    });

    it('a system hook added in the browser receives user_create when a user is created in the browser; test, log, delete', async () => {
      await page.goto('/admin/hooks');
      await page.getByText('No system hooks yet.').waitFor();
      await page.getByLabel('URL').fill(`${receiver.url}/system`);
      await page.getByLabel('Secret token').fill('hook-secret');
      await page.getByLabel('Push events', { exact: true }).check();
      await page.getByLabel('Enable SSL verification').uncheck();
      await page.getByRole('button', { name: 'Add system hook' }).click();
      await page.getByRole('cell', { name: `${receiver.url}/system`, exact: true }).waitFor();
      const hooks = (await s.api('GET', '/hooks')).body;
      assert.equal(hooks.length, 1);
      assert.equal(hooks[0].push_events, true);
      assert.equal(hooks[0].enable_ssl_verification, false);
      assert.deepEqual(await seriousA11yViolations(page), []);
      await screenshot(page, `${dialect}-admin-hooks`);

      await page.goto('/admin/users');
      await page.getByRole('link', { name: 'New user' }).click();
      await page.getByLabel('Name', { exact: true }).fill('Carol Smith');
      await page.getByLabel('Username', { exact: true }).fill('carol');
      await page.getByLabel('Email', { exact: true }).fill('carol@example.com');
      await page.getByLabel('Password', { exact: true }).fill('carol-password-1');
      assert.deepEqual(await seriousA11yViolations(page), []);
      await page.getByRole('button', { name: 'Create user' }).click();
      await page.waitForURL((u) => u.pathname === '/admin/users');
      await page.getByRole('link', { name: 'Carol Smith' }).waitFor();
      const [created] = await receiver.waitFor(1, (r) => r.body?.event_name === 'user_create');
      assert.equal(created.body.username, 'carol');
      assert.equal(created.body.email, 'carol@example.com');
      assert.equal(created.headers['x-service-token'], 'hook-secret');
      assert.equal(created.headers['x-service-event'], 'System Hook');

      // Test sends the sample project_create; the hook's page lists both deliveries
      await page.goto('/admin/hooks');
      await page.getByRole('button', { name: `Test hook ${receiver.url}/system` }).click();
      await page.waitForURL(/\/admin\/hooks\/\d+\/edit$/);
      await receiver.waitFor(1, (r) => r.body?.event_name === 'project_create');
      const deliveries = page.getByRole('table', { name: /Deliveries of this system hook/ }).getByRole('row').filter({ hasText: 'system hooks' });
      for (let i = 0; i < 40 && (await deliveries.count()) < 2; i++) {
        await new Promise((r) => setTimeout(r, 250));
        await page.reload();
      }
      assert.equal(await deliveries.count(), 2, 'user_create and the test delivery');
      // newest first: the test delivery
      const row = deliveries.first();
      await row.getByText('200', { exact: true }).waitFor(); // exact: the receiver's port may hold "200" too
      await row.getByText(`${receiver.url}/system`).waitFor();
      assert.deepEqual(await seriousA11yViolations(page), []);
      await screenshot(page, `${dialect}-admin-hook-log`);
      await row.getByRole('link', { name: /View details/ }).click();
      await page.getByRole('heading', { name: 'Request details' }).waitFor();
      await page.getByText('"event_name": "project_create"').waitFor();
      await page.getByText('X-Service-Token: [REDACTED]').waitFor();
      assert.deepEqual(await seriousA11yViolations(page), []);
      await screenshot(page, `${dialect}-admin-hook-delivery`);
      await page.getByRole('link', { name: 'Edit' }).click();
      await page.getByRole('button', { name: 'Delete' }).click();
      await page.waitForURL(`${s.url}/admin/hooks`);
      await page.getByText('No system hooks yet.').waitFor();
      assert.deepEqual((await s.api('GET', '/hooks')).body, []);
    });

    it('users: search, block and unblock, make administrator, delete — each shown by the API', async () => {
      await page.goto('/admin/users');
      await page.getByLabel('Search by name, email or username').fill('caro');
      await page.getByRole('button', { name: 'Search' }).click();
      await page.waitForURL(/search=caro/);
      assert.equal(await page.getByRole('link', { name: 'User alice' }).count(), 0);
      assert.deepEqual(await seriousA11yViolations(page), []);
      await screenshot(page, `${dialect}-admin-users`);
      await page.getByRole('link', { name: 'Carol Smith' }).click();
      await page.waitForURL(`${s.url}/admin/users/carol`);
      await page.getByText('carol@example.com').waitFor();
      const carol = (await s.api('GET', '/users?username=carol')).body[0];
      await page.getByRole('button', { name: 'Block user', exact: true }).click();
      await page.getByRole('button', { name: 'Unblock user', exact: true }).waitFor();
      assert.equal((await s.api('GET', `/users/${carol.id}`)).body.state, 'blocked');
      await page.goto('/admin/users?filter=blocked');
      await page.getByRole('link', { name: 'Carol Smith' }).waitFor();
      await page.goto('/admin/users/carol');
      await page.getByRole('button', { name: 'Unblock user', exact: true }).click();
      await page.getByRole('button', { name: 'Block user', exact: true }).waitFor();
      assert.equal((await s.api('GET', `/users/${carol.id}`)).body.state, 'active');
      await page.getByRole('button', { name: 'Deactivate user', exact: true }).click();
      await page.getByRole('button', { name: 'Activate user', exact: true }).click();
      await page.getByRole('button', { name: 'Deactivate user', exact: true }).waitFor();
      await page.getByRole('button', { name: 'Make administrator' }).click();
      await page.getByRole('button', { name: 'Remove administrator access' }).waitFor();
      assert.equal((await s.api('GET', `/users/${carol.id}`)).body.is_admin, true);
      assert.equal((await s.api('GET', `/users/${carol.id}`)).body.state, 'active');
      assert.deepEqual(await seriousA11yViolations(page), []);
      await screenshot(page, `${dialect}-admin-user`);
      await page.getByRole('button', { name: 'Delete user' }).click();
      await page.waitForURL(`${s.url}/admin/users`);
      for (let i = 0; i < 40 && (await s.api('GET', `/users/${carol.id}`)).status !== 404; i++) await new Promise((r) => setTimeout(r, 250));
      assert.equal((await s.api('GET', `/users/${carol.id}`)).status, 404);
      const missing = await page.goto('/admin/users/carol');
      assert.equal(missing!.status(), 404);
    });

    it('a non-admin gets the 404 page on admin pages; a visitor is sent to sign in', async () => {
      await fresh();
      await signIn(page, s.url, 'bob', bob.password);
      assert.equal(await page.getByRole('link', { name: 'Admin', exact: true }).count(), 0);
      for (const p of ['/admin', '/admin/application_settings', '/admin/hooks', '/admin/hooks/1/edit', '/admin/hooks/1/hook_logs/1', '/admin/users', '/admin/users/new', '/admin/users/alice']) {
        const res = await page.goto(p);
        assert.equal(res!.status(), 404, p);
        await page.getByRole('heading', { name: 'Page Not Found' }).waitFor();
      }
      await fresh();
      for (const p of ['/admin', '/admin/users', '/-/profile/personal_access_tokens', '/groups/new']) {
        await page.goto(p);
        assert.equal(new URL(page.url()).pathname, '/users/sign_in', p);
        assert.equal(new URL(page.url()).searchParams.get('redirect_to'), p);
      }
    });

    it('a user creates a personal access token: shown once, it works on GET /user; revoked, it fails', async () => {
      await fresh();
      await ctx.grantPermissions(['clipboard-read', 'clipboard-write']);
      await signIn(page, s.url, 'alice', alice.password);
      await page.getByRole('link', { name: 'Access tokens' }).click();
      await page.waitForURL(`${s.url}/-/profile/personal_access_tokens`);
      assert.equal(await page.getByLabel('sudo').count(), 0, 'administrators\' scopes are not offered');
      assert.deepEqual(await seriousA11yViolations(page), []);
      await page.getByLabel('Token name').fill('ci-bot');
      await page.getByLabel('Expiration date (optional)').fill('2099-12-31');
      await page.getByLabel('read_user').check();
      await page.getByLabel('read_api').check();
      await page.getByRole('button', { name: 'Create personal access token' }).click();
      const shown = page.getByLabel('New personal access token');
      await shown.waitFor();
      const token = await shown.inputValue();
      assert.match(token, /^anvil-/);
      await page.getByRole('button', { name: 'Copy token' }).click();
      await page.getByRole('button', { name: 'Copied' }).waitFor();
      assert.equal(await page.evaluate(() => navigator.clipboard.readText()), token);
      await screenshot(page, `${dialect}-token-created`);
      const me = await s.api('GET', '/user', undefined, token);
      assert.equal(me.status, 200);
      assert.equal(me.body.username, 'alice');
      // shown once: after a reload the list has the token, the page not its value
      await page.reload();
      const row = page.getByRole('row').filter({ hasText: 'ci-bot' });
      await row.getByText(/read_(user|api), read_(api|user)/).waitFor();
      await row.getByText('2099-12-31').waitFor();
      assert.equal((await page.content()).includes(token), false);
      assert.deepEqual(await seriousA11yViolations(page), []);
      await screenshot(page, `${dialect}-tokens`);
      await page.getByRole('button', { name: 'Revoke ci-bot' }).click();
      await page.getByText('ci-bot').waitFor({ state: 'detached' });
      assert.equal((await s.api('GET', '/user', undefined, token)).status, 401);
      // an expiry in the past: the API's refusal shows beside the form
      await page.getByLabel('read_api').check();
      await page.getByLabel('Token name').fill('late');
      await page.getByLabel('Expiration date (optional)').fill('2001-01-01');
      await page.getByRole('button', { name: 'Create personal access token' }).click();
      await page.getByRole('alert').filter({ hasText: 'expires_at must be in the future' }).waitFor();
    });

    it('a signed-in user creates a group from /groups/new and a subgroup; an owner edits the group; a developer gets the 404 page', async () => {
      await page.goto('/groups/new');
      assert.deepEqual(await seriousA11yViolations(page), []);
      await page.getByLabel('Group name').fill('Smiths');
      await page.getByLabel('Group URL (path)').fill('smiths');
      await page.getByLabel('Group description (optional)').fill('Smithing guild');
      await page.getByLabel('Public').check();
      await page.getByRole('button', { name: 'Create group' }).click();
      await page.waitForURL(`${s.url}/groups/smiths`);
      await page.getByRole('heading', { name: 'Smiths', level: 1 }).waitFor();
      const smiths = (await s.api('GET', '/groups/smiths', undefined, alice.token)).body;
      assert.equal(smiths.visibility, 'public');
      assert.equal(smiths.description, 'Smithing guild');
      await page.getByRole('link', { name: 'New subgroup' }).click();
      await page.getByRole('heading', { name: 'New subgroup in Smiths' }).waitFor();
      await page.getByLabel('Group name').fill('Blades');
      await page.getByLabel('Group URL (path)').fill('blades');
      await page.getByRole('button', { name: 'Create group' }).click();
      await page.waitForURL(`${s.url}/groups/smiths/blades`);
      await page.goto('/groups/smiths');
      await page.getByRole('link', { name: 'Blades' }).waitFor();

      await page.getByRole('link', { name: 'Group settings' }).click();
      await page.waitForURL(`${s.url}/groups/smiths/-/edit`);
      assert.deepEqual(await seriousA11yViolations(page), []);
      await page.getByLabel('Group description (optional)').fill('The smithing guild');
      await page.getByLabel('Internal').check();
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.getByRole('status').filter({ hasText: 'Group saved.' }).waitFor();
      const edited = (await s.api('GET', '/groups/smiths', undefined, alice.token)).body;
      assert.equal(edited.description, 'The smithing guild');
      assert.equal(edited.visibility, 'internal');
      await screenshot(page, `${dialect}-group-settings`);
      // the same page at the group's path without /groups (routed through byPath)
      const short = await page.goto('/smiths/-/edit');
      assert.equal(short!.status(), 200);
      await page.getByRole('heading', { name: 'Group settings' }).waitFor();

      await fresh();
      await signIn(page, s.url, 'bob', bob.password);
      await page.goto(path(team.web_url));
      await page.getByRole('heading', { name: 'Forge Team', level: 1 }).waitFor();
      assert.equal(await page.getByRole('link', { name: 'Group settings' }).count(), 0);
      assert.equal(await page.getByRole('link', { name: 'New subgroup' }).count(), 0, 'a developer may not add subgroups');
      for (const p of [`${path(team.web_url)}/-/edit`, '/forge-team/-/edit', '/groups/smiths/-/no-such-page', '/groups/no-such-group']) {
        const res = await page.goto(p);
        assert.equal(res!.status(), 404, p);
      }
    });

    it('a logged-out visitor sees a public user\'s page (bio, links, projects, activity) and a public group (subgroups, projects)', async () => {
      await fresh();
      const res = await page.goto('/alice');
      assert.equal(res!.status(), 200);
      await page.getByRole('heading', { name: 'User alice', level: 1 }).waitFor();
      await page.getByText('Builds anvils.').waitFor();
      await page.getByRole('link', { name: 'https://alice.example' }).waitFor();
      await page.getByRole('link', { name: /notes/ }).first().waitFor();
      await page.getByRole('heading', { name: 'Activity' }).waitFor();
      await page.locator('ul.activity li').filter({ hasText: 'created' }).first().waitFor();
      assert.deepEqual(await seriousA11yViolations(page), []);
      await screenshot(page, `${dialect}-user-page-visitor`);

      const g = await page.goto(path(team.web_url));
      assert.equal(g!.status(), 200);
      await page.getByRole('heading', { name: 'Forge Team', level: 1 }).waitFor();
      await page.getByText('Everything about forging').waitFor();
      await page.getByRole('link', { name: 'Tools' }).waitFor();
      await page.getByRole('link', { name: /hammer/ }).waitFor();
      assert.equal(await page.getByRole('link', { name: 'New subgroup' }).count(), 0);
      assert.deepEqual(await seriousA11yViolations(page), []);
      await screenshot(page, `${dialect}-group-page-visitor`);
      await page.getByRole('link', { name: 'Tools' }).click();
      await page.waitForURL(`${s.url}${path(sub.web_url)}`);
      await page.getByRole('heading', { name: 'Forge Team / Tools' }).waitFor();
      // the group also answers at its path without /groups
      await page.goto('/forge-team');
      await page.getByRole('heading', { name: 'Forge Team', level: 1 }).waitFor();
      assert.ok(tool.id);
    });

    it('a signed-in member sees the group\'s members', async () => {
      await fresh();
      await signIn(page, s.url, 'bob', bob.password);
      await page.goto(path(team.web_url));
      const members = page.getByRole('table', { name: 'Members' });
      await members.getByRole('row').filter({ hasText: 'bob' }).getByText('Developer').waitFor();
      await members.getByRole('row').filter({ hasText: 'alice' }).getByText('Owner').waitFor();
      assert.deepEqual(await seriousA11yViolations(page), []);
      await screenshot(page, `${dialect}-group-page-member`);
    });
  });
}
