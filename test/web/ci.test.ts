// The CI pages in a real browser against the real server (its built-in runner and queue workers
// on): a CI file pushed with git runs a pipeline whose graph reaches success on the open page
// without a reload, a job's log streams in with its colours and sections, the test report and
// artifacts, the actions developers get, what a logged-out visitor of a public project sees, the
// 404 page for a user without access, and jobs' needs drawn as edges. The pure views (the log
// parser, the graph) are checked directly too.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { DIALECTS } from '../helpers/build.js';
import { cloneUrl, commitFiles, gitOk, initWorkTree, type GitTestApp } from '../helpers/git.js';
import { waitFor } from '../helpers/queue.js';
import { launchBrowser, screenshot, seriousA11yViolations, signIn, startWebServer, type WebServer } from '../helpers/web.js';
import { AnsiLog, logHtml } from '../../src/web/views/ansi.js';
import { pipelineGraph, withNeeds } from '../../src/web/views/pipeline_graph.js';

// A job that writes, waits until the test has its log open (the signal file appears), then writes
// colours and a collapsed section; two jobs after it, one leaving a JUnit report (one failing
// case) and an artifact; a last stage.
const ciFile = (signal: string) => `stages: [build, test, deploy]
compile:
  stage: build
  script:
    - echo "compiling step one"
    - for i in $(seq 600); do [ -e ${signal} ] && break; sleep 0.1; done
    - |
      printf '\\e[0Ksection_start:%s:deps[collapsed=true]\\r\\e[0K\\e[36;1mInstalling deps\\e[0m\\n' "$(date +%s)"
    - echo "dep one installed"
    - sleep 1
    - |
      printf '\\e[0Ksection_end:%s:deps\\r\\e[0K\\n' "$(date +%s)"
    - |
      printf '\\e[32;1mBuild OK\\e[0m and \\e[31mred text\\e[0m\\n'
unit:
  stage: test
  script:
    - mkdir -p out/sub && echo hello > out/sub/greeting.txt
    - |
      printf '<testsuite name="unit" tests="2"><testcase classname="calc" name="adds" time="0.1"/><testcase classname="calc" name="divides" time="0.2"><failure message="boom">expected 2 got 3</failure></testcase></testsuite>' > report.xml
  artifacts:
    paths: [out/]
    reports:
      junit: report.xml
lint:
  stage: test
  script: echo lint
ship:
  stage: deploy
  script: echo ship
`;

