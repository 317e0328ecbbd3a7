// Groups reached by a user who is not an administrator, in a real browser: the site's "Groups"
// link lists the groups they belong to, explore lists the groups they may see (a private group
// only to its members), a group's page leads on to its subgroups, and a project's navigation leads
// back to its group. At 390 px nothing scrolls sideways.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { DIALECTS } from '../helpers/build.js';
import { launchBrowser, seriousA11yViolations, signIn, startWebServer, type WebServer } from '../helpers/web.js';

for (const dialect of DIALECTS) {
  describe(`web interface: groups for every user (${dialect})`, () => {
    let s: WebServer;
    let browser: Browser;
    let ctx: BrowserContext;
    let page: Page;
    let alice: Awaited<ReturnType<WebServer['createUser']>>;
    let bob: Awaited<ReturnType<WebServer['createUser']>>;
    let carol: Awaited<ReturnType<WebServer['createUser']>>;

    before(async () => {
      s = await startWebServer(dialect);
      browser = await launchBrowser();
      alice = await s.createUser('alice');
      bob = await s.createUser('bob');
      carol = await s.createUser('carol');
      const acme = (await s.api('POST', '/groups', { name: 'Acme', path: 'acme', visibility: 'private', description: 'Rockets' }, alice.token)).body;
      assert.equal((await s.api('POST', `/groups/${acme.id}/members`, { user_id: bob.id, access_level: 20 }, alice.token)).status, 201);
      assert.equal((await s.api('POST', '/groups', { name: 'Open', path: 'open', visibility: 'public' }, alice.token)).status, 201);
      assert.equal((await s.api('POST', '/projects', { name: 'rocket', namespace_id: acme.id }, alice.token)).status, 201);
      ctx = await browser.newContext({ baseURL: s.url });
      page = await ctx.newPage();
    });
    after(async () => {
      await ctx?.close();
      await browser?.close();
      await s?.stop();
    });

    it('a member follows "Groups" to their group and on to its project, and back to the group from the project', async () => {
      await signIn(page, s.url, 'bob', bob.password);
      await page.getByRole('navigation', { name: 'Site' }).getByRole('link', { name: 'Groups' }).click();
      await page.waitForURL(`${s.url}/dashboard/groups`);
      const main = page.getByRole('main');
      await main.getByRole('heading', { name: 'Your groups' }).waitFor();
      assert.equal(await main.getByRole('link', { name: 'Acme' }).count(), 1);
      // a public group bob is not a member of is not "his"
      assert.equal(await main.getByRole('link', { name: 'Open' }).count(), 0);
      assert.deepEqual(await seriousA11yViolations(page), []);
      await main.getByRole('link', { name: 'Acme' }).click();
      await page.waitForURL(`${s.url}/groups/acme`);
      await main.getByRole('link', { name: 'rocket' }).click();
      await page.waitForURL(`${s.url}/acme/rocket`);
      await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Acme' }).click();
      await page.waitForURL(`${s.url}/groups/acme`);
    });

    it('explore lists the groups a visitor may see: a private group only to its members', async () => {
      const names = async (p: Page) => p.locator('main table a').allTextContents();
      await page.goto('/explore/groups');
      assert.deepEqual((await names(page)).sort(), ['Acme', 'Open']);
      const c2 = await browser.newContext({ baseURL: s.url });
      const p2 = await c2.newPage();
      await p2.goto('/explore/groups');
      assert.deepEqual(await names(p2), ['Open']);
      await signIn(p2, s.url, 'carol', carol.password);
      await p2.goto('/explore/groups');
      assert.deepEqual(await names(p2), ['Open']);
      await p2.goto('/dashboard/groups');
      await p2.getByText('You are not a member of any group yet.').waitFor();
      await c2.close();
    });

    it('the owner makes a subgroup from the group page; it is listed there and on the dashboard', async () => {
      const c3 = await browser.newContext({ baseURL: s.url });
      const p3 = await c3.newPage();
      await signIn(p3, s.url, 'alice', alice.password);
      await p3.goto('/groups/acme');
      await p3.getByRole('main').getByRole('link', { name: 'New subgroup' }).click();
      await p3.getByLabel('Group name').fill('Engines');
      await p3.getByLabel('Group URL (path)').fill('engines');
      await p3.getByRole('button', { name: 'Create group' }).click();
      await p3.waitForURL(`${s.url}/groups/acme/engines`);
      await p3.goto('/groups/acme');
      assert.equal(await p3.getByRole('main').getByRole('link', { name: 'Engines' }).count(), 1);
      await p3.goto('/dashboard/groups');
      assert.deepEqual((await p3.locator('main table a').allTextContents()).sort(), ['Acme', 'Acme / Engines', 'Open']);
      await c3.close();
    });

    it('at 390 px the groups pages do not scroll sideways', async () => {
      const c4 = await browser.newContext({ baseURL: s.url, viewport: { width: 390, height: 800 } });
      const p4 = await c4.newPage();
      await signIn(p4, s.url, 'bob', bob.password);
      for (const url of ['/dashboard/groups', '/explore/groups', '/groups/acme']) {
        await p4.goto(url);
        const wide = await p4.evaluate(() => document.documentElement.scrollWidth);
        assert.ok(wide <= 390, `${url}: ${wide} px wide`);
      }
      await c4.close();
    });
  });
}
