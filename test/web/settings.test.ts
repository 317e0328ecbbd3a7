// A project's settings and team pages in a real browser against the real server: general settings
// and badges, export → download → import, archive and delete, members, webhooks delivering to a
// real local receiver (test trigger, delivery log, resend), alert integrations (URL and key copied,
// a developer's test alert, the alert list and its status), and who sees which page.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { DIALECTS } from '../helpers/build.js';
import { startReceiver, type Receiver } from '../helpers/hooks.js';
import { launchBrowser, screenshot, seriousA11yViolations, signIn, startWebServer, type WebServer } from '../helpers/web.js';

type User = Awaited<ReturnType<WebServer['createUser']>>;

for (const dialect of DIALECTS) {
  describe(`web interface: project settings, members, webhooks, alerts (${dialect})`, () => {
    let s: WebServer;
    let browser: Browser;
    let receiver: Receiver;
    let alice: User; // owner of the projects
    let dev: User; // developer on alice/demo
    let bob: User; // no access to alice/secret
    let carol: User; // added and removed as a member
    let demo: any; // public
    let secret: any; // private
    const contexts: BrowserContext[] = [];

    before(async () => {
      s = await startWebServer(dialect);
      browser = await launchBrowser();
      receiver = await startReceiver();
      [alice, dev, bob, carol] = [await s.createUser('alice'), await s.createUser('dev'), await s.createUser('bob'), await s.createUser('carol')];
      demo = (await s.api('POST', '/projects', { name: 'demo', visibility: 'public', description: 'A demo', initialize_with_readme: true }, alice.token)).body;
      secret = (await s.api('POST', '/projects', { name: 'secret', visibility: 'private', initialize_with_readme: true }, alice.token)).body;
      assert.equal((await s.api('POST', `/projects/${demo.id}/members`, { user_id: dev.id, access_level: 30 }, alice.token)).status, 201);
    });
    after(async () => {
      for (const c of contexts) await c.close().catch(() => {});
      await browser?.close();
      await receiver?.close();
      await s?.stop();
    });

    /** A fresh browser as `user` (or a visitor), confirming every confirm() dialog. */
    async function as(user: User | null, opts: { clipboard?: boolean } = {}): Promise<Page> {
      const ctx = await browser.newContext({ baseURL: s.url, permissions: opts.clipboard ? ['clipboard-read', 'clipboard-write'] : [] });
      contexts.push(ctx);
      const page = await ctx.newPage();
      page.on('dialog', (d) => void d.accept());
      if (user) await signIn(page, s.url, user.username, user.password);
      return page;
    }

    /** Clicks a control whose API call ends in a reload of the page, and waits for the reloaded page. */
    async function clickThenReload(page: Page, control: ReturnType<Page['getByRole']>): Promise<void> {
      await Promise.all([page.waitForEvent('framenavigated'), control.click()]);
      await page.waitForLoadState('load');
    }

    const path = (p: any, rest: string) => `${new URL(p.web_url).pathname}/-/${rest}`;

    it('general settings: name, description, visibility and default branch are saved through the API', async () => {
      const page = await as(alice);
      await page.goto(path(demo, 'settings/general'));
      await page.getByRole('heading', { name: 'General settings', level: 1 }).waitFor();
      assert.equal(await page.getByRole('link', { name: 'General' }).getAttribute('aria-current'), 'page');
      assert.equal(await page.getByLabel('Default branch').inputValue(), 'main');
      await page.getByLabel('Project description (optional)').fill('Changed in the browser');
      await page.getByLabel('Project visibility').selectOption('internal');
      await clickThenReload(page, page.getByRole('button', { name: 'Save changes' }));
      const after = (await s.api('GET', `/projects/${demo.id}`, undefined, alice.token)).body;
      assert.equal(after.description, 'Changed in the browser');
      assert.equal(after.visibility, 'internal');
      // an emptied description is cleared, not left as it was
      await page.getByLabel('Project description (optional)').fill('');
      await page.getByLabel('Project visibility').selectOption('public');
      await clickThenReload(page, page.getByRole('button', { name: 'Save changes' }));
      const cleared = (await s.api('GET', `/projects/${demo.id}`, undefined, alice.token)).body;
      assert.ok(!cleared.description, `description cleared: ${JSON.stringify(cleared.description)}`);
      assert.equal(cleared.visibility, 'public');
      await page.goto(path(demo, 'settings/general'));
      assert.deepEqual(await seriousA11yViolations(page), []);
      await screenshot(page, `${dialect}-settings-general`);
    });

    it('badges: the preview is rendered by the API; add, edit, delete; group badges are read-only', async () => {
      const page = await as(alice);
      await page.goto(path(demo, 'settings/general'));
      const add = page.getByRole('form', { name: 'Add badge' });
      await add.getByLabel('Name').fill('Pipeline');
      await add.getByLabel('Link').fill(`${s.url}/%{project_path}/-/pipelines`);
      await add.getByLabel('Badge image URL').fill(`${s.url}/%{project_path}/badges/%{default_branch}/pipeline.svg`);
      const preview = add.getByRole('img', { name: 'Badge preview' });
      await preview.waitFor();
      assert.equal(await preview.getAttribute('src'), `${s.url}/alice/demo/badges/main/pipeline.svg`);
      await add.getByRole('button', { name: 'Add badge' }).click();
      await page.getByRole('cell').getByText('Pipeline', { exact: true }).waitFor();
      let badges = (await s.api('GET', `/projects/${demo.id}/badges`, undefined, alice.token)).body;
      assert.equal(badges.length, 1);
      assert.equal(badges[0].rendered_link_url, `${s.url}/alice/demo/-/pipelines`);
      assert.equal(await page.getByRole('img', { name: 'Pipeline' }).getAttribute('src'), `${s.url}/alice/demo/badges/main/pipeline.svg`);
      // the badge's image is the real pipeline badge
      const loaded = (img: HTMLImageElement) =>
        img.complete ? img.naturalWidth > 0 : new Promise<boolean>((resolve) => {
          img.addEventListener('load', () => resolve(img.naturalWidth > 0));
          img.addEventListener('error', () => resolve(false));
        });
      assert.equal(await page.getByRole('img', { name: 'Pipeline' }).evaluate(loaded), true);
      await page.getByText('Edit badge Pipeline').click();
      const edit = page.getByRole('form', { name: 'Edit badge Pipeline' });
      await edit.getByLabel('Name').fill('Build');
      await edit.getByRole('button', { name: 'Save badge' }).click();
      await page.getByRole('cell').getByText('Build', { exact: true }).waitFor();
      await screenshot(page, `${dialect}-settings-badges`);
      await page.getByText('Edit badge Build').click();
      await page.getByRole('button', { name: 'Delete badge' }).click();
      await page.getByText('This project has no badges.').waitFor();
      badges = (await s.api('GET', `/projects/${demo.id}/badges`, undefined, alice.token)).body;
      assert.deepEqual(badges, []);

      const group = (await s.api('POST', '/groups', { name: 'team', path: 'team' }, alice.token)).body;
      assert.equal((await s.api('POST', `/groups/${group.id}/badges`, { name: 'Team badge', link_url: 'http://example.com/team', image_url: `${s.url}/x.svg` }, alice.token)).status, 201);
      const grouped = (await s.api('POST', '/projects', { name: 'grouped', namespace_id: group.id }, alice.token)).body;
      await page.goto(path(grouped, 'settings/general'));
      const row = page.getByRole('row').filter({ hasText: 'Team badge' });
      await row.getByText('Read-only').waitFor();
      assert.equal(await row.getByText('Group', { exact: true }).count(), 1);
      assert.equal(await row.getByRole('button').count(), 0);
    });

    it('export: the page follows the export to finished and downloads the archive; the archive imports from the upload form', async () => {
      const page = await as(alice);
      await page.goto(path(demo, 'settings/general'));
      await page.getByRole('button', { name: 'Export project' }).click();
      // the page reloads while the export runs, then offers the download
      const download = page.getByRole('link', { name: 'Download export' });
      await download.waitFor({ timeout: 60_000 });
      await screenshot(page, `${dialect}-settings-export-finished`);
      const [file] = await Promise.all([page.waitForEvent('download'), download.click()]);
      assert.match(file.suggestedFilename(), /\.tar\.gz$/);
      const archive = await file.path();
      const bytes = fs.readFileSync(archive);
      assert.deepEqual([...bytes.subarray(0, 2)], [0x1f, 0x8b], 'a gzip file');

      await page.goto('/import/project/new');
      await page.getByRole('heading', { name: 'Import a project' }).waitFor();
      assert.deepEqual(await seriousA11yViolations(page), []);
      await page.getByLabel('Project name').fill('Demo copy');
      await page.getByLabel('Project slug').fill('demo-copy');
      await page.getByLabel('Export file').setInputFiles(archive);
      await page.getByRole('button', { name: 'Import project' }).click();
      await page.waitForURL(`${s.url}/alice/demo-copy/-/import`);
      await page.getByRole('link', { name: 'Go to the project' }).waitFor({ timeout: 60_000 });
      assert.equal(await page.locator('[data-import-status]').textContent(), 'finished');
      await screenshot(page, `${dialect}-import-finished`);
      const copy = (await s.api('GET', `/projects/${encodeURIComponent('alice/demo-copy')}`, undefined, alice.token)).body;
      assert.equal(copy.name, 'Demo copy');
      assert.equal(copy.default_branch, 'main');
      // a second import to the same path is refused beside the form
      await page.goto('/import/project/new');
      await page.getByLabel('Project name').fill('Demo copy');
      await page.getByLabel('Project slug').fill('demo-copy');
      await page.getByLabel('Export file').setInputFiles(archive);
      await page.getByRole('button', { name: 'Import project' }).click();
      await page.getByRole('alert').filter({ hasText: /taken|exists/ }).waitFor();
    });

    it('archive and delete are for the owner; a maintainer does not see them', async () => {
      const doomed = (await s.api('POST', '/projects', { name: 'doomed' }, alice.token)).body;
      assert.equal((await s.api('POST', `/projects/${doomed.id}/members`, { user_id: carol.id, access_level: 40 }, alice.token)).status, 201);
      const maint = await as(carol);
      await maint.goto(path(doomed, 'settings/general'));
      await maint.getByRole('heading', { name: 'General settings' }).waitFor();
      assert.equal(await maint.getByRole('button', { name: 'Delete project' }).count(), 0);
      assert.equal(await maint.getByRole('button', { name: 'Archive project', exact: true }).count(), 0);

      const page = await as(alice);
      await page.goto(path(doomed, 'settings/general'));
      await page.getByRole('button', { name: 'Archive project', exact: true }).click();
      await page.getByText('This project is archived. It is read-only: no pushes, pipelines or changes.').waitFor();
      assert.equal((await s.api('GET', `/projects/${doomed.id}`, undefined, alice.token)).body.archived, true);
      await page.getByRole('button', { name: 'Unarchive project' }).click();
      await page.getByRole('button', { name: 'Archive project', exact: true }).waitFor();
      assert.equal((await s.api('GET', `/projects/${doomed.id}`, undefined, alice.token)).body.archived, false);
      await page.getByRole('button', { name: 'Delete project' }).click();
      await page.waitForURL(`${s.url}/dashboard/projects`);
      const gone = await s.api('GET', `/projects/${doomed.id}`, undefined, alice.token);
      assert.ok(gone.status === 404 || gone.body.marked_for_deletion_at, `deleted or marked: ${gone.status}`);
    });

    it('members: a maintainer finds a user, adds them with a role and expiry, changes the role, removes them', async () => {
      const page = await as(alice);
      await page.goto(path(demo, 'project_members'));
      await page.getByRole('heading', { name: 'Project members' }).waitFor();
      await page.getByLabel('Search users').fill('caro');
      await page.getByLabel('User', { exact: true }).locator('option', { hasText: '@carol' }).waitFor({ state: 'attached' });
      await page.getByLabel('User', { exact: true }).selectOption({ label: 'User carol (@carol)' });
      await page.getByLabel('Role', { exact: true }).selectOption('Reporter');
      await page.getByLabel('Access expiration date (optional)').fill('2099-12-31');
      await page.getByRole('button', { name: 'Add to project' }).click();
      const row = page.getByRole('row').filter({ hasText: '@carol' });
      await row.waitFor();
      let m = (await s.api('GET', `/projects/${demo.id}/members/${carol.id}`, undefined, alice.token)).body;
      assert.equal(m.access_level, 20);
      assert.equal(m.expires_at, '2099-12-31');
      assert.deepEqual(await seriousA11yViolations(page), []);
      await screenshot(page, `${dialect}-members`);
      await row.getByLabel('Role of carol').selectOption('Developer');
      await clickThenReload(page, row.getByRole('button', { name: 'Save' }));
      m = (await s.api('GET', `/projects/${demo.id}/members/${carol.id}`, undefined, alice.token)).body;
      assert.equal(m.access_level, 30);
      // adding someone already there is refused beside the form
      await page.getByLabel('Search users').fill('carol');
      await page.getByLabel('User', { exact: true }).locator('option', { hasText: '@carol' }).waitFor({ state: 'attached' });
      await page.getByRole('button', { name: 'Add to project' }).click();
      await page.getByRole('alert').filter({ hasText: /already exists|Member/ }).waitFor();
      await page.getByRole('row').filter({ hasText: '@carol' }).getByRole('button', { name: 'Remove carol' }).click();
      await page.getByRole('row').filter({ hasText: '@carol' }).waitFor({ state: 'detached' });
      assert.equal((await s.api('GET', `/projects/${demo.id}/members/${carol.id}`, undefined, alice.token)).status, 404);

      // a developer sees the list without the forms
      const d = await as(dev);
      await d.goto(path(demo, 'project_members'));
      await d.getByRole('row').filter({ hasText: '@alice' }).getByText('Owner').waitFor();
      assert.equal(await d.getByRole('button', { name: 'Add to project' }).count(), 0);
      assert.equal(await d.getByRole('button', { name: /Remove/ }).count(), 0);
      assert.equal(await d.getByRole('navigation', { name: 'Settings' }).count(), 0);
      assert.deepEqual(await seriousA11yViolations(d), []);
    });

    it('webhooks: a loopback URL is refused until the instance allows it; then a test push is delivered and logged, and resent', async () => {
      const page = await as(alice);
      await page.goto(path(demo, 'hooks'));
      await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
      assert.deepEqual(await seriousA11yViolations(page), []);
      const fill = async () => {
        await page.getByLabel('URL').fill(`${receiver.url}/hook`);
        await page.getByLabel('Secret token').fill('s3cret-token');
        await page.getByLabel('Pipeline events').check();
        await page.getByLabel('Branch filter for push events (wildcards allowed; empty for all branches)').fill('main');
        await page.getByLabel('Enable SSL verification').uncheck();
      };
      await fill();
      await page.getByRole('button', { name: 'Add webhook' }).click();
      await page.getByRole('alert').filter({ hasText: /local network|not allowed|Invalid url/i }).waitFor();
      assert.equal((await s.api('PUT', '/application/settings', { allow_local_requests_from_web_hooks_and_services: true })).status, 200);
      await page.getByRole('button', { name: 'Add webhook' }).click();
      await page.locator('strong', { hasText: `${receiver.url}/hook` }).waitFor();
      const hooks = (await s.api('GET', `/projects/${demo.id}/hooks`, undefined, alice.token)).body;
      assert.equal(hooks.length, 1);
      assert.equal(hooks[0].pipeline_events, true);
      assert.equal(hooks[0].push_events, true);
      assert.equal(hooks[0].enable_ssl_verification, false);
      assert.equal(hooks[0].push_events_branch_filter, 'main');
      await screenshot(page, `${dialect}-hooks`);

      // the list's own test buttons say how it went
      await page.getByRole('button', { name: `Push events to ${receiver.url}/hook`, exact: true }).click();
      await page.getByText('Hook executed successfully.').waitFor();
      await receiver.waitFor(1);
      receiver.received.length = 0;

      await page.getByRole('link', { name: `Edit ${receiver.url}/hook` }).click();
      await page.getByRole('heading', { name: 'Edit webhook' }).waitFor();
      assert.equal(await page.getByLabel('Pipeline events').isChecked(), true);
      await page.getByRole('group', { name: /Test hook/ }).getByRole('button', { name: /^Push events/ }).click();
      const [got] = await receiver.waitFor(1);
      assert.equal(got.headers['x-service-token'], 's3cret-token');
      assert.equal(got.headers['x-service-event'], 'Push Hook');
      assert.equal(got.body.object_kind, 'push');
      // the list's test and this one, newest first
      const rows = page.getByRole('row').filter({ hasText: 'push hooks' });
      await rows.nth(1).waitFor();
      const row = rows.first();
      assert.equal(await row.locator('[data-response-status]').textContent(), '200');
      assert.deepEqual(await seriousA11yViolations(page), []);
      await screenshot(page, `${dialect}-hook-edit-log`);

      await row.getByRole('link', { name: /View details/ }).click();
      await page.getByRole('heading', { name: 'Request details' }).waitFor();
      await page.getByText('X-Service-Event: Push Hook').waitFor();
      await page.getByText('{"ok":true}').waitFor();
      assert.equal(await page.getByText('s3cret-token').count(), 0, 'the token is not shown');
      assert.deepEqual(await seriousA11yViolations(page), []);
      await screenshot(page, `${dialect}-hook-log-details`);
      await page.getByRole('button', { name: 'Resend request' }).click();
      await page.waitForURL(`${s.url}${path(demo, `hooks/${hooks[0].id}/edit`)}`);
      await receiver.waitFor(2);
      await page.getByRole('row').filter({ hasText: 'push hooks' }).nth(2).waitFor();

      // a receiver that fails: the test says so and the log shows the status
      receiver.respond(500);
      await page.getByRole('group', { name: /Test hook/ }).getByRole('button', { name: /^Push events/ }).click();
      await page.getByRole('alert').filter({ hasText: /ok/ }).waitFor();
      receiver.respond(200);
      await page.reload();
      await page.locator('[data-response-status]', { hasText: '500' }).waitFor();

      // edit: a new URL; delete
      await page.getByLabel('URL').fill(`${receiver.url}/other`);
      await page.getByLabel('Branch filter for push events (wildcards allowed; empty for all branches)').fill('');
      await clickThenReload(page, page.getByRole('button', { name: 'Save changes' }));
      const edited = (await s.api('GET', `/projects/${demo.id}/hooks/${hooks[0].id}`, undefined, alice.token)).body;
      assert.equal(edited.url, `${receiver.url}/other`);
      assert.equal(edited.push_events_branch_filter, null);
      assert.equal(edited.pipeline_events, true);
      await page.getByRole('button', { name: 'Delete webhook' }).click();
      await page.waitForURL(`${s.url}${path(demo, 'hooks')}`);
      await page.getByText('No webhooks enabled.').waitFor();
    });

    it('alert integrations: create, copy the URL and key, the URL takes an alert; a developer sends a test alert and changes its status', async () => {
      const page = await as(alice, { clipboard: true });
      await page.goto(path(demo, 'settings/operations'));
      await page.getByRole('heading', { name: 'Alert integrations' }).waitFor();
      assert.deepEqual(await seriousA11yViolations(page), []);
      await page.getByLabel('Name integration').fill('Prometheus');
      await page.getByRole('button', { name: 'Save integration' }).click();
      const urlField = page.getByLabel('Webhook URL', { exact: true });
      await urlField.waitFor();
      const url = await urlField.inputValue();
      const key = await page.getByLabel('Authorization key').inputValue();
      assert.match(url, /\/alice\/demo\/-\/alerts\/notify\/prometheus\/\w+\.json$/);
      assert.ok(key.length >= 20);
      await screenshot(page, `${dialect}-alert-integration-created`);
      await page.getByRole('button', { name: 'Copy URL', exact: true }).click();
      assert.equal(await page.evaluate(() => navigator.clipboard.readText()), url);
      await page.getByRole('button', { name: 'Copy key' }).click();
      assert.equal(await page.evaluate(() => navigator.clipboard.readText()), key);
      // the copied URL and key take an alert
      const sent = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ title: 'Disk full', severity: 'critical' }) });
      assert.equal(sent.status, 200);
      // the key is shown once: after a reload it is not on the page
      await page.reload();
      assert.equal(await page.getByText(key).count(), 0);
      assert.equal(await page.locator(`input[value="${key}"]`).count(), 0);
      const integration = (await s.api('GET', `/projects/${demo.id}/alert_integrations`, undefined, alice.token)).body[0];
      // reset the key: the new one is shown, the old one stops working
      await page.getByRole('button', { name: 'Reset key of Prometheus' }).click();
      const newKey = page.locator(`#integration-${integration.id}-reset-key`);
      await newKey.waitFor();
      assert.notEqual(await newKey.inputValue(), key);
      const old = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: '{}' });
      assert.equal(old.status, 401);
      await page.reload();
      await page.getByRole('button', { name: 'Deactivate Prometheus' }).click();
      await page.getByRole('button', { name: 'Activate Prometheus', exact: true }).waitFor();
      assert.equal((await s.api('GET', `/projects/${demo.id}/alert_integrations`, undefined, alice.token)).body[0].active, false);
      await page.getByRole('button', { name: 'Activate Prometheus', exact: true }).click();
      await page.getByRole('button', { name: 'Deactivate Prometheus' }).waitFor();
      await screenshot(page, `${dialect}-alert-integrations`);

      // a maintainer's test alert picks the integration from the list and lands on the alerts
      await page.getByRole('button', { name: 'Send test alert' }).click();
      await page.waitForURL(`${s.url}${path(demo, 'alert_management')}`);
      await page.getByRole('link', { name: 'Test alert' }).waitFor();
      await page.goto(path(demo, 'settings/operations'));

      // a developer: the alert list, a test alert through the integration's ID
      const d = await as(dev);
      await d.goto(path(demo, 'alert_management'));
      await d.getByRole('heading', { name: 'Alerts', level: 1 }).waitFor();
      await d.getByRole('link', { name: 'Disk full' }).waitFor();
      await d.getByLabel('Integration ID').fill(String(integration.id));
      await d.getByLabel('Alert payload (JSON)').fill('{ not json');
      await d.getByRole('button', { name: 'Send test alert' }).click();
      await d.getByRole('alert').filter({ hasText: /JSON/ }).waitFor();
      await d.getByLabel('Alert payload (JSON)').fill(JSON.stringify({ title: 'CPU hot', severity: 'medium', service: 'api', hosts: ['web-1'] }));
      await d.getByRole('button', { name: 'Send test alert' }).click();
      await d.getByRole('link', { name: 'CPU hot' }).waitFor();
      assert.deepEqual(await seriousA11yViolations(d), []);
      await screenshot(d, `${dialect}-alert-list`);
      await d.getByRole('link', { name: 'CPU hot' }).click();
      await d.getByRole('heading', { name: 'CPU hot' }).waitFor();
      await d.getByText('web-1').waitFor();
      await d.getByLabel('Status').selectOption('acknowledged');
      await d.getByRole('button', { name: 'Update status' }).click();
      await d.locator('[data-alert-status]', { hasText: 'Acknowledged' }).waitFor();
      assert.deepEqual(await seriousA11yViolations(d), []);
      await screenshot(d, `${dialect}-alert-details`);
      await d.goto(`${path(demo, 'alert_management')}?status=acknowledged`);
      await d.getByRole('link', { name: 'CPU hot' }).waitFor();
      assert.equal(await d.getByRole('link', { name: 'Disk full' }).count(), 0);
      assert.equal(await d.getByRole('link', { name: 'Acknowledged' }).getAttribute('aria-current'), 'page');
      await d.goto(`${path(demo, 'alert_management')}?status=triggered`);
      await d.getByRole('link', { name: 'Disk full' }).waitFor();
      assert.equal(await d.getByRole('link', { name: 'CPU hot' }).count(), 0);

      // deleting the integration keeps its alerts
      await page.getByRole('button', { name: 'Delete Prometheus' }).click();
      await page.getByText('No integrations have been added yet.').waitFor();
      assert.equal((await s.api('GET', `/projects/${demo.id}/alert_management_alerts`, undefined, alice.token)).body.length, 3);
    });

    it('who sees what: a developer gets 404 on maintainer pages, a user without access 404 everywhere, a visitor is sent to sign in', async () => {
      const hook = (await s.api('POST', `/projects/${secret.id}/hooks`, { url: `${receiver.url}/x` }, alice.token)).body;
      const maintainerPages = ['settings/general', 'hooks', `hooks/${hook.id}/edit`, 'settings/operations'];
      const d = await as(dev);
      for (const p of maintainerPages.slice(0, 2).concat('settings/operations')) {
        const res = await d.goto(path(demo, p));
        assert.equal(res!.status(), 404, p);
        await d.getByRole('heading', { name: 'Page Not Found' }).waitFor();
      }
      const res = await d.goto(`${new URL(demo.web_url).pathname}/download_export`);
      assert.equal(res!.status(), 404);
      // the developer's navigation has Alerts but not Settings
      await d.goto(path(demo, 'alert_management'));
      const nav = d.getByRole('navigation', { name: 'Project' });
      await nav.getByRole('link', { name: 'Alerts' }).waitFor();
      assert.equal(await nav.getByRole('link', { name: 'Settings' }).count(), 0);

      const b = await as(bob);
      for (const p of [...maintainerPages, 'project_members', 'alert_management', 'alert_management/1/details', 'import', `hooks/${hook.id}/hook_logs/1`]) {
        const r = await b.goto(path(secret, p));
        assert.equal(r!.status(), 404, p);
        await b.getByRole('heading', { name: 'Page Not Found' }).waitFor();
      }
      await screenshot(b, `${dialect}-settings-not-found`);

      // a visitor on the public project: every page here needs a user (the members list too: the API's members endpoints need one)
      const visitor = await as(null);
      for (const p of ['settings/general', 'hooks', 'hooks/1/edit', 'settings/operations', 'project_members', 'alert_management', 'alert_management/1/details', 'import']) {
        await visitor.goto(path(demo, p));
        assert.equal(new URL(visitor.url()).pathname, '/users/sign_in', p);
        assert.equal(new URL(visitor.url()).searchParams.get('redirect_to'), path(demo, p));
      }
      await visitor.goto(`${new URL(demo.web_url).pathname}/download_export`);
      assert.equal(new URL(visitor.url()).pathname, '/users/sign_in');
      await visitor.goto('/import/project/new');
      assert.equal(new URL(visitor.url()).pathname, '/users/sign_in');
      // the public project's own page still shows to the visitor, without Settings or Alerts
      await visitor.goto(new URL(demo.web_url).pathname);
      const vnav = visitor.getByRole('navigation', { name: 'Project' });
      await vnav.getByRole('link', { name: 'Members' }).waitFor();
      assert.equal(await vnav.getByRole('link', { name: 'Settings' }).count(), 0);
      assert.equal(await vnav.getByRole('link', { name: 'Alerts' }).count(), 0);
    });
  });
}
