// The runner in the real server process: ANVIL_RUNNER_ENABLED / ANVIL_RUNNER_CONCURRENCY
// (validated like every setting), `serve` leaving jobs pending when the runner is off, running
// them when it is on (with none of the server's secrets in the job's environment), and SIGTERM
// stopping a running job before the database closes.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { ConfigError, loadConfig } from '../../src/config.js';
import { closeContainer, createContainer } from '../../src/container.js';
import type { Container } from '../../src/domain/context.js';
import { countDueJobs } from '../../src/db/repos/background_jobs.js';
import { findCiJob } from '../../src/db/repos/ci_jobs.js';
import { findPipeline } from '../../src/db/repos/ci_pipelines.js';
import { findProjectById } from '../../src/db/repos/projects.js';
import { createPipelineRecords } from '../../src/domain/ci/state.js';
import { readTrace } from '../../src/domain/ci/traces.js';
import { DIALECTS, ROOT_TOKEN, TEST_RUNNER_UID, freshPostgresUrl } from '../helpers/build.js';
import { waitFor } from '../helpers/queue.js';
import { startServer, type RunningServer } from '../../bench/server.js';
import { alive, jobPids, plannedJob, serverApi } from './runner_fixtures.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('runner settings', () => {
  const base = { ANVIL_DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'anvil-cfg-')) };

  it('defaults: on, two jobs at once', () => {
    const c = loadConfig(base);
    assert.equal(c.runnerEnabled, true);
    assert.equal(c.runnerConcurrency, 2);
  });

  it('ANVIL_RUNNER_ENABLED takes true/false words; anything else stops the start with the name', () => {
    assert.equal(loadConfig({ ...base, ANVIL_RUNNER_ENABLED: 'false' }).runnerEnabled, false);
    assert.equal(loadConfig({ ...base, ANVIL_RUNNER_ENABLED: '0' }).runnerEnabled, false);
    assert.equal(loadConfig({ ...base, ANVIL_RUNNER_ENABLED: 'yes' }).runnerEnabled, true);
    assert.throws(() => loadConfig({ ...base, ANVIL_RUNNER_ENABLED: 'maybe' }), (e: Error) => e instanceof ConfigError && /ANVIL_RUNNER_ENABLED/.test(e.message));
  });

  it('runner nodes: ANVIL_NODE_ID defaults to the host name; lease 15 s, heartbeat 5 s; the heartbeat must be shorter than the lease', () => {
    const c = loadConfig(base);
    assert.deepEqual([c.nodeId, c.runnerLeaseSeconds, c.runnerHeartbeatSeconds], [os.hostname(), 15, 5]);
    const set = loadConfig({ ...base, ANVIL_NODE_ID: 'node-7', ANVIL_RUNNER_LEASE_SECONDS: '4', ANVIL_RUNNER_HEARTBEAT_SECONDS: '1' });
    assert.deepEqual([set.nodeId, set.runnerLeaseSeconds, set.runnerHeartbeatSeconds], ['node-7', 4, 1]);
    assert.equal(loadConfig({ ...base, ANVIL_RUNNER_LEASE_SECONDS: '3' }).runnerHeartbeatSeconds, 2, 'the default heartbeat stays under a short lease');
    for (const [env, name] of [
      [{ ANVIL_RUNNER_LEASE_SECONDS: '1' }, 'ANVIL_RUNNER_LEASE_SECONDS'],
      [{ ANVIL_RUNNER_LEASE_SECONDS: 'x' }, 'ANVIL_RUNNER_LEASE_SECONDS'],
      [{ ANVIL_RUNNER_HEARTBEAT_SECONDS: '0' }, 'ANVIL_RUNNER_HEARTBEAT_SECONDS'],
      [{ ANVIL_RUNNER_LEASE_SECONDS: '10', ANVIL_RUNNER_HEARTBEAT_SECONDS: '10' }, 'ANVIL_RUNNER_HEARTBEAT_SECONDS'],
      [{ ANVIL_NODE_ID: 'two words' }, 'ANVIL_NODE_ID'],
    ] as const) {
      assert.throws(() => loadConfig({ ...base, ...env }), (e: Error) => e instanceof ConfigError && e.message.includes(name), JSON.stringify(env));
    }
  });

  it('ANVIL_RUNNER_CONCURRENCY is a whole number from 1 to 64', () => {
    assert.equal(loadConfig({ ...base, ANVIL_RUNNER_CONCURRENCY: '5' }).runnerConcurrency, 5);
    for (const bad of ['0', '65', '-1', '1.5', 'two']) {
      assert.throws(() => loadConfig({ ...base, ANVIL_RUNNER_CONCURRENCY: bad }), (e: Error) => e instanceof ConfigError && /ANVIL_RUNNER_CONCURRENCY/.test(e.message), bad);
    }
  });
});

