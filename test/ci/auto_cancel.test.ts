// Auto-cancel of redundant pipelines (`interruptible`): a new pipeline for a ref cancels the older
// unfinished pipelines of that ref whose started builds are all interruptible. The runner is off:
// jobs are put into running (and finished) through the state module as a runner would.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS, buildTestApp, type TestApp } from '../helpers/build.js';
import { createPipelineOk, jobRows, makeCiProject, pipelineRow, pipelineRows, putFiles, runPushPipelineJobs } from '../helpers/ci.js';
import { finishJob, startJob } from '../../src/domain/ci/state.js';
import { cancelRedundantPipelines } from '../../src/domain/ci/auto_cancel.js';

/** Two stages; `build` and `test` say whether each job is interruptible. */
const ciFile = (build: boolean, test: boolean) => `stages: [build, test]
build-job:
  stage: build
  interruptible: ${build}
  script: echo build
test-job:
  stage: test
  interruptible: ${test}
  script: echo test
`;

const statuses = async (t: TestApp, pipelineId: number) => Object.fromEntries((await jobRows(t, pipelineId)).map((j) => [j.name, j.status]));

const jobNamed = async (t: TestApp, pipelineId: number, name: string) => {
  const job = (await jobRows(t, pipelineId)).find((j) => j.name === name);
  assert.ok(job, `no job ${name} in pipeline ${pipelineId}`);
  return job;
};

