// End to end, as a team uses it: a repository with a CI file pushed over git (the real client),
// the push pipeline planned from it and run by the built-in runner (real bash processes): stages,
// `needs`, an allowed failure, a manual job, a junit report, artifacts, coverage and a child
// pipeline reach their final states; then every endpoint is read, and the actions a user takes
// (play, retry, cancel a running job, erase, delete) do what they say.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { DIALECTS, keysOf } from '../helpers/build.js';
import { PIPELINE_BASIC_KEYS } from '../helpers/keys.js';
import { buildGitTestApp, cloneUrl, commitFiles, gitOk, initWorkTree, type GitTestApp } from '../helpers/git.js';
import { makeProject } from '../helpers/projects.js';
import { waitFor } from '../helpers/queue.js';
import { CHILD_CI, JUNIT_REPORT, runPushPipelineJobs } from '../helpers/ci.js';
import { alive, jobDir, jobPids, testRunner } from './runner_fixtures.js';
import type { CiRunner } from '../../src/domain/ci/runner.js';

const CI = `stages: [build, test, deploy]
variables:
  GREETING: hello
build:
  stage: build
  script:
    - echo "$GREETING from $CI_JOB_NAME on $CI_COMMIT_REF_NAME"
    - mkdir -p out && echo built > out/result.txt
    - 'echo "Coverage: 87.5%"'
  coverage: '/Coverage: (\\d+\\.\\d+)%/'
  artifacts:
    paths: [out/]
    expire_in: 1 week
unit:
  stage: test
  needs: [build]
  script:
    - test "$(cat out/result.txt)" = built
    - cp fixtures/report.xml junit.xml
  artifacts:
    reports:
      junit: junit.xml
flaky:
  stage: test
  script: exit 3
  allow_failure: true
child:
  stage: test
  trigger:
    include: child.yml
deploy:
  stage: deploy
  script: echo "deploying $DEPLOY_TARGET"
  when: manual
slow:
  stage: build
  rules:
    - if: $PIDFILE
  script:
    - sleep 300 &
    - echo $! > "$PIDFILE"
    - wait
`;

