// End to end with child pipelines, run by the built-in runner (real bash processes): a parent's
// job list holds only its own jobs, a child's id answers with the child's; canceling the parent
// cancels its running child pipeline (its process gone, its waiting job canceled) even though
// the bridge had passed; a job canceled before it ran can be erased; retrying a pipeline whose
// dependent bridge failed triggers a new child pipeline.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DIALECTS } from '../helpers/build.js';
import { waitFor } from '../helpers/queue.js';
import { createPipelineOk, makeCiProject } from '../helpers/ci.js';
import { alive, appWithRunner } from './runner_fixtures.js';

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'anvil-children-'));
const pidFile = (name: string): string => path.join(scratch, `${name}-${Math.random().toString(36).slice(2)}.pid`);

/** A job that records its pid and sleeps until it is killed. */
const sleeper = (file: string): string => `  script:
    - sleep 300 &
    - echo $! > "${file}"
    - wait
`;

for (const dialect of DIALECTS) {
  describe(`CI end to end: child pipelines (${dialect})`, () => {
    // These jobs report their host pids through a host folder, which a sandboxed job cannot
    // reach: this file is about pipeline semantics, and test/ci/sandbox.test.ts covers the sandbox.
    const app = appWithRunner(dialect, { ANVIL_RUNNER_SANDBOX: 'off' });

    const get = async (projectId: number, p: string) => {
      const r = await app().get(`/api/v4/projects/${projectId}${p}`);
      assert.equal(r.status, 200, `${p}: ${r.text}`);
      return r.body;
    };
    const names = (jobs: any[]) => jobs.map((j: any) => j.name).sort();

    it('cancels the child pipeline with its parent; lists each pipeline\'s own jobs; erases a job canceled before it ran', async () => {
      const t = app();
      const parentPid = pidFile('hold');
      const childPid = pidFile('child');
      const { id } = await makeCiProject(t, {
        '.service-ci.yml': `hold:\n  stage: build\n${sleeper(parentPid)}child:\n  stage: build\n  trigger:\n    include: child.yml\n`,
        'child.yml': `stages: [test, deploy]\nsleeper:\n  stage: test\n${sleeper(childPid)}later:\n  stage: deploy\n  script: echo never\n`,
      });
      const parent = await createPipelineOk(t, id);
      const bridge = await waitFor('bridge linked', async () => {
        const [b] = await get(id, `/pipelines/${parent.id}/bridges`);
        return b?.downstream_pipeline ? b : null;
      }, 30_000);
      assert.equal(bridge.status, 'success', 'without strategy: depend the bridge passed once the child existed');
      const childId = bridge.downstream_pipeline.id;
      await waitFor('both sleepers running', () => [parentPid, childPid].every((f) => fs.existsSync(f) && fs.readFileSync(f, 'utf8').trim() !== ''), 30_000);
      const pids = [parentPid, childPid].map((f) => Number(fs.readFileSync(f, 'utf8').trim()));

      // Each pipeline lists its own jobs only; the child's id answers too.
      assert.deepEqual(names(await get(id, `/pipelines/${parent.id}/jobs`)), ['hold']);
      const childJobs = await get(id, `/pipelines/${childId}/jobs`);
      assert.deepEqual(names(childJobs), ['later', 'sleeper']);
      assert.ok(childJobs.every((j: any) => j.pipeline.id === childId));
      assert.deepEqual((await get(id, `/pipelines/${childId}/bridges`)), []);

      const canceled = await t.request('POST', `/api/v4/projects/${id}/pipelines/${parent.id}/cancel`);
      assert.equal(canceled.status, 200, canceled.text);
      assert.equal(canceled.body.status, 'canceled');
      const child = await waitFor('child pipeline canceled', async () => {
        const p = await get(id, `/pipelines/${childId}`);
        return p.status === 'canceled' ? p : null;
      }, 30_000);
      assert.ok(child.finished_at);
      const after = Object.fromEntries((await get(id, `/pipelines/${childId}/jobs`)).map((j: any) => [j.name, j]));
      assert.equal(after.sleeper.status, 'canceled');
      assert.equal(after.later.status, 'canceled');
      for (const pid of pids) await waitFor(`process ${pid} gone`, () => !alive(pid), 20_000);

      // A job canceled before it ran has no log and no artifacts: erasing it still answers the job.
      const erased = await t.request('POST', `/api/v4/projects/${id}/jobs/${after.later.id}/erase`);
      assert.equal(erased.status, 201, erased.text);
      assert.equal(erased.body.id, after.later.id);
      assert.equal(erased.body.status, 'canceled');
      assert.deepEqual(erased.body.artifacts, []);
      assert.equal(erased.body.download_url, null);
      assert.equal((await t.get(`/api/v4/projects/${id}/jobs/${after.later.id}/trace`)).status, 404);
    });

    it('a running job is not erasable', async () => {
      const t = app();
      const file = pidFile('live');
      const { id } = await makeCiProject(t, `live:\n${sleeper(file)}`);
      const p = await createPipelineOk(t, id);
      await waitFor('live job running', () => fs.existsSync(file) && fs.readFileSync(file, 'utf8').trim() !== '', 30_000);
      const [job] = await get(id, `/pipelines/${p.id}/jobs`);
      assert.equal(job.status, 'running');
      const r = await t.request('POST', `/api/v4/projects/${id}/jobs/${job.id}/erase`);
      assert.deepEqual([r.status, r.body], [403, { message: '403 Forbidden - Job is not erasable!' }]);
      assert.equal((await t.request('POST', `/api/v4/projects/${id}/pipelines/${p.id}/cancel`)).status, 200);
      await waitFor('live process gone', () => !alive(Number(fs.readFileSync(file, 'utf8').trim())), 20_000);
    });

    it('retrying a pipeline whose dependent bridge failed triggers a new child pipeline', async () => {
      const t = app();
      const { id } = await makeCiProject(t, {
        '.service-ci.yml': 'child:\n  trigger:\n    include: child.yml\n    strategy: depend\n',
        'child.yml': 'broken:\n  script: exit 1\n',
      });
      const p = await createPipelineOk(t, id);
      const failed = await waitFor('parent failed', async () => {
        const got = await get(id, `/pipelines/${p.id}`);
        return got.status === 'failed' ? got : null;
      }, 30_000);
      assert.equal(failed.status, 'failed');
      const [old] = await get(id, `/pipelines/${p.id}/bridges`);
      assert.equal(old.status, 'failed');
      const firstChild = old.downstream_pipeline.id;

      const r = await t.request('POST', `/api/v4/projects/${id}/pipelines/${p.id}/retry`);
      assert.equal(r.status, 201, r.text);
      const fresh = await waitFor('a new bridge with a new child', async () => {
        const [b] = await get(id, `/pipelines/${p.id}/bridges`);
        return b && b.id !== old.id && b.downstream_pipeline ? b : null;
      }, 30_000);
      assert.notEqual(fresh.downstream_pipeline.id, firstChild);
      assert.equal(fresh.downstream_pipeline.source, 'parent_pipeline');
      // The new child runs its own copy of the job; the first child stays as it was.
      const jobs = await get(id, `/pipelines/${fresh.downstream_pipeline.id}/jobs`);
      assert.deepEqual(names(jobs), ['broken']);
      assert.equal((await get(id, `/pipelines/${firstChild}`)).status, 'failed');
      await waitFor('parent failed again', async () => (await get(id, `/pipelines/${p.id}`)).status === 'failed', 30_000);
    });
  });
}