for (const dialect of DIALECTS) {
  describe(`auto-cancel of redundant pipelines (${dialect})`, () => {
    let t: TestApp;
    before(async () => {
      t = await buildTestApp(dialect);
      const s = await t.request('PUT', '/api/v4/application/settings', { body: { default_branch_protection: 0 } });
      assert.equal(s.status, 200, s.text);
    });
    after(async () => t.close());

    /** A project whose CI file made one push pipeline on main (returned with the project). */
    async function projectWithPushPipeline(ci: string) {
      const p = await makeCiProject(t, ci);
      await runPushPipelineJobs(t);
      const rows = await pipelineRows(t, p.id);
      assert.equal(rows.length, 1);
      assert.equal(rows[0]!.source, 'push');
      return { p, older: rows[0]! };
    }

    /** Commits a file to `branch` and runs the push pipeline jobs; returns the newest pipeline of the project. */
    async function push(projectId: number, opts: { branch?: string; startBranch?: string; message?: string } = {}) {
      await putFiles(t, projectId, { [`f${Math.random().toString(36).slice(2)}.txt`]: 'x\n' }, opts);
      await runPushPipelineJobs(t);
      const rows = await pipelineRows(t, projectId);
      return rows[rows.length - 1]!;
    }

    it('a newer push pipeline on the ref cancels an older one whose running job is interruptible, every unfinished job canceled', async () => {
      const { p, older } = await projectWithPushPipeline(ciFile(true, true));
      const build = await jobNamed(t, older.id, 'build-job');
      assert.ok(await startJob(t.c, build.id));
      assert.equal((await pipelineRow(t, older.id))!.status, 'running');
      const signals: number[] = [];
      const onCancel = (id: number) => signals.push(id);
      t.c.ciSignals.on('canceled', onCancel);
      let newer;
      try {
        newer = await push(p.id);
      } finally {
        t.c.ciSignals.off('canceled', onCancel);
      }
      assert.notEqual(newer.id, older.id);
      assert.equal(newer.source, 'push');
      const row = (await pipelineRow(t, older.id))!;
      assert.equal(row.status, 'canceled');
      assert.ok(row.finished_at, 'a canceled pipeline has finished_at');
      // The running job stops (its runner is told), the later stage's job is canceled, not skipped.
      assert.deepEqual(await statuses(t, older.id), { 'build-job': 'canceled', 'test-job': 'canceled' });
      assert.deepEqual(signals, [build.id]);
      const canceledBuild = await jobNamed(t, older.id, 'build-job');
      assert.ok(canceledBuild.finished_at);
      assert.equal(canceledBuild.token_digest, null);
      // The newer pipeline itself is untouched.
      assert.equal((await pipelineRow(t, newer.id))!.status, 'pending');
      assert.deepEqual(await statuses(t, newer.id), { 'build-job': 'pending', 'test-job': 'created' });
    });

    it('a pending pipeline (nothing started) counts as interruptible even when its jobs are not', async () => {
      const { p, older } = await projectWithPushPipeline(ciFile(false, false));
      assert.equal(older.status, 'pending');
      const newer = await push(p.id);
      assert.equal((await pipelineRow(t, older.id))!.status, 'canceled');
      assert.deepEqual(await statuses(t, older.id), { 'build-job': 'canceled', 'test-job': 'canceled' });
      assert.equal((await pipelineRow(t, newer.id))!.status, 'pending');
    });

    it('a pipeline with a running non-interruptible job is not canceled', async () => {
      const { p, older } = await projectWithPushPipeline(ciFile(false, true));
      const build = await jobNamed(t, older.id, 'build-job');
      assert.ok(await startJob(t.c, build.id));
      const newer = await push(p.id);
      assert.equal((await pipelineRow(t, older.id))!.status, 'running');
      assert.deepEqual(await statuses(t, older.id), { 'build-job': 'running', 'test-job': 'created' });
      assert.equal((await pipelineRow(t, newer.id))!.status, 'pending');
    });

    it('a finished non-interruptible job protects the pipeline even while an interruptible one runs', async () => {
      const { p, older } = await projectWithPushPipeline(ciFile(false, true));
      const build = await jobNamed(t, older.id, 'build-job');
      assert.ok(await startJob(t.c, build.id));
      await finishJob(t.c, build.id, { status: 'success', exitCode: 0 });
      const test = await jobNamed(t, older.id, 'test-job');
      assert.equal(test.status, 'pending');
      assert.ok(await startJob(t.c, test.id));
      await push(p.id);
      assert.equal((await pipelineRow(t, older.id))!.status, 'running');
      assert.deepEqual(await statuses(t, older.id), { 'build-job': 'success', 'test-job': 'running' });
    });

    it('a finished interruptible job does not protect it: the running interruptible one is canceled', async () => {
      const { p, older } = await projectWithPushPipeline(ciFile(true, true));
      const build = await jobNamed(t, older.id, 'build-job');
      assert.ok(await startJob(t.c, build.id));
      await finishJob(t.c, build.id, { status: 'success', exitCode: 0 });
      assert.ok(await startJob(t.c, (await jobNamed(t, older.id, 'test-job')).id));
      await push(p.id);
      assert.equal((await pipelineRow(t, older.id))!.status, 'canceled');
      assert.deepEqual(await statuses(t, older.id), { 'build-job': 'success', 'test-job': 'canceled' });
    });

    it('pipelines of other refs are untouched', async () => {
      const p = await makeCiProject(t, ciFile(true, true));
      await push(p.id, { branch: 'feature', startBranch: 'main' });
      const feature = (await pipelineRows(t, p.id)).find((r) => r.ref === 'feature')!;
      assert.ok(feature);
      const main = (await pipelineRows(t, p.id)).find((r) => r.ref === 'main')!;
      assert.ok(main);
      assert.equal(main.status, 'pending', 'the feature branch pipeline did not cancel main');
      const newer = await push(p.id);
      assert.equal(newer.ref, 'main');
      assert.equal((await pipelineRow(t, feature.id))!.status, 'pending');
      assert.deepEqual(await statuses(t, feature.id), { 'build-job': 'pending', 'test-job': 'created' });
      assert.equal((await pipelineRow(t, main.id))!.status, 'canceled', 'the older main pipeline is canceled');
    });

    it('finished pipelines of the ref are untouched', async () => {
      const { p, older } = await projectWithPushPipeline(ciFile(true, true));
      for (const name of ['build-job', 'test-job']) {
        const j = await jobNamed(t, older.id, name);
        assert.ok(await startJob(t.c, j.id));
        await finishJob(t.c, j.id, { status: name === 'test-job' ? 'failed' : 'success', exitCode: name === 'test-job' ? 1 : 0 });
      }
      const before = (await pipelineRow(t, older.id))!;
      assert.equal(before.status, 'failed');
      await push(p.id);
      const afterRow = (await pipelineRow(t, older.id))!;
      assert.equal(afterRow.status, 'failed');
      assert.equal(afterRow.updated_at, before.updated_at);
      assert.deepEqual(await statuses(t, older.id), { 'build-job': 'success', 'test-job': 'failed' });
    });

    it('an API pipeline cancels older pipelines of the ref, but not one at the same head commit', async () => {
      const { p, older } = await projectWithPushPipeline(ciFile(true, true));
      const atHead = await createPipelineOk(t, p.id);
      assert.equal(atHead.sha, older.sha);
      assert.equal((await pipelineRow(t, older.id))!.status, 'pending', 'same commit as the ref head: not redundant');
      await putFiles(t, p.id, { 'other.txt': 'y\n' }); // the push pipeline job is not run: the API makes the next one
      const api = await createPipelineOk(t, p.id);
      assert.notEqual(api.sha, older.sha);
      assert.equal((await pipelineRow(t, older.id))!.status, 'canceled');
      assert.equal((await pipelineRow(t, atHead.id))!.status, 'canceled');
      assert.equal((await pipelineRow(t, api.id))!.status, 'pending');
      await runPushPipelineJobs(t); // the push job's pipeline at the same head commit leaves the API one alone
      const rows = await pipelineRows(t, p.id);
      assert.equal(rows.length, 4);
      assert.equal(rows[3]!.sha, api.sha);
      assert.equal((await pipelineRow(t, api.id))!.status, 'pending');
    });

    it('a [ci skip] push cancels nothing; pipelines older than a week are left alone', async () => {
      const { p, older } = await projectWithPushPipeline(ciFile(true, true));
      const skipped = await push(p.id, { message: 'docs [ci skip]' });
      assert.equal(skipped.status, 'skipped');
      assert.equal((await pipelineRow(t, older.id))!.status, 'pending');
      const eightDaysAgo = new Date(Date.now() - 8 * 24 * 3600 * 1000).toISOString();
      await t.c.db.updateTable('ci_pipelines').set({ created_at: eightDaysAgo }).where('id', '=', older.id).execute();
      await push(p.id);
      assert.equal((await pipelineRow(t, older.id))!.status, 'pending');
    });

    it('a child pipeline cancels nothing; a manual pipeline is not a candidate', async () => {
      const { p, older } = await projectWithPushPipeline(ciFile(true, true));
      const child = { ...older, id: older.id + 1000, source: 'parent_pipeline', sha: '0'.repeat(40) };
      assert.deepEqual(await cancelRedundantPipelines(t.c, child), []);
      assert.equal((await pipelineRow(t, older.id))!.status, 'pending');
      await t.c.db.updateTable('ci_pipelines').set({ status: 'manual' }).where('id', '=', older.id).execute();
      await push(p.id);
      assert.equal((await pipelineRow(t, older.id))!.status, 'manual');
      assert.deepEqual(await statuses(t, older.id), { 'build-job': 'pending', 'test-job': 'created' });
    });
  });
}
