// Every job runs in its sandbox (src/ci/sandbox/): real jobs of the built-in runner try what a
// hostile CI file would — read the data dir, /root, /etc/shadow, the server's environment, kill
// the server, write outside their folder, fork without end — and fail to; a normal pipeline with
// artifacts, a dependent job, git and the API over HTTP with the job token still passes.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { loadConfig, ConfigError } from '../../src/config.js';
import { findJobArtifact } from '../../src/db/repos/ci_artifacts.js';
import type { CiRunner } from '../../src/domain/ci/runner.js';
import { DIALECTS, TEST_RUNNER_UID, type TestApp } from '../helpers/build.js';
import { createPipelineOk, makeCiProject } from '../helpers/ci.js';
import { listeningTestApp } from '../helpers/git.js';
import { waitFor } from '../helpers/queue.js';
import { startServer } from '../../bench/server.js';
import { ROOT_TOKEN } from '../helpers/build.js';
import { alive, jobDir, serverApi, jobPids, jobsOf, makePipeline, plannedJob, repoProject, startedJobPids, testRunner, traceText, waitForJob, type RepoProject } from './runner_fixtures.js';

/** One line per attempt: `ok <what>` when it worked, `no <what>` when it did not. */
const attempt = (what: string, command: string): string => `if ${command} >/dev/null 2>&1; then echo "ok ${what}"; else echo "no ${what}"; fi`;

describe('runner sandbox settings', () => {
  const base = { ANVIL_DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'anvil-cfg-')) };
  it('defaults: sandbox on, private network, uid 60000, 1024 processes, 4096 MiB files, memory and disk; bad values stop the start with the name', () => {
    assert.deepEqual(loadConfig(base).runnerSandbox, { enabled: true, network: 'private', uid: 60000, maxProcesses: 1024, maxFileSizeMb: 4096, maxMemoryMb: 4096, maxDiskMb: 4096 });
    const set = loadConfig({
      ...base,
      ANVIL_RUNNER_SANDBOX: 'off',
      ANVIL_RUNNER_NETWORK: 'none',
      ANVIL_RUNNER_UID: '70000',
      ANVIL_RUNNER_MAX_PROCESSES: '64',
      ANVIL_RUNNER_MAX_FILE_SIZE_MB: '10',
      ANVIL_RUNNER_MAX_MEMORY_MB: '0',
      ANVIL_RUNNER_MAX_DISK_MB: '100',
    });
    assert.deepEqual(set.runnerSandbox, { enabled: false, network: 'none', uid: 70000, maxProcesses: 64, maxFileSizeMb: 10, maxMemoryMb: 0, maxDiskMb: 100 });
    assert.equal(loadConfig({ ...base, ANVIL_RUNNER_NETWORK: 'host' }).runnerSandbox.network, 'host');
    for (const [name, value] of [
      ['ANVIL_RUNNER_SANDBOX', 'maybe'],
      ['ANVIL_RUNNER_NETWORK', 'bridge'],
      ['ANVIL_RUNNER_UID', '0'],
      ['ANVIL_RUNNER_UID', 'nobody'],
      ['ANVIL_RUNNER_MAX_PROCESSES', '2'],
      ['ANVIL_RUNNER_MAX_FILE_SIZE_MB', '0'],
      ['ANVIL_RUNNER_MAX_MEMORY_MB', '10'],
      ['ANVIL_RUNNER_MAX_MEMORY_MB', '1g'],
      ['ANVIL_RUNNER_MAX_DISK_MB', '8'],
    ] as const) {
      assert.throws(() => loadConfig({ ...base, [name]: value }), (e: Error) => e instanceof ConfigError && e.message.includes(name), `${name}=${value}`);
    }
  });
});

