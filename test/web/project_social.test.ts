// A project's activity, star and fork, rename, transfer and avatar; a group's members and badges;
// and the dead ends of every day: the user picker from one letter, a confirmation after each
// save, times in the viewer's own zone (UTC on hover). Each followed from the link a user would.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { DIALECTS } from '../helpers/build.js';
import { PNG } from '../helpers/project_resources.js';
import { launchBrowser, seriousA11yViolations, signIn, startWebServer, type WebServer } from '../helpers/web.js';

for (const dialect of DIALECTS) {
  describe(`web interface: project activity, star, fork, rename, transfer, group members and badges (${dialect})`, () => {
    let s: WebServer;
    let browser: Browser;
    const contexts: BrowserContext[] = [];
    type U = Awaited<ReturnType<WebServer['createUser']>>;
    let alice: U;
    let bob: U;
    let jo: U;
    let group: any;
    let demo: any;

    before(async () => {
      s = await startWebServer(dialect);
      browser = await launchBrowser();
      alice = await s.createUser('alice');
      bob = await s.createUser('bob');
      jo = await s.createUser('jo');
      group = (await s.api('POST', '/groups', { name: 'Acme', path: 'acme', visibility: 'private' }, alice.token)).body;
      demo = (await s.api('POST', '/projects', { name: 'demo', initialize_with_readme: true }, alice.token)).body;
      await s.api('POST', `/projects/${demo.id}/members`, { user_id: bob.id, access_level: 30 }, alice.token);
    });
    after(async () => {
      for (const c of contexts) await c.close();
      await browser?.close();
      await s?.stop();
    });

    /** A page signed in as the user, in a browser context of its own (time zone: Tokyo). */
    async function as(u: U): Promise<Page> {
      const ctx = await browser.newContext({ baseURL: s.url, timezoneId: 'Asia/Tokyo', locale: 'en-GB' });
      contexts.push(ctx);
      const page = await ctx.newPage();
      page.on('dialog', (d) => void d.accept());
      await signIn(page, s.url, u.username, u.password);
      return page;
    }

    const flash = (page: Page, text: string | RegExp) => page.getByRole('status').filter({ hasText: text }).waitFor();

    it('activity: the project menu leads to the events, newest first, with the push and its commit; times in local time, UTC on hover', async () => {
      const page = await as(alice);
      const commit = await s.api('POST', `/projects/${demo.id}/repository/files/notes.txt`, { branch: 'main', content: 'hi', commit_message: 'Add notes' }, alice.token);
      assert.equal(commit.status, 201, JSON.stringify(commit.body));
      await page.goto('/alice/demo');
      await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Activity' }).click();
      await page.waitForURL(`${s.url}/alice/demo/-/activity`);
      await page.getByRole('heading', { name: 'Activity', level: 1 }).waitFor();
      const items = await page.locator('li.event').allInnerTexts();
      assert.ok(items.length >= 2, items.join('\n'));
      assert.match(items.join('\n'), /pushed to branch main\s+1 commit: \w{8} Add notes/);
      assert.match(items.join('\n'), /joined project/);
      assert.match(items.join('\n'), /created project/);
      const t = page.locator('li.event time').first();
      const iso = await t.getAttribute('datetime');
      const title = await t.getAttribute('title');
      assert.equal(title, `${iso!.slice(0, 19).replace('T', ' ')} UTC`);
      // shown in the viewer's zone (Tokyo, 9 hours ahead), not the UTC text the server wrote
      const shown = await t.innerText();
      assert.doesNotMatch(shown, /UTC/);
      const tokyo = new Date(Date.parse(iso!) + 9 * 3600_000);
      assert.ok(shown.includes(String(tokyo.getUTCHours()).padStart(2, '0')), `${shown} for ${iso}`);
      assert.deepEqual(await seriousA11yViolations(page), []);
    });

    it('star and unstar with the count; fork into a group chosen on the form', async () => {
      const page = await as(bob);
      await page.goto('/alice/demo');
      await page.getByRole('button', { name: 'Star', exact: true }).click();
      await flash(page, 'Starred.');
      await page.getByRole('button', { name: 'Unstar' }).waitFor();
      assert.match(await page.locator('.project-actions').innerText(), /Unstar\s+1/);
      assert.equal((await s.api('GET', `/projects/${demo.id}`)).body.star_count, 1);
      await page.getByRole('button', { name: 'Unstar' }).click();
      await page.getByRole('button', { name: 'Star', exact: true }).waitFor();
      assert.equal((await s.api('GET', `/projects/${demo.id}`)).body.star_count, 0);

      // alice forks her project into her group
      const a = await as(alice);
      await a.goto('/alice/demo');
      await a.getByRole('link', { name: 'Fork', exact: true }).click();
      await a.waitForURL(`${s.url}/alice/demo/-/forks/new`);
      assert.deepEqual(await seriousA11yViolations(a), []);
      await a.getByLabel('Namespace').selectOption({ label: 'acme' });
      await a.getByRole('button', { name: 'Fork project' }).click();
      await a.waitForURL(`${s.url}/acme/demo`);
      await flash(a, 'Forked.');
      const fork = (await s.api('GET', `/projects/${encodeURIComponent('acme/demo')}`, undefined, alice.token)).body;
      assert.equal(fork.forked_from_project.id, demo.id);
      // signed out: the count only
      const anon = await browser.newContext({ baseURL: s.url });
      contexts.push(anon);
      await s.api('PUT', `/projects/${demo.id}`, { visibility: 'public' }, alice.token);
      const ap = await anon.newPage();
      await ap.goto('/alice/demo');
      await ap.getByText('0 stars').waitFor();
      assert.equal(await ap.getByRole('button', { name: 'Star', exact: true }).count(), 0);
    });

    it('settings: saving says so; avatar upload, rename and transfer go through the API and the page follows the new address', async () => {
      const page = await as(alice);
      await page.goto('/alice/demo');
      await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Settings' }).click();
      await page.getByLabel('Project description (optional)').fill('Our demo');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await flash(page, 'Saved.');
      // avatar
      await page.getByLabel(/Avatar image/).setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: PNG });
      await page.getByRole('button', { name: 'Upload avatar' }).click();
      await flash(page, 'Avatar saved.');
      await page.getByRole('img', { name: 'Current avatar of demo' }).waitFor();
      assert.match((await s.api('GET', `/projects/${demo.id}`, undefined, alice.token)).body.avatar_url, /logo\.png$/);
      // and it is shown where the project is: its overview and the project lists, loaded (not a broken image)
      const loaded = async (url: string) => {
        await page.goto(url);
        const img = page.locator('main img.avatar').first();
        await img.waitFor();
        await page.waitForFunction((el) => (el as HTMLImageElement).complete, await img.elementHandle());
        return img.evaluate((el) => (el as HTMLImageElement).naturalWidth);
      };
      assert.ok((await loaded('/alice/demo')) > 0, 'the overview shows the avatar');
      assert.ok((await loaded('/dashboard/projects')) > 0, 'the dashboard shows the avatar');
      await page.goto('/alice/demo/-/settings/general');
      // an error in words: a path taken by another project
      await s.api('POST', '/projects', { name: 'taken' }, alice.token);
      const rename = page.getByRole('form', { name: 'Rename project' });
      await rename.getByLabel('Path').fill('taken');
      await rename.getByRole('button', { name: 'Rename project' }).click();
      await page.getByRole('alert').filter({ hasText: /path.*taken|has already been taken/ }).waitFor();
      // rename: the page moves to the new address
      await rename.getByLabel('Project name').fill('Demo two');
      await rename.getByLabel('Path').fill('demo-two');
      await rename.getByRole('button', { name: 'Rename project' }).click();
      await page.waitForURL(`${s.url}/alice/demo-two/-/settings/general`);
      await flash(page, 'Project renamed.');
      // transfer into the group
      const transfer = page.getByRole('form', { name: 'Transfer project' });
      await transfer.getByLabel('New namespace').selectOption({ label: 'acme' });
      await transfer.getByRole('button', { name: 'Transfer project' }).click();
      await page.waitForURL(`${s.url}/acme/demo-two/-/settings/general`);
      await flash(page, 'Project transferred.');
      assert.equal((await s.api('GET', `/projects/${demo.id}`, undefined, alice.token)).body.path_with_namespace, 'acme/demo-two');
      assert.deepEqual(await seriousA11yViolations(page), []);
    });

    it('a maintainer is not offered rename or transfer (owners only); a developer gets no settings', async () => {
      await s.api('PUT', `/projects/${demo.id}/members/${bob.id}`, { access_level: 40 }, alice.token);
      const page = await as(bob);
      await page.goto('/acme/demo-two/-/settings/general');
      await page.getByRole('heading', { name: 'General settings', level: 1 }).waitFor();
      assert.equal(await page.getByRole('button', { name: 'Rename project' }).count(), 0);
      assert.equal(await page.getByRole('button', { name: 'Transfer project' }).count(), 0);
      await s.api('PUT', `/projects/${demo.id}/members/${bob.id}`, { access_level: 30 }, alice.token);
      await page.goto('/acme/demo-two');
      assert.equal(await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Settings' }).count(), 0);
    });

    it('group members: the owner finds a user by two letters, adds, changes the role, removes; a developer only reads', async () => {
      const page = await as(alice);
      await page.goto('/groups/acme');
      await page.getByRole('navigation', { name: 'Group' }).getByRole('link', { name: 'Members' }).click();
      await page.waitForURL(`${s.url}/groups/acme/-/group_members`);
      // "jo" is two letters: the user picker finds them (the API's /users?search= needs three to match a part)
      await page.getByLabel('Search users').fill('jo');
      await page.getByLabel('User', { exact: true }).locator('option', { hasText: '@jo' }).waitFor({ state: 'attached' });
      await page.getByLabel('User', { exact: true }).selectOption({ label: 'User jo (@jo)' });
      await page.getByLabel('Role', { exact: true }).selectOption('Developer');
      await page.getByRole('button', { name: 'Add to group' }).click();
      await flash(page, 'Member added.');
      const row = page.getByRole('row').filter({ hasText: '@jo' });
      await row.getByLabel('Role of jo').selectOption('Maintainer');
      await row.getByRole('button', { name: 'Save' }).click();
      await flash(page, 'Role of jo saved.');
      assert.equal((await s.api('GET', `/groups/${group.id}/members/${jo.id}`, undefined, alice.token)).body.access_level, 40);
      assert.deepEqual(await seriousA11yViolations(page), []);
      // a one-letter search finds by part of a name too
      await page.getByLabel('Search users').fill('b');
      await page.getByLabel('User', { exact: true }).locator('option', { hasText: '@bob' }).waitFor({ state: 'attached' });

      // jo (maintainer, not owner) reads the list without the forms
      const j = await as(jo);
      await j.goto('/groups/acme/-/group_members');
      await j.getByRole('row').filter({ hasText: '@alice' }).getByText('Owner').waitFor();
      assert.equal(await j.getByRole('button', { name: 'Add to group' }).count(), 0);
      assert.equal(await j.getByRole('button', { name: /Remove/ }).count(), 0);

      await page.getByRole('row').filter({ hasText: '@jo' }).getByRole('button', { name: 'Remove jo' }).click();
      await flash(page, 'jo removed.');
      assert.equal((await s.api('GET', `/groups/${group.id}/members/${jo.id}`, undefined, alice.token)).status, 404);
    });

    it('group badges: the owner adds one (shown on the group\'s projects) and removes it; others only read', async () => {
      const page = await as(alice);
      await page.goto('/groups/acme');
      await page.getByRole('navigation', { name: 'Group' }).getByRole('link', { name: 'Badges' }).click();
      await page.waitForURL(`${s.url}/groups/acme/-/badges`);
      await page.getByText('This group has no badges.').waitFor();
      await page.getByLabel('Name').fill('docs');
      await page.getByLabel('Link').fill('https://example.com/%{project_path}');
      await page.getByLabel('Badge image URL').fill('https://example.com/badge.svg');
      await page.getByRole('button', { name: 'Add badge' }).click();
      await flash(page, 'Badge added.');
      await page.getByRole('row').filter({ hasText: 'docs' }).waitFor();
      assert.deepEqual(await seriousA11yViolations(page), []);
      const badges = (await s.api('GET', `/projects/${demo.id}/badges`, undefined, alice.token)).body;
      assert.ok(badges.some((b: any) => b.kind === 'group' && b.name === 'docs'));
      // bob, a developer of the group, reads the badges without the forms
      await s.api('POST', `/groups/${group.id}/members`, { user_id: bob.id, access_level: 30 }, alice.token);
      const b = await as(bob);
      await b.goto('/groups/acme/-/badges');
      await b.getByRole('row').filter({ hasText: 'docs' }).waitFor();
      assert.equal(await b.getByRole('button', { name: /Delete/ }).count(), 0);
      assert.equal(await b.getByRole('button', { name: 'Add badge' }).count(), 0);
      await page.getByRole('button', { name: 'Delete badge docs' }).click();
      await flash(page, 'Badge deleted.');
      assert.deepEqual((await s.api('GET', `/groups/${group.id}/badges`, undefined, alice.token)).body, []);
    });
  });
}
