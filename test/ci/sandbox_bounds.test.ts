// A job's bounds, with what this host offers (a memory cgroup, tmpfs disks): real jobs go over
// their memory, their build folder's disk and their /tmp, and fail with a line saying which bound
// they hit; a job beside them and the server go on.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { CiRunner } from '../../src/domain/ci/runner.js';
import { DIALECTS, type TestApp } from '../helpers/build.js';
import { listeningTestApp } from '../helpers/git.js';
import { waitFor } from '../helpers/queue.js';
import { jobDir, jobPids, jobsOf, makePipeline, plannedJob, repoProject, testRunner, traceText, waitForJob, type RepoProject } from './runner_fixtures.js';

for (const dialect of DIALECTS) {
  describe(`a job's bounds (${dialect})`, () => {
    let t: TestApp;
    let rp: RepoProject;
    let runner: CiRunner;
    before(async () => {
      ({ t } = await listeningTestApp(dialect, { ANVIL_RUNNER_MAX_MEMORY_MB: '64', ANVIL_RUNNER_MAX_DISK_MB: '16' }));
      rp = await repoProject(t);
      runner = testRunner(t, { concurrency: 4 });
      runner.start();
    });
    after(async () => {
      await runner.stop();
      await t.close();
    });

    it('memory, build folder and /tmp over their bounds fail their jobs with the bound named; the neighbour job and the server go on', async (ctx) => {
      await waitFor('the sandbox to be tried', () => t.c.runnerSandboxHost !== undefined, 30_000);
      const host = t.c.runnerSandboxHost!;
      if (!host.cgroups.memory || !host.tmpfs) return ctx.skip('this host offers no memory cgroup or tmpfs to the server');
      const p = await makePipeline(t, rp, [
        plannedJob('memory', { script: ['python3 -c "a = bytearray(200 * 1024 * 1024); print(\'allocated\')"', 'echo after'] }),
        plannedJob('disk', { script: ['head -c 40000000 /dev/zero > big.bin', 'echo after'] }),
        plannedJob('tmp', { script: ['head -c 40000000 /dev/zero > /tmp/big.bin', 'echo after'] }),
        plannedJob('neighbour', {
          script: [
            'touch started; while [ ! -f go ]; do sleep 0.1; done',
            'head -c 4000000 /dev/urandom > some.bin && head -c 4000000 /dev/urandom > /tmp/some.bin',
            'python3 -c "a = bytearray(24 * 1024 * 1024); print(\'neighbour allocated\')"',
            'echo neighbour-done',
          ],
        }),
      ]);
      const jobs = await jobsOf(t, p.id);
      await waitFor('the neighbour to start', () => fs.existsSync(path.join(jobDir(t, jobs.neighbour!.id), 'started')), 60_000);
      const logs: Record<string, string> = {};
      for (const name of ['memory', 'disk', 'tmp']) {
        const j = await waitForJob(t, jobs[name]!.id, ['success', 'failed']);
        logs[name] = (await traceText(t, j.id))!;
        assert.equal(j.status, 'failed', logs[name]);
        assert.equal(j.failure_reason, 'script_failure');
        assert.doesNotMatch(logs[name], /^after$/m);
      }
      assert.match(logs.memory!, /ERROR: the job went over its memory limit of 64 MiB \(ANVIL_RUNNER_MAX_MEMORY_MB\): a process was killed for lack of memory/);
      assert.match(logs.memory!, /ERROR: Job failed: exit code 137/);
      assert.doesNotMatch(logs.memory!, /^allocated$/m);
      assert.match(logs.disk!, /No space left on device/);
      assert.match(logs.disk!, /ERROR: the job filled its disk limit of 16 MiB \(ANVIL_RUNNER_MAX_DISK_MB\): no space left in its build folder/);
      assert.match(logs.tmp!, /ERROR: the job filled its disk limit of 16 MiB \(ANVIL_RUNNER_MAX_DISK_MB\): no space left in its \/tmp and HOME/);
      // Each names only the bound it hit.
      assert.doesNotMatch(logs.disk!, /memory limit|\/tmp and HOME/);
      assert.doesNotMatch(logs.tmp!, /memory limit|build folder/);

      assert.equal((await t.get('/api/v4/version')).status, 200, 'the server answers');
      fs.writeFileSync(path.join(jobDir(t, jobs.neighbour!.id), 'go'), '');
      const n = await waitForJob(t, jobs.neighbour!.id, ['success', 'failed']);
      const nLog = (await traceText(t, n.id))!;
      assert.equal(n.status, 'success', nLog);
      assert.match(nLog, /^neighbour allocated$/m);
      assert.doesNotMatch(nLog, /limit of/);
      await waitFor('the jobs\' processes to end', () => jobPids().length === 0, 15_000);
      // Nothing of the jobs is left mounted.
      const mounts = fs.readFileSync('/proc/self/mountinfo', 'utf8');
      assert.ok(!mounts.includes(path.join(t.c.config.dataDir, 'ci')), mounts);
    });
  });
}
