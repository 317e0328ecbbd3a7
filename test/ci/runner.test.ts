// The built-in runner running real jobs: output in the trace, a clean environment, exit codes,
// timeouts and cancels that kill the process group, the trace while running, coverage,
// concurrency, stopping the runner (jobs left running by a dead node: runner_nodes.test.ts).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DIALECTS, ROOT_TOKEN, buildTestApp, type TestApp } from '../helpers/build.js';
import { waitFor } from '../helpers/queue.js';
import { findCiJob, transitionJob } from '../../src/db/repos/ci_jobs.js';
import { findJobArtifact } from '../../src/db/repos/ci_artifacts.js';
import { traceChunksAfter } from '../../src/db/repos/ci_traces.js';
import { cancelJob, startJob } from '../../src/domain/ci/state.js';
import { CiRunner } from '../../src/domain/ci/runner.js';
import {
  alive, jobDir, jobsOf, startedJobPids, makePipeline, plannedJob, repoProject, testRunner, traceText, waitForJob, waitForPipeline, type RepoProject,
} from './runner_fixtures.js';

// Secrets of the server's process: none may reach a job.
const LEAK_NAME = 'ANVIL_RUNNER_TEST_LEAK';
const LEAK_VALUE = `leak-${Math.random().toString(36).slice(2)}-value`;
const SECRET_KEY_VALUE = `secret-key-${Math.random().toString(36).slice(2)}-0123456789abcdef`;

