// Jobs that outlive their runner: each runner node holds a lease under a boot id
// (src/domain/ci/runner_nodes.ts). In-process, the rules: a job whose node's lease ran out or
// whose node came back under another boot id fails with runner_system_failure (log kept, retry
// applied); jobs of live nodes stay. With real server processes: kill -9 mid-job and a restart
// on the same data settle the pipeline within seconds, and the job's processes die with the
// killed server; with two nodes on one database, the survivor fails the dead node's job within
// its lease and runs the retry.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findCiJob } from '../../src/db/repos/ci_jobs.js';
import { failOrphanedJobs, joinNode } from '../../src/domain/ci/runner_nodes.js';
import { cancelJob, startJob } from '../../src/domain/ci/state.js';
import { DIALECTS, ROOT_TOKEN, buildTestApp, freshPostgresUrl, type TestApp } from '../helpers/build.js';
import { CI_FILE } from '../helpers/ci.js';
import { removeDataDir, startServer, type RunningServer } from '../../bench/server.js';
import { waitFor } from '../helpers/queue.js';
import { alive, jobsOf, makePipeline, plannedJob, repoProject, serverApi, startedJobPids, testRunner, traceText, type RepoProject } from './runner_fixtures.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls (every 250 ms: these ask a server over HTTP) until fn gives a value; fails after timeoutMs. */
async function poll<T>(what: string, fn: () => Promise<T | null | undefined | false>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn().catch(() => null);
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(250);
  }
}

