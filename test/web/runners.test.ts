// Runners in a real browser against the real server: a project's Settings → CI/CD → Runners
// (the register commands with the project's token, a runner created in the browser whose token
// gitlab-runner verifies, pause, another project's runner enabled and disabled, the instance's
// runners) and the admin's runner list; and who may see them.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { DIALECTS } from '../helpers/build.js';
import { WEB_ROOT_PASSWORD, launchBrowser, seriousA11yViolations, signIn, startWebServer, type WebServer } from '../helpers/web.js';
import { TestRunnerClient } from '../helpers/runner_client.js';

type User = Awaited<ReturnType<WebServer['createUser']>>;

for (const dialect of DIALECTS) {
  describe(`web interface: runners (${dialect})`, () => {
    let s: WebServer;
    let browser: Browser;
    let alice: User; // maintainer (owner) of demo and other
    let dev: User; // developer on demo
    let demo: any;
    let other: any;
    const contexts: BrowserContext[] = [];

    before(async () => {
      s = await startWebServer(dialect);
      browser = await launchBrowser();
      [alice, dev] = [await s.createUser('alice'), await s.createUser('dev')];
      demo = (await s.api('POST', '/projects', { name: 'demo', visibility: 'public', initialize_with_readme: true }, alice.token)).body;
      other = (await s.api('POST', '/projects', { name: 'other', visibility: 'private', initialize_with_readme: true }, alice.token)).body;
      assert.equal((await s.api('POST', `/projects/${demo.id}/members`, { user_id: dev.id, access_level: 30 }, alice.token)).status, 201);
    });
    after(async () => {
      for (const c of contexts) await c.close().catch(() => {});
      await browser?.close();
      await s?.stop();
    });

    async function as(user: { username: string; password: string } | null): Promise<Page> {
      const ctx = await browser.newContext({ baseURL: s.url });
      contexts.push(ctx);
      const page = await ctx.newPage();
      page.on('dialog', (d) => void d.accept());
      if (user) await signIn(page, s.url, user.username, user.password);
      return page;
    }
    async function clickThenReload(page: Page, control: ReturnType<Page['getByRole']>): Promise<void> {
      await Promise.all([page.waitForEvent('framenavigated'), control.click()]);
      await page.waitForLoadState('load');
    }
    const runnersPath = (p: any) => `${new URL(p.web_url).pathname}/-/settings/ci_cd/runners`;

    it('a maintainer registers a runner from the page: the command with the project token, a created runner verified by its token, pause', async () => {
      const page = await as(alice);
      await page.goto(runnersPath(demo));
      await page.getByRole('heading', { name: 'Runners', level: 1 }).waitFor();
      assert.equal(await page.getByRole('link', { name: 'Runners', exact: true }).getAttribute('aria-current'), 'page');
      const token = (await s.api('GET', `/projects/${demo.id}`, undefined, alice.token)).body.runners_token;
      assert.match(token, /^GR1348941/);
      assert.equal((await page.locator('#register-registration-command').textContent())?.trim(), `gitlab-runner register --url ${new URL(demo.web_url).origin} --registration-token ${token}`);

      await page.getByLabel('Description').fill('browser runner');
      await page.getByLabel('Tags (comma-separated)').fill('linux, docker');
      await page.getByRole('button', { name: 'Create runner' }).click();
      const command = page.locator('#register-token-command');
      await command.waitFor();
      const text = (await command.textContent())!.trim();
      const m = /^gitlab-runner register --url \S+ --token (glrt-\S+)$/.exec(text);
      assert.ok(m, text);
      const runner = new TestRunnerClient(s.url);
      assert.equal((await runner.verify(m[1]!)).status, 200);
      const details = (await s.api('GET', `/runners/${runner.id}`, undefined, alice.token)).body;
      assert.deepEqual([details.description, details.tag_list, details.runner_type, details.locked], ['browser runner', ['docker', 'linux'], 'project_type', true]);

      await page.reload();
      const row = page.locator(`tr[data-runner="${runner.id}"]`);
      assert.match((await row.textContent())!, /browser runner[\s\S]*Online[\s\S]*docker[\s\S]*linux/);
      await clickThenReload(page, row.getByRole('button', { name: `Pause runner ${runner.id}` }));
      assert.equal((await s.api('GET', `/runners/${runner.id}`, undefined, alice.token)).body.paused, true);
      assert.match((await page.locator(`tr[data-runner="${runner.id}"]`).textContent())!, /Paused/);
      assert.deepEqual(await seriousA11yViolations(page), []);

      await clickThenReload(page, page.getByRole('button', { name: 'Reset registration token' }));
      const reset = (await s.api('GET', `/projects/${demo.id}`, undefined, alice.token)).body.runners_token;
      assert.notEqual(reset, token);
      assert.match((await page.locator('#register-registration-command').textContent())!, new RegExp(`--registration-token ${reset}$`));
    });

    it('another project\'s unlocked runner is enabled and disabled for this one; group and instance runners are listed', async () => {
      const otherToken = (await s.api('GET', `/projects/${other.id}`, undefined, alice.token)).body.runners_token;
      const runner = new TestRunnerClient(s.url);
      assert.equal((await runner.register(otherToken, { description: 'shared box', tags: ['arm'], locked: false })).status, 201);
      const locked = new TestRunnerClient(s.url);
      assert.equal((await locked.register(otherToken, { description: 'locked box', locked: true })).status, 201);

      const page = await as(alice);
      await page.goto(runnersPath(demo));
      const available = page.locator(`tr[data-runner="${runner.id}"]`);
      assert.match((await available.textContent())!, /shared box/);
      assert.equal(await page.locator(`tr[data-runner="${locked.id}"]`).count(), 0, 'a locked runner is not offered');
      await clickThenReload(page, available.getByRole('button', { name: `Enable runner ${runner.id} for this project` }));
      const assigned = (await s.api('GET', `/projects/${demo.id}/runners?type=project_type`, undefined, alice.token)).body.map((r: any) => r.id);
      assert.ok(assigned.includes(runner.id));
      await clickThenReload(page, page.getByRole('button', { name: `Disable runner ${runner.id} for this project` }));
      const after = (await s.api('GET', `/projects/${demo.id}/runners?type=project_type`, undefined, alice.token)).body.map((r: any) => r.id);
      assert.ok(!after.includes(runner.id));

      const instance = page.getByRole('region', { name: 'Instance runners' });
      assert.match((await instance.textContent())!, /#1[\s\S]*Anvil built-in runner/);
      assert.match((await instance.textContent())!, /Instance runners are enabled for this project/);
      await clickThenReload(page, page.getByRole('button', { name: 'Disable instance runners for this project' }));
      assert.equal((await s.api('GET', `/projects/${demo.id}`, undefined, alice.token)).body.shared_runners_enabled, false);
      for (const r of [runner, locked]) await r.unregister();
    });

    it('who may see the project page: a developer gets the 404 page, a visitor the sign-in page', async () => {
      const devPage = await as(dev);
      const r = await devPage.goto(runnersPath(demo));
      assert.equal(r?.status(), 404);
      const visitor = await as(null);
      await visitor.goto(runnersPath(demo));
      assert.match(visitor.url(), /\/users\/sign_in\?redirect_to=/);
    });

    it('the admin runner list: every runner with its type, status and tags, filtered by type; others get the 404 page', async () => {
      const created = await s.api('POST', '/user/runners', { runner_type: 'instance_type', description: 'admin made', tag_list: ['gpu'] });
      assert.equal(created.status, 201);
      const page = await as({ username: 'root', password: WEB_ROOT_PASSWORD });
      await page.goto('/admin/runners');
      await page.getByRole('heading', { name: 'Runners', level: 1 }).waitFor();
      assert.equal(await page.getByRole('link', { name: 'Runners', exact: true }).getAttribute('aria-current'), 'page');
      assert.match((await page.locator('tr[data-runner="1"]').textContent())!, /Anvil built-in runner[\s\S]*Instance[\s\S]*Built in/);
      const row = page.locator(`tr[data-runner="${created.body.id}"]`);
      assert.match((await row.textContent())!, /admin made[\s\S]*Instance[\s\S]*Never contacted[\s\S]*gpu/);
      await page.getByRole('link', { name: 'Project', exact: true }).click();
      await page.waitForURL(/type=project_type/);
      assert.equal(await page.locator('tr[data-runner="1"]').count(), 0);
      assert.ok((await page.locator('tr[data-runner]').count()) >= 1);
      await page.goto('/admin/runners');
      await clickThenReload(page, page.locator(`tr[data-runner="${created.body.id}"]`).getByRole('button', { name: `Delete runner ${created.body.id}` }));
      assert.equal((await s.api('GET', `/runners/${created.body.id}`)).status, 404);
      assert.deepEqual(await seriousA11yViolations(page), []);

      const alicePage = await as(alice);
      assert.equal((await alicePage.goto('/admin/runners'))?.status(), 404);
    });
  });
}
