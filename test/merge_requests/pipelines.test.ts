// CI on merge requests: merge_request_event pipelines on refs/merge-requests/:iid/head for the
// jobs whose rules ask for them, the CI_MERGE_REQUEST_* variables as a runner receives them,
// head_pipeline, POST …/pipelines, and a merge that waits for its pipeline (and one that stops
// waiting when the pipeline fails). A real runner client takes and finishes the jobs.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../helpers/build.js';
import { buildGitTestApp, type GitTestApp } from '../helpers/git.js';
import { makeCiProject, putFiles } from '../helpers/ci.js';
import { branchTip } from '../helpers/branches.js';
import { TestRunnerClient } from '../helpers/runner_client.js';
import { testQueue, waitFor } from '../helpers/queue.js';
import { registerBackgroundJobs } from '../../src/domain/background.js';
import { MERGE_REQUEST_AUTO_MERGE_JOB } from '../../src/domain/merge_requests/auto_merge.js';

const REG_TOKEN = 'instance-registration-token-mr01';
const CI = `workflow:
  rules:
    - if: $CI_PIPELINE_SOURCE == "merge_request_event"
    - if: $CI_COMMIT_BRANCH == $CI_DEFAULT_BRANCH
mr-job:
  script: echo mr
  rules:
    - if: $CI_PIPELINE_SOURCE == "merge_request_event"
only-mr:
  script: echo only
  only: [merge_requests]
branch-job:
  script: echo branch
  rules:
    - if: $CI_COMMIT_BRANCH
`;

/** Runs the queued auto-merge checks as a node's workers would. */
async function runAutoMergeJobs(t: GitTestApp): Promise<void> {
  const queue = testQueue(t.c.db);
  registerBackgroundJobs({ ...t.c, queue }, [MERGE_REQUEST_AUTO_MERGE_JOB]);
  queue.start();
  try {
    await waitFor('auto merge jobs', async () => {
      const left = await t.c.db.selectFrom('background_jobs').select('id').where('kind', '=', MERGE_REQUEST_AUTO_MERGE_JOB).where('state', 'in', ['queued', 'running']).execute();
      return left.length === 0;
    }, 90_000);
  } finally {
    await queue.stop();
  }
  const dead = await t.c.db.selectFrom('background_jobs').select(['last_error']).where('kind', '=', MERGE_REQUEST_AUTO_MERGE_JOB).where('state', '=', 'dead').execute();
  if (dead.length) throw new Error(`auto merge job failed: ${dead[0]!.last_error}`);
}