for (const dialect of DIALECTS) {
  describe(`runner nodes: jobs of dead nodes (${dialect})`, () => {
    let t: TestApp;
    let rp: RepoProject;
    before(async () => {
      t = await buildTestApp(dialect);
      rp = await repoProject(t);
    });
    after(() => t.close());

    it('a running job whose node is gone fails with runner_system_failure (log kept, retry applied); a live node\'s job and a recent job without a node stay', async () => {
      const p = await makePipeline(t, rp, [
        plannedJob('expired'),
        plannedJob('rebooted', { retry: { max: 1, when: ['runner_system_failure'] } }),
        plannedJob('live'),
        plannedJob('orphan', { timeout: 60 }),
        plannedJob('recent', { timeout: 60 }),
      ]);
      const jobs = await jobsOf(t, p.id);
      const now = Date.now();
      // Node A's lease ran out; node B came back under another boot id; node C is alive.
      const a = { nodeId: 'node-a', bootId: 'boot-a' };
      const b = { nodeId: 'node-b', bootId: 'boot-b1' };
      const live = { nodeId: 'node-c', bootId: 'boot-c' };
      await joinNode(t.c, a, 10_000, now - 60_000);
      await joinNode(t.c, b, 60_000);
      await joinNode(t.c, live, 60_000);
      assert.ok(await startJob(t.c, jobs.expired!.id, a));
      assert.ok(await startJob(t.c, jobs.rebooted!.id, b));
      assert.ok(await startJob(t.c, jobs.live!.id, live));
      await joinNode(t.c, { nodeId: 'node-b', bootId: 'boot-b2' }, 60_000);
      // Taken without a node (before nodes had leases) by a runner that then died.
      assert.ok(await startJob(t.c, jobs.orphan!.id));
      assert.ok(await startJob(t.c, jobs.recent!.id));
      const longAgo = new Date(now - 60_000 - 10 * 60_000).toISOString();
      await t.c.db.updateTable('ci_jobs').set({ started_at: longAgo }).where('id', '=', jobs.orphan!.id).execute();
      for (const j of [jobs.expired!, jobs.orphan!]) {
        await t.c.db.insertInto('ci_trace_chunks').values({ job_id: j.id, seq: 0, data: Buffer.from('partial output\n').toString('base64') }).execute();
      }

      assert.equal(await failOrphanedJobs(t.c), 3);
      assert.equal(await failOrphanedJobs(t.c), 0, 'each job fails once');

      const expired = (await findCiJob(t.c.db, jobs.expired!.id))!;
      assert.deepEqual([expired.status, expired.failure_reason, expired.retried], ['failed', 'runner_system_failure', 0]);
      let log = (await traceText(t, jobs.expired!.id))!;
      assert.match(log, /^partial output$/m, 'the log so far is kept');
      assert.match(log, /ERROR: Job failed \(system failure\): the runner node "node-a" stopped renewing its lease while running this job/);

      const rebooted = (await findCiJob(t.c.db, jobs.rebooted!.id))!;
      assert.deepEqual([rebooted.status, rebooted.failure_reason, rebooted.retried], ['failed', 'runner_system_failure', 1]);
      assert.match((await traceText(t, jobs.rebooted!.id))!, /ERROR: Job failed \(system failure\): the runner node "node-b" restarted while running this job/);
      const retry = (await t.c.db.selectFrom('ci_jobs').selectAll().where('pipeline_id', '=', p.id).where('name', '=', 'rebooted').where('id', '!=', rebooted.id).executeTakeFirst())!;
      assert.deepEqual([retry.status, retry.retry_count], ['pending', 1]);

      const orphan = (await findCiJob(t.c.db, jobs.orphan!.id))!;
      assert.deepEqual([orphan.status, orphan.failure_reason], ['failed', 'stuck_or_timeout_failure']);
      log = (await traceText(t, jobs.orphan!.id))!;
      assert.match(log, /^partial output$/m);
      assert.match(log, /stuck or timed out/);
      assert.equal((await findCiJob(t.c.db, jobs.live!.id))!.status, 'running');
      assert.equal((await findCiJob(t.c.db, jobs.recent!.id))!.status, 'running');
      for (const j of [jobs.live!, jobs.recent!, retry]) await cancelJob(t.c, j.id);
    });

    it('a process that joins under a running node\'s id fails that node\'s jobs at once (their processes end); the displaced runner stops taking jobs', async () => {
      const runner = testRunner(t, { nodeId: 'shared-node', heartbeatMs: 100 });
      runner.start();
      try {
        const p = await makePipeline(t, rp, [plannedJob('long', { script: ['touch started', 'sleep 300'] })]);
        const { long } = await jobsOf(t, p.id);
        const pids = await startedJobPids(t, long!.id);
        // The same node id, another boot: the node restarted, as far as the database can tell.
        await joinNode(t.c, { nodeId: 'shared-node', bootId: 'another-boot' }, 60_000);
        // The displaced runner's own heartbeat (every 100 ms) may sweep first; either way the job fails once.
        assert.ok((await failOrphanedJobs(t.c)) <= 1);
        const failed = (await findCiJob(t.c.db, long!.id))!;
        assert.deepEqual([failed.status, failed.failure_reason], ['failed', 'runner_system_failure']);
        await waitFor('the job processes to end', () => pids.every((pid) => !alive(pid)), 15_000);
        const next = await makePipeline(t, rp, [plannedJob('after')]);
        const { after: later } = await jobsOf(t, next.id);
        await sleep(1000); // ten heartbeats and polls of the displaced runner
        assert.equal((await findCiJob(t.c.db, later!.id))!.status, 'pending', 'the displaced runner took no job');
        await cancelJob(t.c, later!.id);
      } finally {
        await runner.stop();
      }
    });
  });
}

/**
 * A CI file whose jobs write their bash pid (their process group) to `<marks>/<job>.pid` and, on
 * their first run, sleep 300 s; a second run (a retry) succeeds at once.
 */
const sleepingCi = (marks: string, jobs: Record<string, string>) => {
  let yml = `variables:\n  MARKS: "${marks}"\n`;
  for (const [name, extra] of Object.entries(jobs)) {
    yml += `${name}:\n  script:\n`;
    yml += '    - echo $$ > "$MARKS/$CI_JOB_NAME.pid"\n';
    yml += '    - if [ -e "$MARKS/$CI_JOB_NAME.ran" ]; then echo second run; exit 0; fi\n';
    yml += '    - touch "$MARKS/$CI_JOB_NAME.ran"\n';
    yml += '    - echo first run\n';
    yml += '    - sleep 300\n';
    yml += extra;
  }
  return yml;
};