describe('web CI views (pure)', () => {
  it('the log parser: colours, bold, sections as <details>, carriage-return overwrites, escaping', () => {
    const text =
      'plain <b>&\n' +
      '\x1b[0Ksection_start:100:prep[collapsed=true]\r\x1b[0K\x1b[36;1mPreparing\x1b[0;m\n' +
      'inside \x1b[31mred\n' +
      'still red\x1b[0m\n' +
      'progress 10%\rprogress 100%\n' +
      '\x1b[0Ksection_end:165:prep\r\x1b[0K\n' +
      '\x1b[38;5;196mx\x1b[0m \x1b[38;2;1;2;3my\x1b[0m\n' +
      '\n' +
      'last';
    const out = logHtml(text, true);
    // each line numbered, with its anchor
    assert.match(out, /^<span class="log-line" id="L1"><a class="ln" href="#L1" tabindex="-1">1<\/a>plain &lt;b&gt;&amp;\n<\/span>/);
    assert.match(out, /<details class="log-section" data-section="prep" data-started="100"><summary><span class="section-header"><span class="term-fg-6 term-bold">Preparing<\/span><\/span> <span class="section-duration">01:05<\/span><\/summary>/);
    assert.ok(!out.includes('section_start') && !out.includes('section_end') && !out.includes('\x1b') && !out.includes('\r'));
    // the colour carries to the next line; the overwritten progress is gone
    assert.ok(out.includes('<span class="term-fg-1">red</span>') && out.includes('<span class="term-fg-1">still red</span>'));
    assert.ok(out.includes('progress 100%') && !out.includes('progress 10%'));
    assert.ok(out.includes('<span style="color:rgb(255,0,0)">x</span>') && out.includes('<span style="color:rgb(1,2,3)">y</span>'));
    // section headers are not numbered lines: plain, inside red, still red, progress, x y, empty, last
    assert.ok(out.endsWith('<span class="log-line" id="L6"><a class="ln" href="#L6" tabindex="-1">6</a>\n</span><span class="log-line" id="L7"><a class="ln" href="#L7" tabindex="-1">7</a>last\n</span>'), out.slice(-200));
    // an open (expanded) section at the end of a running job's log stays open, marked unclosed
    const running = logHtml('\x1b[0Ksection_start:5:step\r\x1b[0KStep\nworking\npartial', false);
    assert.match(running, /data-unclosed="" open>/);
    assert.ok(!running.includes('partial'), 'a running log shows whole lines only');
    // fed in pieces, the parser gives the same events as in one go
    const whole = new AnsiLog();
    const once = [...whole.push(text), ...whole.finish()];
    const pieces = new AnsiLog();
    const inPieces = [];
    for (let i = 0; i < text.length; i += 7) inPieces.push(...pieces.push(text.slice(i, i + 7)));
    inPieces.push(...pieces.finish());
    assert.deepEqual(inPieces, once);
  });

  it('the graph: a column per stage in order, a linked node per job, edges for needs and for stage order', () => {
    const job = (id: number, name: string, stage: string, status: string, needs?: string[]) => ({
      id, name, stage, status, web_url: `http://h/g/p/-/jobs/${id}`, ...(needs ? { needs } : {}),
    });
    const out = pipelineGraph(
      [job(4, 'ship', 'deploy', 'created', ['unit']), job(3, 'unit', 'test', 'running'), job(1, 'compile', 'build', 'success'), job(2, 'post', '.post', 'created')],
      [{ id: 5, name: 'child', stage: 'test', status: 'pending', web_url: 'http://h/g/p/-/jobs/5', downstream_pipeline: { web_url: 'http://h/g/p/-/pipelines/9' } }],
    ).text;
    const stages = [...out.matchAll(/<h3 [^>]*>([^<]+)<\/h3>/g)].map((m) => m[1]);
    assert.deepEqual(stages, ['build', 'test', 'deploy', '.post']);
    assert.match(out, /<a class="job-node" [^>]*data-job-name="compile" data-status="success" href="\/g\/p\/-\/jobs\/1"/);
    assert.match(out, /<a class="job-node bridge" [^>]*href="\/g\/p\/-\/pipelines\/9"/);
    assert.ok(out.includes('needs unit'));
    // ship (column 2, row 0) needs unit (column 1, row 0): a line from unit's right edge to ship's left edge,
    // a path of its own naming both ends; the stage-order edges (unit after compile, .post) are one path
    assert.ok(out.includes('<path class="need-edge" data-from="unit" data-to="ship" d="M464 52H496V52H528"/>'), out);
    assert.equal([...out.matchAll(/<path class="need-edge"/g)].length, 1);
    assert.equal([...out.matchAll(/<path class="stage-edges" d="M/g)].length, 1);
  });

  it('the graph takes needs from the needs list by name; without it, stage order', () => {
    const job = (id: number, name: string, stage: string) => ({ id, name, stage, status: 'success', web_url: `http://h/g/p/-/jobs/${id}` });
    const jobs = [job(1, 'build', 'build'), job(2, 'docs', 'build'), job(3, 'unit', 'test'), job(4, 'lint', 'test'), job(5, 'ship', 'deploy')];
    // the list's ids may be older (a retry between the reads): names decide
    const needs = [
      { id: 30, name: 'unit', needs: ['build'] }, { id: 2, name: 'docs', needs: null }, { id: 1, name: 'build', needs: [] }, { id: 5, name: 'ship', needs: ['docs'] },
    ];
    const merged = withNeeds(jobs, needs);
    assert.deepEqual(merged.map((j) => j.needs), [[], null, ['build'], undefined, ['docs']]);
    assert.equal((jobs[2] as any).needs, undefined, 'the jobs given are not changed');
    assert.equal(withNeeds(jobs, null), jobs);
    const out = pipelineGraph(merged, []).text;
    assert.deepEqual([...out.matchAll(/data-from="([^"]+)" data-to="([^"]+)"/g)].map((m) => `${m[1]}>${m[2]}`), ['build>unit', 'docs>ship']);
    // docs (column 0, row 1) to ship (column 2, row 0) skips the test stage: not behind lint (row 1)
    // but along the gap between rows 0 and 1, turning off the column gaps' middles (232, 496)
    assert.ok(out.includes('data-from="docs" data-to="ship" d="M200 104H216V78H512V52H528"'), out);
    // lint keeps the stage-order edge from the build stage
    assert.equal([...out.matchAll(/<path class="stage-edges"/g)].length, 1);
    const stageOnly = pipelineGraph(jobs, []).text;
    assert.ok(!stageOnly.includes('need-edge'));
    assert.equal([...stageOnly.matchAll(/<path /g)].length, 1);
  });
});

for (const dialect of DIALECTS) {
  describe(`web CI pages (${dialect})`, () => {
    let s: WebServer;
    let browser: Browser;
    let ctx: BrowserContext;
    let page: Page;
    let alice: Awaited<ReturnType<WebServer['createUser']>>;
    let bob: Awaited<ReturnType<WebServer['createUser']>>;
    let project: any;
    let pipeline: any;
    let secret: any;
    let secretPipeline: any;
    let git: GitTestApp;

    before(async () => {
      // The jobs wait for a signal file the test makes in a host folder, which a sandboxed job
      // cannot see: these pages are about CI views; test/ci/sandbox.test.ts covers the sandbox.
      s = await startWebServer(dialect, { ANVIL_RUNNER_SANDBOX: 'off' });
      browser = await launchBrowser();
      alice = await s.createUser('alice');
      bob = await s.createUser('bob');
      const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'anvil-web-ci-'));
      fs.mkdirSync(path.join(tmp, 'home'));
      git = { tmp } as GitTestApp;
      // A private project of alice's with a finished pipeline, for the 404 checks.
      secret = (await s.api('POST', '/projects', { name: 'secret-ci', visibility: 'private', initialize_with_readme: true }, alice.token)).body;
      const put = await s.api('POST', `/projects/${secret.id}/repository/commits`, {
        branch: 'main', commit_message: 'ci', actions: [{ action: 'create', file_path: '.service-ci.yml', content: 'only-job:\n  script: echo secret\n' }],
      }, alice.token);
      assert.equal(put.status, 201);
      secretPipeline = await waitFor('the private pipeline', async () => (await s.api('GET', `/projects/${secret.id}/pipelines`, undefined, alice.token)).body[0], 60_000);
    });
    after(async () => {
      await browser?.close();
      await s?.stop();
      if (git) fs.rmSync(git.tmp, { recursive: true, force: true });
    });

    const fresh = async () => {
      await ctx?.close();
      ctx = await browser.newContext({ baseURL: s.url, viewport: { width: 1280, height: 900 } });
      page = await ctx.newPage();
      return page;
    };

    it('a pushed CI file runs: the graph reaches success and the job log streams in, without a reload', async () => {
      await fresh();
      await signIn(page, s.url, 'alice', alice.password);
      await page.goto('/projects/new');
      await page.getByLabel('Project name').fill('ci-demo');
      await page.getByLabel('Public').check();
      await page.getByRole('button', { name: 'Create project' }).click();
      await page.waitForURL(`${s.url}/alice/ci-demo`);
      project = (await s.api('GET', `/projects/${encodeURIComponent('alice/ci-demo')}`, undefined, alice.token)).body;

      const dir = await initWorkTree(git, cloneUrl(project.http_url_to_repo, alice.token, 'alice'));
      await commitFiles(git, dir, { '.service-ci.yml': ciFile(path.join(git.tmp, 'go')), 'README.md': '# ci-demo\n' }, 'Add CI');
      await gitOk(git, ['push', '--quiet', 'origin', 'main'], { cwd: dir });
      pipeline = await waitFor('the pushed pipeline', async () => (await s.api('GET', `/projects/${project.id}/pipelines`, undefined, alice.token)).body[0], 60_000);

      // The pipelines list shows it, with the Run pipeline form for a developer.
      await page.goto('/alice/ci-demo/-/pipelines');
      await page.getByRole('link', { name: `#${pipeline.id}` }).waitFor();
      await page.getByText('Run a new pipeline').waitFor();
      assert.deepEqual(await seriousA11yViolations(page), []);

      // The pipeline page, opened while it runs; the page must never navigate again.
      let navigations = 0;
      page.on('framenavigated', (f) => {
        if (f === page.mainFrame()) navigations++;
      });
      const res = await page.goto(new URL(pipeline.web_url).pathname);
      assert.equal(res!.status(), 200);
      navigations = 0;
      await page.evaluate(() => ((window as any).__sameDocument = true));
      const live = page.locator('[data-pipeline-live]');
      const firstStatus = await live.getAttribute('data-status');
      assert.ok(['created', 'pending', 'running', 'preparing', 'waiting_for_resource'].includes(firstStatus!), firstStatus!);
      const names = await page.locator('.job-node').evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.jobName));
      assert.deepEqual(names, ['compile', 'unit', 'lint', 'ship']);
      assert.deepEqual(await page.locator('.stage-name').allTextContents(), ['build', 'test', 'deploy']);
      assert.notEqual(await page.locator('[data-job-name="ship"]').getAttribute('data-status'), 'success');
      assert.equal(await page.locator('.graph-edges path').count(), 1);
      assert.deepEqual(await seriousA11yViolations(page), []);
      await screenshot(page, `${dialect}-ci-pipeline-running`);

      // Meanwhile, the compile job's log in a second tab, opened while it runs.
      const jobs = (await s.api('GET', `/projects/${project.id}/pipelines/${pipeline.id}/jobs`, undefined, alice.token)).body;
      const compile = jobs.find((j: any) => j.name === 'compile');
      await waitFor('compile to run and write', async () => {
        const t = await s.api('GET', `/projects/${project.id}/jobs/${compile.id}/trace`, undefined, alice.token);
        return t.status === 200 && String(t.body).includes('compiling step one');
      }, 60_000);
      const logPage = await ctx.newPage();
      await logPage.goto(new URL(compile.web_url).pathname);
      await logPage.evaluate(() => ((window as any).__sameDocument = true));
      const log = logPage.locator('[data-job-log]');
      await log.getByText('compiling step one').first().waitFor();
      assert.equal(await log.getByText('Build OK').count(), 0, 'the end of the log is not there yet');
      assert.equal(await log.getAttribute('data-status'), 'running');
      await logPage.getByRole('button', { name: 'Cancel' }).waitFor();
      await screenshot(logPage, `${dialect}-ci-job-streaming`);
      fs.writeFileSync(path.join(git.tmp, 'go'), '');
      // the lines arrive: the section (collapsed, coloured header), then the coloured last line
      await log.locator('details.log-section[data-section="deps"]').waitFor({ timeout: 30_000 });
      await log.locator('.term-fg-2.term-bold', { hasText: /^Build OK$/ }).waitFor({ timeout: 30_000 });
      const section = log.locator('details.log-section[data-section="deps"]');
      assert.equal(await section.getAttribute('open'), null, 'collapsed=true starts closed');
      assert.equal(await section.locator('summary .term-fg-6.term-bold').textContent(), 'Installing deps');
      // each line: its number, its time (when it was stored), its text
      assert.match((await section.locator('.section-body').textContent())!, /^\d+\d\d:\d\d:\d\ddep one installed$/m);
            assert.equal(await log.locator('.term-fg-1', { hasText: /^red text$/ }).count(), 1);
      await waitFor('the job page to see the job finish', async () => (await log.getAttribute('data-status')) === 'success', 60_000);
      await logPage.locator('[data-job-facts] [data-status="success"]').waitFor();
      assert.equal(await logPage.getByRole('button', { name: 'Cancel' }).count(), 0, 'no Cancel once the job finished');
      assert.equal(await logPage.evaluate(() => (window as any).__sameDocument), true, 'the job page was not reloaded');
      await section.locator('summary').click();
      assert.notEqual(await section.getAttribute('open'), null);
      assert.match((await section.locator('.section-duration').textContent())!, /^00:0\d$/);
      assert.deepEqual(await seriousA11yViolations(logPage), []);
      await screenshot(logPage, `${dialect}-ci-job-finished`);
      await logPage.close();

      // The graph reaches success on the page that stayed open.
      await page.locator('[data-pipeline-live][data-status="success"]').waitFor({ timeout: 60_000 });
      assert.deepEqual(await page.locator('.job-node').evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.status)), ['success', 'success', 'success', 'success']);
      assert.equal(await page.evaluate(() => (window as any).__sameDocument), true, 'the pipeline page was not reloaded');
      assert.equal(navigations, 0);
      await screenshot(page, `${dialect}-ci-pipeline-success`);
      // the next pipeline's compile job waits again (until it is canceled)
      fs.rmSync(path.join(git.tmp, 'go'));
    });

    it('the test report tab lists suites and cases with the failure output', async () => {
      await page.goto(`/alice/ci-demo/-/pipelines/${pipeline.id}`);
      await page.getByRole('link', { name: /Tests/ }).click();
      await page.waitForURL(/\/test_report$/);
      await page.getByRole('heading', { name: 'unit', level: 2 }).waitFor();
      const failed = page.locator('tr.test-case[data-status="failed"]');
      assert.equal(await failed.count(), 1);
      assert.match((await failed.textContent())!, /divides/);
      await failed.getByText('Output').click();
      await failed.getByText('expected 2 got 3').waitFor();
      assert.equal(await page.locator('tr.test-case[data-status="success"]').count(), 1);
      assert.deepEqual(await seriousA11yViolations(page), []);
      await screenshot(page, `${dialect}-ci-test-report`);
    });

    it('a job\'s artifacts: download the archive, browse its folders, open a file', async () => {
      const jobs = (await s.api('GET', `/projects/${project.id}/pipelines/${pipeline.id}/jobs`, undefined, alice.token)).body;
      const unit = jobs.find((j: any) => j.name === 'unit');
      await page.goto(new URL(unit.web_url).pathname);
      await page.getByRole('heading', { name: 'Job artifacts' }).waitFor();
      const download = await page.request.get(await page.getByRole('link', { name: 'Download' }).getAttribute('href') as string);
      assert.equal(download.status(), 200);
      assert.equal(download.headers()['content-type'], 'application/zip');
      assert.equal((await download.body()).subarray(0, 2).toString(), 'PK');
      await page.getByRole('link', { name: 'Browse' }).click();
      await page.getByRole('heading', { name: 'Artifacts', level: 1 }).waitFor();
      await page.getByRole('link', { name: 'out/' }).click();
      await page.getByRole('link', { name: 'sub/' }).click();
      assert.deepEqual(await seriousA11yViolations(page), []);
      await screenshot(page, `${dialect}-ci-artifacts-browse`);
      await page.getByRole('link', { name: 'greeting.txt' }).click();
      assert.equal((await page.textContent('body'))!.trim(), 'hello');
      const res = await page.goto(`/alice/ci-demo/-/jobs/${unit.id}/artifacts/browse/no/such`);
      assert.equal(res!.status(), 404);
    });

    it('a developer runs a pipeline from the list form and lands on it', async () => {
      await page.goto('/alice/ci-demo/-/pipelines');
      await page.getByText('Run a new pipeline').click();
      await page.getByLabel('Run for branch or tag').fill('no-such-branch');
      await page.getByRole('button', { name: 'Run pipeline' }).click();
      await page.getByRole('alert').filter({ hasText: /reference|ref|not/i }).waitFor();
      await page.getByLabel('Run for branch or tag').fill('main');
      await page.getByRole('button', { name: 'Run pipeline' }).click();
      await page.waitForURL((u) => /\/-\/pipelines\/\d+$/.test(u.pathname) && !u.pathname.endsWith(`/${pipeline.id}`));
      await page.getByRole('button', { name: 'Cancel pipeline' }).waitFor();
      const id = Number(new URL(page.url()).pathname.split('/').pop());
      const created = await s.api('GET', `/projects/${project.id}/pipelines/${id}`, undefined, alice.token);
      // made through POST /projects/:id/pipeline with the browser's session: source `web`, as the reference's form
      assert.equal(created.body.source, 'web');
      assert.equal(created.body.ref, 'main');
      // cancel it from the page; the API agrees
      await page.getByRole('button', { name: 'Cancel pipeline' }).click();
      await waitFor('the cancel', async () => (await s.api('GET', `/projects/${project.id}/pipelines/${id}`, undefined, alice.token)).body.status === 'canceled', 60_000);
      // the page reloads after the action and shows it
      await page.locator('[data-pipeline-live][data-status="canceled"]').waitFor();
      // filters: the status filter narrows the list
      await page.goto('/alice/ci-demo/-/pipelines?status=canceled');
      assert.equal(await page.locator('tr[data-pipeline-id]').count(), 1);
      await page.goto('/alice/ci-demo/-/pipelines?scope=finished');
      assert.equal(await page.locator('tr[data-pipeline-id]').count(), 2);
      await screenshot(page, `${dialect}-ci-pipelines-list`);
    });

    it('a developer retries, cancels and erases jobs from the job page', async () => {
      const jobs = (await s.api('GET', `/projects/${project.id}/pipelines/${pipeline.id}/jobs`, undefined, alice.token)).body;
      const compile = jobs.find((j: any) => j.name === 'compile');
      const lint = jobs.find((j: any) => j.name === 'lint');
      await page.goto(new URL(compile.web_url).pathname);
      await page.getByRole('button', { name: 'Retry' }).click();
      // the retry is a new job (it waits for the signal file again), and its page follows it
      await page.waitForURL((u) => /\/-\/jobs\/\d+$/.test(u.pathname) && !u.pathname.endsWith(`/${compile.id}`));
      const retried = Number(new URL(page.url()).pathname.split('/').pop());
      assert.ok(retried > compile.id);
      await page.locator('[data-job-log]').getByText('compiling step one').first().waitFor({ timeout: 60_000 });
      await page.getByRole('button', { name: 'Cancel' }).click();
      await page.locator('[data-job-facts] [data-status="canceled"]').waitFor({ timeout: 30_000 });
      assert.equal((await s.api('GET', `/projects/${project.id}/jobs/${retried}`, undefined, alice.token)).body.status, 'canceled');
      // erase asks first, then the log is gone
      await page.goto(new URL(lint.web_url).pathname);
      page.once('dialog', (d) => void d.accept());
      await page.getByRole('button', { name: 'Erase' }).click();
      await page.getByText('This job has no log.').waitFor();
      assert.equal((await s.api('GET', `/projects/${project.id}/jobs/${lint.id}/trace`, undefined, alice.token)).status, 404);
      await screenshot(page, `${dialect}-ci-job-erased`);
    });

    it('a logged-out visitor sees every CI page of a public project, without actions', async () => {
      await fresh();
      const jobs = (await s.api('GET', `/projects/${project.id}/pipelines/${pipeline.id}/jobs?include_retried=true`)).body;
      // the first compile (its retry was canceled): the one whose log ran to the end
      const compile = jobs.filter((j: any) => j.name === 'compile').sort((a: any, b: any) => a.id - b.id)[0];
      for (const [p, heading] of [
        ['/alice/ci-demo/-/pipelines', 'Pipelines'],
        [`/alice/ci-demo/-/pipelines/${pipeline.id}`, `Pipeline #${pipeline.id}`],
        [`/alice/ci-demo/-/pipelines/${pipeline.id}/test_report`, `Pipeline #${pipeline.id}`],
        [`/alice/ci-demo/-/jobs/${jobs.find((j: any) => j.name === 'unit').id}/artifacts/browse/out`, 'Artifacts'],
        [`/alice/ci-demo/-/jobs/${compile.id}`, /Job compile/],
      ] as const) {
        const res = await page.goto(p);
        assert.equal(res!.status(), 200, p);
        await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
        assert.equal(await page.locator('button[data-api]').count(), 0, `no actions on ${p}`);
        assert.equal(await page.getByText('Run pipeline').count(), 0);
        assert.deepEqual(await seriousA11yViolations(page), [], p);
      }
      await page.locator('[data-job-log] .term-fg-2', { hasText: /^Build OK$/ }).waitFor();
      await screenshot(page, `${dialect}-ci-job-visitor`);
      const raw = await page.goto(`/alice/ci-demo/-/jobs/${compile.id}/raw`);
      assert.equal(raw!.status(), 200);
      assert.match(raw!.headers()['content-type'], /^text\/plain/);
      assert.match(await raw!.text(), /section_start:\d+:deps\[collapsed=true\]/);
      // unknown ids and junk are the 404 page
      for (const p of ['/alice/ci-demo/-/pipelines/999999', '/alice/ci-demo/-/jobs/999999', '/alice/ci-demo/-/jobs/abc', `/alice/ci-demo/-/pipelines/${secretPipeline.id}`]) {
        await page.goto(p);
        assert.equal(new URL(page.url()).pathname, '/users/sign_in', p);
      }
    });

    it('a user without access gets the 404 page on every CI page of a private project; a visitor is sent to sign in', async () => {
      const jobs = (await s.api('GET', `/projects/${secret.id}/pipelines/${secretPipeline.id}/jobs`, undefined, alice.token)).body;
      const paths = [
        '/alice/secret-ci/-/pipelines',
        `/alice/secret-ci/-/pipelines/${secretPipeline.id}`,
        `/alice/secret-ci/-/pipelines/${secretPipeline.id}/test_report`,
        `/alice/secret-ci/-/jobs/${jobs[0].id}`,
        `/alice/secret-ci/-/jobs/${jobs[0].id}/raw`,
      ];
      for (const p of paths) {
        await page.goto(p);
        assert.equal(new URL(page.url()).pathname, '/users/sign_in', p);
      }
      await signIn(page, s.url, 'bob', bob.password);
      for (const p of paths) {
        const res = await page.goto(p);
        assert.equal(res!.status(), 404, p);
        await page.getByRole('heading', { name: 'Page Not Found' }).waitFor();
      }
      // and bob, signed in, gets no actions on the public project (a non-member)
      await page.goto(`/alice/ci-demo/-/pipelines/${pipeline.id}`);
      assert.equal(await page.locator('button[data-api]').count(), 0);
      await screenshot(page, `${dialect}-ci-not-found`);
    });

    it("the graph draws each job's needs as an edge from the needed job, while it runs and after", async () => {
      await fresh();
      await signIn(page, s.url, 'alice', alice.password);
      const signal = path.join(git.tmp, 'needs-go');
      const needsCi = `stages: [build, test, deploy]
compile:
  stage: build
  script:
    - for i in $(seq 600); do [ -e ${signal} ] && break; sleep 0.1; done
docs:
  stage: build
  script: echo docs
unit:
  stage: test
  needs: [compile]
  script: echo unit
lint:
  stage: test
  script: echo lint
ship:
  stage: deploy
  needs: [unit, docs]
  script: echo ship
`;
      const dag = (await s.api('POST', '/projects', { name: 'needs-demo', visibility: 'private', initialize_with_readme: true }, alice.token)).body;
      const put = await s.api('POST', `/projects/${dag.id}/repository/commits`, {
        branch: 'main', commit_message: 'ci with needs', actions: [{ action: 'create', file_path: '.service-ci.yml', content: needsCi }],
      }, alice.token);
      assert.equal(put.status, 201);
      const p = await waitFor('the needs pipeline', async () => (await s.api('GET', `/projects/${dag.id}/pipelines`, undefined, alice.token)).body[0], 60_000);
      const listed = await s.api('GET', `/projects/${dag.id}/pipelines/${p.id}/needs`, undefined, alice.token);
      assert.deepEqual(
        Object.fromEntries(listed.body.map((j: any) => [j.name, j.needs])),
        { compile: null, docs: null, unit: ['compile'], lint: null, ship: ['unit', 'docs'] },
      );

      const res = await page.goto(new URL(p.web_url).pathname);
      assert.equal(res!.status(), 200);
      await page.evaluate(() => ((window as any).__sameDocument = true));
      const live = page.locator('[data-pipeline-live]');
      assert.notEqual(await live.getAttribute('data-status'), 'success', 'compile waits for the signal');

      /** The drawn needs edges as `from>to`, each checked to run from the needed job's right edge to the needing job's left edge. */
      const drawnEdges = () =>
        // (no named functions inside: the test's compiler would wrap them in a helper the page lacks)
        page.evaluate(() => {
          const svg = document.querySelector('.graph-edges')!.getBoundingClientRect();
          return [...document.querySelectorAll<SVGPathElement>('.graph-edges path.need-edge')].map((e) => {
            const [from, to] = [e.dataset.from!, e.dataset.to!].map((name) =>
              document.querySelector(`.job-node[data-job-name="${CSS.escape(name)}"]`)!.getBoundingClientRect());
            const start = e.getPointAtLength(0);
            const end = e.getPointAtLength(e.getTotalLength());
            const gaps = [
              svg.left + start.x - from.right, svg.top + start.y - (from.top + from.height / 2),
              svg.left + end.x - to.left, svg.top + end.y - (to.top + to.height / 2),
            ];
            // and on its way it passes behind no other job
            const others = [...document.querySelectorAll<HTMLElement>('.job-node')]
              .filter((n) => n.dataset.jobName !== e.dataset.from && n.dataset.jobName !== e.dataset.to)
              .map((n) => [n.dataset.jobName, n.getBoundingClientRect()] as const);
            const behind = new Set<string>();
            for (let at = 0; at <= e.getTotalLength(); at += 2) {
              const pt = e.getPointAtLength(at);
              const [x, y] = [svg.left + pt.x, svg.top + pt.y];
              for (const [name, r] of others) if (x > r.left && x < r.right && y > r.top && y < r.bottom) behind.add(name!);
            }
            const loose = gaps.every((g) => Math.abs(g) <= 1) ? '' : ` (loose: ${gaps.join(',')})`;
            return `${e.dataset.from}>${e.dataset.to}${loose}${behind.size ? ` (behind ${[...behind].join(',')})` : ''}`;
          }).sort();
        });
      const expected = ['compile>unit', 'docs>ship', 'unit>ship'];
      assert.deepEqual(await drawnEdges(), expected);
      // lint has no needs: it keeps the stage-order edge from the build stage (one path of its own)
      assert.equal(await page.locator('.graph-edges path.stage-edges').count(), 1);
      assert.match((await page.locator('[data-job-name="ship"]').textContent())!, /needs unit, docs/);
      assert.deepEqual(await seriousA11yViolations(page), []);
      await screenshot(page, `${dialect}-ci-pipeline-needs-running`);

      // The page follows the run; its re-rendered graph keeps the needs edges.
      fs.writeFileSync(signal, '');
      await page.locator('[data-pipeline-live][data-status="success"]').waitFor({ timeout: 60_000 });
      assert.equal(await page.evaluate(() => (window as any).__sameDocument), true, 'the pipeline page was not reloaded');
      assert.deepEqual(await page.locator('.job-node').evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.status)), Array(5).fill('success'));
      assert.deepEqual(await drawnEdges(), expected);
      assert.equal(await page.locator('.graph-edges path.stage-edges').count(), 1);
      await screenshot(page, `${dialect}-ci-pipeline-needs`);
    });
  });
}
