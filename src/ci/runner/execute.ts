// Runs a job's scripts on the host as the reference runner's shell executor does with bash:
// `before_script` + `script` in one bash process with `set -eo pipefail` (each command echoed
// first as a green `$ command`, the first failing command ends it), then `after_script` in a
// fresh bash process with its own time limit, whose failure does not change the result.
// As in the reference (15.x), `after_script` runs after success and failure, not after a
// timeout or a cancel.
//
// The job sees exactly the environment it is given (plus PATH, HOME and LANG when absent):
// nothing of the server's own environment. Each bash runs in a process group of its own; on
// timeout or abort the whole group gets SIGTERM, then SIGKILL after a short grace, and when a
// script ends, whatever it left running in the background is ended the same way. A server that
// dies without doing so (kill -9) takes the group with it: bash's stdin is a pipe the server
// holds open, and a watcher in the group kills the group when that pipe reaches its end.
//
// With a `confinement` (src/ci/sandbox/), bash runs inside the command line it gives: the process
// group is then the sandbox's outer process, whose namespace's processes all end with it; the
// executor waits until none of the job's processes is left.
import { spawn } from 'node:child_process';
import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { clockTimer, now as clockNow } from '../../shared/clock.js';

export interface JobExecutionSpec {
  cwd: string;
  /** The job's whole environment (CI_* variables, project/pipeline/job variables, the job token). */
  env: Record<string, string>;
  beforeScript: string[];
  script: string[];
  afterScript: string[];
  /** The job's timeout, for before_script + script. */
  timeoutMs: number;
  /** Aborting cancels the job: the scripts are killed and after_script does not run. */
  signal: AbortSignal;
  /** Everything the job prints (stdout and stderr merged, in order) and the runner's own lines. */
  onOutput(chunk: Buffer): void;
  /** after_script's own limit; the reference's 5 minutes by default. */
  afterScriptTimeoutMs?: number;
  /** false: leave out the closing "Job succeeded" / "ERROR: Job failed: …" line (write `finalLine()` yourself). */
  writeFinalLine?: boolean;
  /** Runs the scripts confined (src/ci/sandbox/); `cwd` and the environment's paths are then as the job sees them. */
  confinement?: Confinement;
}

/** How the job's processes are confined: the sandbox gives the command line, the executor runs it. */
export interface Confinement {
  /** The folder the scripts are written to, on the host and as the job sees it. */
  scripts: { host: string; inside: string };
  /** HOME as the job sees it. */
  home: string;
  /** The command line that runs `argv` (paths as the job sees them) confined, in `cwd`. */
  command(argv: string[]): string[];
  /** Whether a process of the job is still alive. */
  alive(): boolean;
}

export type ExecutionOutcome = 'success' | 'failed' | 'timeout' | 'canceled';

export interface ExecutionResult {
  /** bash's exit code for success/failed; null after a timeout or cancel (or death by a signal). */
  exitCode: number | null;
  outcome: ExecutionOutcome;
  durationMs: number;
}

export const AFTER_SCRIPT_TIMEOUT_MS = 5 * 60 * 1000;
/** Between SIGTERM and SIGKILL for a process group being stopped. */
export const KILL_GRACE_MS = 5000;

const GREEN = '\x1b[32;1m';
const RED = '\x1b[31;1m';
const YELLOW = '\x1b[0;33m';
const RESET = '\x1b[0;m';

/** `time.Duration.String()` of Go, which the reference runner uses in its messages (`1h0m0s`, `1m30s`, `500ms`). */
export function goDuration(ms: number): string {
  if (ms <= 0) return '0s';
  if (ms < 1000) return `${ms}ms`;
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = ((ms % 60_000) / 1000).toString();
  if (h > 0) return `${h}h${m}m${s}s`;
  if (m > 0) return `${m}m${s}s`;
  return `${s}s`;
}

/** The runner's closing line for a result (with its colour and newline). */
export function finalLine(result: ExecutionResult, timeoutMs: number): string {
  switch (result.outcome) {
    case 'success':
      return `${GREEN}Job succeeded${RESET}\n`;
    case 'failed':
      return `${RED}ERROR: Job failed: exit code ${result.exitCode ?? 1}${RESET}\n`;
    case 'timeout':
      return `${RED}ERROR: Job failed: execution took longer than ${goDuration(timeoutMs)} seconds${RESET}\n`;
    case 'canceled':
      return `${RED}ERROR: Job failed: canceled${RESET}\n`;
  }
}