/** The server's data and database, kept across its restarts; removed at the end. */
async function scratch(dialect: string) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'anvil-crash-'));
  const marks = path.join(dataDir, 'marks');
  fs.mkdirSync(marks);
  const pg = dialect === 'postgres' ? await freshPostgresUrl() : null;
  const servers: RunningServer[] = [];
  const env = {
    ANVIL_DATA_DIR: dataDir,
    ANVIL_ROOT_TOKEN: ROOT_TOKEN,
    ANVIL_SECRET_KEY: 'crash-test-secret-key-0123456789abcdef',
    // These jobs mark their runs in a folder of the host, and their pids must be the host's:
    // unconfined. The sandboxed job dying with its server is in sandbox.test.ts.
    ANVIL_RUNNER_SANDBOX: 'off',
    ...(pg ? { ANVIL_DATABASE_URL: pg.url } : {}),
  };
  return {
    marks,
    async start(extra: Record<string, string>): Promise<RunningServer> {
      const s = await startServer({ env: { ...env, ...extra } });
      servers.push(s);
      return s;
    },
    /** The pid (= process group) a job wrote, once it wrote it. */
    pidOf: (job: string) => poll(`the pid of ${job}`, async () => Number(fs.readFileSync(path.join(marks, `${job}.pid`), 'utf8').trim()) || null, 60_000),
    async cleanup(): Promise<void> {
      for (const s of servers) await s.stop();
      // Whatever a job left (nothing, when the server's death took its group along).
      for (const f of fs.readdirSync(marks).filter((n) => n.endsWith('.pid'))) {
        const pid = Number(fs.readFileSync(path.join(marks, f), 'utf8').trim());
        try {
          if (pid > 1) process.kill(-pid, 'SIGKILL');
        } catch {
          /* gone */
        }
      }
      await pg?.drop();
      removeDataDir(dataDir);
    },
  };
}

/** Commits the CI file; resolves with the push pipeline's jobs once `names` all run. */
async function pushAndWaitRunning(s: RunningServer, ci: string, names: string[]) {
  const project = await serverApi(s, 'POST', '/projects', { name: `crash-${Math.random().toString(36).slice(2, 8)}`, initialize_with_readme: true });
  await serverApi(s, 'POST', `/projects/${project.id}/repository/commits`, {
    branch: 'main', commit_message: 'ci', actions: [{ action: 'create', file_path: CI_FILE, content: ci }],
  });
  const jobs = await poll('the jobs to run', async () => {
    const list: any[] = await serverApi(s, 'GET', `/projects/${project.id}/jobs?scope[]=running`);
    return list.length === names.length ? list : null;
  }, 90_000);
  return { projectId: project.id as number, pipelineId: jobs[0].pipeline.id as number, jobs: Object.fromEntries(jobs.map((j) => [j.name, j])) };
}

const FINISHED = ['success', 'failed', 'canceled', 'skipped'];

