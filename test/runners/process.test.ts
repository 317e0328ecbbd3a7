// A real server process with ANVIL_RUNNER_ENABLED=false, on each dialect: the built-in runner
// shows offline in GET /runners/all, no job runs on the server, and a registered runner gets
// every job, untagged ones included.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startServer } from '../../bench/server.js';
import { DIALECTS, ROOT_TOKEN, freshPostgresUrl } from '../helpers/build.js';
import { serverApi } from '../ci/runner_fixtures.js';
import { TestRunnerClient } from '../helpers/runner_client.js';
import { waitFor } from '../helpers/queue.js';

const REG_TOKEN = 'instance-registration-token-process';
const CI = 'one:\n  script: [echo one]\ntwo:\n  tags: [linux]\n  script: [echo two]\n';

for (const dialect of DIALECTS) {
  describe(`ANVIL_RUNNER_ENABLED=false (${dialect})`, () => {
    it('every job goes to registered runners; the built-in runner is listed offline', async () => {
      const pgDb = dialect === 'postgres' ? await freshPostgresUrl() : null;
      const s = await startServer({
        env: {
          ANVIL_ROOT_TOKEN: ROOT_TOKEN,
          ANVIL_RUNNER_ENABLED: 'false',
          ANVIL_RUNNER_REGISTRATION_TOKEN: REG_TOKEN,
          ANVIL_RUNNER_LONG_POLL_SECONDS: '1',
          ...(pgDb ? { ANVIL_DATABASE_URL: pgDb.url } : {}),
        },
      });
      try {
        const all = await serverApi(s, 'GET', '/runners/all');
        assert.deepEqual([all[0].id, all[0].runner_type, all[0].status, all[0].online], [1, 'instance_type', 'offline', false]);
        const project = await serverApi(s, 'POST', '/projects', { name: 'offrunner', initialize_with_readme: true });
        await serverApi(s, 'POST', `/projects/${project.id}/repository/commits`, {
          branch: 'main', commit_message: 'ci', actions: [{ action: 'create', file_path: '.service-ci.yml', content: CI }],
        });
        // the commit's own pipeline (one, so the runner's two jobs are both of it)
        const pipeline = await waitFor('the push pipeline', async () => (await serverApi(s, 'GET', `/projects/${project.id}/pipelines`))[0], 30_000);
        await new Promise((r) => setTimeout(r, 1500));
        assert.equal((await serverApi(s, 'GET', `/projects/${project.id}/pipelines`)).length, 1);
        const waiting = await serverApi(s, 'GET', `/projects/${project.id}/pipelines/${pipeline.id}/jobs`);
        assert.deepEqual(waiting.map((j: any) => j.status).sort(), ['pending', 'pending'], 'nothing runs on the server');

        const runner = new TestRunnerClient(s.url);
        assert.equal((await runner.register(REG_TOKEN, { tags: ['linux'], runUntagged: true })).status, 201);
        const names: string[] = [];
        for (let i = 0; i < 2; i++) {
          const job = await runner.nextJob(2);
          names.push(job.job_info.name);
          await runner.sendTrace(job.id, job.token, Buffer.from(`${job.job_info.name}\n`), 100);
          assert.equal((await runner.updateJob(job.id, job.token, { state: 'success', bytesize: job.job_info.name.length + 1 })).status, 200);
        }
        assert.deepEqual(names.sort(), ['one', 'two']);
        const jobs = await serverApi(s, 'GET', `/projects/${project.id}/pipelines/${pipeline.id}/jobs`);
        assert.deepEqual(jobs.map((j: any) => [j.status, j.runner.id]), [['success', runner.id], ['success', runner.id]]);
        assert.equal((await serverApi(s, 'GET', `/projects/${project.id}/pipelines/${pipeline.id}`)).status, 'success');
        assert.equal((await runner.unregister()).status, 204);
      } finally {
        await s.stop();
        await pgDb?.drop();
      }
    });
  });
}