for (const dialect of DIALECTS) {
  describe(`CI end to end (${dialect})`, () => {
    let t: GitTestApp;
    let runner: CiRunner;
    let owner: { id: number; username: string; token: string };
    let project: any;
    let sha: string;
    let pipeline: any;
    const api = (p: string) => `/api/v4/projects/${project.id}${p}`;
    const get = async (p: string) => {
      const r = await t.get(api(p), owner.token);
      assert.equal(r.status, 200, `${p}: ${r.text}`);
      return r.body;
    };
    const jobsByName = async (pipelineId: number, query = '') => {
      const list = await get(`/pipelines/${pipelineId}/jobs?per_page=100${query}`);
      return Object.fromEntries(list.map((j: any) => [j.name, j]));
    };

    before(async () => {
      t = await buildGitTestApp(dialect);
      owner = await t.createUser();
      project = await makeProject(t, owner.token, { name: 'e2e', visibility: 'private' });
      const dir = await initWorkTree(t, cloneUrl(project.http_url_to_repo, owner.token));
      sha = await commitFiles(t, dir, { '.service-ci.yml': CI, 'child.yml': CHILD_CI, 'fixtures/report.xml': JUNIT_REPORT, 'README.md': '# e2e\n' }, 'Add CI');
      await gitOk(t, ['push', '--quiet', 'origin', 'main'], { cwd: dir });
      await runPushPipelineJobs(t);
      runner = testRunner(t);
      runner.start();
    });
    after(async () => {
      await runner.stop();
      await t.close();
    });

    it('runs the pushed pipeline to its final states', async () => {
      const list = await get('/pipelines');
      assert.equal(list.length, 1, 'one pipeline for the push; the child pipeline is not listed');
      assert.deepEqual(keysOf(list[0]), PIPELINE_BASIC_KEYS);
      assert.equal(list[0].source, 'push');
      assert.equal(list[0].sha, sha);
      pipeline = await waitFor('pipeline finished', async () => {
        const p = (await t.get(api(`/pipelines/${list[0].id}`), owner.token)).body;
        return ['success', 'failed', 'canceled'].includes(p.status) ? p : null;
      }, 60_000);
      // The failure is allowed and the manual job optional: the pipeline passed (with warnings).
      assert.equal(pipeline.status, 'success');
      assert.equal(pipeline.iid, 1);
      assert.equal(pipeline.before_sha, '0'.repeat(40));
      assert.equal(pipeline.coverage, '87.50');
      assert.equal(pipeline.yaml_errors, null);
      assert.ok(pipeline.started_at && pipeline.finished_at && pipeline.duration !== null);

      // Without `strategy: depend` the bridge passed once the child pipeline was created; the
      // child runs on its own.
      const childId = (await get(`/pipelines/${pipeline.id}/bridges`))[0].downstream_pipeline.id;
      const childJobs = await waitFor('child job done', async () => {
        const all = await jobsByName(childId);
        return all['child-job']?.status === 'success' ? all : null;
      }, 30_000);
      const jobs = await jobsByName(pipeline.id);
      assert.equal(jobs.build.status, 'success');
      assert.equal(jobs.build.coverage, 87.5);
      assert.equal(jobs.unit.status, 'success');
      assert.equal(jobs.flaky.status, 'failed');
      assert.equal(jobs.flaky.failure_reason, 'script_failure');
      assert.equal(jobs.flaky.allow_failure, true);
      assert.equal(jobs.deploy.status, 'manual');
      assert.equal(jobs.slow, undefined, 'rules:if without PIDFILE leaves the job out');
      assert.equal(jobs['child-job'], undefined, "the child pipeline's job is not in the parent's job list");
      assert.equal(childJobs['child-job'].pipeline.id, childId);
      // `needs: [build]` let unit start before the build stage's other jobs had to finish; it
      // still started only after build finished.
      assert.ok(Date.parse(jobs.unit.started_at) >= Date.parse(jobs.build.finished_at));
      for (const j of Object.values(jobs) as any[]) {
        assert.equal(j.runner?.id ?? null, j.started_at ? 1 : null, `${j.name}: the built-in runner once it ran`);
        assert.equal(j.pipeline.id, pipeline.id);
        assert.equal(j.commit.id, sha);
      }

      const bridges = await get(`/pipelines/${pipeline.id}/bridges`);
      assert.equal(bridges.length, 1);
      assert.equal(bridges[0].name, 'child');
      assert.equal(bridges[0].status, 'success');
      assert.equal(bridges[0].downstream_pipeline.status, 'success');
      const child = await get(`/pipelines/${childId}`);
      assert.equal(child.source, 'parent_pipeline');
    });

    it('keeps the trace, artifacts and the junit report', async () => {
      const jobs = await jobsByName(pipeline.id);
      const trace = await t.get(api(`/jobs/${jobs.build.id}/trace`), owner.token);
      assert.equal(trace.status, 200);
      assert.match(trace.text, /hello from build on main/);
      assert.match(trace.text, /Job succeeded/);
      assert.ok(!trace.text.includes(owner.token) && !trace.text.includes(t.rootToken), 'no token in the log');

      const types = jobs.build.artifacts.map((a: any) => a.file_type).sort();
      assert.deepEqual(types, ['archive', 'metadata', 'trace']);
      assert.equal(jobs.build.artifacts_file.filename, 'artifacts.zip');
      assert.ok(jobs.build.artifacts_file.size > 0);
      const week = Date.parse(jobs.build.artifacts_expire_at) - Date.parse(jobs.build.finished_at);
      assert.ok(week > 6.9 * 86400e3 && week < 7.1 * 86400e3, `expires a week after: ${jobs.build.artifacts_expire_at}`);
      assert.ok(jobs.unit.artifacts.some((a: any) => a.file_type === 'junit' && a.file_format === 'gzip'));

      const report = await get(`/pipelines/${pipeline.id}/test_report`);
      assert.equal(report.total_count, 2);
      assert.equal(report.success_count, 1);
      assert.equal(report.failed_count, 1);
      const failedCase = report.test_suites[0].test_cases.find((c: any) => c.status === 'failed');
      assert.equal(failedCase.name, 'divides');
      const summary = await get(`/pipelines/${pipeline.id}/test_report_summary`);
      assert.equal(summary.total.count, 2);
      assert.deepEqual(summary.test_suites[0].build_ids, [jobs.unit.id]);
    });

    it('plays the manual job with variables, and retries a job as a new one', async () => {
      const jobs = await jobsByName(pipeline.id);
      const played = await t.request('POST', api(`/jobs/${jobs.deploy.id}/play`), {
        token: owner.token,
        body: { job_variables_attributes: [{ key: 'DEPLOY_TARGET', value: 'staging' }] },
      });
      assert.equal(played.status, 200, played.text);
      assert.equal(played.body.status, 'pending');
      await waitFor('deploy done', async () => (await get(`/jobs/${jobs.deploy.id}`)).status === 'success', 30_000);
      assert.match((await t.get(api(`/jobs/${jobs.deploy.id}/trace`), owner.token)).text, /deploying staging/);

      const retried = await t.request('POST', api(`/jobs/${jobs.flaky.id}/retry`), { token: owner.token });
      assert.equal(retried.status, 201, retried.text);
      assert.notEqual(retried.body.id, jobs.flaky.id);
      await waitFor('retried job done', async () => (await get(`/jobs/${retried.body.id}`)).status === 'failed', 30_000);
      const visible = await jobsByName(pipeline.id);
      assert.equal(visible.flaky.id, retried.body.id, 'the old job is hidden');
      const all = await get(`/pipelines/${pipeline.id}/jobs?include_retried=true&per_page=100`);
      assert.equal(all.filter((j: any) => j.name === 'flaky').length, 2);
    });

    it('cancels a running job: its processes are gone', async () => {
      // The job writes it in its checkout (the sandbox shows it nothing else of the host).
      const r = await t.request('POST', api('/pipeline'), { token: owner.token, body: { ref: 'main', variables: [{ key: 'PIDFILE', value: 'slow.pid' }] } });
      assert.equal(r.status, 201, r.text);
      assert.equal(r.body.source, 'api');
      const slow = (await jobsByName(r.body.id)).slow;
      await waitFor('slow job running with its pid file', async () => {
        const f = path.join(jobDir(t, slow.id), 'slow.pid');
        return fs.existsSync(f) && fs.readFileSync(f, 'utf8').trim() !== '';
      }, 30_000);
      const pids = jobPids();
      assert.ok(pids.length >= 2, 'bash and its sleep run');
      const canceled = await t.request('POST', api(`/jobs/${slow.id}/cancel`), { token: owner.token });
      assert.equal(canceled.status, 201, canceled.text);
      assert.equal(canceled.body.status, 'canceled');
      await waitFor('the sleep is gone', () => pids.every((pid) => !alive(pid)), 20_000);
      const cancelPipeline = await t.request('POST', api(`/pipelines/${r.body.id}/cancel`), { token: owner.token });
      assert.equal(cancelPipeline.status, 200);
      await waitFor('pipeline canceled', async () => (await get(`/pipelines/${r.body.id}`)).status === 'canceled', 30_000);
    });

    it('erases a job, then deletes the pipeline but keeps its child', async () => {
      const jobs = await jobsByName(pipeline.id);
      const erased = await t.request('POST', api(`/jobs/${jobs.build.id}/erase`), { token: owner.token });
      assert.equal(erased.status, 201, erased.text);
      assert.deepEqual(erased.body.artifacts, []);
      assert.equal(erased.body.download_url, null);
      assert.equal((await t.get(api(`/jobs/${jobs.build.id}/trace`), owner.token)).status, 404);

      const childId = (await get(`/pipelines/${pipeline.id}/bridges`))[0].downstream_pipeline.id;
      const keys = (await t.c.db.selectFrom('ci_job_artifacts').select('blob_key').where('project_id', '=', project.id).execute()).map((r) => r.blob_key);
      assert.ok(keys.length > 0);
      const del = await t.request('DELETE', api(`/pipelines/${pipeline.id}`), { token: owner.token });
      assert.equal(del.status, 204, del.text);
      assert.equal((await t.get(api(`/pipelines/${pipeline.id}`), owner.token)).status, 404);
      assert.equal((await t.get(api(`/jobs/${jobs.unit.id}`), owner.token)).status, 404);
      assert.equal((await get(`/pipelines/${childId}`)).id, childId, 'the child pipeline is kept');
      const left = await t.c.db.selectFrom('ci_jobs').select('id').where('pipeline_id', '=', pipeline.id).execute();
      assert.equal(left.length, 0);
      const unitArtifacts = await t.c.db.selectFrom('ci_job_artifacts').select('id').where('job_id', '=', jobs.unit.id).execute();
      assert.equal(unitArtifacts.length, 0);
      for (const key of keys.filter((k) => k.startsWith(`ci/artifacts/${jobs.unit.id}/`) || k === `ci/traces/${jobs.unit.id}.log`)) {
        assert.equal(await t.c.storage.stat(key), null, `${key} removed`);
      }
    });
  });
}