/** bash's $'…' quoting. */
function ansiC(text: string): string {
  let out = "$'";
  for (const ch of text) {
    const c = ch.codePointAt(0)!;
    if (ch === '\\' || ch === "'") out += `\\${ch}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (c < 0x20 || c === 0x7f) out += `\\x${c.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return `${out}'`;
}

/** The bash script for a list of commands: each echoed, then run; `set -eo pipefail` stops at the first failure. */
export function bashScript(commands: string[]): string {
  const lines = [
    // The watcher reads the server's pipe (moved to fd 3); the job's commands get /dev/null.
    'exec 3<&0 </dev/null',
    '( cat <&3 >/dev/null 2>&1; kill -KILL -- -$$ ) >/dev/null 2>&1 &',
    'exec 3<&-',
    'set -eo pipefail',
    'set +o noclobber',
    'exec 2>&1',
  ];
  for (const raw of commands) {
    const command = raw.trim();
    if (!command) {
      lines.push('echo');
      continue;
    }
    const [first, ...rest] = command.split('\n');
    const shown = rest.length ? `$ ${first} # collapsed multi-line command` : `$ ${first}`;
    lines.push(`echo ${ansiC(`${GREEN}${shown}${RESET}`)}`, command);
  }
  return `${lines.join('\n')}\n`;
}

function findBash(): string {
  for (const p of ['/bin/bash', '/usr/bin/bash', '/usr/local/bin/bash']) if (fsSync.existsSync(p)) return p;
  return 'bash';
}
const BASH = findBash();

/**
 * Whether a process group still has a member that is not a zombie. On Linux /proc tells (an
 * orphan that died stays a zombie until init reaps it, which can take a while); elsewhere
 * kill(-pgid, 0).
 */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  let pids: string[];
  try {
    pids = fsSync.readdirSync('/proc').filter((n) => /^\d+$/.test(n));
  } catch {
    return true;
  }
  for (const pid of pids) {
    let stat: string;
    try {
      stat = fsSync.readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue;
    }
    // pid (comm) state ppid pgrp …: comm may hold spaces and parentheses, so split after the last ')'.
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(pgrp) === pgid && state !== 'Z' && state !== 'X') return true;
  }
  return false;
}

/** SIGTERM to the whole process group, SIGKILL to what is left after the grace. Resolves when none is left (or after SIGKILL). */
export async function killGroup(pid: number, graceMs = KILL_GRACE_MS): Promise<void> {
  try {
    process.kill(-pid, 'SIGTERM');
  } catch {
    return; // no such group: nothing left
  }
  const until = Date.now() + graceMs;
  while (Date.now() < until) {
    if (!groupAlive(pid)) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    /* gone meanwhile */
  }
}

/** Waits (polling) until `done()` or `ms` passed. */
async function until(done: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!done() && Date.now() < end) await new Promise((r) => setTimeout(r, 25));
}

interface Run {
  code: number | null;
  timedOut: boolean;
  aborted: boolean;
}

/** Runs one bash script in its own process group until it ends, times out or is aborted. */
async function runBash(
  scriptFile: string,
  o: { cwd: string; env: Record<string, string>; timeoutMs: number; signal: AbortSignal; onOutput(b: Buffer): void; confinement?: Confinement },
): Promise<Run> {
  const bash = [BASH, '--noprofile', '--norc', scriptFile];
  const [file, ...args] = o.confinement ? o.confinement.command(bash) : bash;
  const child = spawn(file!, args, {
    cwd: o.confinement ? '/' : o.cwd, // confined: the sandbox enters the job's folder
    env: o.env,
    detached: true, // a session and process group of its own
    stdio: ['pipe', 'pipe', 'pipe'], // stdin: held open (never written) while this process lives
  });
  child.stdin.on('error', () => undefined);
  const run: Run = { code: null, timedOut: false, aborted: false };
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  let stopping: Promise<void> | null = null;
  const stop = () => {
    if (!stopping && child.pid !== undefined) stopping = killGroup(child.pid);
  };
  child.stdout.on('data', (b: Buffer) => o.onOutput(b));
  child.stderr.on('data', (b: Buffer) => o.onOutput(b));

  // The timeout is on the domain's clock: a test that advances it past the timeout ends the job.
  const timer = clockTimer(clockNow() + o.timeoutMs, () => {
    run.timedOut = true;
    stop();
  });
  const onAbort = () => {
    run.aborted = true;
    stop();
  };
  if (o.signal.aborted) onAbort();
  else o.signal.addEventListener('abort', onAbort, { once: true });

  try {
    const exit = await new Promise<number | null>((resolve, reject) => {
      child.once('error', reject);
      child.once('exit', (code) => resolve(code));
    });
    run.code = exit;
    // What happened is settled now: a timeout or abort from here on finds the script already ended.
    timer.clear();
    o.signal.removeEventListener('abort', onAbort);
    // Background processes the script left behind (`sleep 300 &`) end with it.
    if (child.pid !== undefined) {
      stop();
      await stopping;
    }
    // Confined, the group is the sandbox's outer process; its namespace's processes end with it.
    if (o.confinement) await until(() => !o.confinement!.alive(), KILL_GRACE_MS);
    // Output still in the pipes; a process that left the group could hold them open: don't wait for it.
    let grace: NodeJS.Timeout | undefined;
    await Promise.race([closed, new Promise<void>((resolve) => (grace = setTimeout(resolve, 1000)))]);
    clearTimeout(grace);
    child.stdin.destroy();
    child.stdout.destroy();
    child.stderr.destroy();
    return run;
  } finally {
    timer.clear();
    o.signal.removeEventListener('abort', onAbort);
  }
}

