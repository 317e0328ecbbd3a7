// Every kind of page, on a phone (390 px) and on a desktop (1280 px): an administrator follows the
// links from the dashboard, the explore page, a group, a project with a repository, pipelines,
// settings and the admin area, and on each page reached checks that nothing scrolls sideways
// (`scrollWidth` within the viewport), that axe finds no serious or critical violation, and that
// no script error happened.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { DIALECTS } from '../helpers/build.js';
import { WEB_ROOT_PASSWORD, launchBrowser, seriousA11yViolations, signIn, startWebServer, type WebServer } from '../helpers/web.js';

/** Pages of one kind look alike: numbers, commit ids and paths inside a repository do not make a new kind. */
export function pageKind(pathname: string): string {
  const [base, rest] = pathname.split('/-/');
  const owner = base.split('/').filter(Boolean);
  let kind = owner.length > 0 && !['admin', 'dashboard', 'explore', 'projects', 'groups', 'users'].includes(owner[0]) ? `:ns${owner.length}` : base;
  if (rest !== undefined) {
    const parts = rest.split('/');
    // /-/blob/<ref>/<path>, /-/tree/…, /-/commits/…, /-/raw/…: the ref and path are the entry, not the kind
    const head = ['blob', 'tree', 'commits', 'raw', 'blame'].includes(parts[0]) ? [parts[0], parts.length > 2 ? 'path' : 'ref'] : parts;
    kind += '/-/' + head.join('/');
  }
  return kind.replace(/\/\d+(?=\/|$|\?)/g, '/:n').replace(/=\d+/g, '=:n').replace(/\/[0-9a-f]{40}(?=\/|$)/g, '/:sha');
}

/**
 * The outermost elements past the page's edge that no scrolling box holds (a string: the test's
 * transpiler would add helpers a page does not have).
 */
const WIDE_ELEMENTS = `(() => {
  const w = WIDTH, out = [];
  const held = (el) => { for (let a = el.parentElement; a; a = a.parentElement) if (/auto|scroll|hidden/.test(getComputedStyle(a).overflowX)) return true; return false; };
  for (const el of document.querySelectorAll('body *')) {
    const r = el.getBoundingClientRect(), parent = el.parentElement.getBoundingClientRect();
    if (r.right > w + 1 && parent.right <= w + 1 && !held(el) && out.length < 3) out.push(el.tagName.toLowerCase() + '.' + el.className + ' (' + Math.round(r.right) + ')');
  }
  return out;
})()`;

const SKIP = /\/users\/sign_out|\/raw\/|\/-\/archive\/|\/artifacts\/(download|raw)|\/download|\/uploads\/|\.(png|svg|zip|gz|json)$|\/api\/v4\//;
const WIDTHS = [390, 1280];
const MAX_PAGES = 90;

