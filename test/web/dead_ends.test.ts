// Dead ends a new user met in the browser, each followed as that user would: a project created
// inside a group from the group's page (which lists the group's own projects), and an empty
// repository's overview (no link to a 404, push instructions instead).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { DIALECTS } from '../helpers/build.js';
import { launchBrowser, seriousA11yViolations, signIn, startWebServer, type WebServer } from '../helpers/web.js';

for (const dialect of DIALECTS) {
  describe(`web interface: dead ends (${dialect})`, () => {
    let s: WebServer;
    let browser: Browser;
    let ctx: BrowserContext;
    let page: Page;
    let alice: Awaited<ReturnType<WebServer['createUser']>>;
    let bob: Awaited<ReturnType<WebServer['createUser']>>;
    let group: any;

    before(async () => {
      s = await startWebServer(dialect);
      browser = await launchBrowser();
      alice = await s.createUser('alice');
      bob = await s.createUser('bob');
      group = (await s.api('POST', '/groups', { name: 'Acme', path: 'acme', visibility: 'private' }, alice.token)).body;
      await s.api('POST', `/groups/${group.id}/members`, { user_id: bob.id, access_level: 20 }, alice.token);
      ctx = await browser.newContext({ baseURL: s.url });
      page = await ctx.newPage();
    });
    after(async () => {
      await ctx?.close();
      await browser?.close();
      await s?.stop();
    });

    it('a group owner follows "New project" on the group page; the form has the group chosen; the project is made in the group', async () => {
      await signIn(page, s.url, 'alice', alice.password);
      await page.goto('/groups/acme');
      await page.getByRole('main').getByRole('link', { name: 'New project' }).click();
      await page.waitForURL(`${s.url}/projects/new?namespace_id=${group.id}`);
      assert.equal(await page.getByLabel('Namespace').inputValue(), String(group.id));
      assert.deepEqual(await seriousA11yViolations(page), []);
      await page.getByLabel('Project name').fill('rocket');
      await page.getByRole('button', { name: 'Create project' }).click();
      await page.waitForURL(`${s.url}/acme/rocket`);
      const made = await s.api('GET', `/projects/${encodeURIComponent('acme/rocket')}`, undefined, alice.token);
      assert.equal(made.status, 200);
      assert.equal(made.body.namespace.id, group.id);
      // the personal namespace stays the default of the plain form
      await page.goto('/projects/new');
      assert.equal(await page.getByLabel('Namespace').inputValue(), '');
      // the group's page lists its own projects, not one shared with it
      const lent = (await s.api('POST', '/projects', { name: 'lent' }, alice.token)).body;
      assert.equal((await s.api('POST', `/projects/${lent.id}/share`, { group_id: group.id, group_access: 30 }, alice.token)).status, 201);
      await page.goto('/groups/acme');
      await page.getByRole('main').getByRole('link', { name: 'rocket' }).waitFor();
      assert.equal(await page.getByRole('main').getByRole('link', { name: 'lent' }).count(), 0);
    });

    it('a reporter of the group sees no "New project" there and no group on the form; the API refuses them too', async () => {
      const c2 = await browser.newContext({ baseURL: s.url });
      const p2 = await c2.newPage();
      await signIn(p2, s.url, 'bob', bob.password);
      await p2.goto('/groups/acme');
      await p2.getByRole('heading', { name: 'Acme', level: 1 }).waitFor();
      assert.equal(await p2.getByRole('main').getByRole('link', { name: 'New project' }).count(), 0);
      // and the group is not offered on the form
      await p2.goto('/projects/new');
      assert.equal(await p2.locator(`select[name=namespace_id] option[value="${group.id}"]`).count(), 0);
      await c2.close();
      const refused = await s.api('POST', '/projects', { name: 'sneaky', namespace_id: group.id }, bob.token);
      assert.equal(refused.status, 400, JSON.stringify(refused.body));
      assert.equal((await s.api('GET', `/projects/${encodeURIComponent('acme/sneaky')}`, undefined, alice.token)).status, 404);
    });

    it('an empty repository: no link leads to a 404; the overview tells how to push the first commit', async () => {
      await page.goto('/acme/rocket');
      await page.getByRole('heading', { name: 'The repository is empty' }).waitFor();
      const instructions = await page.locator('pre.plain').allTextContents();
      assert.ok(instructions.some((t) => t.includes(`git clone ${s.url}/acme/rocket.git`) && t.includes('git push --set-upstream origin main')), instructions.join('\n'));
      assert.equal(await page.getByRole('link', { name: 'Browse files' }).count(), 0);
      assert.match(await page.locator('dl.facts').innerText(), /main \(no commits yet\)/);
      const links: string[] = await page.$$eval('main a[href], nav.aside a[href]', (as) => as.map((a) => (a as HTMLAnchorElement).href));
      for (const href of new Set(links)) {
        if (new URL(href).origin !== s.url) continue;
        const r = await page.request.get(href);
        assert.ok(r.status() < 400, `${href}: ${r.status()}`);
      }
      assert.deepEqual(await seriousA11yViolations(page), []);
    });
  });
}
