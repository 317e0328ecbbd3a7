// The runner API end to end, on each dialect: a runner client speaking the protocol as
// gitlab-runner does registers (both flows), polls, clones with the job token over git HTTP,
// sends a 3,000-line log in pieces with a 416 resync, uploads artifacts that a dependent job
// downloads, a junit report that becomes the pipeline's test report, and reports success,
// script failure, a cancel seen through Job-Status, a runner that disappears, and unregisters.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DIALECTS, keysOf } from '../helpers/build.js';
import { buildGitTestApp, type GitTestApp } from '../helpers/git.js';
import { JUNIT_REPORT, plannedJob } from '../helpers/ci.js';
import { jobsOf, makePipeline, repoProject, type RepoProject } from '../ci/runner_fixtures.js';
import { executeShellJob, TestRunnerClient } from '../helpers/runner_client.js';
import { storedZip } from '../helpers/zip.js';
import { RUNNER_STUCK_SWEEP_JOB } from '../../src/domain/runners/jobs.js';
import { registerBackgroundJobs, scheduleRecurring } from '../../src/domain/background.js';
import { testQueue, waitFor } from '../helpers/queue.js';
import { allowLocalHooks, startHookWorkers, startReceiver } from '../helpers/hooks.js';

const REG_TOKEN = 'instance-registration-token-0123';

const JOB_KEYS = [
  'allow_git_fetch', 'artifacts', 'cache', 'credentials', 'dependencies', 'features', 'git_info', 'id', 'image', 'job_info', 'runner_info',
  'services', 'steps', 'token', 'variables',
];

