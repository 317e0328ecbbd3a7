// A job log's times in a real browser against the real server (its built-in runner on): a job
// run with FF_TIMESTAMPS "true" shows each line's own time, in the viewer's time zone with the
// UTC time on hover, and none of the runner's time headers as text; lines that arrive while the
// page is open get theirs; lines stay linkable and searchable and sections still fold; the Times
// switch hides the column and is remembered. A job without the flag shows the times its log's
// pieces were stored, and its raw log has no header.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { DIALECTS } from '../helpers/build.js';
import { waitFor } from '../helpers/queue.js';
import { launchBrowser, screenshot, seriousA11yViolations, startWebServer, type WebServer } from '../helpers/web.js';

// Kathmandu is UTC+05:45 all year: a time shown there is not the UTC one by any whole hour.
const ZONE = 'Asia/Kathmandu';
const HEADER_TEXT = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z|\b0[01][OE] /;

const ciFile = (signal: string) => `stamped:
  variables:
    FF_TIMESTAMPS: "true"
  script:
    - echo "alpha line"
    - for i in $(seq 600); do [ -e ${signal} ] && break; sleep 0.1; done
    - |
      printf '\\e[0Ksection_start:%s:more[collapsed=true]\\r\\e[0KMore output\\n' "$(date +%s)"
    - echo "beta line"
    - |
      printf '\\e[0Ksection_end:%s:more\\r\\e[0K\\n' "$(date +%s)"
    - echo "gamma line"
plain:
  script:
    - echo "plain line"
`;

/** HH:MM:SS of an ISO time in Kathmandu. */
const kathmandu = (iso: string): string => new Date(Date.parse(iso) + (5 * 60 + 45) * 60_000).toISOString().slice(11, 19);

