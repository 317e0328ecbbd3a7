// The repository pages in a real browser against the real server: the overview (README rendered
// safely, badges, languages, clone URL), tree, blob and raw views with refs holding slashes,
// commits and a commit's diff, branches and tags, and the protected branches settings — where a
// maintainer protects a branch in the browser and a developer's real `git push` to it is refused.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { DIALECTS } from '../helpers/build.js';
import { commitFiles, gitOk, runGit, type GitTestApp } from '../helpers/git.js';
import { launchBrowser, screenshot, seriousA11yViolations, signIn, startWebServer, type WebServer } from '../helpers/web.js';
import { renderMarkdown } from '../../src/web/views/markdown.js';
import { repoLinks } from '../../src/web/pages/repository_refs.js';

// A 1×1 PNG.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

const README = `# Showcase

A project to **show** the pages. See [the guide](docs/guide.md) and [the docs folder](docs/).

![Logo](img/logo.png)

<script>window.pwned = true</script>
<img src=x onerror="window.pwned = true">

[bad link](javascript:window.pwned=true) and [web](https://example.com/page) and [mail](mailto:a@example.com)
`;

describe('Markdown from a repository is made safe', () => {
  const project = { path_with_namespace: 'g/p' };
  const md = (src: string, dir = 'docs') => renderMarkdown(src, repoLinks(project, 'feature/x', dir)).text;

  it('drops script URLs however they are spelled, and data: images', () => {
    for (const href of ['javascript:alert(1)', 'JavaScript:alert(1)', 'java\tscript:alert(1)', '<java\nscript:alert(1)>', 'vbscript:x', 'data:text/html,<b>x</b>']) {
      const out = md(`[click](${href})`);
      assert.doesNotMatch(out, /<a /, href);
      assert.match(out, /click/);
    }
    assert.doesNotMatch(md('![x](data:image/png;base64,AAAA)'), /<img/);
    assert.doesNotMatch(md('![x](mailto:a@example.com)'), /<img/);
  });

  it('puts headings one level under the page\'s own title', () => {
    assert.match(md('# Title\n\n###### Six'), /<h2>Title<\/h2>[\s\S]*<h6>Six<\/h6>/);
  });

  it('shows raw HTML as text, block and inline', () => {
    const out = md('<div onclick="x()">hi</div>\n\ntext <b onmouseover="y()">bold</b> and <a href="javascript:z()">a</a>');
    assert.doesNotMatch(out, /<div onclick|<b |<a /);
    assert.match(out, /&lt;div onclick=&quot;x\(\)&quot;&gt;/);
    assert.match(out, /&lt;b onmouseover=&quot;y\(\)&quot;&gt;bold&lt;\/b&gt;/);
  });

  it('points relative links at the blob or tree view and images at raw, on the same ref, never above the root', () => {
    assert.match(md('[a](other.md)'), /href="\/g\/p\/-\/blob\/feature\/x\/docs\/other\.md"/);
    assert.match(md('[a](/top.md#part)'), /href="\/g\/p\/-\/blob\/feature\/x\/top\.md#part"/);
    assert.match(md('[a](../../../../etc/passwd)'), /href="\/g\/p\/-\/blob\/feature\/x\/etc\/passwd"/);
    assert.match(md('[a](sub/)'), /href="\/g\/p\/-\/tree\/feature\/x\/docs\/sub"/);
    assert.match(md('[a](#here)'), /href="#here"/);
    assert.match(md('![pic](<img/a b.png>)', ''), /src="\/g\/p\/-\/raw\/feature\/x\/img\/a%20b\.png"/);
    assert.match(md('[a](https://example.com/x?y=1&z=2)'), /href="https:\/\/example\.com\/x\?y=1&amp;z=2" rel="nofollow noopener noreferrer"/);
  });
});

