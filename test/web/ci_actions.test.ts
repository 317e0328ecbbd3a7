// The CI pages' actions and reading aids in a real browser against the real server: the
// pipelines list's stage icons, live rows and ticking durations; a job log's line anchors, search
// and the pipeline's other jobs beside it; a manual job run with a variable that reaches its log;
// a failed job retried from the graph; a bridge's page and a child pipeline linked both ways; a
// pipeline run with variables; a developer offered no action on a protected branch's pipeline and
// cancel ("Pipeline canceled.") on their branch's; deleting a pipeline, offered to its owner only.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { DIALECTS } from '../helpers/build.js';
import { waitFor } from '../helpers/queue.js';
import { launchBrowser, screenshot, seriousA11yViolations, signIn, startWebServer, type WebServer } from '../helpers/web.js';

const ciFile = (signal: string) => `stages: [build, test]
build:
  stage: build
  script:
    - for i in $(seq 1 60); do echo "build line $i"; done
    - echo "a needle in the log"
    - for i in $(seq 600); do [ -e ${signal} ] && break; sleep 0.1; done
flaky:
  stage: test
  allow_failure: true
  script: exit 1
deploy:
  stage: test
  when: manual
  script: echo "GREETING is $GREETING and OTHER is $OTHER"
release-notes-for-the-customer-facing-documentation-portal-and-its-mirrors:
  stage: test
  script: echo long
child:
  stage: test
  trigger:
    include: child.yml
`;

