// The web interface's base, in a real browser against the real server: signing in and out, the
// session cookie and CSRF, the dashboard, creating a project from its form, the 404 page for a user
// without access, pages a logged-out visitor of a public project sees, and no serious a11y violations.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { DIALECTS } from '../helpers/build.js';
import { PAGE_CSP } from '../../src/web/routes.js';
import { WEB_ROOT_PASSWORD, launchBrowser, screenshot, seriousA11yViolations, signIn, startWebServer, type WebServer } from '../helpers/web.js';

for (const dialect of DIALECTS) {
  describe(`web interface: sign-in, dashboard, projects, 404 (${dialect})`, () => {
    let s: WebServer;
    let browser: Browser;
    let ctx: BrowserContext;
    let page: Page;
    let alice: Awaited<ReturnType<WebServer['createUser']>>;
    let bob: Awaited<ReturnType<WebServer['createUser']>>;
    let secret: any;
    let open: any;

    before(async () => {
      s = await startWebServer(dialect);
      browser = await launchBrowser();
      alice = await s.createUser('alice');
      bob = await s.createUser('bob');
      secret = (await s.api('POST', '/projects', { name: 'secret-plans', visibility: 'private', initialize_with_readme: true }, alice.token)).body;
      open = (await s.api('POST', '/projects', { name: 'open-source', visibility: 'public', description: 'For everyone', initialize_with_readme: true }, alice.token)).body;
    });
    after(async () => {
      await browser?.close();
      await s?.stop();
    });

    const fresh = async () => {
      await ctx?.close();
      ctx = await browser.newContext({ baseURL: s.url });
      page = await ctx.newPage();
      return page;
    };

    it('a wrong password is refused with the reference\'s words; the right one opens a session cookie (HttpOnly, SameSite=Lax)', async () => {
      await fresh();
      await page.goto('/users/sign_in');
      await page.getByLabel('Username or primary email').fill('alice');
      await page.getByLabel('Password').fill('wrong');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('alert').filter({ hasText: 'Invalid login or password.' }).waitFor();
      await screenshot(page, `${dialect}-sign-in-refused`);
      await signIn(page, s.url, 'alice@example.com', alice.password);
      const cookie = (await ctx.cookies()).find((c) => c.name === '_service_session');
      assert.ok(cookie, 'a _service_session cookie');
      assert.equal(cookie.httpOnly, true);
      assert.equal(cookie.sameSite, 'Lax');
      assert.equal(new URL(page.url()).pathname, '/');
      await page.getByRole('heading', { name: 'Your projects' }).waitFor();
      await page.getByRole('link', { name: /secret-plans/ }).waitFor();
      await screenshot(page, `${dialect}-dashboard`);
      assert.deepEqual(await seriousA11yViolations(page), []);
    });

    it('creates a project from the form and lands on its page (its web_url)', async () => {
      await page.goto('/projects/new');
      assert.deepEqual(await seriousA11yViolations(page), []);
      await page.getByLabel('Project name').fill('from-the-browser');
      await page.getByLabel('Public').check();
      await page.getByLabel('Initialize repository with a README').check();
      await page.getByRole('button', { name: 'Create project' }).click();
      await page.waitForURL(`${s.url}/alice/from-the-browser`);
      await page.getByRole('heading', { name: 'from-the-browser', level: 1 }).waitFor();
      const made = await s.api('GET', `/projects/${encodeURIComponent('alice/from-the-browser')}`, undefined, alice.token);
      assert.equal(made.status, 200);
      assert.equal(made.body.visibility, 'public');
      await screenshot(page, `${dialect}-project-created`);
      assert.deepEqual(await seriousA11yViolations(page), []);
    });

    it('a form\'s refusal by the API is shown beside it (a taken path)', async () => {
      await page.goto('/projects/new');
      await page.getByLabel('Project name').fill('from-the-browser');
      await page.getByRole('button', { name: 'Create project' }).click();
      await page.getByRole('alert').filter({ hasText: 'has already been taken' }).waitFor();
      assert.equal(new URL(page.url()).pathname, '/projects/new');
    });

    it('signing out ends the session: the cookie no longer works', async () => {
      const before = (await ctx.cookies()).find((c) => c.name === '_service_session')!.value;
      await page.goto('/');
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.waitForURL(`${s.url}/users/sign_in`);
      const r = await fetch(`${s.url}/api/v4/user`, { headers: { cookie: `_service_session=${before}` } });
      assert.equal(r.status, 401);
    });

    it('a signed-in user without access to a private project gets the 404 page; a visitor is sent to sign in', async () => {
      await fresh();
      await signIn(page, s.url, 'bob', bob.password);
      for (const path of [`/alice/secret-plans`, `/alice/secret-plans/-/pipelines`, '/no/such/thing']) {
        const res = await page.goto(path);
        assert.equal(res!.status(), 404, path);
        await page.getByRole('heading', { name: 'Page Not Found' }).waitFor();
      }
      await screenshot(page, `${dialect}-not-found`);
      assert.deepEqual(await seriousA11yViolations(page), []);
      await fresh();
      const res = await page.goto('/alice/secret-plans');
      assert.equal(new URL(page.url()).pathname, '/users/sign_in');
      assert.equal(new URL(page.url()).searchParams.get('redirect_to'), '/alice/secret-plans');
      assert.equal(res!.status(), 200);
      // after signing in, the visitor comes back to where they were going
      await page.getByLabel('Username or primary email').fill('alice');
      await page.getByLabel('Password').fill(alice.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(`${s.url}/alice/secret-plans`);
    });

    it('a logged-out visitor sees a public project, its owner\'s page and the explore list', async () => {
      await fresh();
      const res = await page.goto(new URL(open.web_url).pathname);
      assert.equal(res!.status(), 200);
      await page.getByRole('heading', { name: 'open-source', level: 1 }).waitFor();
      await page.locator('p.description').getByText('For everyone').waitFor(); // the README says it too
      assert.equal(await page.getByLabel('Clone with HTTP').inputValue(), open.http_url_to_repo);
      assert.deepEqual(await seriousA11yViolations(page), []);
      await screenshot(page, `${dialect}-public-project-visitor`);
      await page.goto('/alice');
      await page.getByRole('heading', { name: 'User alice' }).waitFor();
      await page.getByRole('table', { name: 'Projects' }).getByRole('link', { name: /open-source/ }).waitFor();
      assert.equal(await page.getByRole('link', { name: /secret-plans/ }).count(), 0);
      await page.goto('/explore/projects');
      await page.getByRole('link', { name: /open-source/ }).waitFor();
      assert.deepEqual(await seriousA11yViolations(page), []);
    });

    it('the sign-in page honours password_authentication_enabled_for_web', async () => {
      assert.equal((await s.api('PUT', '/application/settings', { password_authentication_enabled_for_web: false })).status, 200);
      try {
        await fresh();
        await page.goto('/users/sign_in');
        await page.getByText('Password sign-in is turned off').waitFor();
        const r = await fetch(`${s.url}/users/sign_in`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: `user[login]=root&user[password]=${WEB_ROOT_PASSWORD}`,
          redirect: 'manual',
        });
        assert.equal(r.status, 401);
        assert.equal(r.headers.get('set-cookie'), null);
      } finally {
        await s.api('PUT', '/application/settings', { password_authentication_enabled_for_web: true });
      }
    });

    it('HTTP rules: a cross-site sign-in is refused, sign-out needs the CSRF token, unknown API paths stay JSON', async () => {
      const form = `user[login]=root&user[password]=${WEB_ROOT_PASSWORD}`;
      const cross = await fetch(`${s.url}/users/sign_in`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'http://evil.example' },
        body: form,
        redirect: 'manual',
      });
      assert.equal(cross.status, 422);
      assert.equal(cross.headers.get('set-cookie'), null);
      const ok = await fetch(`${s.url}/users/sign_in`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form, redirect: 'manual' });
      assert.equal(ok.status, 302);
      const session = /_service_session=([^;]+)/.exec(ok.headers.get('set-cookie')!)![1];
      const forged = await fetch(`${s.url}/users/sign_out`, { method: 'POST', headers: { cookie: `_service_session=${session}` }, redirect: 'manual' });
      assert.equal(forged.status, 422);
      assert.equal((await fetch(`${s.url}/api/v4/user`, { headers: { cookie: `_service_session=${session}` } })).status, 200);
      // an open redirect is not followed
      const away = await fetch(`${s.url}/users/sign_in`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: `${form}&redirect_to=//evil.example/x`,
        redirect: 'manual',
      });
      assert.equal(away.headers.get('location'), '/');
      const unknown = await fetch(`${s.url}/api/v4/no-such-endpoint`);
      assert.equal(unknown.status, 404);
      assert.deepEqual(await unknown.json(), { error: '404 Not Found' });
    });

    it('every page forbids inline script and javascript: URLs (Content-Security-Policy); the pages still run their scripts', async () => {
      for (const path of ['/users/sign_in', '/explore/projects', `/${open.path_with_namespace}`, '/no/such/page']) {
        const r = await fetch(`${s.url}${path}`);
        assert.equal(r.headers.get('content-security-policy'), PAGE_CSP, path);
      }
      assert.equal((await fetch(`${s.url}/api/v4/version`)).headers.get('content-security-policy'), null, 'the API answers JSON, without a page policy');
      await fresh();
      const violations: string[] = [];
      page.on('console', (m) => { if (/Content Security Policy/.test(m.text())) violations.push(m.text()); });
      await signIn(page, s.url, 'alice@example.com', alice.password);
      await page.goto(`/${open.path_with_namespace}`);
      await page.locator('h1', { hasText: 'open-source' }).waitFor();
      assert.deepEqual(violations, [], 'Anvil\'s own pages break none of it');
      // what stored script would try: an inline handler, an inline script, a javascript: link
      await page.evaluate(() => {
        const w = window as unknown as Record<string, unknown>;
        w.__ran = [];
        document.body.insertAdjacentHTML('beforeend', '<img id="x1" src="/no-such-image" onerror="window.__ran.push(\'handler\')">');
        const sc = document.createElement('script');
        sc.textContent = "window.__ran.push('inline')";
        document.body.append(sc);
        document.body.insertAdjacentHTML('beforeend', '<a id="x2" href="javascript:window.__ran.push(\'link\')">x</a>');
      });
      await page.locator('#x2').click();
      // the browser reports each refusal on its own time (the link's after the click): wait for all three
      for (let waited = 0; violations.length < 3 && waited < 5000; waited += 100) await page.waitForTimeout(100);
      assert.ok(violations.length >= 3, violations.join('\n'));
      assert.deepEqual(await page.evaluate(() => (window as unknown as { __ran: string[] }).__ran), []);
    });
  });
}
