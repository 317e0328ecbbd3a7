// System hooks, project hooks and project aliases through the real clients, unchanged, against a
// listening Anvil whose queue workers deliver to a receiver on loopback.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { DIALECTS, type TestApp } from '../helpers/build.js';
import { PYTHON, pythonGitlabSkip } from '../helpers/clients.js';
import { listeningTestApp } from '../helpers/git.js';
import { allowLocalHooks, startHookWorkers, startReceiver, type Receiver } from '../helpers/hooks.js';
import type { Queue } from '../../src/queue/queue.js';

const run = promisify(execFile);
const here = path.dirname(fileURLToPath(import.meta.url));

for (const dialect of DIALECTS) {
  describe(`hooks and aliases through real clients (${dialect})`, () => {
    let t: TestApp;
    let url: string;
    let rx: Receiver;
    let queue: Queue;
    before(async () => {
      ({ t, url } = await listeningTestApp(dialect));
      rx = await startReceiver();
      await allowLocalHooks(t);
      queue = startHookWorkers(t);
    });
    after(async () => {
      await queue.stop();
      await rx.close();
      await t.close();
    });

    const env = () => ({ ...process.env, ANVIL_URL: url, ANVIL_TOKEN: t.rootToken, RECEIVER: rx.url });

    it('python-gitlab: gl.hooks, project.hooks and the alias endpoints', { skip: pythonGitlabSkip() }, async () => {
      const { stdout } = await run(PYTHON, [path.join(here, 'python_hooks.py')], { env: env() });
      const seen = JSON.parse(stdout.trim().split('\n').pop()!);
      assert.deepEqual(seen, {
        hook_url: `${rx.url}/py-system`,
        hook_push_events: true,
        hook_has_token: false,
        hook_listed: true,
        project_hook_tag_push_events: true,
        project_hook_filter: 'main',
        project_hook_alert_status: 'executable',
        project_hook_listed: true,
        alias: { id: seen.alias.id, project_id: seen.project_id, name: 'py-alias' },
        alias_project_id: seen.project_id,
        project_id: seen.project_id,
        aliases: ['py-alias'],
        hooks_after: 0,
        project_hooks_after: 0,
      });
      // The system hook heard of the project the client created.
      const [created] = await rx.waitFor(1, (r) => r.url === '/py-system' && r.body.event_name === 'project_create');
      assert.equal(created.body.project_id, seen.project_id);
      assert.equal(created.headers['x-service-token'], 'py-token');
    });

    it('@gitbeaker/rest: SystemHooks (with test), ProjectHooks and ProjectAliases', async () => {
      const { stdout } = await run(process.execPath, [path.join(here, 'gitbeaker_hooks.mjs')], { env: env() });
      const seen = JSON.parse(stdout.trim().split('\n').pop()!);
      assert.equal(seen.hook_url, `${rx.url}/gb-system`);
      assert.equal(seen.hook_tag_push_events, true);
      assert.equal(seen.hook_has_token, false);
      assert.equal(seen.tested.event_name, 'project_create');
      assert.equal(seen.hook_listed, true);
      assert.equal(seen.project_hook_url, `${rx.url}/gb-project2`);
      assert.equal(seen.project_hook_pipeline_events, true);
      assert.equal(seen.project_hook_job_events, true);
      assert.equal(seen.project_hook_listed, true);
      assert.deepEqual(seen.alias, { id: seen.alias.id, project_id: seen.project_id, name: 'gb-alias' });
      assert.deepEqual(seen.aliases, ['gb-alias']);
      assert.equal(seen.alias_project_id, seen.project_id);
      assert.equal(seen.hooks_after, 0);
      assert.equal(seen.aliases_after, 0);
      // The test delivery really reached the receiver, as gitbeaker got it back.
      const [sample] = await rx.waitFor(1, (r) => r.url === '/gb-system' && r.body.event_name === 'project_create' && r.body.project_id === 1);
      assert.deepEqual(sample.body, seen.tested);
    });
  });
}
