// The last commit of each entry of the repository tree: the web route the tree page reads
// (`/-/refs/<ref>/logs_tree/<path>?format=json&offset=N`, the reference's shape, 25 entries an
// answer, the tree API's access) and the tree page in a browser, its rows filled with each
// entry's last commit.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { DIALECTS, buildTestApp, keysOf, type TestApp } from '../helpers/build.js';
import { COMMIT_KEYS } from '../helpers/keys.js';
import { commit, makeRepoProject, memberWith } from '../helpers/repository_content.js';
import { launchBrowser, screenshot, seriousA11yViolations, signIn, startWebServer, type WebServer } from '../helpers/web.js';

const ENTRY_KEYS = ['commit', 'commit_path', 'commit_title_html', 'file_name', 'type'];
/** 30 files: more than one answer's 25 entries. */
const MANY = Array.from({ length: 30 }, (_, i) => ({ action: 'create', file_path: `many/f${String(i).padStart(2, '0')}.txt`, content: `${i}\n` }));

for (const dialect of DIALECTS) {
  describe(`web: the logs_tree route (${dialect})`, () => {
    let t: TestApp;
    let p: any;
    let priv: any;
    let first: any;
    let deep: any;
    let titled: any;

    /** A session cookie for a user (signed in through the form). */
    const session = async (login: string, password: string): Promise<string> => {
      const r = await t.request('POST', '/users/sign_in', {
        token: null,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: `user[login]=${encodeURIComponent(login)}&user[password]=${encodeURIComponent(password)}`,
      });
      assert.equal(r.status, 302, r.text);
      return `_service_session=${/_service_session=([^;]+)/.exec(String(r.headers['set-cookie']))![1]}`;
    };
    const logs = (project: any, rest: string, cookie?: string) => t.request('GET', `/${project.path_with_namespace}/-/refs/${rest}`, { token: null, headers: cookie ? { cookie } : {} });

    before(async () => {
      t = await buildTestApp(dialect);
      p = await makeRepoProject(t, { visibility: 'public' });
      first = await commit(t, p.id, { commit_message: 'Add many files', actions: [...MANY, { action: 'create', file_path: 'src/lib/a.ts', content: 'a' }, { action: 'create', file_path: 'src/b.ts', content: 'b' }] });
      deep = await commit(t, p.id, { commit_message: 'Change deep inside src', actions: [{ action: 'update', file_path: 'src/lib/a.ts', content: 'aa' }] });
      titled = await commit(t, p.id, { commit_message: 'Fix <b>bold</b> & more\n\nThe body.', actions: [{ action: 'update', file_path: 'many/f07.txt', content: 'seven\n' }] });
      await commit(t, p.id, { commit_message: `Long one\n\n${'é'.repeat(2000)}`, actions: [{ action: 'create', file_path: 'long/x.txt', content: 'x' }] });
      await commit(t, p.id, { branch: 'feature/x', start_branch: 'main', commit_message: 'Only on the feature', actions: [{ action: 'create', file_path: 'src/feature.ts', content: 'f' }] });
      priv = await makeRepoProject(t, { visibility: 'private' });
    });
    after(async () => t.close());

    it('answers the root entries in the tree API\'s order, each with its last commit in the API\'s shape (its message cut to 1 KB), its path and its escaped title', async () => {
      const r = await logs(p, 'main/logs_tree/?format=json');
      assert.equal(r.status, 200, r.text);
      assert.match(String(r.headers['content-type']), /^application\/json/);
      assert.equal(r.headers['more-logs-offset'], undefined);
      const tree = await t.get(`/api/v4/projects/${p.id}/repository/tree`);
      assert.deepEqual(r.body.map((e: any) => [e.file_name, e.type]), tree.body.map((e: any) => [e.name, e.type]));
      for (const e of r.body) {
        assert.deepEqual(keysOf(e), ENTRY_KEYS);
        assert.deepEqual(keysOf(e.commit), COMMIT_KEYS);
        assert.equal(e.commit_path, `/${p.path_with_namespace}/-/commit/${e.commit.id}`);
      }
      const by = Object.fromEntries(r.body.map((e: any) => [e.file_name, e]));
      assert.equal(by.src.commit.id, deep.id);
      assert.equal(by.many.commit.id, titled.id);
      assert.equal(by.many.commit.title, 'Fix <b>bold</b> & more');
      assert.equal(by.many.commit_title_html, 'Fix &lt;b&gt;bold&lt;/b&gt; &amp; more');
      // a long message is cut to 1 KB, as the reference keeps it
      assert.equal(by.long.commit.title, 'Long one');
      assert.ok(Buffer.byteLength(by.long.commit.message) <= 1024);
      assert.match(by.long.commit.message, /^Long one\n\nééé.*é\.\.\.$/s);
      assert.equal(by['README.md'].type, 'blob');
      assert.notEqual(by['README.md'].commit.id, first.id);
    });

    it('pages a directory by 25 with More-Logs-Offset, at a ref with a slash', async () => {
      const p1 = await logs(p, 'main/logs_tree/many?format=json');
      assert.equal(p1.status, 200, p1.text);
      assert.equal(p1.body.length, 25);
      assert.equal(p1.headers['more-logs-offset'], '25');
      const p2 = await logs(p, 'main/logs_tree/many?format=json&offset=25');
      assert.deepEqual(p2.body.map((e: any) => e.file_name), ['f25.txt', 'f26.txt', 'f27.txt', 'f28.txt', 'f29.txt']);
      assert.equal(p2.headers['more-logs-offset'], undefined);
      assert.deepEqual(
        [...p1.body, ...p2.body].map((e: any) => e.file_name),
        MANY.map((m) => m.file_path.slice('many/'.length)),
      );
      const f07 = p1.body.find((e: any) => e.file_name === 'f07.txt');
      assert.equal(f07.commit.id, titled.id);
      assert.ok(p1.body.filter((e: any) => e.file_name !== 'f07.txt').every((e: any) => e.commit.id === first.id));
      // past the end: nothing
      assert.deepEqual((await logs(p, 'main/logs_tree/many?format=json&offset=30')).body, []);
      const feature = await logs(p, 'feature/x/logs_tree/src?format=json');
      assert.equal(feature.status, 200, feature.text);
      assert.deepEqual(feature.body.map((e: any) => [e.file_name, e.commit.title]), [
        ['lib', 'Change deep inside src'],
        ['b.ts', 'Add many files'],
        ['feature.ts', 'Only on the feature'],
      ]);
    });

    it('404 for an unknown ref, a path that is no directory, or without format=json', async () => {
      for (const rest of ['nope/logs_tree/?format=json', 'main/logs_tree/nowhere?format=json', 'main/logs_tree/README.md?format=json']) {
        const r = await logs(p, rest);
        assert.equal(r.status, 404, rest);
        assert.match(String(r.headers['content-type']), /^application\/json/, rest);
      }
      // a page's address, not a script's: the 404 page (the sign-in page for a visitor)
      const user = await t.createUser({ password: 'user-password-1' });
      const page = await logs(p, 'main/logs_tree/', await session(user.username, 'user-password-1'));
      assert.equal(page.status, 404);
      assert.match(String(page.headers['content-type']), /^text\/html/);
      assert.equal((await logs(p, 'main/logs_tree/')).status, 302);
    });

    it('a private project: 404 to another user and to a guest, 401 signed out, 200 to a reporter', async () => {
      const other = await t.createUser({ password: 'other-password-1' });
      const guest = await memberWith(t, priv.id, 10);
      const reporter = await memberWith(t, priv.id, 20);
      const asOther = await logs(priv, 'main/logs_tree/?format=json', await session(other.username, 'other-password-1'));
      assert.deepEqual([asOther.status, asOther.body], [404, { message: '404 Not Found' }]);
      const asGuest = await logs(priv, 'main/logs_tree/?format=json', await session(guest.username, 'password123'));
      assert.equal(asGuest.status, 404);
      const anonymous = await logs(priv, 'main/logs_tree/?format=json');
      assert.equal(anonymous.status, 401);
      const asReporter = await logs(priv, 'main/logs_tree/?format=json', await session(reporter.username, 'password123'));
      assert.equal(asReporter.status, 200, asReporter.text);
      assert.deepEqual(asReporter.body.map((e: any) => e.file_name), ['README.md']);
    });
  });

  describe(`web: the tree page shows each entry's last commit (${dialect})`, () => {
    let s: WebServer;
    let browser: Browser;
    let ctx: BrowserContext;
    let page: Page;
    let project: any;
    let owner: Awaited<ReturnType<WebServer['createUser']>>;

    before(async () => {
      s = await startWebServer(dialect);
      browser = await launchBrowser();
      owner = await s.createUser('treeowner');
      project = (await s.api('POST', '/projects', { name: 'tree-commits', visibility: 'private', initialize_with_readme: true }, owner.token)).body;
      const write = async (message: string, actions: unknown[]) => {
        const r = await s.api('POST', `/projects/${project.id}/repository/commits`, { branch: 'main', commit_message: message, actions }, owner.token);
        assert.equal(r.status, 201, JSON.stringify(r.body));
      };
      await write('Add the docs', [{ action: 'create', file_path: 'docs/guide.md', content: 'guide\n' }, ...MANY]);
      await write('Tune <the> guide', [{ action: 'update', file_path: 'docs/guide.md', content: 'better guide\n' }]);
    });
    after(async () => {
      await ctx?.close();
      await browser?.close();
      await s?.stop();
    });

    it('each row links its last commit and tells when, in the viewer\'s zone with UTC on hover; a directory of 30 is filled past the first 25', async () => {
      ctx = await browser.newContext({ baseURL: s.url, timezoneId: 'Asia/Tokyo', viewport: { width: 390, height: 800 } });
      page = await ctx.newPage();
      await signIn(page, s.url, owner.username, owner.password);
      await page.goto(`/${project.path_with_namespace}/-/tree/main`);
      const docs = page.locator('table.tree tbody tr', { has: page.getByRole('link', { name: 'docs', exact: true }) });
      const link = docs.getByRole('link', { name: 'Tune <the> guide' });
      await link.waitFor();
      const href = await link.getAttribute('href');
      assert.match(href!, new RegExp(`^/${project.path_with_namespace}/-/commit/[0-9a-f]{40}$`));
      const time = docs.locator('time');
      assert.match((await time.getAttribute('title'))!, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
      assert.match(await time.innerText(), /GMT\+9|JST/);
      const readme = page.locator('table.tree tbody tr', { has: page.getByRole('link', { name: 'README.md', exact: true }) });
      await readme.getByRole('link', { name: 'Initial commit' }).waitFor();
      // the page does not scroll sideways at a phone's width: the table scrolls in its own box
      assert.equal(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), true);
      assert.deepEqual(await seriousA11yViolations(page), []);
      await screenshot(page, `${dialect}-tree-last-commits`);

      await page.goto(`/${project.path_with_namespace}/-/tree/main/many`);
      const last = page.locator('table.tree tbody tr', { has: page.getByRole('link', { name: 'f29.txt', exact: true }) });
      await last.getByRole('link', { name: 'Add the docs' }).waitFor();
      assert.equal(await page.locator('table.tree tbody tr:not(.parent) td:nth-child(3) a').count(), 30);
      await page.getByRole('link', { name: '..' }).click();
      await link.waitFor();
      await link.click();
      await page.waitForURL((u) => u.pathname === href);
    });
  });
}
