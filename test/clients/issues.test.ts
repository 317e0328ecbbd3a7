// python-gitlab, unchanged, drives labels, milestones and issues.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { DIALECTS, buildTestApp, type TestApp } from '../helpers/build.js';
import { PYTHON, pythonGitlabSkip } from '../helpers/clients.js';
import { freePort } from '../helpers/git.js';

const run = promisify(execFile);
const here = path.dirname(fileURLToPath(import.meta.url));

for (const dialect of DIALECTS) {
  describe(`real clients: labels, milestones, issues (${dialect})`, () => {
    let t: TestApp;
    let url: string;
    before(async () => {
      const port = await freePort();
      url = `http://127.0.0.1:${port}`;
      t = await buildTestApp(dialect, { ANVIL_EXTERNAL_URL: url });
      await t.app.listen({ port, host: '127.0.0.1' });
    });
    after(async () => t.close());

    it('python-gitlab: labels, milestones, issues', { skip: pythonGitlabSkip() }, async () => {
      const suffix = `${dialect}${Date.now() % 100000}`;
      const { stdout } = await run(PYTHON, [path.join(here, 'python_issues.py')], { env: { ...process.env, ANVIL_URL: url, ANVIL_TOKEN: t.rootToken, SUFFIX: suffix } });
      const seen = JSON.parse(stdout.trim().split('\n').pop()!);
      assert.deepEqual(seen.labels, ['bug', 'team']);
      assert.deepEqual(seen.bug, { description: 'Broken things', priority: 2, is_project_label: true });
      assert.equal(seen.subscribed, true);
      assert.equal(seen.group_label_color, '#FF0000');
      assert.equal(seen.closed_state, 'closed');
      assert.equal(seen.group_milestone_iid, 1);
      assert.deepEqual(seen.issue, { iid: 1, state: 'closed', labels: ['bug'], milestone: 'v1.0', author: 'root' });
      assert.deepEqual(seen.stats, { time_estimate: 12600, total_time_spent: 3600, human_time_estimate: '3h 30m' });
      assert.deepEqual(seen.link, [1, 2]);
      assert.deepEqual(seen.links, [2]);
      assert.deepEqual(seen.by_label, [1]);
      assert.deepEqual(seen.no_label, [2]);
      assert.deepEqual(seen.milestone_issues, [1]);
      assert.deepEqual(seen.statistics, { all: 2, closed: 1, opened: 1 });
      assert.deepEqual(seen.participants, ['root']);
      assert.deepEqual(seen.remaining, [1]);
    });
  });
}