for (const dialect of DIALECTS) {
  describe(`web interface: every kind of page on a phone and a desktop (${dialect})`, () => {
    let s: WebServer;
    let browser: Browser;
    const contexts: BrowserContext[] = [];
    let project: any;

    before(async () => {
      s = await startWebServer(dialect, { ANVIL_RUNNER_SANDBOX: 'off' });
      browser = await launchBrowser();
      const alice = await s.createUser('alice');
      const group = (await s.api('POST', '/groups', { name: 'Acme Corporation', path: 'acme', visibility: 'public' })).body;
      await s.api('POST', '/groups', { name: 'Tools', path: 'tools', parent_id: group.id, visibility: 'public' });
      await s.api('POST', `/groups/${group.id}/members`, { user_id: alice.id, access_level: 30 });
      project = (await s.api('POST', '/projects', { name: 'Widget Factory', path: 'widget-factory', namespace_id: group.id, visibility: 'public', description: 'Makes widgets', topics: ['tools'] })).body;
      const long = `${'x'.repeat(400)}\n`;
      const ci = 'stages: [build, test]\nbuild:\n  stage: build\n  script: echo built\ntests:\n  stage: test\n  script: echo tested\nflaky:\n  stage: test\n  allow_failure: true\n  script: exit 1\ndeploy:\n  stage: test\n  when: manual\n  script: echo deployed\n';
      const commit = await s.api('POST', `/projects/${project.id}/repository/commits`, {
        branch: 'main', commit_message: 'Initial import of the widget factory with a long title that goes on and on for a while',
        actions: [
          { action: 'create', file_path: 'README.md', content: `# Widget Factory\n\nA very long line: ${'word '.repeat(80)}\n\n| a | b | c | d | e | f | g | h |\n|---|---|---|---|---|---|---|---|\n| ${'cell '.repeat(8)} | 2 | 3 | 4 | 5 | 6 | 7 | 8 |\n` },
          { action: 'create', file_path: 'src/very/deep/directory/structure/with_a_long_file_name_indeed.js', content: `const a = 1;\n${long}`.repeat(30) },
          { action: 'create', file_path: '.service-ci.yml', content: ci },
        ],
      });
      assert.equal(commit.status, 201, JSON.stringify(commit.body));
      await s.api('POST', `/projects/${project.id}/repository/branches`, { branch: 'feature/a-rather-long-branch-name-for-phones', ref: 'main' });
      await s.api('POST', `/projects/${project.id}/repository/tags`, { tag_name: 'v1.0.0', ref: 'main', message: 'First release' });
      await s.api('POST', `/projects/${project.id}/badges`, { link_url: 'https://example.com/%{project_path}', image_url: 'https://example.com/badge.svg' });
      await s.api('POST', `/projects/${project.id}/members`, { user_id: alice.id, access_level: 40 });
      // wait for the pipeline to finish, so its pages have jobs, logs and a graph
      for (let i = 0; i < 240; i++) {
        const p = (await s.api('GET', `/projects/${project.id}/pipelines`)).body[0];
        if (p && !['created', 'pending', 'running'].includes(p.status)) break;
        await new Promise((r) => setTimeout(r, 250));
      }
    });
    after(async () => {
      for (const c of contexts) await c.close();
      await browser?.close();
      await s?.stop();
    });

    it('an allowed-to-fail job says so in words (graph, job page), apart from a real failure; a status is never colour alone', async () => {
      const ctx = await browser.newContext({ baseURL: s.url });
      contexts.push(ctx);
      const page = await ctx.newPage();
      const pipeline = (await s.api('GET', `/projects/${project.id}/pipelines`)).body[0];
      const jobs = (await s.api('GET', `/projects/${project.id}/pipelines/${pipeline.id}/jobs`)).body;
      const flaky = jobs.find((j: any) => j.name === 'flaky');
      assert.equal(flaky.status, 'failed');
      assert.equal(pipeline.status, 'success'); // a job allowed to fail does not fail its pipeline
      await page.goto(new URL(pipeline.web_url).pathname);
      const node = page.locator('.job-node[data-job-name="flaky"]');
      assert.equal(await node.getAttribute('title'), 'flaky: failed (allowed to fail)');
      assert.match(await node.locator('.status').textContent() ?? '', /failed \(allowed to fail\)/);
      // the dot carries a glyph: a mark that is not colour
      const glyph = (sel: string) => page.evaluate((q) => getComputedStyle(document.querySelector(q)!, '::after').content, sel);
      assert.equal(await glyph('.job-node[data-job-name="flaky"] .status-dot'), '"!"');
      assert.equal(await glyph('.job-node[data-job-name="build"] .status-dot'), '"✓"');
      await page.goto(new URL(flaky.web_url).pathname);
      await page.getByText('failed (allowed to fail)').first().waitFor();
    });

    it('dead ends followed: the jobs list and its filter, pipelines of one ref (a badge\'s link), a manual job, Members in the menu, the favicon', async () => {
      const ctx = await browser.newContext({ baseURL: s.url });
      contexts.push(ctx);
      const page = await ctx.newPage();
      await signIn(page, s.url, 'root', WEB_ROOT_PASSWORD);
      const full = `/${project.path_with_namespace}`;
      await page.goto(`${full}/-/pipelines`);
      await page.getByRole('main').getByRole('link', { name: 'Jobs' }).click();
      await page.waitForURL(`${s.url}${full}/-/jobs`);
      // the rows are the API's list, newest first; the tab filters as the API's scope does
      const ids = () => page.locator('table.jobs tr[data-job-id]').evaluateAll((rows) => rows.map((r) => Number(r.getAttribute('data-job-id'))));
      const api = (q: string) => s.api('GET', `/projects/${project.id}/jobs?per_page=20${q}`).then((r) => r.body.map((j: any) => j.id));
      assert.deepEqual(await ids(), await api(''));
      await page.getByRole('link', { name: 'failed', exact: true }).click();
      await page.waitForURL(`${s.url}${full}/-/jobs?scope=failed`);
      const failed = await api('&scope[]=failed');
      assert.ok(failed.length > 0);
      assert.deepEqual(await ids(), failed);
      assert.deepEqual(await seriousA11yViolations(page), []);

      const main = (await s.api('GET', `/projects/${project.id}/pipelines?ref=main`)).body;
      await page.goto(`${full}/-/pipelines?ref=main`);
      assert.deepEqual(await page.locator('tr[data-pipeline-id]').evaluateAll((rows) => rows.map((r) => Number(r.getAttribute('data-pipeline-id')))), main.map((p: any) => p.id));
      await page.getByText('Pipelines for main').waitFor();
      await page.goto(`${full}/-/pipelines?ref=no-such-ref`);
      await page.getByText('No pipelines to show.').waitFor();
      await page.getByRole('link', { name: 'Show all refs' }).click();
      await page.waitForURL(`${s.url}${full}/-/pipelines`);

      const deploy = (await s.api('GET', `/projects/${project.id}/jobs?scope[]=manual`)).body[0];
      await page.goto(new URL(deploy.web_url).pathname);
      await page.getByText('This is a manual job: it runs when a developer runs it (Run job).').waitFor();
      await page.getByRole('button', { name: 'Run job' }).waitFor();

      await page.goto(`${full}/-/project_members`);
      assert.equal(await page.locator('nav.aside a[aria-current="page"]').innerText(), 'Members');
      const icon = await page.request.get(`${s.url}/favicon.ico`);
      assert.equal(icon.status(), 200);
      assert.equal(icon.headers()['content-type'], 'image/svg+xml');
      assert.equal(await page.locator('link[rel="icon"]').getAttribute('href'), '/favicon.svg');
    });

    for (const width of WIDTHS) {
      it(`${width} px: no page scrolls sideways, axe finds nothing serious, no script error`, async () => {
        const ctx = await browser.newContext({ baseURL: s.url, viewport: { width, height: 800 }, isMobile: width < 500, hasTouch: width < 500 });
        contexts.push(ctx);
        const page: Page = await ctx.newPage();
        const scriptErrors: string[] = [];
        page.on('pageerror', (e) => scriptErrors.push(`${page.url()}: ${e.message}`));
        await signIn(page, s.url, 'root', WEB_ROOT_PASSWORD);

        const full = project.path_with_namespace;
        const queue = ['/', '/dashboard/projects', '/explore/projects', '/acme', '/acme/tools', `/${full}`, `/${full}/-/pipelines`, '/admin', '/alice', '/-/profile/personal_access_tokens', '/projects/new', '/groups/new'];
        const seen = new Set<string>();
        const problems: string[] = [];
        let visited = 0;
        while (queue.length && visited < MAX_PAGES) {
          const next = queue.shift()!;
          const kind = pageKind(next);
          if (seen.has(kind)) continue;
          seen.add(kind);
          const res = await page.goto(next);
          visited++;
          if (!res || res.status() >= 400) {
            problems.push(`${next}: HTTP ${res?.status()}`);
            continue;
          }
          if (!(res.headers()['content-type'] ?? '').startsWith('text/html')) continue;
          // the phone's width as set, not innerWidth: a mobile browser widens its layout viewport to wide content
          const innerWidth = width;
          const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
          if (scrollWidth > innerWidth) {
            const wide: string[] = await page.evaluate(WIDE_ELEMENTS.replace('WIDTH', String(innerWidth)));
            problems.push(`${next}: ${scrollWidth} px wide: ${wide.join(', ')}`);
          }
          for (const v of await seriousA11yViolations(page)) problems.push(`${next}: ${v}`);
          const links: string[] = await page.$$eval('a[href]', (as) => as.map((a) => (a as HTMLAnchorElement).href));
          for (const href of links) {
            const u = new URL(href, s.url);
            if (u.origin !== new URL(s.url).origin || SKIP.test(u.pathname)) continue;
            if (!seen.has(pageKind(u.pathname))) queue.push(u.pathname + u.search);
          }
        }
        console.log(`# ${width} px: ${visited} pages: ${[...seen].join(' ')}`);
        assert.ok(visited >= 30, `only ${visited} pages were reached: ${[...seen].join(' ')}`);
        assert.deepEqual(problems, []);
        assert.deepEqual(scriptErrors, []);
      });
    }

    it('an archived project says so on every page and offers no Run pipeline', async () => {
      assert.equal((await s.api('POST', `/projects/${project.id}/archive`)).status, 201);
      const ctx = await browser.newContext({ baseURL: s.url });
      contexts.push(ctx);
      const page = await ctx.newPage();
      await signIn(page, s.url, 'root', WEB_ROOT_PASSWORD);
      for (const at of ['', '/-/pipelines', '/-/tree/main']) {
        await page.goto(`/${project.path_with_namespace}${at}`);
        await page.getByText('This project is archived. It is read-only: no pushes, pipelines or changes.').waitFor();
      }
      await page.goto(`/${project.path_with_namespace}/-/pipelines`);
      assert.equal(await page.getByText('Run a new pipeline').count(), 0);
    });
  });
}