for (const dialect of DIALECTS) {
  describe(`runner API (${dialect})`, () => {
    let t: GitTestApp;
    let rp: RepoProject;
    before(async () => {
      t = await buildGitTestApp(dialect, { ANVIL_RUNNER_REGISTRATION_TOKEN: REG_TOKEN, ANVIL_RUNNER_LONG_POLL_SECONDS: '3' });
      rp = await repoProject(t);
    });
    after(() => t.close());

    const pipelineOf = (jobs: Parameters<typeof makePipeline>[2]) => makePipeline(t, rp, jobs, { userId: 1 });
    const job = async (pipelineId: number, name: string) => (await t.get(`/api/v4/projects/${rp.project.id}/jobs/${(await jobsOf(t, pipelineId))[name]!.id}`)).body;

    it('registers with a registration token: 201 {id, token, token_expires_at}; a wrong one is 403, none is 400', async () => {
      const runner = new TestRunnerClient(t.url);
      const r = await runner.register(REG_TOKEN);
      assert.equal(r.status, 201, r.text);
      assert.equal(r.headers.get('content-type'), 'application/json');
      assert.deepEqual(keysOf(r.body), ['id', 'token', 'token_expires_at']);
      assert.ok(Number.isInteger(r.body.id) && r.body.id > 1);
      assert.match(r.body.token, /^glrt-/);
      assert.equal(r.body.token_expires_at, null);
      const stored = await t.c.db.selectFrom('ci_runners').select('token_digest').where('id', '=', r.body.id).executeTakeFirstOrThrow();
      assert.notEqual(stored.token_digest, r.body.token, 'stored hashed');

      const bad = await new TestRunnerClient(t.url).register('nope');
      assert.equal(bad.status, 403);
      assert.deepEqual(bad.body, { message: '403 Forbidden' });
      const none = await fetch(`${t.url}/api/v4/runners`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      assert.equal(none.status, 400);
      assert.deepEqual(await none.json(), { message: '400 (Bad request) "token" not given' });

      // A project's runners_token registers a project runner.
      const project = (await t.get(`/api/v4/projects/${rp.project.id}`)).body;
      const pr = new TestRunnerClient(t.url);
      assert.equal((await pr.register(project.runners_token)).status, 201);
      const row = await t.c.db.selectFrom('ci_runners').selectAll().where('id', '=', pr.id!).executeTakeFirstOrThrow();
      assert.equal(row.runner_type, 'project_type');
      assert.equal((await pr.unregister()).status, 204);
      assert.equal((await runner.unregister()).status, 204);
    });

    it('verify answers 200 with the id; an unknown token is 403', async () => {
      const runner = new TestRunnerClient(t.url);
      await runner.register(REG_TOKEN);
      const v = await new TestRunnerClient(t.url).verify(runner.token!);
      assert.equal(v.status, 200);
      assert.deepEqual(keysOf(v.body), ['id', 'token', 'token_expires_at']);
      assert.equal(v.body.id, runner.id);
      assert.equal((await new TestRunnerClient(t.url).verify('glrt-unknown')).status, 403);
      await runner.unregister();
    });

    it('jobs/request: 204 with X-GitLab-Last-Update; the same last_update is held (long poll) then 204', async () => {
      const runner = new TestRunnerClient(t.url);
      await runner.register(REG_TOKEN, { tags: ['nothing-matches'], runUntagged: false });
      const first = await runner.requestJob();
      assert.equal(first.status, 204);
      assert.ok(first.headers.get('x-gitlab-last-update'));
      const started = Date.now();
      const second = await runner.requestJob();
      assert.equal(second.status, 204);
      assert.ok(Date.now() - started >= 2900, 'held for the long poll');
      const stranger = new TestRunnerClient(t.url);
      stranger.token = 'glrt-unknown';
      const forbidden = await stranger.requestJob();
      assert.equal(forbidden.status, 403);
      await runner.unregister();
    });

    it('jobs/request: a job that becomes pending during the long poll answers it at once (201); a stale last_update is answered without waiting', async () => {
      const runner = new TestRunnerClient(t.url);
      await runner.register(REG_TOKEN, { tags: ['wake'], runUntagged: false });
      assert.equal((await runner.requestJob()).status, 204);
      const seen = runner.lastUpdate;
      const started = Date.now();
      const polling = runner.requestJob();
      await new Promise((r) => setTimeout(r, 150));
      await pipelineOf([plannedJob('woken', { tags: ['wake'], script: ['true'] })]);
      const woken = await polling;
      assert.equal(woken.status, 201, woken.text);
      assert.equal(woken.body.job_info.name, 'woken');
      assert.ok(Date.now() - started < 2500, `answered before the poll's bound (${Date.now() - started} ms)`);
      assert.equal(woken.headers.get('x-gitlab-last-update'), null, 'a runner that got a job asks again at once');
      assert.ok(seen);
      assert.equal((await runner.updateJob(woken.body.id, woken.body.token, { state: 'success' })).status, 200);

      runner.lastUpdate = 'stale-0-0';
      const quick = Date.now();
      const stale = await runner.requestJob();
      assert.equal(stale.status, 204);
      assert.ok(Date.now() - quick < 700, 'no wait for a runner that has not seen the queue');
      await runner.unregister();
    });

    it('runs a pipeline: clone with the job token, 3,000-line log with a 416 resync, artifacts to a dependent job, junit report, success', async () => {
      const runner = new TestRunnerClient(t.url);
      await runner.register(REG_TOKEN, { tags: ['linux'] });
      const p = await pipelineOf([
        plannedJob('build', {
          stage: 'build',
          stageIdx: 1,
          tags: ['linux'],
          script: ['cat hello.txt', 'for i in $(seq 1 3000); do echo "line $i"; done', 'mkdir -p out && echo built > out/result.txt'],
          artifacts: { paths: ['out/'], exclude: [], name: null, expireIn: '1 week', when: 'on_success', untracked: false, reports: { junit: ['junit.xml'] } },
        }),
        plannedJob('test', { stage: 'test', stageIdx: 2, tags: ['linux'], script: ['cat out/result.txt'] }),
      ]);
      const payload = await runner.nextJob();
      assert.deepEqual(keysOf(payload), JOB_KEYS);
      assert.equal(payload.job_info.name, 'build');
      assert.equal(payload.git_info.sha, rp.sha);
      assert.equal(payload.git_info.ref, 'main');
      assert.equal(payload.git_info.ref_type, 'branch');
      assert.match(payload.git_info.repo_url, new RegExp(`^http://gitlab-ci-token:${payload.token}@127\\.0\\.0\\.1:\\d+/`));
      assert.equal(payload.runner_info.timeout, 3600);
      const vars = Object.fromEntries(payload.variables.map((v: any) => [v.key, v]));
      assert.deepEqual(keysOf(vars.CI_JOB_TOKEN), ['file', 'key', 'masked', 'public', 'raw', 'value']);
      assert.equal(vars.CI_JOB_TOKEN.value, payload.token);
      assert.equal(vars.CI_JOB_TOKEN.masked, true);
      assert.equal(vars.CI_COMMIT_SHA.value, rp.sha);
      assert.equal(vars.CI_PROJECT_PATH.value, rp.project.full_path);
      assert.equal(vars.CI_RUNNER_ID.value, String(runner.id));
      assert.deepEqual(payload.steps[0], { name: 'script', script: payload.steps[0].script, timeout: 3600, when: 'on_success', allow_failure: false });
      assert.deepEqual(payload.artifacts.map((a: any) => [a.artifact_type, a.artifact_format]), [['archive', 'zip'], ['junit', 'gzip']]);
      assert.deepEqual(payload.dependencies, []);
      assert.equal((await job(p.id, 'build')).status, 'running');

      // The shell executor: clone over git HTTP with the job token, run the script.
      const ran = await executeShellJob(payload);
      assert.equal(ran.exitCode, 0, ran.log.toString());
      assert.match(ran.log.toString(), /hello from the repo/);
      assert.match(ran.log.toString(), /line 3000\n/);

      // The log in pieces; one piece sent past the end is refused with the stored length.
      const half = Math.floor(ran.log.length / 2);
      const early = await runner.sendTrace(payload.id, payload.token, ran.log.subarray(0, half), 4096);
      assert.equal(early.jobStatus, 'running');
      const skip = await runner.patchTrace(payload.id, payload.token, ran.log.subarray(half + 100, half + 200), half + 100);
      assert.equal(skip.status, 416);
      assert.equal(skip.headers.get('range'), `0-${half}`);
      assert.deepEqual(skip.body, { message: '416 Range Not Satisfiable' });
      const rest = await runner.sendTrace(payload.id, payload.token, ran.log.subarray(0, ran.log.length - 10), 8192, half + 100);
      assert.equal(rest.resyncs, 1);
      const ok = await runner.patchTrace(payload.id, payload.token, ran.log.subarray(ran.log.length - 10), ran.log.length - 10);
      assert.equal(ok.headers.get('range'), `0-${ran.log.length}`);
      assert.equal(ok.status, 202);
      assert.equal(ok.headers.get('job-status'), 'running');
      assert.equal(ok.headers.get('x-gitlab-trace-update-interval'), '3');

      // Artifacts: the archive (streamed multipart) and a junit report.
      const zip = storedZip([{ name: 'out/result.txt', data: fs.readFileSync(path.join(ran.dir, 'out/result.txt'), 'utf8') }]);
      const up = await runner.uploadArtifact(payload.id, payload.token, zip, { filename: 'artifacts.zip', type: 'archive', format: 'zip', expireIn: '1 week' });
      assert.equal(up.status, 201, up.text);
      const { gzipSync } = await import('node:zlib');
      const rep = await runner.uploadArtifact(payload.id, payload.token, gzipSync(JUNIT_REPORT), { filename: 'junit.xml.gz', type: 'junit', format: 'gzip' });
      assert.equal(rep.status, 201, rep.text);

      // The end: 202 while the log is short of bytesize, then 200.
      const early202 = await runner.updateJob(payload.id, payload.token, { state: 'success', bytesize: ran.log.length + 10 });
      assert.equal(early202.status, 202);
      assert.equal(early202.headers.get('x-gitlab-trace-update-interval'), '3');
      const done = await runner.updateJob(payload.id, payload.token, { state: 'success', bytesize: ran.log.length });
      assert.equal(done.status, 200);
      assert.equal(done.headers.get('job-status'), 'success');
      const build = await job(p.id, 'build');
      assert.equal(build.status, 'success');
      assert.equal(build.runner.id, runner.id);
      const trace = await t.get(`/api/v4/projects/${rp.project.id}/jobs/${payload.id}/trace`);
      assert.equal(trace.text, ran.log.toString());
      assert.equal((await runner.updateJob(payload.id, payload.token, { state: 'success' })).status, 403, 'the token ended with the job');

      // The dependent job gets the archive with its own token.
      const next = await runner.nextJob();
      assert.equal(next.job_info.name, 'test');
      assert.equal(next.dependencies.length, 1);
      assert.deepEqual(keysOf(next.dependencies[0]), ['artifacts_file', 'id', 'name', 'token']);
      assert.deepEqual(next.dependencies[0].artifacts_file, { filename: 'artifacts.zip', size: zip.length });
      const dl = await runner.downloadArtifact(payload.id, next.token);
      assert.equal(dl.status, 200);
      assert.deepEqual(dl.body, zip);
      assert.equal((await runner.downloadArtifact(payload.id, 'anvcbt-wrong')).status, 403);
      await runner.sendTrace(next.id, next.token, Buffer.from('built\n'), 100);
      assert.equal((await runner.updateJob(next.id, next.token, { state: 'success', bytesize: 6 })).status, 200);

      const pipeline = (await t.get(`/api/v4/projects/${rp.project.id}/pipelines/${p.id}`)).body;
      assert.equal(pipeline.status, 'success');
      const report = (await t.get(`/api/v4/projects/${rp.project.id}/pipelines/${p.id}/test_report`)).body;
      assert.equal(report.total_count, 2);
      assert.equal(report.failed_count, 1);
      await runner.unregister();
    });

    it('a script failure with its exit code; a cancel is seen as Job-Status canceling', async () => {
      const runner = new TestRunnerClient(t.url);
      await runner.register(REG_TOKEN, { tags: ['fail'] });
      const p = await pipelineOf([plannedJob('bad', { tags: ['fail'], script: ['exit 3'] })]);
      const payload = await runner.nextJob();
      await runner.sendTrace(payload.id, payload.token, Buffer.from('$ exit 3\nERROR: Job failed: exit code 3\n'), 1000);
      const r = await runner.updateJob(payload.id, payload.token, { state: 'failed', failureReason: 'script_failure', exitCode: 3, bytesize: 39 });
      assert.equal(r.status, 200);
      const bad = await job(p.id, 'bad');
      assert.equal(bad.status, 'failed');
      assert.equal(bad.failure_reason, 'script_failure');
      const row = (await jobsOf(t, p.id)).bad!;
      assert.equal(row.exit_code, 3);

      const p2 = await pipelineOf([plannedJob('long', { tags: ['fail'], script: ['sleep 100'] })]);
      const second = await runner.nextJob();
      await runner.sendTrace(second.id, second.token, Buffer.from('sleeping\n'), 100);
      const cancel = await t.request('POST', `/api/v4/projects/${rp.project.id}/jobs/${second.id}/cancel`);
      assert.equal(cancel.status, 201);
      const seen = await runner.patchTrace(second.id, second.token, Buffer.from('Terminated\n'), 9);
      assert.equal(seen.status, 202);
      assert.equal(seen.headers.get('job-status'), 'canceling');
      const fin = await runner.updateJob(second.id, second.token, { state: 'failed', failureReason: 'script_failure', bytesize: 20 });
      assert.equal(fin.status, 200);
      assert.equal(fin.headers.get('job-status'), 'canceled');
      assert.equal((await job(p2.id, 'long')).status, 'canceled');
      const log = await t.get(`/api/v4/projects/${rp.project.id}/jobs/${second.id}/trace`);
      assert.equal(log.text, 'sleeping\nTerminated\n');
      assert.equal((await runner.patchTrace(second.id, second.token, Buffer.from('x'), 20)).status, 403);
      await runner.unregister();
    });

    it('job and pipeline hooks name the registered runner that runs the job, with its own tags', async () => {
      await allowLocalHooks(t);
      const rx = await startReceiver();
      const queue = startHookWorkers(t);
      try {
        const hook = await t.request('POST', `/api/v4/projects/${rp.project.id}/hooks`, { body: { url: `${rx.url}/jobs`, job_events: true, pipeline_events: true, push_events: false } });
        assert.equal(hook.status, 201);
        const runner = new TestRunnerClient(t.url);
        const reg = await runner.register(REG_TOKEN, { description: 'hooked runner', tags: ['hooked', 'linux'] });
        const p = await pipelineOf([plannedJob('hooked', { tags: ['hooked'], script: ['true'] })]);
        const payload = await runner.nextJob();
        const [running] = await rx.waitFor(1, (r) => r.headers['x-service-event'] === 'Job Hook' && r.body.build_id === payload.id && r.body.build_status === 'running');
        assert.deepEqual(running.body.runner, { id: reg.body.id, description: 'hooked runner', runner_type: 'instance_type', active: true, is_shared: true, tags: ['hooked', 'linux'] });
        await runner.updateJob(payload.id, payload.token, { state: 'success', bytesize: 0 });
        const [done] = await rx.waitFor(1, (r) => r.headers['x-service-event'] === 'Pipeline Hook' && r.body.object_attributes.id === p.id && r.body.object_attributes.status === 'success');
        assert.deepEqual(done.body.builds[0].runner, running.body.runner);
        await runner.unregister();
      } finally {
        await queue.stop();
        await rx.close();
      }
    });

    it('a runner that disappears mid-job: the job fails stuck_or_timeout_failure with its log kept', async () => {
      const runner = new TestRunnerClient(t.url);
      await runner.register(REG_TOKEN, { tags: ['vanish'] });
      const p = await pipelineOf([plannedJob('lost', { tags: ['vanish'], script: ['sleep 100'] })]);
      const payload = await runner.nextJob();
      await runner.sendTrace(payload.id, payload.token, Buffer.from('started\n'), 100);
      // Its last contact an hour and a second ago.
      await t.c.db.updateTable('ci_jobs').set({ updated_at: new Date(Date.now() - 3601_000).toISOString() }).where('id', '=', payload.id).execute();
      // No runner polls any more: the recurring sweep, run by the background queue, finds the job.
      const queue = testQueue(t.c.db);
      registerBackgroundJobs({ ...t.c, queue }, [RUNNER_STUCK_SWEEP_JOB]);
      await scheduleRecurring({ ...t.c, queue }, RUNNER_STUCK_SWEEP_JOB, new Date());
      queue.start();
      try {
        await waitFor('the sweep to fail the job', async () => (await job(p.id, 'lost')).status === 'failed', 20_000);
      } finally {
        await queue.stop();
      }
      // and it queued its next run
      const next = await t.c.db.selectFrom('background_jobs').select('run_at').where('kind', '=', RUNNER_STUCK_SWEEP_JOB).where('state', '=', 'queued').execute();
      assert.equal(next.length, 1);
      const lost = await job(p.id, 'lost');
      assert.equal(lost.status, 'failed');
      assert.equal(lost.failure_reason, 'stuck_or_timeout_failure');
      const log = (await t.get(`/api/v4/projects/${rp.project.id}/jobs/${payload.id}/trace`)).text;
      assert.match(log, /^started\n.*stopped contacting/s);
      assert.equal((await runner.patchTrace(payload.id, payload.token, Buffer.from('late\n'), 8)).status, 403);
      await runner.unregister();
    });

    it('unregister: 204, then the token is refused; managers and token resets', async () => {
      const runner = new TestRunnerClient(t.url);
      await runner.register(REG_TOKEN);
      await runner.verify(runner.token!);
      assert.equal((await runner.unregisterManager()).status, 204);
      assert.equal((await runner.unregisterManager()).status, 404);
      const old = runner.token!;
      const reset = await runner.resetToken();
      assert.equal(reset.status, 201);
      assert.deepEqual(keysOf(reset.body), ['token', 'token_expires_at']);
      assert.equal((await new TestRunnerClient(t.url).verify(old)).status, 403);
      assert.equal((await runner.unregister()).status, 204);
      assert.equal((await runner.requestJob()).status, 403);
      assert.equal((await runner.unregister()).status, 403);
    });
  });
}