for (const dialect of DIALECTS) {
  describe(`web CI actions and reading aids (${dialect})`, () => {
    let s: WebServer;
    let browser: Browser;
    let ctx: BrowserContext;
    let page: Page;
    let alice: Awaited<ReturnType<WebServer['createUser']>>;
    let dave: Awaited<ReturnType<WebServer['createUser']>>;
    let project: any;
    let pipeline: any;
    let tmp: string;
    const signal = () => path.join(tmp, 'go');
    const jobsOf = async (pipelineId: number, all = false) =>
      (await s.api('GET', `/projects/${project.id}/pipelines/${pipelineId}/jobs${all ? '?include_retried=true' : ''}`, undefined, alice.token)).body as any[];

    before(async () => {
      // the build job waits for a file the test makes in a host folder: no sandbox (CI views here)
      s = await startWebServer(dialect, { ANVIL_RUNNER_SANDBOX: 'off' });
      browser = await launchBrowser();
      tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'anvil-web-ci-actions-'));
      alice = await s.createUser('alice');
      dave = await s.createUser('dave');
      project = (await s.api('POST', '/projects', { name: 'ci-actions', visibility: 'private', initialize_with_readme: true }, alice.token)).body;
      assert.equal((await s.api('POST', `/projects/${project.id}/members`, { user_id: dave.id, access_level: 30 })).status, 201);
      const put = await s.api('POST', `/projects/${project.id}/repository/commits`, {
        branch: 'main', commit_message: 'ci', actions: [
          { action: 'create', file_path: '.service-ci.yml', content: ciFile(signal()) },
          // the child is a pipeline of one trigger job, whose grandchild runs a job
          { action: 'create', file_path: 'child.yml', content: 'grandchild:\n  trigger:\n    include: grandchild.yml\n' },
          { action: 'create', file_path: 'grandchild.yml', content: 'grandchild-job:\n  script: echo grandchild\n' },
        ],
      }, alice.token);
      assert.equal(put.status, 201, JSON.stringify(put.body));
      pipeline = await waitFor('the pipeline', async () => (await s.api('GET', `/projects/${project.id}/pipelines`, undefined, alice.token)).body[0], 60_000);
    });
    after(async () => {
      await browser?.close();
      await s?.stop();
      if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
    });

    const as = async (user: { username: string; password: string }) => {
      await ctx?.close();
      ctx = await browser.newContext({ baseURL: s.url, viewport: { width: 1280, height: 900 } });
      page = await ctx.newPage();
      await signIn(page, s.url, user.username, user.password);
      return page;
    };
    /** A [data-since] duration's text now and 2.5 s later. */
    const ticks = async (sel: string) => {
      const first = await page.locator(sel).first().textContent();
      await page.waitForTimeout(2500);
      return [first, await page.locator(sel).first().textContent()];
    };

    it('the pipelines list: stage icons, a running duration that ticks, the row following the run without a reload', async () => {
      await as(alice);
      const build = await waitFor('build to run', async () => (await jobsOf(pipeline.id)).find((j) => j.name === 'build' && j.status === 'running'), 60_000);
      await page.goto('/alice/ci-actions/-/pipelines');
      await page.evaluate(() => ((window as any).__sameDocument = true));
      const row = page.locator(`tr[data-pipeline-id="${pipeline.id}"]`);
      assert.equal(await row.getAttribute('data-status'), 'running');
      assert.equal(await row.locator('.stage-icons [data-stage="build"]').getAttribute('title'), 'build: running');
      assert.equal(await row.locator('.stage-icons [data-stage="test"]').getAttribute('title'), 'test: created');
      const [a, b] = await ticks(`tr[data-pipeline-id="${pipeline.id}"] [data-since]`);
      assert.notEqual(a, b, `the duration ticks (${a} → ${b})`);
      assert.deepEqual(await seriousA11yViolations(page), []);
      await screenshot(page, `${dialect}-ci-list-running`);

      // the running job's page ticks too
      await page.goto(new URL(build.web_url).pathname);
      const [c, d] = await ticks('[data-job-facts] [data-since]');
      assert.notEqual(c, d, `the job's duration ticks (${c} → ${d})`);

      await page.goto('/alice/ci-actions/-/pipelines');
      await page.evaluate(() => ((window as any).__sameDocument = true));
      fs.writeFileSync(signal(), '');
      await row.locator('.stage-icons [data-stage="build"][data-status="success"]').waitFor({ timeout: 60_000 });
      await page.locator(`tr[data-pipeline-id="${pipeline.id}"]:not([data-status="running"]):not([data-status="pending"])`).waitFor({ timeout: 60_000 });
      assert.equal(await page.evaluate(() => (window as any).__sameDocument), true, 'the list was not reloaded');
      assert.equal(await row.locator('[data-since]').count(), 0, 'a finished pipeline does not tick');
    });

    it("a job's log: numbered lines with anchors, a search box, the pipeline's other jobs beside it", async () => {
      const build = (await jobsOf(pipeline.id)).find((j) => j.name === 'build');
      await waitFor('build to finish', async () => (await s.api('GET', `/projects/${project.id}/jobs/${build.id}`, undefined, alice.token)).body.status === 'success', 60_000);
      await page.goto(new URL(build.web_url).pathname);
      const line30 = page.locator('.log-line', { hasText: /build line 30\n?$/ });
      const id = await line30.getAttribute('id');
      assert.match(id!, /^L\d+$/);
      assert.equal(await line30.locator('.ln').getAttribute('href'), `#${id}`);
      assert.equal(await line30.locator('.ln').textContent(), id!.slice(1));
      // a link to a line shows it, marked
      await page.goto(`${new URL(build.web_url).pathname}#${id}`);
      await page.locator(`#${id}.is-target`).waitFor();
      // following a line number's link marks that line
      // each line reads its number, its time, its text
      const needle = page.locator('.log-line', { hasText: /^\d+(\d\d:\d\d:\d\d)?a needle in the log\n?$/ });
      await needle.locator('.ln').click();
      assert.equal(new URL(page.url()).hash, `#${await needle.getAttribute('id')}`);
      await page.locator('.log-line.is-target', { hasText: 'a needle in the log' }).waitFor();
      // search: "build line 5" is in lines 5 and 50–59
      const search = page.getByRole('searchbox', { name: 'Search the log' });
      await search.fill('build line 5');
      await page.locator('[data-log-search-count]', { hasText: '11 lines' }).waitFor();
      assert.equal(await page.locator('.log-line.log-match').count(), 11);
      await search.press('Enter');
      await page.locator('[data-log-search-count]', { hasText: '1 of 11 lines' }).waitFor();
      assert.match((await page.locator('.log-line.is-current').textContent())!, /build line 5\n?$/);
      // the pipeline's jobs beside the log, this one marked
      const others = page.getByRole('navigation', { name: `Jobs of pipeline #${pipeline.id}` });
      assert.equal(await others.locator('[aria-current="page"]').textContent().then((t) => t!.trim()), 'success build');
      await others.getByRole('link', { name: /flaky/ }).waitFor();
      assert.deepEqual(await seriousA11yViolations(page), []);
      await screenshot(page, `${dialect}-ci-log-search`);
    });

    // (main is protected: running its jobs is a maintainer's, so alice runs them; dave, a developer, only looks)
    it("a manual job's page runs it with variables, which reach its log", async () => {
      const deploy = (await jobsOf(pipeline.id)).find((j) => j.name === 'deploy');
      assert.equal(deploy.status, 'manual');
      await page.goto(new URL(deploy.web_url).pathname);
      const form = page.locator('form', { has: page.getByRole('button', { name: 'Run job' }) });
      await form.getByLabel('Key').fill('GREETING');
      await form.getByLabel('Value').fill('hello from the form');
      await form.getByRole('button', { name: 'Add variable' }).click();
      await form.getByLabel('Key').nth(1).fill('OTHER');
      await form.getByLabel('Value').nth(1).fill('second row');
      assert.deepEqual(await seriousA11yViolations(page), []);
      await screenshot(page, `${dialect}-ci-manual-play`);
      await form.getByRole('button', { name: 'Run job' }).click();
      await page.locator('[data-job-log]').getByText('GREETING is hello from the form and OTHER is second row').last().waitFor({ timeout: 60_000 });
    });

    it("the graph's buttons: a failed job is retried in place", async () => {
      await page.goto(new URL(pipeline.web_url).pathname);
      await page.evaluate(() => ((window as any).__sameDocument = true));
      const flaky = page.locator('.job-node[data-job-name="flaky"]');
      const before = await flaky.getAttribute('data-job-id');
      await page.getByRole('button', { name: 'Retry flaky' }).click();
      await page.locator(`.job-node[data-job-name="flaky"]:not([data-job-id="${before}"])`).waitFor({ timeout: 30_000 });
      assert.equal((await jobsOf(pipeline.id, true)).filter((j) => j.name === 'flaky').length, 2, 'the retry is a new job');
      assert.equal(await page.evaluate(() => (window as any).__sameDocument), true, 'the pipeline page was not reloaded');
      assert.deepEqual(await seriousA11yViolations(page), []);
      await screenshot(page, `${dialect}-ci-graph-actions`);
    });

    it("a bridge's page shows its downstream pipeline; a child pipeline says so and links to its parent", async () => {
      const bridge = (await s.api('GET', `/projects/${project.id}/pipelines/${pipeline.id}/bridges`, undefined, alice.token)).body[0];
      const childId = await waitFor('the child pipeline', async () => (await s.api('GET', `/projects/${project.id}/pipelines/${pipeline.id}/bridges`, undefined, alice.token)).body[0].downstream_pipeline?.id, 60_000);
      // the bridge's web_url is a page
      const res = await page.goto(new URL(bridge.web_url).pathname);
      assert.equal(res!.status(), 200);
      await page.getByRole('heading', { name: /Trigger job child/, level: 1 }).waitFor();
      assert.deepEqual(await seriousA11yViolations(page), []);
      await page.getByRole('link', { name: `#${childId}` }).click();
      await page.waitForURL(`${s.url}/alice/ci-actions/-/pipelines/${childId}`);
      await page.getByText(`This is a child pipeline of pipeline #${pipeline.id}.`).waitFor();
      assert.deepEqual(await seriousA11yViolations(page), []);
      await screenshot(page, `${dialect}-ci-child`);
      await page.getByRole('link', { name: `pipeline #${pipeline.id}` }).click();
      await page.waitForURL(`${s.url}/alice/ci-actions/-/pipelines/${pipeline.id}`);
      // and the parent's graph leads to the child
      await page.locator('.job-node.bridge[data-job-name="child"]').click();
      await page.waitForURL(`${s.url}/alice/ci-actions/-/pipelines/${childId}`);

      // a pipeline of trigger jobs alone: its bridge has a page too, and the grandchild links to the child
      const inner = await waitFor('the grandchild pipeline', async () => {
        const b = (await s.api('GET', `/projects/${project.id}/pipelines/${childId}/bridges`, undefined, alice.token)).body[0];
        return b?.downstream_pipeline ? b : undefined;
      }, 60_000);
      assert.equal((await page.goto(new URL(inner.web_url).pathname))!.status(), 200);
      await page.getByRole('heading', { name: /Trigger job grandchild/, level: 1 }).waitFor();
      await page.getByRole('link', { name: `#${inner.downstream_pipeline.id}` }).click();
      await page.getByText(`This is a child pipeline of pipeline #${childId}.`).waitFor();
      // someone without access to the project finds no bridge page
      assert.equal((await fetch(`${s.url}${new URL(inner.web_url).pathname}`, { redirect: 'manual' })).status, 302, 'a visitor is sent to sign in');
    });

    it('a pipeline runs with variables from the list form', async () => {
      await page.goto('/alice/ci-actions/-/pipelines');
      await page.getByText('Run a new pipeline').click();
      const form = page.locator('form', { has: page.getByRole('button', { name: 'Run pipeline' }) });
      await form.getByLabel('Key').fill('RUN_VAR');
      await form.getByLabel('Value').fill('from the list');
      await form.getByRole('button', { name: 'Add variable' }).click();
      await form.getByLabel('Key').nth(1).fill('RUN_FILE');
      await form.getByLabel('Value').nth(1).fill('file body');
      await form.getByLabel('Type').nth(1).selectOption('file');
      assert.deepEqual(await seriousA11yViolations(page), []);
      await form.getByRole('button', { name: 'Run pipeline' }).click();
      await page.waitForURL((u) => /\/-\/pipelines\/\d+$/.test(u.pathname) && !u.pathname.endsWith(`/${pipeline.id}`));
      const id = Number(new URL(page.url()).pathname.split('/').pop());
      const vars = (await s.api('GET', `/projects/${project.id}/pipelines/${id}/variables`, undefined, alice.token)).body;
      assert.deepEqual(vars.map((v: any) => [v.key, v.value, v.variable_type]).sort(), [['RUN_FILE', 'file body', 'file'], ['RUN_VAR', 'from the list', 'env_var']]);
    });

    it("a developer is offered no action the API refuses: none on the protected main's pipeline, retry and cancel on a branch's", async () => {
      await as(dave);
      await page.goto(new URL(pipeline.web_url).pathname);
      await page.locator('.job-node[data-job-name="flaky"]').waitFor();
      for (const name of ['Retry flaky', 'Retry', 'Cancel pipeline', 'Delete']) assert.equal(await page.getByRole('button', { name, exact: true }).count(), 0, name);
      assert.equal((await s.api('POST', `/projects/${project.id}/pipelines/${pipeline.id}/retry`, undefined, dave.token)).status, 403);
      assert.equal((await s.api('POST', `/projects/${project.id}/repository/branches`, { branch: 'topic', ref: 'main' }, dave.token)).status, 201);
      const mine = (await s.api('POST', `/projects/${project.id}/pipeline`, { ref: 'topic' }, dave.token)).body;
      await page.goto(new URL(mine.web_url).pathname);
      await page.getByRole('button', { name: 'Cancel pipeline' }).click();
      await page.getByRole('status').getByText('Pipeline canceled.').waitFor();
      assert.equal((await s.api('GET', `/projects/${project.id}/pipelines/${mine.id}`, undefined, dave.token)).body.status, 'canceled');
      await page.getByRole('button', { name: 'Retry', exact: true }).waitFor();
      assert.equal(await page.getByRole('button', { name: 'Delete' }).count(), 0);
    });

    it("a job with a long name: its page fits a 390 px phone", async () => {
      const long = await waitFor('the long job to finish', async () => {
        const j = (await jobsOf(pipeline.id)).find((x) => x.name.startsWith('release-notes'));
        return j && j.status === 'success' ? j : null;
      }, 60_000);
      const phone = await browser.newContext({ baseURL: s.url, viewport: { width: 390, height: 800 } });
      const p = await phone.newPage();
      await signIn(p, s.url, 'alice', alice.password);
      await p.goto(new URL(long.web_url).pathname);
      await p.getByRole('heading', { level: 1 }).waitFor();
      const wide = await p.evaluate(() => document.documentElement.scrollWidth);
      const culprits = await p.evaluate(() => Array.from(document.querySelectorAll('body *')).filter((e) => e.getBoundingClientRect().right > 392).map((e) => `${e.tagName}.${e.className} ${Math.round(e.getBoundingClientRect().width)}`).slice(0, 12).join('; '));
      assert.ok(wide <= 390, `the job page is ${wide} px wide: ${culprits}`);
      await phone.close();
    });

    it('the owner deletes a pipeline after confirming; the API no longer has it', async () => {
      await as(alice);
      const other = (await s.api('POST', `/projects/${project.id}/pipeline`, { ref: 'main' }, alice.token)).body;
      await s.api('POST', `/projects/${project.id}/pipelines/${other.id}/cancel`, undefined, alice.token);
      await page.goto(new URL(other.web_url).pathname);
      let asked = '';
      page.once('dialog', (d) => {
        asked = d.message();
        void d.accept();
      });
      await page.getByRole('button', { name: 'Delete' }).click();
      await page.waitForURL(`${s.url}/alice/ci-actions/-/pipelines`);
      assert.match(asked, new RegExp(`Delete pipeline #${other.id}`));
      assert.equal((await s.api('GET', `/projects/${project.id}/pipelines/${other.id}`, undefined, alice.token)).status, 404);
      assert.equal(await page.locator(`tr[data-pipeline-id="${other.id}"]`).count(), 0);
    });
  });
}
