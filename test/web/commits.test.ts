// Commits and branches in a real browser against the real server: a commit's diff unified and
// split (and bounded when large), comparing two refs through the form, new branches and tags
// through their forms (with the refusals in words), ahead/behind counts, tags with release notes.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { DIALECTS } from '../helpers/build.js';
import { launchBrowser, screenshot, seriousA11yViolations, signIn, startWebServer, type WebServer } from '../helpers/web.js';

const lines = (n: number, word: string) => Array.from({ length: n }, (_, i) => `${word} line ${i + 1}`).join('\n') + '\n';

for (const dialect of DIALECTS) {
  describe(`web: commits, compare, branches and tags (${dialect})`, () => {
    let s: WebServer;
    let browser: Browser;
    let ctx: BrowserContext | undefined;
    let page: Page;
    let alice: Awaited<ReturnType<WebServer['createUser']>>;
    let dave: Awaited<ReturnType<WebServer['createUser']>>;
    let bob: Awaited<ReturnType<WebServer['createUser']>>;
    let p: any;
    let change: any;
    let big: any;

    const commit = async (body: Record<string, unknown>) => {
      const r = await s.api('POST', `/projects/${p.id}/repository/commits`, { branch: 'main', commit_message: 'change', ...body }, alice.token);
      assert.equal(r.status, 201, JSON.stringify(r.body));
      return r.body;
    };

    before(async () => {
      s = await startWebServer(dialect);
      browser = await launchBrowser();
      alice = await s.createUser('alice');
      dave = await s.createUser('dave');
      bob = await s.createUser('bob');
      p = (await s.api('POST', '/projects', { name: 'tools', visibility: 'public', initialize_with_readme: true }, alice.token)).body;
      assert.equal((await s.api('POST', `/projects/${p.id}/members`, { user_id: dave.id, access_level: 30 })).status, 201);
      assert.equal((await s.api('POST', `/projects/${p.id}/members`, { user_id: bob.id, access_level: 20 })).status, 201);
      await commit({ commit_message: 'Add the tool', actions: [{ action: 'create', file_path: 'src/tool.ts', content: 'const a = 1;\nconst b = 2;\nconst c = 3;\nexport { a, b, c };\n' }] });
      change = await commit({ commit_message: 'Change b', actions: [{ action: 'update', file_path: 'src/tool.ts', content: 'const a = 1;\nconst b = 20;\nconst c = 3;\nexport { a, b, c };\n' }] });
      // feature/x: two commits of its own; main then moves two further (2 behind, 2 ahead)
      assert.equal((await s.api('POST', `/projects/${p.id}/repository/branches`, { branch: 'feature/x', ref: 'main' }, alice.token)).status, 201);
      await commit({ branch: 'feature/x', commit_message: 'Feature part one', actions: [{ action: 'create', file_path: 'feature.txt', content: 'one\n' }] });
      await commit({ branch: 'feature/x', commit_message: 'Feature part two', actions: [{ action: 'update', file_path: 'feature.txt', content: 'one\ntwo\n' }] });
      await commit({ commit_message: 'Main moves on', actions: [{ action: 'create', file_path: 'main.txt', content: 'main\n' }] });
      // a large commit: one file of 3,000 lines and a small one beside it
      big = await commit({
        commit_message: 'Add the data',
        actions: [
          { action: 'create', file_path: 'data/big.txt', content: lines(3000, 'data') },
          { action: 'create', file_path: 'data/small.txt', content: 'small\n' },
        ],
      });
    });
    after(async () => {
      await ctx?.close();
      await browser?.close();
      await s?.stop();
    });

    const fresh = async (viewport = { width: 1280, height: 900 }) => {
      await ctx?.close();
      ctx = await browser.newContext({ baseURL: s.url, viewport });
      page = await ctx.newPage();
      page.on('dialog', (d) => void d.accept());
      return page;
    };
    const base = () => `/${p.path_with_namespace}`;
    const noSidewaysScroll = async () => {
      const [scroll, width] = (await page.evaluate('[document.documentElement.scrollWidth, window.innerWidth]')) as number[];
      assert.ok(scroll <= width, `page is ${scroll} px wide in a ${width} px window`);
    };

    it('a commit: unified by default, a link to the split view that shows old beside new, readable at 390 px', async () => {
      await fresh();
      await page.goto(`${base()}/-/commit/${change.id}`);
      const file = page.locator('section.file-diff', { hasText: 'src/tool.ts' });
      const unified = file.locator('table.diff:not(.split)');
      await unified.locator('tr.del', { hasText: 'const b = 2;' }).waitFor();
      await unified.locator('tr.add', { hasText: 'const b = 20;' }).waitFor();
      // highlighted as TypeScript, on the server
      assert.equal(await unified.locator('tr.add .k', { hasText: 'const' }).count(), 1);
      assert.equal(await page.getByRole('navigation', { name: 'Diff view' }).getByRole('link', { name: 'Unified' }).getAttribute('aria-current'), 'true');
      await page.getByRole('navigation', { name: 'Diff view' }).getByRole('link', { name: 'Split' }).click();
      await page.waitForURL(`${s.url}${base()}/-/commit/${change.id}?view=parallel`);
      // the removed line and its replacement on one row: old number and text left, new right
      const row = file.locator('table.diff.split tr', { hasText: 'const b = 20;' });
      const cells = await row.locator('td').allInnerTexts();
      assert.deepEqual(
        cells.map((t) => t.trim()),
        ['2', '-const b = 2;', '2', '+const b = 20;'],
      );
      assert.equal(await page.getByRole('link', { name: 'Split' }).getAttribute('aria-current'), 'true');
      assert.deepEqual(await seriousA11yViolations(page), []);
      await screenshot(page, `${dialect}-commit-split`);
      // back to unified through the toggle
      await page.getByRole('link', { name: 'Unified' }).click();
      await page.waitForURL(`${s.url}${base()}/-/commit/${change.id}`);
      await page.locator('table.diff:not(.split)').first().waitFor();

      for (const view of ['', '?view=parallel']) {
        await fresh({ width: 390, height: 800 });
        await page.goto(`${base()}/-/commit/${change.id}${view}`);
        await page.locator('section.file-diff').first().waitFor();
        await noSidewaysScroll();
      }
      await screenshot(page, `${dialect}-commit-split-phone`);
    });

    it('a large diff is bounded: the long file is collapsed with a link that shows it alone, whole', async () => {
      await fresh();
      const res = await page.goto(`${base()}/-/commit/${big.id}`);
      assert.equal(res!.status(), 200);
      const bigFile = page.locator('section.file-diff', { hasText: 'data/big.txt' });
      await bigFile.getByText('This diff is large (3001 lines), so it is collapsed.').waitFor();
      assert.equal(await bigFile.locator('table').count(), 0);
      // the small file is shown as usual
      await page.locator('section.file-diff', { hasText: 'data/small.txt' }).locator('tr.add', { hasText: 'small' }).waitFor();
      assert.ok((await res!.body()).length < 60_000, 'the page stays light');
      await bigFile.getByRole('link', { name: "Show this file's changes" }).click();
      await page.waitForURL((u) => u.searchParams.get('file') !== null);
      await page.locator('section.file-diff table.diff tr.add', { hasText: 'data line 3000' }).waitFor();
      assert.equal(await page.locator('section.file-diff').count(), 1);
      await page.getByRole('link', { name: 'Show all changed files' }).waitFor();
    });

    it('compare: from the branches page to the form, two refs picked, the commits and changes between them; an unknown ref said in words', async () => {
      await fresh();
      await page.goto(`${base()}/-/branches`);
      await page.getByRole('link', { name: 'Compare', exact: true }).click();
      await page.getByRole('heading', { name: 'Compare revisions' }).waitFor();
      await page.getByLabel('Source (base)').fill('main');
      await page.getByLabel('Target (compared)').fill('feature/x');
      await page.getByRole('button', { name: 'Compare' }).click();
      await page.waitForURL(`${s.url}${base()}/-/compare/main...feature/x`);
      const titles = await page.locator('ol.commit-list .commit-title').allInnerTexts();
      assert.deepEqual(titles, ['Feature part two', 'Feature part one']);
      // the diff is from the merge base: main's own later file is not in it
      await page.locator('section.file-diff', { hasText: 'feature.txt' }).locator('tr.add', { hasText: 'two' }).waitFor();
      assert.equal(await page.locator('section.file-diff', { hasText: 'main.txt' }).count(), 0);
      assert.deepEqual(await seriousA11yViolations(page), []);
      await screenshot(page, `${dialect}-compare`);
      await page.getByRole('link', { name: 'Split' }).click();
      await page.waitForURL(`${s.url}${base()}/-/compare/main...feature/x?view=parallel`);
      await page.locator('table.diff.split').first().waitFor();

      const res = await page.goto(`${base()}/-/compare/main...no-such-branch`);
      assert.equal(res!.status(), 404);
      await page.getByRole('alert').getByText('No branch, tag or commit is called no-such-branch.').waitFor();
    });

    it('branches: behind and ahead of the default branch, the ahead count leading to the comparison', async () => {
      await fresh();
      await page.goto(`${base()}/-/branches`);
      const row = page.locator('tr[data-branch="feature/x"]');
      assert.match(await row.locator('.divergence').innerText(), /2 behind · 2 ahead/);
      assert.equal(await page.locator('tr[data-branch="main"] .divergence').count(), 0, 'the default branch is not counted against itself');
      await row.getByRole('link', { name: '2 ahead' }).click();
      await page.waitForURL(`${s.url}${base()}/-/compare/main...feature/x`);
    });

    it('new branch: a developer creates one through the form from the branches page; a taken name and a bad ref are refused in words', async () => {
      await fresh();
      await signIn(page, s.url, dave.username, dave.password);
      await page.goto(`${base()}/-/branches`);
      await page.getByRole('link', { name: 'New branch' }).click();
      await page.getByRole('heading', { name: 'New branch' }).waitFor();
      await page.getByLabel('Branch name').fill('feature/x');
      await page.getByRole('button', { name: 'Create branch' }).click();
      await page.getByRole('alert').getByText('Branch already exists').waitFor();
      await page.getByLabel('Branch name').fill('fix/typo');
      await page.getByLabel('Create from').fill('nowhere');
      await page.getByRole('button', { name: 'Create branch' }).click();
      await page.getByRole('alert').getByText('Invalid reference name: nowhere').waitFor();
      assert.deepEqual(await seriousA11yViolations(page), []);
      await page.getByLabel('Create from').fill('feature/x');
      await page.getByRole('button', { name: 'Create branch' }).click();
      await page.waitForURL(`${s.url}${base()}/-/tree/fix/typo`);
      await page.getByRole('link', { name: 'feature.txt' }).waitFor();
      const b = await s.api('GET', `/projects/${p.id}/repository/branches/fix%2Ftypo`);
      assert.equal(b.body.commit.title, 'Feature part two');
    });

    it('a reporter gets no New branch or New tag button, and the forms say the role is too low', async () => {
      await fresh();
      await signIn(page, s.url, bob.username, bob.password);
      await page.goto(`${base()}/-/branches`);
      await page.getByRole('heading', { name: 'Branches' }).waitFor();
      assert.equal(await page.getByRole('link', { name: 'New branch' }).count(), 0);
      await page.goto(`${base()}/-/tags`);
      assert.equal(await page.getByRole('link', { name: 'New tag' }).count(), 0);
      for (const [what, url] of [['a branch', 'branches/new'], ['a tag', 'tags/new']]) {
        await page.goto(`${base()}/-/${url}`);
        await page.getByText(`Creating ${what} needs at least the Developer role in this project.`).waitFor();
        assert.equal(await page.locator('form[data-api]').count(), 0);
      }
    });

    it('new tag: created with release notes through the form; the tags page shows them rendered; a taken name is refused in words', async () => {
      await fresh();
      await signIn(page, s.url, dave.username, dave.password);
      await page.goto(`${base()}/-/tags`);
      await page.getByRole('link', { name: 'New tag' }).click();
      await page.getByLabel('Tag name').fill('v1.0.0');
      await page.getByLabel('Message and release notes').fill('First release\n\n## Fixed\n\n- the **b** constant');
      await page.getByRole('button', { name: 'Create tag' }).click();
      await page.waitForURL(`${s.url}${base()}/-/tags`);
      const row = page.locator('tr', { hasText: 'v1.0.0' });
      await row.locator('.release-notes').getByRole('heading', { name: 'Fixed' }).waitFor();
      assert.equal(await row.locator('.release-notes strong').innerText(), 'b');
      await row.getByRole('link', { name: 'v1.0.0' }).waitFor();
      assert.deepEqual(await seriousA11yViolations(page), []);
      await screenshot(page, `${dialect}-tags`);
      // the same name again
      await page.goto(`${base()}/-/tags/new`);
      await page.getByLabel('Tag name').fill('v1.0.0');
      await page.getByRole('button', { name: 'Create tag' }).click();
      await page.getByRole('alert').getByText('Tag v1.0.0 already exists').waitFor();
      const t = await s.api('GET', `/projects/${p.id}/repository/tags/v1.0.0`);
      assert.match(t.body.message, /^First release/);
    });
  });
}