for (const dialect of DIALECTS) {
  describe(`CI runner (${dialect})`, () => {
    let t: TestApp;
    let rp: RepoProject;
    let runner: CiRunner;
    before(async () => {
      process.env[LEAK_NAME] = LEAK_VALUE;
      process.env.ANVIL_SECRET_KEY = SECRET_KEY_VALUE;
      t = await buildTestApp(dialect, { ANVIL_SECRET_KEY: SECRET_KEY_VALUE });
      rp = await repoProject(t);
      runner = testRunner(t);
      runner.start();
    });
    after(async () => {
      await runner.stop();
      await t.close();
      delete process.env[LEAK_NAME];
      delete process.env.ANVIL_SECRET_KEY;
    });

    it('runs a job: output and CI variables in the trace, none of the server environment, workspace at the commit', async () => {
      const p = await makePipeline(t, rp, [
        plannedJob('hello', {
          variables: { JOB_VAR: 'from-the-job', DERIVED: 'sha-$CI_COMMIT_SHA' },
          beforeScript: ['echo before-part'],
          script: ['echo hi', 'cat hello.txt', 'env | sort', 'echo "dir=$(pwd)"'],
          afterScript: ['echo after-part'],
        }),
      ], { globalVariables: { GLOBAL_VAR: 'from-the-file' } });
      const { hello } = await jobsOf(t, p.id);
      const done = await waitForJob(t, hello!.id, ['success', 'failed']);
      const log = (await traceText(t, hello!.id))!;
      assert.equal(done.status, 'success', log);
      assert.equal(done.failure_reason, null);
      assert.equal(done.exit_code, 0);
      assert.equal(done.runner_id, 1);
      assert.equal(done.token_digest, null, 'the job token dies with the job');
      assert.ok(done.started_at && done.finished_at && done.finished_at >= done.started_at);
      assert.ok(done.duration !== null && done.duration >= 0);

      assert.match(log, /\$ echo hi/);
      assert.match(log, /^hi$/m);
      assert.match(log, /^hello from the repo$/m, 'the workspace is a checkout of the commit');
      assert.match(log, /^before-part$/m);
      assert.match(log, /^after-part$/m);
      assert.match(log, new RegExp(`^CI_JOB_ID=${hello!.id}$`, 'm'));
      assert.match(log, new RegExp(`^CI_PIPELINE_ID=${p.id}$`, 'm'));
      assert.match(log, new RegExp(`^CI_COMMIT_SHA=${rp.sha}$`, 'm'));
      assert.match(log, /^CI_JOB_TOKEN=\[MASKED\]$/m, 'the job token is masked in the log, as the reference masks it');
      assert.match(log, /^JOB_VAR=from-the-job$/m);
      assert.match(log, /^GLOBAL_VAR=from-the-file$/m);
      assert.match(log, new RegExp(`^DERIVED=sha-${rp.sha}$`, 'm'), 'variables expand predefined ones');
      // The sandbox shows the checkout where the reference's container executors put it.
      const projectDir = `/builds/${rp.project.full_path}`;
      assert.match(log, new RegExp(`^CI_PROJECT_DIR=${projectDir}$`, 'm'));
      assert.match(log, /^CI_BUILDS_DIR=\/builds$/m);
      assert.match(log, new RegExp(`^dir=${projectDir}$`, 'm'));
      assert.match(log, /Job succeeded/);

      // Nothing of the server's environment: not the test process's variables, not its secrets.
      assert.ok(!log.includes(LEAK_NAME) && !log.includes(LEAK_VALUE), 'a variable of the server process leaked');
      assert.ok(!log.includes(SECRET_KEY_VALUE), 'the secret key leaked');
      assert.ok(!log.includes(ROOT_TOKEN), 'the root token leaked');
      assert.ok(!/^ANVIL_/m.test(log), 'an ANVIL_ variable leaked');
      if (process.env.ANVIL_TEST_DATABASE_URL) assert.ok(!log.includes(process.env.ANVIL_TEST_DATABASE_URL));

      // The trace is a blob now; the chunks are gone; the workspace too.
      const row = await findJobArtifact(t.c.db, hello!.id, 'trace');
      assert.ok(row);
      assert.deepEqual([row.file_format, row.filename, row.blob_key, row.expire_at], ['raw', 'job.log', `ci/traces/${hello!.id}.log`, null]);
      assert.equal(Number(row.size), Buffer.byteLength(log));
      assert.deepEqual(await traceChunksAfter(t.c.db, hello!.id, -1, 10), []);
      assert.equal(fs.existsSync(projectDir), false, 'the workspace is removed');
      const pipeline = await waitForPipeline(t, p.id);
      assert.equal(pipeline.status, 'success');
    });

    it('exit 1 fails the job with script_failure and its exit code; later lines do not run', async () => {
      const p = await makePipeline(t, rp, [plannedJob('broken', { script: ['echo one', 'exit 3', 'echo never-printed'] })]);
      const { broken } = await jobsOf(t, p.id);
      const done = await waitForJob(t, broken!.id, ['success', 'failed']);
      const log = (await traceText(t, broken!.id))!;
      assert.equal(done.status, 'failed', log);
      assert.equal(done.failure_reason, 'script_failure');
      assert.equal(done.exit_code, 3);
      assert.match(log, /ERROR: Job failed: exit code 3/);
      assert.ok(!/^never-printed$/m.test(log));
    });

    it('pipeline and play variables reach the job; file variables become a file (mode 0600)', async () => {
      const p = await makePipeline(t, rp, [plannedJob('vars', {
        script: ['echo "api=$API_VAR"', 'echo "file-path=$CERT"', 'cat "$CERT"; echo', 'stat -c "mode=%a" "$CERT"', 'echo "override=$OVERRIDDEN"'],
        variables: { OVERRIDDEN: 'from-file' },
      })], {
        variables: [
          { key: 'API_VAR', value: 'given-by-api', variable_type: 'env_var' },
          { key: 'CERT', value: 'certificate-body', variable_type: 'file' },
          { key: 'OVERRIDDEN', value: 'from-api', variable_type: 'env_var' },
        ],
      });
      const { vars } = await jobsOf(t, p.id);
      const done = await waitForJob(t, vars!.id, ['success', 'failed']);
      const log = (await traceText(t, vars!.id))!;
      assert.equal(done.status, 'success', log);
      assert.match(log, /^api=given-by-api$/m);
      assert.match(log, /^certificate-body$/m);
      assert.match(log, /^mode=600$/m);
      assert.match(log, /^override=from-api$/m, 'pipeline variables win over the file');
      const file = /^file-path=(.+)$/m.exec(log)![1]!;
      assert.notEqual(file, 'certificate-body');
      assert.equal(fs.existsSync(file), false, 'the variable file is removed with the job');
    });

    it('timeout: the job fails with stuck_or_timeout_failure and its whole process tree is gone', async () => {
      const p = await makePipeline(t, rp, [plannedJob('slow', {
        timeout: 3,
        script: ['sleep 300 &', '(sleep 400 &) ; touch started', 'wait'],
      })]);
      const { slow } = await jobsOf(t, p.id);
      const pids = await startedJobPids(t, slow!.id);
      assert.ok(pids.length >= 3, 'bash and the background children run');
      const done = await waitForJob(t, slow!.id, ['success', 'failed']);
      assert.equal(done.status, 'failed');
      assert.equal(done.failure_reason, 'stuck_or_timeout_failure');
      assert.equal(done.exit_code, null);
      await waitFor('the background children to be gone', () => pids.every((pid) => !alive(pid)), 15_000);
      assert.match((await traceText(t, slow!.id))!, /ERROR: Job failed: execution took longer than 3s seconds/);
    });

    it('cancel (this node): the process is gone, the status stays canceled, the trace is kept', async () => {
      const p = await makePipeline(t, rp, [plannedJob('long', { script: ['echo started-long', '(sleep 400 &)', 'touch started', 'sleep 300'] })]);
      const { long } = await jobsOf(t, p.id);
      const pids = await startedJobPids(t, long!.id);
      const canceled = await cancelJob(t.c, long!.id);
      assert.equal(canceled!.status, 'canceled');
      await waitFor('the job processes to be gone', () => pids.every((pid) => !alive(pid)), 15_000);
      await waitFor('the trace to be folded', () => findJobArtifact(t.c.db, long!.id, 'trace'), 15_000);
      await waitFor('the runner to let go', () => !runner.activeJobIds.includes(long!.id), 15_000);
      const j = await findCiJob(t.c.db, long!.id);
      assert.equal(j!.status, 'canceled');
      assert.equal(j!.failure_reason, null);
      const log = (await traceText(t, long!.id))!;
      assert.match(log, /^started-long$/m);
      assert.match(log, /ERROR: Job failed: canceled/);
    });

    it('cancel seen from the database (another node canceled it, no signal here): the process is gone', async () => {
      const p = await makePipeline(t, rp, [plannedJob('elsewhere', { script: ['touch started', 'sleep 300'] })]);
      const { elsewhere } = await jobsOf(t, p.id);
      const pids = await startedJobPids(t, elsewhere!.id);
      // What cancelJob does on another node: the status changes, the signal stays there.
      await transitionJob(t.c.db, elsewhere!.id, ['running'], { status: 'canceled', updated_at: new Date().toISOString() });
      await waitFor('the job processes to be gone', () => pids.every((pid) => !alive(pid)), 15_000);
      await waitFor('the runner to let go', () => !runner.activeJobIds.includes(elsewhere!.id), 15_000);
      assert.equal((await findCiJob(t.c.db, elsewhere!.id))!.status, 'canceled');
    });

    it('the trace can be read while the job runs, then in full once it ended', async () => {
      const p = await makePipeline(t, rp, [plannedJob('stream', {
        script: ['echo first-part', 'while [ ! -f go ]; do sleep 0.05; done', 'echo second-part'],
      })]);
      const { stream } = await jobsOf(t, p.id);
      const partial = await waitFor('the first part in the trace', async () => {
        const text = await traceText(t, stream!.id);
        return text && /^first-part$/m.test(text) ? text : null;
      }, 60_000);
      assert.equal((await findCiJob(t.c.db, stream!.id))!.status, 'running');
      assert.equal(await findJobArtifact(t.c.db, stream!.id, 'trace'), undefined, 'still chunks, no blob');
      assert.ok(!partial.includes('second-part'));
      fs.writeFileSync(path.join(jobDir(t, stream!.id), 'go'), '');
      const done = await waitForJob(t, stream!.id, ['success', 'failed']);
      assert.equal(done.status, 'success');
      const full = (await traceText(t, stream!.id))!;
      assert.ok(full.startsWith(partial), 'the final trace continues what was shown');
      assert.match(full, /^second-part$/m);
    });

    it('coverage is taken from the trace by the job regex', async () => {
      const p = await makePipeline(t, rp, [
        plannedJob('covered', { coverage: 'Coverage: (\\d+\\.\\d+)%', script: ['echo "Coverage: 12.5%"', 'echo "Coverage: 87.25%"'] }),
        plannedJob('uncovered', { coverage: 'Total: (\\d+)%', script: ['echo nothing'] }),
      ]);
      const { covered, uncovered } = await jobsOf(t, p.id);
      const a = await waitForJob(t, covered!.id, ['success', 'failed']);
      const b = await waitForJob(t, uncovered!.id, ['success', 'failed']);
      assert.equal(a.coverage, 87.25);
      assert.equal(b.coverage, null);
      const pipeline = await waitForPipeline(t, p.id);
      assert.equal(pipeline.coverage, '87.25');
    });

    it('a missing commit fails the job as a system failure, with the reason in the trace', async () => {
      const p = await makePipeline(t, { ...rp, sha: 'f'.repeat(40) }, [plannedJob('nocommit')]);
      const { nocommit } = await jobsOf(t, p.id);
      const done = await waitForJob(t, nocommit!.id, ['success', 'failed']);
      assert.equal(done.status, 'failed');
      assert.equal(done.failure_reason, 'runner_system_failure');
      assert.match((await traceText(t, nocommit!.id))!, /ERROR: Job failed \(system failure\)/);
    });

    it('stages run in order: a later stage starts after the earlier one finished', async () => {
      const p = await makePipeline(t, rp, [
        plannedJob('build1', { stage: 'build', stageIdx: 1, script: ['echo built'] }),
        plannedJob('test1', { stage: 'test', stageIdx: 2, script: ['echo tested'] }),
      ]);
      const jobs = await jobsOf(t, p.id);
      const b = await waitForJob(t, jobs.build1!.id, ['success', 'failed']);
      const x = await waitForJob(t, jobs.test1!.id, ['success', 'failed']);
      assert.equal(b.status, 'success');
      assert.equal(x.status, 'success');
      assert.ok(x.started_at! >= b.finished_at!);
    });
  });

  describe(`CI runner concurrency and lifecycle (${dialect})`, () => {
    let t: TestApp;
    let rp: RepoProject;
    before(async () => {
      t = await buildTestApp(dialect);
      rp = await repoProject(t);
    });
    after(async () => {
      await t.close();
    });

    it('concurrency 1 runs two jobs one after the other', async () => {
      const runner = testRunner(t, { concurrency: 1 });
      runner.start();
      try {
        const p = await makePipeline(t, rp, [plannedJob('one', { script: ['sleep 0.3'] }), plannedJob('two', { script: ['sleep 0.3'] })]);
        const jobs = await jobsOf(t, p.id);
        const a = await waitForJob(t, jobs.one!.id, ['success', 'failed']);
        const b = await waitForJob(t, jobs.two!.id, ['success', 'failed']);
        assert.equal(a.status, 'success');
        assert.equal(b.status, 'success');
        const [first, second] = [a, b].sort((x, y) => x.started_at!.localeCompare(y.started_at!));
        assert.ok(second!.started_at! >= first!.finished_at!, `${second!.started_at} should not be before ${first!.finished_at}`);
        assert.equal(first!.id, a.id, 'the oldest pending job goes first');
      } finally {
        await runner.stop();
      }
    });

    it('concurrency 2 runs two jobs at the same time', async () => {
      const runner = testRunner(t, { concurrency: 2 });
      runner.start();
      try {
        const wait = 'touch started; while [ ! -f go ]; do sleep 0.05; done';
        const p = await makePipeline(t, rp, [plannedJob('left', { script: [wait] }), plannedJob('right', { script: [wait] })]);
        const jobs = await jobsOf(t, p.id);
        await waitFor('both jobs running at once', async () => {
          const [l, r] = await Promise.all([findCiJob(t.c.db, jobs.left!.id), findCiJob(t.c.db, jobs.right!.id)]);
          return l!.status === 'running' && r!.status === 'running';
        }, 60_000);
        for (const j of [jobs.left!, jobs.right!]) await startedJobPids(t, j.id);
        for (const j of [jobs.left!, jobs.right!]) fs.writeFileSync(path.join(jobDir(t, j.id), 'go'), '');
        assert.equal((await waitForJob(t, jobs.left!.id, FINISHED_STATUSES)).status, 'success');
        assert.equal((await waitForJob(t, jobs.right!.id, FINISHED_STATUSES)).status, 'success');
      } finally {
        await runner.stop();
      }
    });

    it('stopping the runner kills its running job and fails it with runner_system_failure', async () => {
      const runner = testRunner(t);
      runner.start();
      const p = await makePipeline(t, rp, [plannedJob('interrupted', { script: ['touch started', 'sleep 300'] })]);
      const { interrupted } = await jobsOf(t, p.id);
      const pids = await startedJobPids(t, interrupted!.id);
      await runner.stop();
      assert.deepEqual(pids.filter(alive), [], 'stop() resolves after the job processes are gone');
      const j = await findCiJob(t.c.db, interrupted!.id);
      assert.equal(j!.status, 'failed');
      assert.equal(j!.failure_reason, 'runner_system_failure');
      assert.ok(await findJobArtifact(t.c.db, interrupted!.id, 'trace'));
    });

    it('without a started runner, jobs stay pending; a runner started later runs them', async () => {
      const p = await makePipeline(t, rp, [plannedJob('waiting')]);
      const { waiting } = await jobsOf(t, p.id);
      assert.equal(waiting!.status, 'pending');
      const runner = testRunner(t);
      runner.start();
      try {
        assert.equal((await waitForJob(t, waiting!.id, FINISHED_STATUSES)).status, 'success');
      } finally {
        await runner.stop();
      }
    });

    it('workspaces a crash left behind are removed at start, except those of running jobs', async () => {
      const p = await makePipeline(t, rp, [plannedJob('left'), plannedJob('busy')]);
      const jobs = await jobsOf(t, p.id);
      assert.ok(await startJob(t.c, jobs.busy!.id)); // running "elsewhere"
      await cancelJob(t.c, jobs.left!.id);
      const builds = path.join(t.c.config.dataDir, 'ci', 'builds');
      const dirs = [String(jobs.left!.id), `${jobs.left!.id}.tmp`, '987654', String(jobs.busy!.id)];
      for (const d of dirs) fs.mkdirSync(path.join(builds, d, 'x'), { recursive: true });
      const runner = testRunner(t);
      runner.start();
      try {
        await waitFor('the leftovers to go', () => !fs.existsSync(path.join(builds, String(jobs.left!.id))) && !fs.existsSync(path.join(builds, '987654')), 15_000);
        assert.equal(fs.existsSync(path.join(builds, `${jobs.left!.id}.tmp`)), false);
        assert.equal(fs.existsSync(path.join(builds, String(jobs.busy!.id))), true, 'a running job keeps its workspace');
      } finally {
        await runner.stop();
        await cancelJob(t.c, jobs.busy!.id);
      }
    });
  });
}

const FINISHED_STATUSES = ['success', 'failed', 'canceled'];