for (const dialect of DIALECTS) {
  describe(`web: repository pages (${dialect})`, () => {
    let s: WebServer;
    let browser: Browser;
    let ctx: BrowserContext | undefined;
    let page: Page;
    let alice: Awaited<ReturnType<WebServer['createUser']>>;
    let dave: Awaited<ReturnType<WebServer['createUser']>>;
    let bob: Awaited<ReturnType<WebServer['createUser']>>;
    let open: any;
    let hidden: any;
    let change: any;
    const g = { tmp: fs.mkdtempSync(path.join(os.tmpdir(), 'anvil-webrepo-')) } as GitTestApp;

    const commit = async (project: any, body: Record<string, unknown>, token = alice.token) => {
      const r = await s.api('POST', `/projects/${project.id}/repository/commits`, { branch: 'main', commit_message: 'change', ...body }, token);
      assert.equal(r.status, 201, JSON.stringify(r.body));
      return r.body;
    };
    const gitUrl = (project: any, token: string, user: string) => {
      const u = new URL(`${s.url}/${project.path_with_namespace}.git`);
      u.username = user;
      u.password = token;
      return u.toString();
    };

    before(async () => {
      fs.mkdirSync(path.join(g.tmp, 'home'));
      s = await startWebServer(dialect);
      browser = await launchBrowser();
      alice = await s.createUser('alice');
      dave = await s.createUser('dave');
      bob = await s.createUser('bob');
      open = (await s.api('POST', '/projects', { name: 'showcase', visibility: 'public', description: 'Pages on show', initialize_with_readme: true }, alice.token)).body;
      hidden = (await s.api('POST', '/projects', { name: 'hidden', visibility: 'private', initialize_with_readme: true }, alice.token)).body;
      assert.equal((await s.api('POST', `/projects/${open.id}/members`, { user_id: dave.id, access_level: 30 })).status, 201);
      await commit(open, {
        commit_message: 'Add the pages to show',
        actions: [
          { action: 'update', file_path: 'README.md', content: README },
          { action: 'create', file_path: 'docs/guide.md', content: '# Guide\n\nBack to the [readme](../README.md).\n\n| a | b |\n|---|---|\n| 1 | 2 |\n' },
          { action: 'create', file_path: 'src/app.ts', content: 'export const one = 1;\nexport const two = 2;\nconsole.log(one + two);\n' },
          { action: 'create', file_path: 'img/logo.png', content: PNG.toString('base64'), encoding: 'base64' },
          { action: 'create', file_path: 'data.bin', content: Buffer.from([0, 1, 2, 3, 0, 255]).toString('base64'), encoding: 'base64' },
          { action: 'create', file_path: 'evil.html', content: '<script>document.title = "ran"</script><h1>not a page</h1>\n' },
          { action: 'create', file_path: 'pic.svg', content: '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script><rect width="10" height="10"/></svg>\n' },
        ],
      });
      change = await commit(open, {
        commit_message: 'Change a line\n\nWith a body that explains it.',
        actions: [
          { action: 'update', file_path: 'src/app.ts', content: 'export const one = 1;\nexport const two = 22;\nconsole.log(one + two);\n' },
          { action: 'create', file_path: '.service-ci.yml', content: 'check:\n  script: echo checked\n' },
        ],
      });
      const branch = await s.api('POST', `/projects/${open.id}/repository/branches`, { branch: 'feature/deep', ref: 'main' }, alice.token);
      assert.equal(branch.status, 201, `${JSON.stringify(branch.body)}\n${s.server.stderr()}\n${s.server.stdout()}`);
      await commit(open, { branch: 'feature/deep', commit_message: 'Deep work', actions: [{ action: 'create', file_path: 'src/deep.txt', content: 'only on the feature branch\n' }] });
      // a tag, pushed with the real git client
      const dir = path.join(g.tmp, 'tagger');
      await gitOk(g, ['clone', '--quiet', gitUrl(open, alice.token, 'alice'), dir]);
      await gitOk(g, ['tag', 'v1.0'], { cwd: dir });
      await gitOk(g, ['push', '--quiet', 'origin', 'v1.0'], { cwd: dir });
      await s.api('POST', `/projects/${open.id}/badges`, { name: 'pipeline', link_url: `${s.url}/%{project_path}/-/pipelines`, image_url: `${s.url}/%{project_path}/badges/%{default_branch}/pipeline.svg` }, alice.token);
    });
    after(async () => {
      await ctx?.close();
      await browser?.close();
      await s?.stop();
      fs.rmSync(g.tmp, { recursive: true, force: true });
    });

    const fresh = async () => {
      await ctx?.close();
      ctx = await browser.newContext({ baseURL: s.url });
      page = await ctx.newPage();
      page.on('dialog', (d) => void d.accept());
      return page;
    };
    const base = () => `/${open.path_with_namespace}`;

    it('overview for a visitor: README rendered with raw HTML shown as text and unsafe links dropped, relative links into the repository; badges, languages, clone URL, last commit', async () => {
      await fresh();
      const res = await page.goto(base());
      assert.equal(res!.status(), 200);
      await page.getByRole('heading', { name: 'showcase', level: 1, exact: true }).waitFor();
      await page.getByText('Pages on show').waitFor();
      const readme = page.locator('.readme .markdown');
      await readme.getByRole('heading', { name: 'Showcase' }).waitFor();
      assert.equal(await readme.locator('script').count(), 0);
      assert.equal(await readme.locator('img[onerror]').count(), 0);
      await readme.getByText('<script>window.pwned = true</script>').waitFor();
      assert.equal(await page.evaluate(() => (window as any).pwned), undefined);
      assert.equal(await readme.getByRole('link', { name: 'bad link' }).count(), 0);
      assert.equal(await readme.getByRole('link', { name: 'the guide' }).getAttribute('href'), `${base()}/-/blob/main/docs/guide.md`);
      assert.equal(await readme.getByRole('link', { name: 'the docs folder' }).getAttribute('href'), `${base()}/-/tree/main/docs`);
      assert.equal(await readme.getByRole('link', { name: 'web' }).getAttribute('href'), 'https://example.com/page');
      assert.equal(await readme.getByRole('link', { name: 'mail' }).getAttribute('href'), 'mailto:a@example.com');
      const logo = readme.getByRole('img', { name: 'Logo' });
      assert.equal(await logo.getAttribute('src'), `${base()}/-/raw/main/img/logo.png`);
      // the image loads from the raw view
      await page.waitForFunction((img) => (img as HTMLImageElement).complete && (img as HTMLImageElement).naturalWidth === 1, await logo.elementHandle());
      assert.equal(await page.getByLabel('Clone with HTTP').inputValue(), open.http_url_to_repo);
      assert.equal(await page.getByLabel('Clone with SSH').inputValue(), open.ssh_url_to_repo);
      await page.getByRole('button', { name: 'Copy URL' }).first().waitFor();
      const badge = page.getByRole('list', { name: 'Badges' }).getByRole('img', { name: 'pipeline' });
      assert.match((await badge.getAttribute('src'))!, /\/alice\/showcase\/badges\/main\/pipeline\.svg$/);
      await page.getByRole('heading', { name: 'Languages' }).waitFor();
      await page.locator('.language-list').getByText(/TypeScript/).waitFor();
      await page.locator('.last-commit').getByRole('link', { name: 'Change a line' }).waitFor();
      const facts = await page.locator('.facts').innerText();
      assert.match(facts, /Visibility\s+public/);
      assert.match(facts, /Default branch\s+main/);
      assert.deepEqual(await seriousA11yViolations(page), []);
      await screenshot(page, `${dialect}-repo-overview`);
    });

    it('tree: directories first, breadcrumbs, a ref with slashes resolved to the longest branch, the ref switcher', async () => {
      await fresh();
      await page.goto(`${base()}/-/tree/main`);
      const names = await page.locator('table.tree tbody td:first-child a').allInnerTexts();
      assert.deepEqual(names.slice(0, 3), ['docs', 'img', 'src']);
      assert.ok(names.includes('README.md') && names.includes('data.bin'));
      await page.getByRole('link', { name: 'docs', exact: true }).click();
      await page.waitForURL(`${s.url}${base()}/-/tree/main/docs`);
      await page.getByRole('navigation', { name: 'Breadcrumbs' }).getByText('docs').waitFor();
      await page.getByRole('link', { name: 'guide.md' }).waitFor();
      assert.equal(await page.locator('.readme').count(), 0, 'guide.md is no README');
      assert.deepEqual(await seriousA11yViolations(page), []);
      await screenshot(page, `${dialect}-repo-tree`);
      // `feature/deep/src` is the branch feature/deep, directory src
      const res = await page.goto(`${base()}/-/tree/feature/deep/src`);
      assert.equal(res!.status(), 200);
      await page.getByRole('link', { name: 'deep.txt' }).waitFor();
      assert.equal(await page.getByLabel('Branch or tag').inputValue(), 'feature/deep');
      await page.getByLabel('Branch or tag').selectOption('v1.0');
      await page.getByRole('button', { name: 'Switch' }).click();
      await page.waitForURL(`${s.url}${base()}/-/tree/v1.0/src`);
      assert.equal(await page.getByRole('link', { name: 'deep.txt' }).count(), 0);
      await page.getByRole('link', { name: 'app.ts' }).waitFor();
      // an unknown directory is not found: a visitor is sent to sign in
      assert.equal((await fetch(`${s.url}${base()}/-/tree/main/no-such-dir`, { redirect: 'manual' })).status, 302);
    });

    it('blob: text with line numbers and anchors, Markdown rendered with a toggle to its source, images through raw, binary as a download', async () => {
      await fresh();
      await page.goto(`${base()}/-/blob/main/src/app.ts#L2`);
      await page.getByRole('heading', { name: 'app.ts' }).waitFor();
      // a gutter of line links beside the code: #L2 is line 2's number, marked with a band across its line
      const line2 = page.locator('.code-lines .line').nth(1);
      assert.equal(await line2.innerText(), 'export const two = 22;');
      const number2 = page.getByRole('link', { name: '2', exact: true });
      assert.equal(await number2.getAttribute('href'), '#L2');
      assert.equal(await number2.getAttribute('id'), 'L2');
      const [n1, n2, l2] = [await page.locator('#L1').boundingBox(), await number2.boundingBox(), await line2.boundingBox()];
      const middle = (b: { y: number; height: number } | null) => b!.y + b!.height / 2;
      assert.ok(Math.abs(middle(n2) - middle(l2)) < 1 && n1!.y < n2!.y, `line 2's number at ${middle(n2)}, its code at ${middle(l2)}`);
      const band = await number2.evaluate((el) => getComputedStyle(el, '::before'));
      assert.notEqual(band.backgroundColor, 'rgba(0, 0, 0, 0)', 'the anchored line is marked');
      assert.ok(Number.parseFloat(band.width) > 300, `the band spans the line (${band.width})`);
      assert.equal(await page.getByRole('link', { name: 'Raw' }).getAttribute('href'), `${base()}/-/raw/main/src/app.ts`);
      assert.equal(await page.getByRole('link', { name: 'Download' }).getAttribute('href'), `${base()}/-/raw/main/src/app.ts?inline=false`);
      // highlighted on the server: the keyword is coloured, nothing waits for a script
      assert.equal(await line2.locator('.k').first().innerText(), 'export');
      assert.notEqual(await line2.locator('.k').first().evaluate((el) => getComputedStyle(el).color), await line2.evaluate((el) => getComputedStyle(el).color));
      // clicking a line number marks that line
      await page.getByRole('link', { name: '1', exact: true }).click();
      await page.waitForURL(/#L1$/);
      assert.notEqual(await page.locator('#L1').evaluate((el) => getComputedStyle(el, '::before').backgroundColor), 'rgba(0, 0, 0, 0)');
      assert.equal(await number2.evaluate((el) => getComputedStyle(el, '::before').content), 'none', 'line 2 is no longer marked');
      assert.deepEqual(await seriousA11yViolations(page), []);
      await screenshot(page, `${dialect}-repo-blob`);
      // blame: each run of lines beside the commit that last changed it
      await page.getByRole('link', { name: 'Blame' }).click();
      await page.waitForURL(`${s.url}${base()}/-/blame/main/src/app.ts`);
      await page.getByRole('heading', { name: 'Blame: app.ts' }).waitFor();
      assert.equal(await page.locator('.blame .line').nth(1).innerText(), 'export const two = 22;');
      assert.equal(await page.locator('.blame #L2').getAttribute('href'), '#L2');
      assert.ok((await page.locator('.blame-commit a').count()) >= 1);
      assert.deepEqual(await seriousA11yViolations(page), []);
      await screenshot(page, `${dialect}-repo-blame`);
      await page.goto(`${base()}/-/blob/main/docs/guide.md`);
      await page.locator('.markdown').getByRole('heading', { name: 'Guide' }).waitFor();
      assert.equal(await page.locator('.markdown').getByRole('link', { name: 'readme' }).getAttribute('href'), `${base()}/-/blob/main/README.md`);
      await page.getByRole('link', { name: 'Code' }).click();
      await page.waitForURL(/plain=1/);
      assert.equal(await page.locator('.code-lines .line').first().innerText(), '# Guide');
      assert.deepEqual(await seriousA11yViolations(page), []);
      await screenshot(page, `${dialect}-repo-blob-markdown-source`);
      await page.goto(`${base()}/-/blob/main/img/logo.png`);
      assert.equal(await page.getByRole('img', { name: 'logo.png' }).evaluate((img: HTMLImageElement) => img.naturalWidth), 1);
      await page.goto(`${base()}/-/blob/main/data.bin`);
      await page.getByText('holds binary data').waitFor();
      assert.equal(await page.getByRole('link', { name: 'Download data.bin' }).getAttribute('href'), `${base()}/-/raw/main/data.bin?inline=false`);
      // a branch with a slash in its name
      await page.goto(`${base()}/-/blob/feature/deep/src/deep.txt`);
      await page.getByText('only on the feature branch').waitFor();
      assert.equal((await fetch(`${s.url}${base()}/-/blob/main/nope.txt`, { redirect: 'manual' })).status, 302);
    });

    it('raw: text (HTML too) as text/plain, images with their type, SVG sandboxed, other bytes as an attachment; nosniff on all', async () => {
      const get = (p: string) => fetch(`${s.url}${base()}/-/raw/${p}`);
      const html = await get('main/evil.html');
      assert.equal(html.status, 200);
      assert.equal(html.headers.get('content-type'), 'text/plain; charset=utf-8');
      assert.equal(html.headers.get('x-content-type-options'), 'nosniff');
      assert.match(await html.text(), /^<script>/);
      const png = await get('main/img/logo.png');
      assert.equal(png.headers.get('content-type'), 'image/png');
      assert.deepEqual(Buffer.from(await png.arrayBuffer()), PNG);
      const svg = await get('main/pic.svg');
      assert.equal(svg.headers.get('content-type'), 'image/svg+xml');
      assert.match(svg.headers.get('content-security-policy')!, /sandbox/);
      const bin = await get('main/data.bin');
      assert.equal(bin.headers.get('content-type'), 'application/octet-stream');
      assert.match(bin.headers.get('content-disposition')!, /^attachment; filename="data.bin"/);
      assert.deepEqual([...Buffer.from(await bin.arrayBuffer())], [0, 1, 2, 3, 0, 255]);
      const deep = await get('feature/deep/src/deep.txt');
      assert.equal(await deep.text(), 'only on the feature branch\n');
      // opened in the browser, the HTML file runs nothing
      await fresh();
      await page.goto(`${base()}/-/raw/main/evil.html`);
      assert.notEqual(await page.title(), 'ran');
      assert.equal((await fetch(`${s.url}${base()}/-/raw/main/missing.txt`, { redirect: 'manual' })).status, 302, 'a visitor is sent to sign in');
    });

    it('commits: a paged list with a path filter; a commit page with its message, parents, pipeline and coloured diff', async () => {
      await fresh();
      await page.goto(`${base()}/-/commits/main`);
      await page.getByRole('heading', { name: 'Commits' }).waitFor();
      const titles = await page.locator('.commit-title').allInnerTexts();
      assert.deepEqual(titles.slice(0, 2), ['Change a line', 'Add the pages to show']);
      assert.deepEqual(await seriousA11yViolations(page), []);
      await screenshot(page, `${dialect}-repo-commits`);
      await page.getByLabel('Filter by path').fill('docs');
      await page.getByRole('button', { name: 'Filter' }).click();
      await page.waitForURL(/path=docs/);
      assert.deepEqual(await page.locator('.commit-title').allInnerTexts(), ['Add the pages to show']);
      await page.goto(`${base()}/-/commits/feature/deep`);
      assert.equal(await page.locator('.commit-title').first().innerText(), 'Deep work');

      await page.goto(`${base()}/-/commits/main`);
      await page.getByRole('link', { name: 'Change a line' }).click();
      await page.waitForURL(`${s.url}${base()}/-/commit/${change.id}`);
      await page.getByRole('heading', { name: 'Change a line', level: 1 }).waitFor();
      await page.getByText('With a body that explains it.').waitFor();
      await page.locator('.facts').getByRole('link', { name: change.parent_ids[0].slice(0, 8) }).waitFor();
      const app = page.locator('section.file-diff', { has: page.getByRole('heading', { name: /src\/app\.ts/ }) });
      await page.locator('section.file-diff', { has: page.getByRole('heading', { name: /\.service-ci\.yml added/ }) }).waitFor();
      const added = app.locator('table.diff tr.add');
      const removed = app.locator('table.diff tr.del');
      assert.deepEqual(await added.locator('td.dc').allInnerTexts(), ['+export const two = 22;']);
      assert.deepEqual(await removed.locator('td.dc').allInnerTexts(), ['-export const two = 2;']);
      assert.equal(await added.locator('td.dc').evaluate((el) => getComputedStyle(el).backgroundColor), 'rgb(230, 255, 236)');
      assert.equal(await removed.locator('td.dc').evaluate((el) => getComputedStyle(el).backgroundColor), 'rgb(255, 235, 233)');
      // the commit's CI file made a pipeline (in the background): the page shows it with its status
      let pipeline: any;
      for (let i = 0; i < 100 && !pipeline; i++) {
        pipeline = (await s.api('GET', `/projects/${open.id}/pipelines?sha=${change.id}`)).body[0];
        if (!pipeline) await new Promise((r) => setTimeout(r, 200));
      }
      assert.ok(pipeline, 'a pipeline for the commit');
      await page.reload();
      const shown = page.locator('.facts dd.pipeline');
      assert.equal(await shown.getByRole('link').getAttribute('href'), `${base()}/-/pipelines/${pipeline.id}`);
      assert.match(await shown.innerText(), new RegExp(`#${pipeline.id}$`));
      assert.ok(['created', 'pending', 'running', 'success', 'failed'].includes((await shown.locator('[data-status]').getAttribute('data-status'))!));
      await page.goto(`${base()}/-/commit/${change.parent_ids[0]}`);
      assert.equal(await page.locator('.facts dd.pipeline').innerText(), 'none');
      await page.goBack();
      assert.deepEqual(await seriousA11yViolations(page), []);
      await screenshot(page, `${dialect}-repo-commit`);
      assert.equal((await fetch(`${s.url}${base()}/-/commit/${'0'.repeat(40)}`, { redirect: 'manual' })).status, 302);
    });

    it('commits are paged, 20 to a page, with Next and Previous links', async () => {
      assert.equal((await s.api('POST', `/projects/${open.id}/repository/branches`, { branch: 'many', ref: 'main' }, alice.token)).status, 201);
      for (let i = 1; i <= 20; i++) await commit(open, { branch: 'many', commit_message: `Step ${i}`, actions: [{ action: 'create', file_path: `steps/${i}.txt`, content: `${i}\n` }] });
      await fresh();
      await page.goto(`${base()}/-/commits/many`);
      const first = await page.locator('.commit-title').allInnerTexts();
      assert.equal(first.length, 20);
      assert.deepEqual([first[0], first[19]], ['Step 20', 'Step 1']);
      await page.getByRole('link', { name: 'Next' }).click();
      await page.waitForURL(/page=2/);
      assert.deepEqual((await page.locator('.commit-title').allInnerTexts()).slice(0, 2), ['Change a line', 'Add the pages to show']);
      await page.getByRole('link', { name: 'Previous' }).waitFor();
      assert.equal(await page.getByRole('link', { name: 'Next' }).count(), 0);
    });

    it('branches and tags for a visitor: default and protected branches marked, who may push and merge, no delete buttons', async () => {
      await fresh();
      await page.goto(`${base()}/-/branches`);
      await page.getByRole('heading', { name: 'Branches' }).waitFor();
      const main = page.locator('tr[data-branch="main"]');
      await main.getByText('default').waitFor();
      await main.getByText('protected').waitFor();
      await main.getByText('Allowed to push: Maintainers').waitFor();
      await page.locator('tr[data-branch="feature/deep"]').getByText('Not protected').waitFor();
      assert.equal(await page.getByRole('button', { name: /Delete/ }).count(), 0);
      assert.deepEqual(await seriousA11yViolations(page), []);
      await screenshot(page, `${dialect}-repo-branches-visitor`);
      await page.getByRole('link', { name: 'Tags' }).click();
      await page.getByRole('heading', { name: 'Tags' }).waitFor();
      await page.getByRole('link', { name: 'v1.0' }).waitFor();
      assert.deepEqual(await seriousA11yViolations(page), []);
      await screenshot(page, `${dialect}-repo-tags`);
    });

    it('a developer deletes a branch from the list; the default and protected ones offer no delete; the settings page is the 404 page for them', async () => {
      assert.equal((await s.api('POST', `/projects/${open.id}/repository/branches`, { branch: 'old-idea', ref: 'main' }, alice.token)).status, 201);
      await fresh();
      await signIn(page, s.url, 'dave', dave.password);
      await page.goto(`${base()}/-/branches`);
      assert.equal(await page.locator('tr[data-branch="main"]').getByRole('button').count(), 0);
      await page.getByRole('button', { name: 'Delete branch old-idea' }).click();
      await page.locator('tr[data-branch="old-idea"]').waitFor({ state: 'detached' });
      assert.equal((await s.api('GET', `/projects/${open.id}/repository/branches/old-idea`)).status, 404);
      const res = await page.goto(`${base()}/-/settings/repository`);
      assert.equal(res!.status(), 404);
      await page.getByRole('heading', { name: 'Page Not Found' }).waitFor();
    });

    it('a maintainer protects a branch in the browser and then a developer\'s git push to it is refused; unprotecting lets it through', async () => {
      // the developer starts a release branch with git
      const work = path.join(g.tmp, 'dave-work');
      await gitOk(g, ['clone', '--quiet', gitUrl(open, dave.token, 'dave'), work]);
      await gitOk(g, ['checkout', '--quiet', '-b', 'release'], { cwd: work });
      await commitFiles(g, work, { 'release.txt': 'one\n' }, 'Start release');
      await gitOk(g, ['push', '--quiet', 'origin', 'release'], { cwd: work });

      await fresh();
      await signIn(page, s.url, 'alice', alice.password);
      await page.goto(`${base()}/-/settings/repository`);
      await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Repository' }).waitFor();
      await page.getByLabel('Branch', { exact: true }).fill('release');
      await page.getByLabel('Allowed to merge').selectOption({ label: 'Maintainers' });
      await page.getByLabel('Allowed to push and merge').selectOption({ label: 'Maintainers' });
      await page.getByRole('button', { name: 'Protect', exact: true }).click();
      const row = page.locator('tr[data-protected="release"]');
      await row.waitFor();
      assert.deepEqual(await row.locator('td').allInnerTexts(), ['release', 'Maintainers', 'Maintainers', 'No', 'Unprotect']);
      const rule = await s.api('GET', `/projects/${open.id}/protected_branches/release`, undefined, alice.token);
      assert.equal(rule.body.push_access_levels[0].access_level, 40);
      assert.deepEqual(await seriousA11yViolations(page), []);
      await screenshot(page, `${dialect}-repo-protected-branches`);

      await commitFiles(g, work, { 'release.txt': 'two\n' }, 'More release work');
      const refused = await runGit(g, ['push', 'origin', 'release'], { cwd: work });
      assert.notEqual(refused.code, 0);
      assert.match(refused.stderr, /You are not allowed to push code to protected branches on this project\./);

      // a bad name is refused by the API, shown beside the form
      await page.getByLabel('Branch', { exact: true }).fill('release');
      await page.getByRole('button', { name: 'Protect', exact: true }).click();
      await page.getByRole('alert').filter({ hasText: /already/i }).waitFor();

      await row.getByRole('button', { name: 'Unprotect release' }).click();
      await row.waitFor({ state: 'detached' });
      const pushed = await runGit(g, ['push', 'origin', 'release'], { cwd: work });
      assert.equal(pushed.code, 0, pushed.stderr);
    });

    it('a user without access gets the 404 page on each repository page of a private project; a visitor is sent to sign in', async () => {
      const first = (await s.api('GET', `/projects/${hidden.id}/repository/commits`, undefined, alice.token)).body[0];
      const pages = ['', '/-/tree/main', '/-/blob/main/README.md', '/-/raw/main/README.md', '/-/commits/main', `/-/commit/${first.id}`, '/-/branches', '/-/tags', '/-/settings/repository'].map(
        (p) => `/${hidden.path_with_namespace}${p}`,
      );
      await fresh();
      await signIn(page, s.url, 'bob', bob.password);
      for (const p of pages) {
        const res = await page.goto(p);
        assert.equal(res!.status(), 404, p);
        await page.getByRole('heading', { name: 'Page Not Found' }).waitFor();
      }
      await screenshot(page, `${dialect}-repo-private-404`);
      for (const p of pages) {
        const r = await fetch(`${s.url}${p}`, { redirect: 'manual' });
        assert.equal(r.status, 302, p);
        assert.match(r.headers.get('location')!, /^\/users\/sign_in\?redirect_to=/);
      }
      // the owner sees them
      await fresh();
      await signIn(page, s.url, 'alice', alice.password);
      assert.equal((await page.goto(`/${hidden.path_with_namespace}/-/blob/main/README.md`))!.status(), 200);
    });
  });
}