for (const dialect of DIALECTS) {
  describe(`runner in the server process (${dialect})`, () => {
    it('off: jobs stay pending; on: the same job runs, without the server\'s secrets; SIGTERM stops a running job first', async () => {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'anvil-runner-proc-'));
      const pgDb = dialect === 'postgres' ? await freshPostgresUrl() : null;
      const secretKey = `server-secret-key-${Math.random().toString(36).slice(2)}-0123456789`;
      const env: Record<string, string> = {
        ANVIL_DATA_DIR: dataDir,
        ANVIL_ROOT_TOKEN: ROOT_TOKEN,
        ANVIL_SECRET_KEY: secretKey,
        ANVIL_RUNNER_UID: String(TEST_RUNNER_UID),
        ...(pgDb ? { ANVIL_DATABASE_URL: pgDb.url } : {}),
      };
      let server: RunningServer | null = null;
      let c: Container | null = null;
      try {
        server = await startServer({ env: { ...env, ANVIL_RUNNER_ENABLED: 'false' } });
        // This test process is a second node on the same data: it makes the pipelines.
        c = await createContainer(loadConfig({ ...env, ANVIL_QUEUE_WORKERS: '0', ANVIL_LOG_LEVEL: 'silent' }), { log: pino({ level: 'silent' }) });
        const created = await serverApi(server, 'POST', '/projects', { name: 'runner-proc', initialize_with_readme: true });
        const commit = await serverApi(server, 'POST', `/projects/${created.id}/repository/commits`, {
          branch: 'main', commit_message: 'add', actions: [{ action: 'create', file_path: 'data.txt', content: 'from the repo\n' }],
        });
        const project = (await findProjectById(c.db, created.id))!;
        const pipeline = async (script: string[]) => {
          // SQLite with two processes: a transaction that reads then writes fails (SQLITE_BUSY_SNAPSHOT)
          // when the other process wrote in between; let the server's background work settle first.
          await waitFor('the server queue to be idle', async () => (await countDueJobs(c!.db, new Date().toISOString())) === 0, 30_000);
          const p = await createPipelineRecords(c!, {
            project, ref: 'main', sha: commit.id, beforeSha: '0'.repeat(40), tag: false, source: 'api', userId: null, commit: null, variables: [],
            plan: { stages: ['test'], variables: {}, jobs: [plannedJob('job', { stage: 'test', stageIdx: 0, script })] },
          });
          const job = await c!.db.selectFrom('ci_jobs').selectAll().where('pipeline_id', '=', p.id).executeTakeFirstOrThrow();
          return job.id;
        };

        const jobId = await pipeline(['cat data.txt', 'env']);
        assert.equal((await findCiJob(c.db, jobId))!.status, 'pending');
        await sleep(2500); // more than two polls of a runner
        assert.equal((await findCiJob(c.db, jobId))!.status, 'pending', 'no runner took it');
        await server.stop();
        assert.equal(await server.exited, 0, server.stderr());

        server = await startServer({ env: { ...env, ANVIL_RUNNER_CONCURRENCY: '1' } });
        const done = await waitFor('the job to run', async () => {
          const j = await findCiJob(c!.db, jobId);
          return j && ['success', 'failed'].includes(j.status) ? j : null;
        }, 60_000);
        const stream = await readTrace(c, jobId);
        let log = '';
        for await (const b of stream!) log += b;
        assert.equal(done.status, 'success', log);
        assert.match(log, /^from the repo$/m);
        assert.match(log, new RegExp(`^CI_JOB_ID=${jobId}$`, 'm'));
        assert.ok(!log.includes(secretKey), 'the secret key leaked');
        assert.ok(!log.includes(ROOT_TOKEN), 'the root token leaked');
        assert.ok(!/^ANVIL_/m.test(log), 'an ANVIL_ variable leaked');
        if (pgDb) assert.ok(!log.includes(pgDb.url), 'the database URL leaked');

        // SIGTERM while a job runs: its process group is killed and the job fails before the server exits.
        // (SQLite: the server's last write of the first pipeline must be over before this process
        // writes; two processes on one SQLite file are a test set-up, not a deployment.)
        await waitFor('the first pipeline to finish', async () => (await findPipeline(c!.db, done.pipeline_id))?.status === 'success', 60_000);
        const running = await pipeline(['touch started', 'sleep 300']);
        await waitFor('the job to start', () => fs.existsSync(path.join(dataDir, 'ci', 'builds', String(running), 'started')), 60_000);
        const pids = jobPids();
        assert.ok(pids.length >= 2, 'the job runs in its sandbox, as its own uid');
        const last = server;
        server = null;
        await last.stop();
        assert.equal(await last.exited, 0, last.stderr());
        assert.deepEqual(pids.filter(alive), [], 'the job processes are gone');
        const stopped = (await findCiJob(c.db, running))!;
        assert.equal(stopped.status, 'failed');
        assert.equal(stopped.failure_reason, 'runner_system_failure');
      } finally {
        if (server) await server.stop();
        if (c) await closeContainer(c);
        await pgDb?.drop();
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
    });
  });
}