for (const dialect of DIALECTS) {
  describe(`CI jobs in the sandbox (${dialect})`, () => {
    let t: TestApp;
    let url: string;
    let rp: RepoProject;
    let runner: CiRunner;
    before(async () => {
      ({ t, url } = await listeningTestApp(dialect, { ANVIL_RUNNER_MAX_PROCESSES: '64' }));
      rp = await repoProject(t);
      // What the server keeps beside the database: a job must reach none of it.
      fs.writeFileSync(path.join(t.c.config.dataDir, 'initial_root_token'), 'root-token-on-disk\n', { mode: 0o600 });
      runner = testRunner(t, { concurrency: 2 });
      runner.start();
    });
    after(async () => {
      await runner.stop();
      await t.close();
    });

    it('runs as a uid of its own, with no capabilities, and reaches nothing of the server', async () => {
      const data = t.c.config.dataDir;
      const server = process.pid;
      const p = await makePipeline(t, rp, [plannedJob('peek', {
        script: [
          'echo "uid=$(id -u) gid=$(id -g) groups=$(id -G)"',
          'grep -E "^Cap(Eff|Prm|Bnd):" /proc/self/status',
          'echo made > made.txt; touch started; while [ ! -f go ]; do sleep 0.05; done',
          attempt('data-dir', `ls ${data}`),
          attempt('secret-key', `cat ${data}/secret_key`),
          attempt('database', `cat ${data}/anvil.sqlite3`),
          attempt('root-token', `cat ${data}/initial_root_token`),
          attempt('repositories', `ls ${data}/repositories`),
          attempt('builds', `ls ${data}/ci/builds`),
          attempt('builds-parent', 'ls ../../../ci'),
          attempt('root', 'ls /root'),
          attempt('home', 'ls /home'),
          attempt('shadow', 'grep -q root /etc/shadow'),
          attempt('gshadow', 'grep -q root /etc/gshadow'),
          attempt('server-environ', `cat /proc/${server}/environ`),
          attempt('server-kill', `kill -9 ${server}`),
          attempt('server-signal', `kill -0 ${server}`),
          attempt('write-usr', 'touch /usr/anvil-x'),
          attempt('write-etc', 'touch /etc/anvil-x'),
          attempt('write-root', 'touch /anvil-x'),
          attempt('sudo', 'sudo -n true'),
          attempt('userns', 'unshare --user true'),
          attempt('write-tmp', 'echo job > /tmp/anvil-sandbox-probe'),
          attempt('write-home', 'touch "$HOME/h"'),
          attempt('read-passwd', 'grep -q root /etc/passwd'),
          attempt('git', 'git --version'),
          'ps -e -o pid=,user=,args= | sed "s/^/proc /"',
        ],
      })]);
      const { peek } = await jobsOf(t, p.id);
      await startedJobPids(t, peek!.id);
      // From outside: the job's files are its uid's, not the server's.
      const made = fs.statSync(path.join(jobDir(t, peek!.id), 'made.txt'));
      assert.ok(made.uid >= TEST_RUNNER_UID && made.uid < TEST_RUNNER_UID + 2, `owner ${made.uid}`);
      assert.notEqual(made.uid, process.getuid!());
      fs.writeFileSync(path.join(jobDir(t, peek!.id), 'go'), '');
      const done = await waitForJob(t, peek!.id, ['success', 'failed']);
      const log = (await traceText(t, peek!.id))!;
      assert.equal(done.status, 'success', log);

      const uid = made.uid;
      assert.match(log, new RegExp(`^uid=${uid} gid=${uid} groups=${uid}$`, 'm'));
      for (const cap of ['CapEff', 'CapPrm', 'CapBnd']) assert.match(log, new RegExp(`^${cap}:\\s+0000000000000000$`, 'm'));
      for (const denied of [
        'data-dir', 'secret-key', 'database', 'root-token', 'repositories', 'builds', 'builds-parent', 'root', 'home', 'shadow', 'gshadow',
        'server-environ', 'server-kill', 'server-signal', 'write-usr', 'write-etc', 'write-root', 'sudo', 'userns',
      ]) {
        assert.match(log, new RegExp(`^no ${denied}$`, 'm'), `${denied} must fail:\n${log}`);
      }
      for (const allowed of ['write-tmp', 'write-home', 'read-passwd', 'git']) assert.match(log, new RegExp(`^ok ${allowed}$`, 'm'), `${allowed} must work:\n${log}`);
      // Its own processes only: the sandbox's init, the job's shells and ps.
      const procs = log.split('\n').filter((l) => l.startsWith('proc '));
      assert.ok(procs.length > 0 && procs.length < 10, procs.join('\n'));
      assert.ok(!procs.some((l) => /node|tsx|postgres/.test(l)), procs.join('\n'));
      // A write outside its folder went to the job's private /tmp: gone with the job, never on the host.
      assert.equal(fs.existsSync('/tmp/anvil-sandbox-probe'), false);
      assert.equal(fs.existsSync('/usr/anvil-x') || fs.existsSync('/etc/anvil-x') || fs.existsSync('/anvil-x'), false);
      assert.equal(fs.existsSync(jobDir(t, peek!.id)), false, 'the checkout is removed after the job');
      assert.deepEqual(jobPids(), []);
    });

    it('links a job leaves in its folders between script and after_script lead nowhere outside', async () => {
      const p = await makePipeline(t, rp, [plannedJob('swap', {
        script: [
          'echo mine > /tmp/marker',
          'for n in tmp home old; do [ -e "$CI_PROJECT_DIR.tmp/$n" ] && mv "$CI_PROJECT_DIR.tmp/$n" "$CI_PROJECT_DIR.tmp/$n.0"; ln -s / "$CI_PROJECT_DIR.tmp/$n"; done',
          'ln -s / ../link-to-root || true',
        ],
        afterScript: ['cat /tmp/marker', attempt('host-root', 'ls /tmp/etc/passwd'), attempt('host-work', `ls /tmp${path.dirname(t.c.config.dataDir)}`)],
      })]);
      const { swap } = await jobsOf(t, p.id);
      const log = (await traceText(t, (await waitForJob(t, swap!.id, ['success', 'failed'])).id))!;
      assert.match(log, /^mine$/m);
      assert.match(log, /^no host-root$/m);
      assert.match(log, /^no host-work$/m);
    });

    it('a fork bomb ends only its own job: the neighbour job and the server go on', async () => {
      const p = await makePipeline(t, rp, [
        plannedJob('bomb', { timeout: 8, script: ['bomb() { bomb | bomb & }; bomb', 'sleep 60'] }),
        plannedJob('neighbour', { script: ['touch started; while [ ! -f go ]; do sleep 0.1; done', 'for i in $(seq 1 20); do sh -c true; done', 'echo neighbour-done'] }),
      ]);
      const { bomb, neighbour } = await jobsOf(t, p.id);
      await startedJobPids(t, neighbour!.id);
      await waitFor('the bomb to hit its limit', async () => /Resource temporarily unavailable|retry/.test((await traceText(t, bomb!.id)) ?? ''), 30_000);
      fs.writeFileSync(path.join(jobDir(t, neighbour!.id), 'go'), '');
      assert.equal((await t.get('/api/v4/version')).status, 200, 'the server answers');
      const n = await waitForJob(t, neighbour!.id, ['success', 'failed']);
      assert.equal(n.status, 'success', (await traceText(t, neighbour!.id))!);
      const b = await waitForJob(t, bomb!.id, ['success', 'failed']);
      assert.equal(b.status, 'failed');
      assert.equal(b.failure_reason, 'stuck_or_timeout_failure');
      if (t.c.runnerSandboxHost?.cgroups.pids) assert.match((await traceText(t, b.id))!, /ERROR: the job reached its limit of 64 processes \(ANVIL_RUNNER_MAX_PROCESSES\)/);
      await waitFor('every process of the bomb to be gone', () => jobPids().length === 0, 15_000);
    });

    it('a file over the size limit is cut off; processes are limited per job', async () => {
      const p = await makePipeline(t, rp, [plannedJob('limits', {
        script: ['echo "nproc=$(ulimit -u) core=$(ulimit -c)"', attempt('big-file', 'head -c 2000000 /dev/zero > big.bin')],
      })]);
      const { limits } = await jobsOf(t, p.id);
      // This app's limits: 64 processes; files: the default 4096 MiB, so a 2 MB file is fine.
      const log = (await traceText(t, (await waitForJob(t, limits!.id, ['success', 'failed'])).id))!;
      assert.match(log, /^nproc=64 core=0$/m);
      assert.match(log, /^ok big-file$/m);
    });

    it('a pipeline with artifacts and a dependent job passes; git and the API answer the job token over HTTP', async () => {
      // A real CI file and a pipeline made through the API: the job token acts for root.
      const ci = {
        stages: ['build', 'test'],
        build: {
          stage: 'build',
          script: ['mkdir -p out', 'echo "built by $(id -u)" > out/result.txt', 'ln -s result.txt out/link', 'ln -s /etc/passwd out/escape'],
          artifacts: { paths: ['out/'] },
        },
        check: {
          stage: 'test',
          script: [
            'cat out/result.txt',
            'git fetch -q origin && echo fetched',
            'git log -1 --format=commit=%H',
            `exec 3<>/dev/tcp/127.0.0.1/${new URL(url).port}`,
            'printf "GET /api/v4/job HTTP/1.0\\r\\nJOB-TOKEN: %s\\r\\n\\r\\n" "$CI_JOB_TOKEN" >&3',
            'head -1 <&3',
          ],
        },
      };
      const cp = await makeCiProject(t, JSON.stringify(ci));
      const pipeline = await createPipelineOk(t, cp.id);
      const jobs = await jobsOf(t, pipeline.id);
      const build = await waitForJob(t, jobs.build!.id, ['success', 'failed']);
      const buildLog = (await traceText(t, build.id))!;
      assert.equal(build.status, 'success', buildLog);
      assert.match(buildLog, /out\/escape: symbolic link points outside the build directory/);
      assert.ok(await findJobArtifact(t.c.db, build.id, 'archive'));
      const check = await waitForJob(t, jobs.check!.id, ['success', 'failed']);
      const log = (await traceText(t, check.id))!;
      assert.equal(check.status, 'success', log);
      assert.match(log, /^built by \d+$/m);
      assert.match(log, /^fetched$/m);
      assert.match(log, new RegExp(`^commit=${cp.sha}$`, 'm'));
      assert.match(log, /^HTTP\/1\.1 200 OK/m);
    });
  });

  describe(`CI jobs with ANVIL_RUNNER_NETWORK=none (${dialect})`, () => {
    it('a job has a loopback of its own: a service on the host loopback is out of reach (private, none); host mode reaches it', async () => {
      const service = net.createServer((s) => s.on('error', () => undefined).end('hello\n'));
      await new Promise<void>((r) => service.listen(0, '127.0.0.1', r));
      const port = (service.address() as net.AddressInfo).port;
      const script = [attempt('host-service', `bash -c 'exec 3<>/dev/tcp/127.0.0.1/${port}'`), attempt('loopback-up', 'grep -q lo /proc/net/dev')];
      try {
        for (const network of ['private', 'none', 'host']) {
          const { t } = await listeningTestApp(dialect, { ANVIL_RUNNER_NETWORK: network });
          const runner = testRunner(t, { concurrency: 1 });
          runner.start();
          try {
            const rp = await repoProject(t);
            const p = await makePipeline(t, rp, [plannedJob('net', { script })]);
            const { net: job } = await jobsOf(t, p.id);
            const log = (await traceText(t, (await waitForJob(t, job!.id, ['success', 'failed'])).id))!;
            assert.match(log, new RegExp(`^${network === 'host' ? 'ok' : 'no'} host-service$`, 'm'), log);
            assert.match(log, /^ok loopback-up$/m);
          } finally {
            await runner.stop();
            await t.close();
          }
        }
      } finally {
        service.close();
      }
    });
  });
}