/** Minimal PATH/HOME/LANG where the job's environment has none. */
function jobEnv(env: Record<string, string>, home: string): Record<string, string> {
  return {
    PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
    HOME: home,
    LANG: 'C.UTF-8',
    ...env,
  };
}

/**
 * Runs a job's scripts; resolves with the outcome (never rejects for the job's own failures).
 * Rejects only when bash cannot be started at all (a system failure).
 */
export async function executeJob(spec: JobExecutionSpec): Promise<ExecutionResult> {
  const started = Date.now();
  const write = (text: string) => spec.onOutput(Buffer.from(text));
  const confined = spec.confinement;
  // The scripts and a default HOME live outside the workspace, so they are not artifacts.
  const tmp = confined ? confined.scripts.host : await fs.mkdtemp(path.join(os.tmpdir(), 'anvil-job-'));
  const inside = (name: string) => (confined ? path.posix.join(confined.scripts.inside, name) : path.join(tmp, name));
  try {
    const home = confined ? confined.home : path.join(tmp, 'home');
    if (!confined) await fs.mkdir(home);
    const env = jobEnv(spec.env, home);
    let result: ExecutionResult;
    if (spec.signal.aborted) {
      result = { exitCode: null, outcome: 'canceled', durationMs: 0 };
    } else {
      // Both scripts are written before anything of the job runs: a confined job can write in
      // that folder, and must not get the server to write through a link it left there. The job
      // reads them as another user, so they are world-readable (the folder is the job's own).
      const writeScript = (name: string, commands: string[]) =>
        fs.writeFile(path.join(tmp, name), bashScript(commands), { mode: confined ? 0o644 : 0o600, flag: 'wx' });
      await writeScript('script.sh', [...spec.beforeScript, ...spec.script]);
      if (spec.afterScript.length) await writeScript('after_script.sh', spec.afterScript);
      const run = await runBash(inside('script.sh'), { cwd: spec.cwd, env, timeoutMs: spec.timeoutMs, signal: spec.signal, onOutput: spec.onOutput, confinement: confined });
      const outcome: ExecutionOutcome = run.aborted ? 'canceled' : run.timedOut ? 'timeout' : run.code === 0 ? 'success' : 'failed';
      result = { exitCode: outcome === 'success' || outcome === 'failed' ? run.code : null, outcome, durationMs: 0 };

      if ((outcome === 'success' || outcome === 'failed') && spec.afterScript.length) {
        write(`${GREEN}Running after_script${RESET}\n${GREEN}Running after script...${RESET}\n`);
        const limit = spec.afterScriptTimeoutMs ?? AFTER_SCRIPT_TIMEOUT_MS;
        const a = await runBash(inside('after_script.sh'), {
          cwd: spec.cwd,
          env: { ...env, CI_JOB_STATUS: outcome },
          timeoutMs: limit,
          signal: spec.signal,
          onOutput: spec.onOutput,
          confinement: confined,
        });
        if (a.aborted) result = { exitCode: null, outcome: 'canceled', durationMs: 0 };
        else if (a.timedOut) write(`${YELLOW}WARNING: after_script failed, but job will continue unaffected: execution took longer than ${goDuration(limit)} seconds${RESET}\n`);
        else if (a.code !== 0) write(`${YELLOW}WARNING: after_script failed, but job will continue unaffected: exit code ${a.code ?? 1}${RESET}\n`);
      }
    }
    result.durationMs = Date.now() - started;
    if (spec.writeFinalLine !== false) write(finalLine(result, spec.timeoutMs));
    return result;
  } finally {
    if (!confined) await fs.rm(tmp, { recursive: true, force: true });
  }
}
