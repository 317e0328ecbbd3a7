// The real clients, unchanged, against Anvil's CI API on a listening server with the built-in
// runner started: python-gitlab 3.12 (its API and its `gitlab` CLI) and @gitbeaker/rest 43 create
// pipelines with variables, list and filter them, read jobs, bridges, variables, test reports and
// logs, and retry, play, cancel, erase and delete — checking what a user would check.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import type { CiRunner } from '../../src/domain/ci/runner.js';
import { startJob } from '../../src/domain/ci/state.js';
import { DIALECTS, buildTestApp, type TestApp } from '../helpers/build.js';
import { PYTHON, pythonGitlabSkip } from '../helpers/clients.js';
import { listeningTestApp } from '../helpers/git.js';
import { CHILD_CI, createPipelineOk, jobRows, JUNIT_REPORT, makeCiProject } from '../helpers/ci.js';
import { testRunner } from '../ci/runner_fixtures.js';

const run = promisify(execFile);
const here = path.dirname(fileURLToPath(import.meta.url));

// build: passes and writes a junit report (1 passed, 1 failed case); broken: fails the pipeline;
// child: a bridge to a child pipeline; deploy: manual, prints its played variable; slow: only
// when SLOW is set, runs until canceled.
const CI = `stages: [build, test]
build:
  stage: build
  script:
    - echo "building with X=$X"
    - cp fixtures/report.xml junit.xml
  artifacts:
    reports:
      junit: junit.xml
broken:
  stage: test
  script:
    - echo "about to break"
    - exit 1
child:
  stage: test
  trigger:
    include: child.yml
deploy:
  stage: test
  when: manual
  script: echo "deploying to $TARGET"
slow:
  stage: build
  rules:
    - if: $SLOW
  script: sleep 300
`;

const FILES = { '.service-ci.yml': CI, 'child.yml': CHILD_CI, 'fixtures/report.xml': JUNIT_REPORT };

/** The last line a client script printed, as JSON; its stderr in the error when it failed. */
async function drive(cmd: string, args: string[], env: Record<string, string>): Promise<any> {
  try {
    const { stdout } = await run(cmd, args, { env: { ...process.env, ...env }, maxBuffer: 16 << 20, timeout: 600_000 });
    return JSON.parse(stdout.trim().split('\n').pop()!);
  } catch (e: any) {
    throw new Error(`${path.basename(args[0]!)} failed: ${e.message}\n${e.stderr ?? ''}`);
  }
}