describe('the sandbox in the server process', () => {
  const ci = 'sleeper:\n  script:\n    - touch started\n    - sleep 300\n';
  const pushSleeper = async (s: Awaited<ReturnType<typeof startServer>>) => {
    const project = await serverApi(s, 'POST', '/projects', { name: `sbx-${Math.random().toString(36).slice(2, 8)}`, initialize_with_readme: true });
    await serverApi(s, 'POST', `/projects/${project.id}/repository/commits`, {
      branch: 'main', commit_message: 'ci', actions: [{ action: 'create', file_path: '.service-ci.yml', content: ci }],
    });
    return project.id as number;
  };

  it('kill -9 of the server ends its sandboxed job\'s processes', async () => {
    const s = await startServer({ env: { ANVIL_ROOT_TOKEN: ROOT_TOKEN, ANVIL_RUNNER_UID: String(TEST_RUNNER_UID + 32) } });
    try {
      await pushSleeper(s);
      const builds = path.join(s.dataDir, 'ci', 'builds');
      await waitFor('the job to start', () => fs.existsSync(builds) && fs.readdirSync(builds).some((d) => fs.existsSync(path.join(builds, d, 'started'))), 90_000);
      const pids = jobPids();
      assert.ok(pids.length >= 2, 'the job runs as its slot\'s uid');
      s.proc.kill('SIGKILL');
      await s.exited;
      await waitFor('the job processes to die with the server', () => pids.every((pid) => !alive(pid)), 15_000);
    } finally {
      await s.stop();
    }
  });

  it('a server that is not root runs no job: one warning, jobs pending, /-/readiness 503 with the reason', async () => {
    const s = await startServer({ env: { ANVIL_ROOT_TOKEN: ROOT_TOKEN, ANVIL_LOG_LEVEL: 'warn' }, uid: 65534 });
    try {
      const id = await pushSleeper(s);
      const why = 'runner: the server does not run as root, so jobs cannot run as a user of their own';
      const ready = await waitFor('readiness to tell', async () => {
        const r = await fetch(`${s.url}/-/readiness`);
        const body = (await r.json()) as any;
        return body.runner_check ? { status: r.status, body } : null;
      }, 30_000);
      assert.equal(ready.status, 503);
      assert.deepEqual(ready.body, { status: 'failed', db_check: [{ status: 'ok' }], data_dir_check: [{ status: 'ok' }], runner_check: [{ status: 'failed', message: why }] });
      await new Promise((r) => setTimeout(r, 2500));
      const jobs: any[] = await serverApi(s, 'GET', `/projects/${id}/jobs`);
      assert.deepEqual(jobs.map((j) => j.status), ['pending']);
      const warnings = s.stdout().split('\n').filter((l) => l.includes('cannot run in their sandbox'));
      assert.equal(warnings.length, 1, s.stdout());
    } finally {
      await s.stop();
    }
  });
});