for (const dialect of DIALECTS) {
  describe(`web job log times (${dialect})`, () => {
    let s: WebServer;
    let browser: Browser;
    let ctx: BrowserContext;
    let page: Page;
    let tmp: string;

    before(async () => {
      // the job waits for a file the test makes on the host: no sandbox (test/ci/sandbox.test.ts covers it)
      s = await startWebServer(dialect, { ANVIL_RUNNER_SANDBOX: 'off' });
      browser = await launchBrowser();
      ctx = await browser.newContext({ baseURL: s.url, viewport: { width: 1280, height: 900 }, timezoneId: ZONE });
      page = await ctx.newPage();
      tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'anvil-web-times-'));
    });
    after(async () => {
      await browser?.close();
      await s?.stop();
      if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
    });

    it('times beside the lines, live, local with UTC on hover; no header as text; search, links, sections and the Times switch', async () => {
      const signal = path.join(tmp, 'go');
      const project = (await s.api('POST', '/projects', { name: 'times', visibility: 'public', initialize_with_readme: true })).body;
      const put = await s.api('POST', `/projects/${project.id}/repository/commits`, {
        branch: 'main', commit_message: 'ci', actions: [{ action: 'create', file_path: '.service-ci.yml', content: ciFile(signal) }],
      });
      assert.equal(put.status, 201);
      const jobs: any[] = await waitFor('the jobs', async () => {
        const pl = (await s.api('GET', `/projects/${project.id}/pipelines`)).body[0];
        const list = pl ? (await s.api('GET', `/projects/${project.id}/pipelines/${pl.id}/jobs`)).body : [];
        return list.length === 2 ? list : null;
      }, 60_000);
      const stamped = jobs.find((j) => j.name === 'stamped');
      const plain = jobs.find((j) => j.name === 'plain');

      // opened while the job waits: its first lines have times
      await waitFor('the job to print', async () => {
        const t = await s.api('GET', `/projects/${project.id}/jobs/${stamped.id}/trace`);
        return t.status === 200 && String(t.body).includes('alpha line');
      }, 60_000);
      await page.goto(new URL(stamped.web_url).pathname);
      const log = page.locator('[data-job-log]');
      // the job's output, not the command line that printed it (`$ echo "alpha line"`)
      const output = (text: string) => log.locator('.log-line', { hasText: new RegExp(`\\d${text}\\s*$`) });
      const alpha = output('alpha line');
      await alpha.waitFor();
      const time = alpha.locator('time');
      const dt = (await time.getAttribute('datetime'))!;
      assert.match(dt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.ok(Math.abs(Date.now() - Date.parse(dt)) < 120_000, 'the time the line was written');
      assert.equal(await time.textContent(), kathmandu(dt), 'in the viewer\'s time zone');
      assert.equal(await time.getAttribute('title'), `${dt.replace('T', ' ').replace('Z', '')} UTC`);
      assert.equal(await log.locator('.log-line').count(), await log.locator('.log-line > time').count(), 'every line has its time');
      assert.doesNotMatch((await log.textContent())!, HEADER_TEXT);
      assert.equal(await log.getAttribute('data-status'), 'running');

      // the rest arrives while the page is open, with times
      fs.writeFileSync(signal, '');
      const gamma = output('gamma line');
      await gamma.waitFor({ timeout: 30_000 });
      assert.match((await gamma.locator('time').textContent())!, /^\d\d:\d\d:\d\d$/);
      await waitFor('the page to see the job finish', async () => (await log.getAttribute('data-status')) === 'success', 60_000);
      assert.equal(await log.locator('.log-line').count(), await log.locator('.log-line > time').count());
      assert.doesNotMatch((await log.textContent())!, HEADER_TEXT);
      // the section arrived folded; its line has a time too
      const section = log.locator('details.log-section[data-section="more"]');
      assert.equal(await section.getAttribute('open'), null);
      assert.equal(await output('beta line').locator('time').count(), 1);
      assert.equal(await section.locator('.log-line > time').count(), await section.locator('.log-line').count());
      await screenshot(page, `${dialect}-job-log-times-live`);

      // reloaded (the server renders it all): search finds a line by its text, not by its time
      await page.reload();
      const search = page.getByRole('searchbox', { name: 'Search the log' });
      await search.fill('beta line');
      // the command and its output
      await page.locator('[data-log-search-count]', { hasText: '2 lines' }).waitFor();
      await search.press('Enter');
      await section.locator('.log-line.is-current', { hasText: 'beta line' }).waitFor();
      assert.equal(await section.getAttribute('open'), '', 'the search opened the section');
      await search.fill(kathmandu(dt).slice(0, 5));
      await page.locator('[data-log-search-count]', { hasText: /^0 lines$/ }).waitFor();
      // a line's link
      const n = (await alpha.getAttribute('id'))!;
      await page.goto(`${new URL(stamped.web_url).pathname}#${n}`);
      await log.locator(`#${n}.is-target`).waitFor();
      assert.equal(await log.locator(`#${n} > time`).textContent(), kathmandu(dt));
      assert.deepEqual(await seriousA11yViolations(page), []);
      await screenshot(page, `${dialect}-job-log-times`);

      // the Times switch hides the column, and the browser remembers it
      const times = page.getByRole('checkbox', { name: 'Times' });
      assert.equal(await times.isChecked(), true);
      await times.uncheck();
      assert.equal(await log.locator('.log-line > time').first().isVisible(), false);
      await page.reload();
      assert.equal(await page.getByRole('checkbox', { name: 'Times' }).isChecked(), false);
      assert.equal(await log.locator('.log-line > time').first().isVisible(), false);
      await page.getByRole('checkbox', { name: 'Times' }).check();
      assert.equal(await log.locator('.log-line > time').first().isVisible(), true);

      // a job without the flag: its lines show when its pieces were stored; its raw log has no header
      await waitFor('the plain job', async () => (await s.api('GET', `/projects/${project.id}/jobs/${plain.id}`)).body.status === 'success', 60_000);
      const raw = String((await s.api('GET', `/projects/${project.id}/jobs/${plain.id}/trace`)).body);
      assert.match(raw, /^Running with /);
      assert.doesNotMatch(raw, HEADER_TEXT);
      await page.goto(new URL(plain.web_url).pathname);
      const plainLine = output('plain line');
      await plainLine.waitFor();
      const stored = (await plainLine.locator('time').getAttribute('datetime'))!;
      const pieces = (await s.api('GET', `/projects/${project.id}/jobs/${plain.id}/trace_times`)).body;
      assert.ok(pieces.some((p: any) => p.created_at === stored), 'the time of a stored piece');
      assert.equal(await plainLine.locator('time').textContent(), kathmandu(stored));
      assert.equal(await log.locator('.log-line').count(), await log.locator('.log-line > time').count());
    });
  });
}