for (const dialect of DIALECTS) {
  describe(`real clients against the CI API (${dialect})`, () => {
    let t: TestApp;
    let url: string;
    let runner: CiRunner;
    let scratch: string;
    before(async () => {
      ({ t, url } = await listeningTestApp(dialect));
      runner = testRunner(t);
      runner.start();
      scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'anvil-ci-clients-'));
    });
    after(async () => {
      await runner.stop();
      await t.close();
      fs.rmSync(scratch, { recursive: true, force: true });
    });

    /** What both clients saw of the same story (the same CI file, the same steps). */
    const commonExpectations = (seen: any) => {
      // created through the API with a variable; the broken job fails the pipeline
      assert.equal(seen.created.source, 'api');
      assert.equal(seen.created.ref, 'main');
      assert.ok(['created', 'pending', 'running'].includes(seen.created.status), `a new pipeline: ${seen.created.status}`);
      assert.equal(seen.finished_status, 'failed');
      // The pipeline's own jobs only: its child pipeline's job is listed under the child.
      assert.deepEqual(seen.job_statuses, { build: 'success', broken: 'failed', deploy: 'manual' });
      assert.equal(seen.bridges.length, 1);
      assert.equal(seen.bridges[0].name, 'child');
      assert.equal(seen.bridges[0].status, 'success');
      assert.equal(typeof seen.bridges[0].downstream, 'number');
      assert.deepEqual(seen.variables, [{ key: 'X', value: 'y', variable_type: 'env_var' }]);
      assert.deepEqual(seen.test_report, { total: 2, success: 1, failed: 1, suites: ['build'] });
      assert.deepEqual(seen.test_report_summary, { total: 2, build_ids: [seen.build_id] });

      // lists: filtered, ordered, other refs empty
      const first = seen.created.id;
      assert.ok(seen.second_id > first);
      assert.deepEqual(seen.list_failed_asc, [first, seen.second_id]);
      assert.deepEqual(seen.list_desc.slice(0, 2), [seen.second_id, first]);
      assert.deepEqual(seen.list_other_ref, []);
      assert.deepEqual(seen.list_success, []);
      assert.deepEqual(seen.project_jobs_scoped, ['failed', 'success']);
      assert.deepEqual(seen.project_jobs_failed, ['broken', 'broken'], 'the broken job of both pipelines');

      // one job and its log
      assert.deepEqual(seen.job_get, { id: seen.build_id, name: 'build', status: 'success', pipeline: first, stage: 'build' });
      assert.match(seen.trace, /building with X=y/);
      assert.match(seen.trace, /Job succeeded/);

      // retry makes a new job; the old one is listed only with include_retried
      assert.notEqual(seen.retried.new, seen.retried.old);
      assert.equal(seen.retried.name, 'broken');
      assert.ok(['pending', 'running', 'created'].includes(seen.retried.status), `retried job: ${seen.retried.status}`);
      assert.deepEqual(seen.current_broken, [seen.retried.new]);
      assert.deepEqual(seen.include_retried_broken, [seen.retried.old, seen.retried.new]);

      // play ran the manual job
      assert.equal(seen.played.status, 'success');

      // pipeline retry: the failed job runs again as a new job
      assert.equal(seen.pipeline_retry.id, first);
      assert.ok(['pending', 'running', 'created'].includes(seen.pipeline_retry.status), `retried pipeline: ${seen.pipeline_retry.status}`);
      assert.deepEqual(seen.pipeline_retry_new_jobs, ['broken']);

      // cancel a running job, then a running pipeline
      assert.deepEqual(seen.job_cancel, { id: seen.slow_id, status: 'canceled' });
      assert.equal(seen.pipeline_cancel.status, 'canceled');
      assert.equal(seen.pipeline_cancel_final, 'canceled');
      assert.ok(seen.pipeline_cancel_jobs.includes('canceled'));
      assert.ok(seen.pipeline_cancel_jobs.every((s: string) => ['canceled', 'success', 'skipped'].includes(s)), seen.pipeline_cancel_jobs.join());

      // a running job: its log so far reads (200, maybe empty), it is neither retryable nor erasable
      assert.deepEqual(seen.running_retry, expectError(403, '403 Forbidden - Job is not retryable'));
      assert.deepEqual(seen.running_erase, expectError(403, '403 Forbidden - Job is not erasable!'));
      assert.equal(seen.cancel_finished, 'success', 'canceling a finished job leaves it as it was');

      // the project by its URL-encoded path; the filters the reference takes
      assert.deepEqual(seen.by_path.manual_jobs, ['deploy'], 'the untouched second pipeline keeps its manual job');
      assert.deepEqual(seen.by_path.pipeline_jobs, ['build', 'deploy']);
      assert.deepEqual(seen.bad_ref, expectError(400, { base: ['Reference not found'] }));
    };
    /** How each client reports an error: python-gitlab [code, parsed message], gitbeaker {status, message text}. */
    let expectError: (status: number, message: unknown) => unknown;

    it('python-gitlab: pipelines, jobs, logs and every action; the gitlab CLI lists pipelines', { skip: pythonGitlabSkip() }, async () => {
      const p = await makeCiProject(t, FILES);
      const cfg = path.join(scratch, 'python-gitlab.cfg');
      fs.writeFileSync(cfg, `[global]\ndefault = anvil\n\n[anvil]\nurl = ${url}\nprivate_token = ${t.rootToken}\napi_version = 4\n`);
      const seen = await drive(PYTHON, [path.join(here, 'python_ci.py')], {
        ANVIL_URL: url, ANVIL_TOKEN: t.rootToken, PROJECT_ID: String(p.id), CLI_CONFIG: cfg,
      });
      expectError = (status, message) => [status, message];
      commonExpectations(seen);
      assert.equal(seen.running_trace, 'bytes');
      // filtered by scope=finished, source=api, username=root, yaml_errors=False: the four pipelines
      // left (the deleted one went after), newest first
      assert.equal(seen.by_path.pipelines.length, 4);
      assert.deepEqual(seen.by_path.pipelines, [...seen.by_path.pipelines].sort((a: number, b: number) => b - a));
      assert.deepEqual(seen.paged, { project_jobs: true, pipeline_jobs: true, descending: true });
      assert.equal(seen.play_result, null, 'play() returns nothing');
      assert.match(seen.played.trace, /^deploying to $/m, 'played without variables');
      assert.equal(seen.pipeline_retry_grew, true);
      assert.equal(seen.erase_result, null);
      assert.deepEqual(seen.erased, { artifacts: [], status: 'success' });
      assert.equal(seen.trace_after_erase, 404);
      assert.equal(seen.delete_result, null);
      assert.equal(seen.get_after_delete, 404);
      assert.equal(seen.cli.rc, 0, String(seen.cli.ids));
      assert.ok(seen.cli.ids.includes(seen.created.id) && !seen.cli.ids.includes(seen.second_id), `CLI list: ${seen.cli.ids}`);
      assert.equal(seen.cli_job, 'failed', 'the CLI reads the retried job');
      assert.deepEqual(seen.cli_jobs, ['canceled', 'failed']);
      assert.match(seen.cli_trace, /about to break/);
    });

    it('@gitbeaker/rest: the same through its Pipelines and Jobs APIs', async () => {
      const p = await makeCiProject(t, FILES);
      const seen = await drive(process.execPath, [path.join(here, 'gitbeaker_ci.mjs')], {
        ANVIL_URL: url, ANVIL_TOKEN: t.rootToken, PROJECT_ID: String(p.id),
      });
      expectError = (status, message) => ({ status, message: typeof message === 'string' ? message : JSON.stringify(message) });
      commonExpectations(seen);
      assert.equal(seen.running_trace, 'string');
      assert.deepEqual(seen.by_path.pipelines.length, 2);
      assert.deepEqual(seen.by_path.pagination, { total: 4, totalPages: 2, next: 2, perPage: 2 });
      assert.equal(seen.play_result.id, seen.deploy_id);
      assert.equal(seen.play_result.status, 'pending');
      assert.match(seen.played.trace, /deploying to staging/);
      assert.deepEqual(seen.play_unplayable, { status: 400, message: '400 Bad request - Unplayable Job' }, 'a job that is not manual');
      assert.deepEqual(seen.list_paged, [seen.second_id, seen.created.id], 'one per page, every page read');
      assert.deepEqual(seen.bad_scope, { status: 400, message: 'scope does not have a valid value' });
      assert.equal(seen.erased.status, 'success');
      assert.deepEqual(seen.erased.artifacts, []);
      assert.equal(seen.erased.download_url, null);
      assert.equal(seen.trace_after_erase.status, 404);
      assert.equal(seen.delete_result, null);
      assert.equal(seen.get_after_delete.status, 404);
      assert.deepEqual(seen.missing_job, { status: 404, message: '404 Not found' });
    });
  });
}

// What the clients revealed, pinned without a runner's timing: a job that has just started has no
// log chunk until the runner's first flush; its log reads as empty then (python-gitlab's
// job.trace() raised a 404 error for it), while a job that never ran still has no log at all.
for (const dialect of DIALECTS) {
  describe(`the log of a job that just started (${dialect})`, () => {
    let t: TestApp;
    before(async () => {
      t = await buildTestApp(dialect);
    });
    after(async () => t.close());

    it('reads as an empty text log while running; 404 before it ran', async () => {
      const p = await makeCiProject(t);
      const pipeline = await createPipelineOk(t, p.id);
      const [build] = await jobRows(t, pipeline.id);
      assert.equal(build!.status, 'pending');
      const trace = `/api/v4/projects/${p.id}/jobs/${build!.id}/trace`;
      assert.deepEqual([(await t.get(trace)).status, (await t.get(trace)).body], [404, { message: '404 Not Found' }]);
      assert.ok(await startJob(t.c, build!.id));
      const r = await t.get(trace);
      assert.equal(r.status, 200);
      assert.equal(r.headers['content-type'], 'text/plain');
      assert.equal(r.headers['content-disposition'], `infile; filename="${build!.id}.log"`);
      assert.equal(r.text, '');
    });
  });
}
