// Settings → CI/CD (variables) and Pipelines → Schedules in a real browser against the real
// server: a maintainer adds, changes and deletes a masked variable (its value never in the page),
// a refused value shows the API's reason; schedules are created, given a variable, run now, taken
// over by another maintainer and deleted; a developer gets 404 on the CI/CD settings, a user
// without access 404 on both, a visitor is sent to sign in.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { DIALECTS } from '../helpers/build.js';
import { launchBrowser, seriousA11yViolations, screenshot, signIn, startWebServer, type WebServer } from '../helpers/web.js';

type User = Awaited<ReturnType<WebServer['createUser']>>;
const SECRET = 'very-secret-value-1';

for (const dialect of DIALECTS) {
  describe(`web interface: CI/CD variables and pipeline schedules (${dialect})`, () => {
    let s: WebServer;
    let browser: Browser;
    let alice: User; // owner
    let mia: User; // maintainer
    let dev: User; // developer
    let bob: User; // no access
    let project: any;
    const contexts: BrowserContext[] = [];

    before(async () => {
      s = await startWebServer(dialect);
      browser = await launchBrowser();
      [alice, mia, dev, bob] = [await s.createUser('alice'), await s.createUser('mia'), await s.createUser('dev'), await s.createUser('bob')];
      project = (await s.api('POST', '/projects', { name: 'deploy', visibility: 'private', initialize_with_readme: true }, alice.token)).body;
      assert.equal((await s.api('POST', `/projects/${project.id}/members`, { user_id: mia.id, access_level: 40 }, alice.token)).status, 201);
      assert.equal((await s.api('POST', `/projects/${project.id}/members`, { user_id: dev.id, access_level: 30 }, alice.token)).status, 201);
    });
    after(async () => {
      for (const c of contexts) await c.close().catch(() => {});
      await browser?.close();
      await s?.stop();
    });

    async function as(user: User | null): Promise<Page> {
      const ctx = await browser.newContext({ baseURL: s.url });
      contexts.push(ctx);
      const page = await ctx.newPage();
      page.on('dialog', (d) => void d.accept());
      if (user) await signIn(page, s.url, user.username, user.password);
      return page;
    }

    async function clickThenNavigate(page: Page, control: ReturnType<Page['getByRole']>): Promise<void> {
      await Promise.all([page.waitForEvent('framenavigated'), control.click()]);
      await page.waitForLoadState('load');
    }

    const path = (rest: string) => `${new URL(project.web_url).pathname}/-/${rest}`;
    const variables = async () => (await s.api('GET', `/projects/${project.id}/variables`, undefined, alice.token)).body;

    it('variables: add a masked one, change it, see a refusal, delete it; the value is never in the page', async () => {
      const page = await as(alice);
      await page.goto(path('settings/ci_cd'));
      await page.getByRole('heading', { name: 'CI/CD settings', level: 1 }).waitFor();
      assert.equal(await page.getByRole('link', { name: 'CI/CD' }).getAttribute('aria-current'), 'page');
      await page.getByText('There are no variables yet.').waitFor();
      const add = page.getByRole('form', { name: 'Add variable' });
      await add.getByLabel('Key').fill('DEPLOY_TOKEN');
      await add.getByLabel('Value').fill(SECRET);
      await add.getByLabel('Mask variable').check();
      await clickThenNavigate(page, add.getByRole('button', { name: 'Add variable' }));
      await page.getByRole('cell', { name: 'DEPLOY_TOKEN' }).waitFor();
      let vars = await variables();
      assert.deepEqual(vars.map((v: any) => [v.key, v.value, v.masked, v.protected, v.environment_scope]), [['DEPLOY_TOKEN', SECRET, true, false, '*']]);
      assert.ok(!(await page.content()).includes(SECRET), 'the value is not in the page');
      assert.deepEqual(await seriousA11yViolations(page), []);
      await screenshot(page, `${dialect}-ci-variables`);

      await page.getByText('Edit variable DEPLOY_TOKEN (*)').click();
      const edit = page.getByRole('form', { name: 'Edit variable DEPLOY_TOKEN (*)' });
      await edit.getByLabel('Description (optional)').fill('Used by deploy');
      await edit.getByLabel('Protect variable').check();
      await edit.getByLabel('Type').selectOption('file');
      await clickThenNavigate(page, edit.getByRole('button', { name: 'Update variable' }));
      vars = await variables();
      assert.deepEqual(vars.map((v: any) => [v.key, v.value, v.masked, v.protected, v.variable_type, v.description]), [
        ['DEPLOY_TOKEN', SECRET, true, true, 'file', 'Used by deploy'],
      ]);
      assert.ok(!(await page.content()).includes(SECRET));

      // A value that cannot be masked: the API's reason, nothing saved.
      await add.getByLabel('Key').fill('SHORT');
      await add.getByLabel('Value').fill('abc');
      await add.getByLabel('Mask variable').check();
      await add.getByRole('button', { name: 'Add variable' }).click();
      const refusal = add.getByRole('alert');
      await refusal.filter({ hasText: /\S/ }).waitFor();
      assert.match(await refusal.innerText(), /value/i);
      assert.equal((await variables()).length, 1);

      await page.getByText('Edit variable DEPLOY_TOKEN (*)').click();
      await clickThenNavigate(page, page.getByRole('button', { name: 'Delete variable DEPLOY_TOKEN (*)' }));
      await page.getByText('There are no variables yet.').waitFor();
      assert.deepEqual(await variables(), []);
    });

    it('schedules: new, a variable, run now, taken over by another maintainer, deleted', async () => {
      const page = await as(alice);
      await page.goto(path('pipelines'));
      await clickThenNavigate(page, page.getByRole('link', { name: 'Schedules' }));
      await page.getByRole('heading', { name: 'Schedules', level: 1 }).waitFor();
      await page.getByText('No pipeline schedules yet.').waitFor();
      await clickThenNavigate(page, page.getByRole('link', { name: 'New schedule' }));
      const form = page.getByRole('form', { name: 'New pipeline schedule' });
      await form.getByLabel('Description').fill('Nightly');
      await form.getByLabel('Interval pattern (cron)').fill('0 2 * * *');
      await form.getByLabel('Cron timezone').fill('Europe/Berlin');
      await clickThenNavigate(page, form.getByRole('button', { name: 'Create pipeline schedule' }));
      await page.getByRole('cell', { name: 'Nightly', exact: true }).waitFor();
      let list = (await s.api('GET', `/projects/${project.id}/pipeline_schedules`, undefined, alice.token)).body;
      assert.deepEqual(list.map((x: any) => [x.description, x.cron, x.cron_timezone, x.ref, x.active, x.owner.username]), [['Nightly', '0 2 * * *', 'Europe/Berlin', 'main', true, 'alice']]);
      const id = list[0].id;
      assert.deepEqual(await seriousA11yViolations(page), []);
      await screenshot(page, `${dialect}-ci-schedules`);

      await clickThenNavigate(page, page.getByRole('link', { name: 'Edit Nightly' }));
      const vars = page.getByRole('form', { name: 'Add schedule variable' });
      await vars.getByLabel('Variable key').fill('NIGHTLY');
      await vars.getByLabel('Variable value').fill('yes');
      await clickThenNavigate(page, vars.getByRole('button', { name: 'Add variable' }));
      await page.getByRole('button', { name: 'Remove variable NIGHTLY' }).waitFor();
      const edit = page.getByRole('form', { name: 'Edit pipeline schedule' });
      await edit.getByLabel('Activated').uncheck();
      await clickThenNavigate(page, edit.getByRole('button', { name: 'Save changes' }));
      const one = (await s.api('GET', `/projects/${project.id}/pipeline_schedules/${id}`, undefined, alice.token)).body;
      assert.equal(one.active, false);
      assert.deepEqual(one.variables, [{ key: 'NIGHTLY', value: 'yes', variable_type: 'env_var' }]);

      await page.getByRole('button', { name: 'Run now Nightly' }).click();
      await page.getByText('Pipeline scheduled to run now.').waitFor();

      const m = await as(mia);
      await m.goto(path('pipeline_schedules'));
      await clickThenNavigate(m, m.getByRole('button', { name: 'Take ownership Nightly' }));
      list = (await s.api('GET', `/projects/${project.id}/pipeline_schedules`, undefined, alice.token)).body;
      assert.equal(list[0].owner.username, 'mia');
      assert.equal(await m.getByRole('button', { name: 'Take ownership Nightly' }).count(), 0, 'nothing to take from oneself');
      await clickThenNavigate(m, m.getByRole('button', { name: 'Delete Nightly' }));
      await m.getByText('No pipeline schedules yet.').waitFor();
    });

    it('who sees what: a developer 404 on CI/CD settings but sees schedules; no access 404; a visitor signs in', async () => {
      const d = await as(dev);
      const res = await d.goto(path('settings/ci_cd'));
      assert.equal(res!.status(), 404);
      await d.getByRole('heading', { name: 'Page Not Found' }).waitFor();
      const sched = await d.goto(path('pipeline_schedules'));
      assert.equal(sched!.status(), 200);
      assert.equal(await d.getByRole('link', { name: 'New schedule' }).count(), 1);

      const b = await as(bob);
      for (const p of ['settings/ci_cd', 'pipeline_schedules', 'pipeline_schedules/new', 'pipeline_schedules/1/edit']) {
        const r = await b.goto(path(p));
        assert.equal(r!.status(), 404, p);
      }
      const visitor = await as(null);
      for (const p of ['settings/ci_cd', 'pipeline_schedules']) {
        await visitor.goto(path(p));
        assert.equal(new URL(visitor.url()).pathname, '/users/sign_in', p);
      }
    });
  });
}