for (const dialect of DIALECTS) {
  describe(`merge request pipelines (${dialect})`, () => {
    let t: GitTestApp;
    let runner: TestRunnerClient;
    before(async () => {
      t = await buildGitTestApp(dialect, { ANVIL_RUNNER_REGISTRATION_TOKEN: REG_TOKEN, ANVIL_RUNNER_LONG_POLL_SECONDS: '1' });
      runner = new TestRunnerClient(t.url);
      assert.equal((await runner.register(REG_TOKEN, { runUntagged: true })).status, 201);
      assert.equal((await t.request('PUT', '/api/v4/application/settings', { body: { default_branch_protection: 0 } })).status, 200);
    });
    after(async () => t.close());

    /** Takes every pending job and finishes it with `state`; returns the jobs as the runner got them. */
    async function finishJobs(count: number, state: 'success' | 'failed'): Promise<any[]> {
      const jobs = [];
      for (let i = 0; i < count; i++) {
        const job = await runner.nextJob();
        jobs.push(job);
        assert.equal((await runner.updateJob(job.id, job.token, { state, ...(state === 'failed' ? { failureReason: 'script_failure', exitCode: 1 } : {}) })).status, 200);
      }
      return jobs;
    }

    it('opens with a merge_request_event pipeline of the MR jobs; its jobs see CI_MERGE_REQUEST_*; the merge waits for it', async () => {
      const ci = await makeCiProject(t, CI, { body: { only_allow_merge_if_pipeline_succeeds: true } });
      const head = await putFiles(t, ci.id, { 'feature.txt': 'f\n' }, { branch: 'feat', startBranch: 'main' });
      const opened = await t.request('POST', `/api/v4/projects/${ci.id}/merge_requests`, { body: { source_branch: 'feat', target_branch: 'main', title: 'Feature', assignee_id: 1 } });
      assert.equal(opened.status, 201, opened.text);
      const mr = opened.body;
      assert.equal(mr.head_pipeline.source, 'merge_request_event');
      assert.equal(mr.head_pipeline.ref, `refs/merge-requests/${mr.iid}/head`);
      assert.equal(mr.head_pipeline.sha, head);
      assert.equal(mr.detailed_merge_status, 'ci_still_running');
      const list = await t.get(`/api/v4/projects/${ci.id}/merge_requests/${mr.iid}/pipelines`);
      assert.deepEqual(list.body.map((p: any) => [p.id, p.source]), [[mr.head_pipeline.id, 'merge_request_event']]);
      const jobs = await t.get(`/api/v4/projects/${ci.id}/pipelines/${mr.head_pipeline.id}/jobs`);
      assert.deepEqual(jobs.body.map((j: any) => j.name).sort(), ['mr-job', 'only-mr']);

      // not mergeable while the required pipeline runs; merging when it succeeds is accepted
      assert.equal((await t.request('PUT', `/api/v4/projects/${ci.id}/merge_requests/${mr.iid}/merge`, { body: {} })).status, 405);
      const waiting = await t.request('PUT', `/api/v4/projects/${ci.id}/merge_requests/${mr.iid}/merge`, { body: { merge_when_pipeline_succeeds: true } });
      assert.equal(waiting.status, 200, waiting.text);
      assert.equal(waiting.body.state, 'opened');
      assert.equal(waiting.body.merge_when_pipeline_succeeds, true);

      const ran = await finishJobs(2, 'success');
      const vars = Object.fromEntries(ran[0].variables.map((v: any) => [v.key, v.value]));
      assert.equal(vars.CI_PIPELINE_SOURCE, 'merge_request_event');
      assert.equal(vars.CI_MERGE_REQUEST_IID, String(mr.iid));
      assert.equal(vars.CI_MERGE_REQUEST_ID, String(mr.id));
      assert.equal(vars.CI_MERGE_REQUEST_SOURCE_BRANCH_NAME, 'feat');
      assert.equal(vars.CI_MERGE_REQUEST_TARGET_BRANCH_NAME, 'main');
      assert.equal(vars.CI_MERGE_REQUEST_TITLE, 'Feature');
      assert.equal(vars.CI_MERGE_REQUEST_PROJECT_PATH, ci.project.path_with_namespace);
      assert.equal(vars.CI_MERGE_REQUEST_REF_PATH, `refs/merge-requests/${mr.iid}/head`);
      assert.equal(vars.CI_MERGE_REQUEST_EVENT_TYPE, 'detached');
      assert.equal(vars.CI_MERGE_REQUEST_ASSIGNEES, 'root');
      assert.equal(vars.CI_MERGE_REQUEST_DIFF_BASE_SHA, mr.diff_refs.base_sha);
      assert.equal(vars.CI_COMMIT_REF_NAME, 'feat');
      assert.equal(vars.CI_COMMIT_SHA, head);
      assert.equal(vars.CI_COMMIT_BRANCH, undefined);

      await waitFor('pipeline success', async () => (await t.get(`/api/v4/projects/${ci.id}/pipelines/${mr.head_pipeline.id}`)).body.status === 'success', 60_000);
      await runAutoMergeJobs(t);
      const merged = await t.get(`/api/v4/projects/${ci.id}/merge_requests/${mr.iid}`);
      assert.equal(merged.body.state, 'merged');
      assert.equal(merged.body.merge_user.username, 'root');
      assert.equal(await branchTip(t, ci.id, 'main'), merged.body.merge_commit_sha);
    });

    it('POST …/pipelines makes another; a failed pipeline stops a waiting merge', async () => {
      const ci = await makeCiProject(t, CI);
      await putFiles(t, ci.id, { 'g.txt': 'g\n' }, { branch: 'g', startBranch: 'main' });
      const mr = (await t.request('POST', `/api/v4/projects/${ci.id}/merge_requests`, { body: { source_branch: 'g', target_branch: 'main', title: 'G' } })).body;
      const first = mr.head_pipeline.id;
      const again = await t.request('POST', `/api/v4/projects/${ci.id}/merge_requests/${mr.iid}/pipelines`);
      assert.equal(again.status, 201, again.text);
      assert.equal(again.body.source, 'merge_request_event');
      assert.ok(again.body.id > first);
      // the first pipeline's jobs are canceled as redundant or left; finish every pending job as failed
      const head = (await t.get(`/api/v4/projects/${ci.id}/merge_requests/${mr.iid}`)).body.head_pipeline;
      assert.equal(head.id, again.body.id);
      const waiting = await t.request('PUT', `/api/v4/projects/${ci.id}/merge_requests/${mr.iid}/merge`, { body: { merge_when_pipeline_succeeds: true } });
      assert.equal(waiting.body.merge_when_pipeline_succeeds, true);
      const pending = (await t.get(`/api/v4/projects/${ci.id}/jobs?scope=pending`)).body.length;
      await finishJobs(pending, 'failed');
      await waitFor('pipeline failed', async () => (await t.get(`/api/v4/projects/${ci.id}/pipelines/${again.body.id}`)).body.status === 'failed', 60_000);
      await runAutoMergeJobs(t);
      const after = await t.get(`/api/v4/projects/${ci.id}/merge_requests/${mr.iid}`);
      assert.equal(after.body.state, 'opened');
      assert.equal(after.body.merge_when_pipeline_succeeds, false);
      assert.equal(after.body.detailed_merge_status, 'mergeable');
    });
  });
}
