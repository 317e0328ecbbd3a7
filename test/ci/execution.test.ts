// The built-in runner's script execution (src/ci/runner/execute.ts). No database: the runner's
// host-side building blocks run the same on every dialect, so these tests run once.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { executeJob, finalLine, goDuration, type JobExecutionSpec } from '../../src/ci/runner/execute.js';

let dir: string;
before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'anvil-exec-test-'));
});
after(() => fs.rmSync(dir, { recursive: true, force: true }));

// ANSI colour codes out, so assertions read as the log does.
const plain = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, '');

async function run(over: Partial<JobExecutionSpec> & { onChunk?: (text: string, all: string) => void } = {}) {
  const chunks: Buffer[] = [];
  const ac = new AbortController();
  const { onChunk, ...rest } = over;
  const result = await executeJob({
    cwd: dir,
    env: {},
    beforeScript: [],
    script: [],
    afterScript: [],
    timeoutMs: 60_000,
    signal: ac.signal,
    onOutput: (b) => {
      chunks.push(b);
      onChunk?.(b.toString('utf8'), Buffer.concat(chunks).toString('utf8'));
    },
    ...rest,
  });
  return { result, log: plain(Buffer.concat(chunks).toString('utf8')) };
}

/** Whether a process is still there (a zombie counts as gone). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^\d+ \(.*\) Z/.test(stat);
  } catch {
    return false;
  }
}

async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 200; i++) {
    if (!alive(pid)) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return false;
}

describe('executeJob', () => {
  it('runs before_script and script in one shell, echoing each command, and succeeds', async () => {
    const { result, log } = await run({ beforeScript: ['X=from-before'], script: ['echo "got $X"', 'echo two'] });
    assert.equal(result.outcome, 'success');
    assert.equal(result.exitCode, 0);
    assert.ok(result.durationMs >= 0);
    assert.equal(log, '$ X=from-before\n$ echo "got $X"\ngot from-before\n$ echo two\ntwo\nJob succeeded\n');
  });

  it('stops at the first failing command and reports its exit code', async () => {
    const { result, log } = await run({ script: ['echo one', 'exit 7', 'echo never'] });
    assert.equal(result.outcome, 'failed');
    assert.equal(result.exitCode, 7);
    assert.ok(!log.includes('never'));
    assert.ok(log.endsWith('ERROR: Job failed: exit code 7\n'), log);
  });

  it('a failing before_script skips the script', async () => {
    const { result, log } = await run({ beforeScript: ['false'], script: ['echo in-script'] });
    assert.equal(result.outcome, 'failed');
    assert.equal(result.exitCode, 1);
    assert.ok(!log.includes('in-script'));
  });

  it('fails a pipeline whose first command fails (pipefail)', async () => {
    const { result } = await run({ script: ['false | cat', 'echo after'] });
    assert.equal(result.outcome, 'failed');
  });

  it('shows a multi-line command collapsed and runs all of it', async () => {
    const { result, log } = await run({ script: ['if true; then\n  echo inside\nfi'] });
    assert.equal(result.outcome, 'success');
    assert.ok(log.startsWith('$ if true; then # collapsed multi-line command\ninside\n'), log);
  });

  it('merges stdout and stderr in the order they were written', async () => {
    const { log } = await run({ script: ['echo a; echo b >&2; echo c; echo d >&2'] });
    assert.ok(log.includes('a\nb\nc\nd\n'), log);
  });

  it('streams output while the job runs', async () => {
    // The script waits for a file that the test writes only once it has seen "ready":
    // without streaming this would wait until the timeout.
    const flag = path.join(dir, 'go-flag');
    fs.rmSync(flag, { force: true });
    const { result, log } = await run({
      timeoutMs: 30_000,
      script: [`echo ready; while [ ! -f ${flag} ]; do sleep 0.05; done; echo finished`],
      onChunk: (_t, all) => {
        if (all.includes('\nready\n')) fs.writeFileSync(flag, '');
      },
    });
    assert.equal(result.outcome, 'success');
    assert.ok(log.includes('finished'));
  });

  it('sees exactly the given environment, nothing of the server process', async () => {
    process.env.ANVIL_EXEC_TEST_SECRET = 'leaked';
    try {
      const { result, log } = await run({
        env: { GIVEN: 'yes', PATH: '/usr/bin:/bin' },
        script: ['echo "[${ANVIL_EXEC_TEST_SECRET:-unset}] [$GIVEN] [$PATH] [${LANG}]"', 'test -d "$HOME"', 'env | cut -d= -f1 | sort | tr "\\n" " "; echo'],
      });
      assert.equal(result.outcome, 'success');
      assert.ok(log.includes('[unset] [yes] [/usr/bin:/bin] [C.UTF-8]'), log);
      const names = log.split('\n').find((l) => l.includes('GIVEN ') && !l.startsWith('$'))!.trim().split(' ');
      for (const n of names) assert.ok(['GIVEN', 'HOME', 'LANG', 'OLDPWD', 'PATH', 'PWD', 'SHLVL', '_'].includes(n), `unexpected variable ${n}`);
    } finally {
      delete process.env.ANVIL_EXEC_TEST_SECRET;
    }
  });

  it('runs in the given directory', async () => {
    const { log } = await run({ script: ['pwd'] });
    assert.ok(log.includes(`\n${fs.realpathSync(dir)}\n`), log);
  });

  it('times out, killing the whole process group (background children too)', async () => {
    const pidFile = path.join(dir, 'timeout.pid');
    const { result, log } = await run({
      timeoutMs: 3000,
      script: [`sleep 300 & echo $! > ${pidFile}`, 'sleep 301'],
      afterScript: ['echo AFTER-SCRIPT'],
    });
    assert.equal(result.outcome, 'timeout');
    assert.equal(result.exitCode, null);
    assert.ok(log.endsWith('ERROR: Job failed: execution took longer than 3s seconds\n'), log);
    assert.ok(!log.includes('AFTER-SCRIPT'), 'after_script does not run after a timeout');
    const pid = Number(fs.readFileSync(pidFile, 'utf8'));
    assert.ok(pid > 0);
    assert.ok(await gone(pid), `background process ${pid} survived the timeout`);
  });

  it('ends what a successful script left running in the background', async () => {
    const pidFile = path.join(dir, 'bg.pid');
    const { result } = await run({ script: [`sleep 300 & echo $! > ${pidFile}`] });
    assert.equal(result.outcome, 'success');
    const pid = Number(fs.readFileSync(pidFile, 'utf8'));
    assert.ok(await gone(pid), `background process ${pid} survived the job`);
  });

  it('abort cancels: kills the scripts, skips after_script', async () => {
    const ac = new AbortController();
    const pidFile = path.join(dir, 'abort.pid');
    const chunks: string[] = [];
    const result = await executeJob({
      cwd: dir,
      env: {},
      beforeScript: [],
      script: [`sleep 300 & echo $! > ${pidFile}; echo started`, 'sleep 302'],
      afterScript: ['echo AFTER-SCRIPT'],
      timeoutMs: 60_000,
      signal: ac.signal,
      onOutput: (b) => {
        chunks.push(b.toString());
        if (chunks.join('').includes('\nstarted\n')) ac.abort();
      },
    });
    const log = plain(chunks.join(''));
    assert.equal(result.outcome, 'canceled');
    assert.equal(result.exitCode, null);
    assert.ok(!log.includes('AFTER-SCRIPT'));
    assert.ok(log.endsWith('ERROR: Job failed: canceled\n'), log);
    assert.ok(await gone(Number(fs.readFileSync(pidFile, 'utf8'))));
  });

  it('does not start when already aborted', async () => {
    const ac = new AbortController();
    ac.abort();
    const marker = path.join(dir, 'not-created');
    const chunks: Buffer[] = [];
    const result = await executeJob({
      cwd: dir,
      env: {},
      beforeScript: [],
      script: [`touch ${marker}`],
      afterScript: [],
      timeoutMs: 10_000,
      signal: ac.signal,
      onOutput: (b) => chunks.push(b),
    });
    assert.equal(result.outcome, 'canceled');
    assert.ok(!fs.existsSync(marker));
  });

  it('runs after_script after a failure, in a fresh shell, with CI_JOB_STATUS', async () => {
    const { result, log } = await run({
      script: ['export ONLY_IN_SCRIPT=1', 'exit 3'],
      afterScript: ['echo "status=$CI_JOB_STATUS only=${ONLY_IN_SCRIPT:-none}"'],
    });
    assert.equal(result.outcome, 'failed');
    assert.equal(result.exitCode, 3);
    assert.ok(log.includes('Running after_script\n'), log);
    assert.ok(log.includes('status=failed only=none\n'), log);
    assert.ok(log.endsWith('ERROR: Job failed: exit code 3\n'));
  });

  it('a failing after_script does not change a success', async () => {
    const { result, log } = await run({ script: ['true'], afterScript: ['echo "status=$CI_JOB_STATUS"', 'exit 4', 'echo not-reached'] });
    assert.equal(result.outcome, 'success');
    assert.equal(result.exitCode, 0);
    assert.ok(log.includes('status=success\n'));
    assert.ok(!log.includes('not-reached'));
    assert.ok(log.includes('WARNING: after_script failed, but job will continue unaffected: exit code 4\n'), log);
    assert.ok(log.endsWith('Job succeeded\n'));
  });

  it('after_script has its own time limit', async () => {
    const pidFile = path.join(dir, 'after.pid');
    const { result, log } = await run({
      script: ['true'],
      afterScript: [`sleep 300 & echo $! > ${pidFile}`, 'sleep 303'],
      afterScriptTimeoutMs: 3000,
    });
    assert.equal(result.outcome, 'success');
    assert.ok(log.includes('execution took longer than 3s seconds'), log);
    assert.ok(await gone(Number(fs.readFileSync(pidFile, 'utf8'))));
  });

  it('leaves the final line to the caller when asked', async () => {
    const { result, log } = await run({ script: ['echo x'], writeFinalLine: false });
    assert.equal(log, '$ echo x\nx\n');
    assert.equal(plain(finalLine(result, 1000)), 'Job succeeded\n');
  });
});

describe('runner messages', () => {
  it('formats durations as the reference runner (Go) does', () => {
    assert.equal(goDuration(3_600_000), '1h0m0s');
    assert.equal(goDuration(5_400_000), '1h30m0s');
    assert.equal(goDuration(90_000), '1m30s');
    assert.equal(goDuration(1500), '1.5s');
    assert.equal(goDuration(2000), '2s');
    assert.equal(goDuration(250), '250ms');
  });

  it('final lines', () => {
    assert.equal(plain(finalLine({ outcome: 'failed', exitCode: 2, durationMs: 1 }, 1000)), 'ERROR: Job failed: exit code 2\n');
    assert.equal(plain(finalLine({ outcome: 'timeout', exitCode: null, durationMs: 1 }, 3_600_000)), 'ERROR: Job failed: execution took longer than 1h0m0s seconds\n');
  });

  it('echoes commands literally: nothing in the echo is expanded or run', async () => {
    const command = `echo '$HOME' "$(echo sub)" \`echo tick\` \\ it's\ttab\x1b`.replace("it's", "'it'\\''s'");
    const { log } = await run({ script: [command] });
    assert.ok(log.startsWith(`$ ${plain(command)}\n`), log);
  });
});