for (const dialect of DIALECTS) {
  describe(`runner nodes: real processes (${dialect})`, () => {
    it('kill -9 mid-job, restart on the same data: the job fails with runner_system_failure (or its retry runs) and the pipeline settles within 30 s; the job\'s processes died with the server', async () => {
      const d = await scratch(dialect);
      try {
        const node = { ANVIL_NODE_ID: 'crash-node' };
        const first = await d.start(node);
        const ci = sleepingCi(d.marks, { plain: '', retried: '  retry:\n    max: 1\n    when: runner_system_failure\n' });
        const { projectId, pipelineId, jobs } = await pushAndWaitRunning(first, ci, ['plain', 'retried']);
        const pids = [await d.pidOf('plain'), await d.pidOf('retried')];
        await poll('the first output in the log', async () => /first run/.test(await serverApi(first, 'GET', `/projects/${projectId}/jobs/${jobs.plain.id}/trace`)), 30_000);

        first.proc.kill('SIGKILL');
        assert.equal(await first.exited, 'SIGKILL');
        // The jobs' process groups go with the server (no runner is left to end them).
        for (const pid of pids) await poll(`job process ${pid} to end`, async () => !alive(pid), 15_000);

        const second = await d.start(node);
        const restarted = Date.now();
        const pipeline = await poll('the pipeline to settle', async () => {
          const p = await serverApi(second, 'GET', `/projects/${projectId}/pipelines/${pipelineId}`);
          return FINISHED.includes(p.status) ? p : null;
        }, 30_000);
        assert.ok(Date.now() - restarted < 30_000);
        assert.equal(pipeline.status, 'failed');
        assert.ok(pipeline.finished_at);

        const plain = await serverApi(second, 'GET', `/projects/${projectId}/jobs/${jobs.plain.id}`);
        assert.deepEqual([plain.status, plain.failure_reason], ['failed', 'runner_system_failure']);
        assert.ok(plain.finished_at);
        const log = await serverApi(second, 'GET', `/projects/${projectId}/jobs/${jobs.plain.id}/trace`);
        assert.match(log, /^first run$/m, 'the log so far is kept');
        assert.match(log, /ERROR: Job failed \(system failure\): the runner node "crash-node" restarted while running this job/);

        const all: any[] = await serverApi(second, 'GET', `/projects/${projectId}/pipelines/${pipelineId}/jobs?include_retried=true`);
        const retried = all.filter((j) => j.name === 'retried').sort((x, y) => x.id - y.id);
        assert.deepEqual(retried.map((j) => [j.id === jobs.retried.id, j.status, j.failure_reason ?? null]), [[true, 'failed', 'runner_system_failure'], [false, 'success', null]]);
        assert.match(await serverApi(second, 'GET', `/projects/${projectId}/jobs/${retried[1].id}/trace`), /^second run$/m);
      } finally {
        await d.cleanup();
      }
    });

    it('two nodes on one database: node A is killed mid-job, node B fails its job within the lease and runs the retry', async () => {
      const d = await scratch(dialect);
      try {
        // Both nodes share the data dir (repositories, blobs) as nodes of one installation would.
        const lease = { ANVIL_RUNNER_LEASE_SECONDS: '4', ANVIL_RUNNER_HEARTBEAT_SECONDS: '1' };
        const a = await d.start({ ...lease, ANVIL_NODE_ID: 'node-a' });
        const ci = sleepingCi(d.marks, { plain: '', retried: '  retry: 2\n' });
        const { projectId, pipelineId, jobs } = await pushAndWaitRunning(a, ci, ['plain', 'retried']);
        const pids = [await d.pidOf('plain'), await d.pidOf('retried')];
        const b = await d.start({ ...lease, ANVIL_NODE_ID: 'node-b' });
        await sleep(3000); // several heartbeats of both: A's lease is live, B leaves A's jobs alone
        for (const j of [jobs.plain, jobs.retried]) assert.equal((await serverApi(b, 'GET', `/projects/${projectId}/jobs/${j.id}`)).status, 'running');

        a.proc.kill('SIGKILL');
        const killed = Date.now();
        await a.exited;
        const plain = await poll('node B to fail the job', async () => {
          const j = await serverApi(b, 'GET', `/projects/${projectId}/jobs/${jobs.plain.id}`);
          return j.status === 'running' ? null : j;
        }, 30_000);
        const tookMs = Date.now() - killed;
        // Within the lease (4 s) and a heartbeat or two; generous for a loaded machine.
        assert.ok(tookMs < 20_000, `took ${tookMs} ms`);
        assert.deepEqual([plain.status, plain.failure_reason], ['failed', 'runner_system_failure']);
        assert.match(await serverApi(b, 'GET', `/projects/${projectId}/jobs/${jobs.plain.id}/trace`), /the runner node "node-a" stopped renewing its lease while running this job/);
        for (const pid of pids) await poll(`job process ${pid} to end`, async () => !alive(pid), 15_000);

        const pipeline = await poll('the pipeline to settle', async () => {
          const p = await serverApi(b, 'GET', `/projects/${projectId}/pipelines/${pipelineId}`);
          return FINISHED.includes(p.status) ? p : null;
        }, 60_000);
        assert.equal(pipeline.status, 'failed');
        const all: any[] = await serverApi(b, 'GET', `/projects/${projectId}/pipelines/${pipelineId}/jobs?include_retried=true`);
        const retried = all.filter((j) => j.name === 'retried').sort((x, y) => x.id - y.id);
        assert.deepEqual(retried.map((j) => [j.status, j.failure_reason ?? null]), [['failed', 'runner_system_failure'], ['success', null]]);
      } finally {
        await d.cleanup();
      }
    });
  });
}
