// How a CI job's processes are confined: the only module that knows bubblewrap. The executor asks
// it for a command line (a `Confinement`); the runner asks it whether it can start at all.
//
// A job runs as
//   bwrap (as root: pid, ipc, uts, mount [, net] namespaces; a root of its own)
//     → prlimit (processes, file size, no core files)
//     → setpriv (the job slot's uid/gid, no groups, no capabilities, no_new_privs)
//     → bwrap (a user namespace mapping that uid to itself; no further user namespaces)
//     → bash
// so the job is a uid that is not the server's, both inside and outside, with no capabilities in
// any namespace that owns something of the host. It sees the system's /usr, /bin, /lib*, /etc
// read-only (secrets such as /etc/shadow masked), its own /proc and a minimal /dev, its checkout
// (read-write, bound alone), its own folder for file variables, scripts and HOME, and /tmp (a
// folder of its own). Nothing of the data dir, /root, /home, the server's environment or its
// processes. Each job slot has its own uid, so the process limit of one job does not touch another.
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { RunnerSandboxConfig } from '../../config.js';
import type { Confinement } from '../runner/execute.js';

/** Where checkouts are seen inside: `/builds/<namespace>/<project>`, as the reference's container executors place them. */
export const SANDBOX_BUILDS_DIR = '/builds';

/** What the system offers read-only; a symlink (merged /usr) stays a symlink. */
const SYSTEM_DIRS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc'];
/** Masked with an empty file where they exist. */
const SECRET_FILES = ['/etc/shadow', '/etc/shadow-', '/etc/gshadow', '/etc/gshadow-', '/etc/security/opasswd', '/etc/sudoers'];
/** Masked with an empty folder where they exist. */
const SECRET_DIRS = ['/etc/ssl/private', '/etc/sudoers.d'];

export interface JobSandboxSpec {
  settings: RunnerSandboxConfig;
  /** The server's data dir: never visible inside, even where it lies below a system folder. */
  dataDir: string;
  /** This job slot's uid and gid. */
  uid: number;
  /** The checkout on the host (read-write inside at `projectDir`). */
  workspace: string;
  /** The job's own folder on the host (read-write inside at `${projectDir}.tmp`): file variables, scripts, tmp/, home/. */
  scratch: string;
  /** The checkout as the job sees it. */
  projectDir: string;
}

/** Paths as a job of project `fullPath` sees them. */
export function sandboxPaths(fullPath: string): { buildsDir: string; projectDir: string; scratchDir: string; home: string } {
  const projectDir = path.posix.join(SANDBOX_BUILDS_DIR, fullPath);
  return { buildsDir: SANDBOX_BUILDS_DIR, projectDir, scratchDir: `${projectDir}.tmp`, home: `${projectDir}.tmp/home` };
}

/** The tools on the host (absolute paths: the job's PATH may be anything). */
interface Tools {
  bwrap: string;
  prlimit: string;
  setpriv: string;
}

function which(name: string): string | null {
  for (const dir of ['/usr/bin', '/bin', '/usr/sbin', '/sbin', '/usr/local/bin']) {
    const p = path.join(dir, name);
    try {
      fs.accessSync(p, fs.constants.X_OK);
      return p;
    } catch {
      /* next */
    }
  }
  return null;
}

function tools(): Tools | string {
  const bwrap = which('bwrap');
  if (!bwrap) return 'bwrap (Debian package bubblewrap) is not installed';
  const prlimit = which('prlimit');
  const setpriv = which('setpriv');
  if (!prlimit || !setpriv) return 'prlimit and setpriv (package util-linux) are not installed';
  return { bwrap, prlimit, setpriv };
}

/** `--ro-bind`/`--symlink` for the system folders, the masks over secrets. */
function systemMounts(dataDir: string): string[] {
  const a: string[] = [];
  for (const dir of SYSTEM_DIRS) {
    let st: fs.Stats;
    try {
      st = fs.lstatSync(dir);
    } catch {
      continue;
    }
    if (st.isSymbolicLink()) a.push('--symlink', fs.readlinkSync(dir), dir);
    else if (st.isDirectory()) a.push('--ro-bind', dir, dir);
  }
  // A resolv.conf that points into /run (systemd-resolved): its target, alone.
  try {
    const real = fs.realpathSync('/etc/resolv.conf');
    if (!SYSTEM_DIRS.some((d) => real.startsWith(`${d}/`))) a.push('--ro-bind', real, real);
  } catch {
    /* none */
  }
  for (const f of SECRET_FILES) if (fs.existsSync(f)) a.push('--ro-bind', '/dev/null', f);
  for (const d of SECRET_DIRS) if (fs.existsSync(d)) a.push('--tmpfs', d);
  try {
    for (const n of fs.readdirSync('/etc/ssh')) if (/_key$/.test(n)) a.push('--ro-bind', '/dev/null', `/etc/ssh/${n}`);
  } catch {
    /* no ssh */
  }
  if (SYSTEM_DIRS.some((d) => dataDir === d || dataDir.startsWith(`${d}/`))) a.push('--tmpfs', dataDir);
  return a;
}

/** The whole command line that runs `command` (paths as the job sees them) in the sandbox. */
export function sandboxArgv(t: Tools, spec: JobSandboxSpec, command: string[]): string[] {
  const { settings: s, uid, projectDir } = spec;
  const a = [t.bwrap, '--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try'];
  if (s.network === 'none') a.push('--unshare-net');
  a.push('--die-with-parent', '--new-session', '--hostname', 'anvil-job');
  a.push(...systemMounts(spec.dataDir));
  a.push('--proc', '/proc', '--dev', '/dev');
  a.push('--bind', path.join(spec.scratch, 'tmp'), '/tmp');
  const parents: string[] = [];
  for (let d = path.posix.dirname(projectDir); d !== '/'; d = path.posix.dirname(d)) parents.unshift(d);
  for (const d of parents) a.push('--perms', '0755', '--dir', d);
  a.push('--bind', spec.workspace, projectDir, '--bind', spec.scratch, `${projectDir}.tmp`, '--chdir', projectDir);
  // Only what the next two steps need, and they give it up before the job's own code runs.
  a.push('--cap-add', 'CAP_SETUID', '--cap-add', 'CAP_SETGID', '--cap-add', 'CAP_SETPCAP', '--cap-add', 'CAP_SYS_RESOURCE', '--');
  const fsize = s.maxFileSizeMb * 1024 * 1024;
  a.push(t.prlimit, `--nproc=${s.maxProcesses}`, `--fsize=${fsize}`, '--core=0', '--');
  a.push(t.setpriv, `--reuid=${uid}`, `--regid=${uid}`, '--clear-groups', '--inh-caps=-all', '--bounding-set=-all', '--no-new-privs', '--');
  a.push(t.bwrap, '--unshare-user', '--uid', String(uid), '--gid', String(uid), '--disable-userns', '--die-with-parent');
  a.push('--dev-bind', '/', '/', '--chdir', projectDir, '--', ...command);
  return a;
}

/** Whether any process whose real uid is `uid` is alive (not a zombie). */
function uidHasProcesses(uid: number): boolean {
  let pids: string[];
  try {
    pids = fs.readdirSync('/proc').filter((n) => /^\d+$/.test(n));
  } catch {
    return false;
  }
  for (const pid of pids) {
    try {
      const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
      if (Number(/^Uid:\s+(\d+)/m.exec(status)?.[1]) === uid && !/^State:\s+[ZX]/m.test(status)) return true;
    } catch {
      /* gone meanwhile */
    }
  }
  return false;
}

/**
 * Gives the job's folders to its uid: every folder and file except those with other hard links
 * (the checkout's object files are hard links into the project's repository: they stay the
 * server's, readable but not writable by the job). Symlinks are changed, never followed.
 */
export async function handOver(dirs: string[], uid: number): Promise<void> {
  const args = [...dirs, '(', '-type', 'd', '-o', '-links', '1', ')', '-exec', 'chown', '-h', `${uid}:${uid}`, '--', '{}', '+'];
  await new Promise<void>((resolve, reject) => {
    const child = spawn('find', ['-P', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (b: Buffer) => (err += b.toString()));
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`handing the build folder to the job's user failed: ${err.trim()}`))));
  });
}

/** A confinement for one job (see execute.ts); its folders must exist and belong to `spec.uid` (handOver). */
export function jobSandbox(spec: JobSandboxSpec): Confinement {
  const t = tools();
  if (typeof t === 'string') throw new Error(t);
  const inside = `${spec.projectDir}.tmp`;
  return {
    scripts: { host: spec.scratch, inside },
    home: `${inside}/home`,
    command: (argv) => sandboxArgv(t, spec, argv),
    alive: () => uidHasProcesses(spec.uid),
  };
}

/** Makes the job's own folder (`scratch`, with tmp/ and home/) for a sandboxed job. */
export async function makeScratch(scratch: string): Promise<void> {
  await fsp.mkdir(path.join(scratch, 'tmp'), { recursive: true, mode: 0o700 });
  await fsp.mkdir(path.join(scratch, 'home'), { recursive: true, mode: 0o700 });
}

/**
 * Null when a job can run in the sandbox here; else why not (no bwrap, user namespaces off, the
 * server not root). Tries a real job that prints its uid.
 */
export async function sandboxProblem(settings: RunnerSandboxConfig, dataDir: string): Promise<string | null> {
  const t = tools();
  if (typeof t === 'string') return t;
  if (process.getuid?.() !== 0) return 'the server does not run as root, so jobs cannot run as a user of their own';
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'anvil-sandbox-probe-'));
  try {
    const workspace = path.join(dir, 'w');
    const scratch = path.join(dir, 's');
    await fsp.mkdir(workspace);
    await makeScratch(scratch);
    await handOver([workspace, scratch], settings.uid);
    const argv = sandboxArgv(t, { settings, dataDir, uid: settings.uid, workspace, scratch, projectDir: '/builds/probe' }, ['/bin/sh', '-c', 'id -u; id -g']);
    const r = await new Promise<{ stdout: string; stderr: string; failed: boolean }>((resolve) => {
      execFile(argv[0]!, argv.slice(1), { encoding: 'utf8', timeout: 10_000, env: { PATH: '/usr/bin:/bin' } }, (err, stdout, stderr) =>
        resolve({ stdout, stderr: stderr || (err ? err.message : ''), failed: err !== null }),
      );
    });
    if (!r.failed && r.stdout === `${settings.uid}\n${settings.uid}\n`) return null;
    const why = (r.stderr || r.stdout).trim().split('\n')[0];
    return `the sandbox could not start (are user namespaces disabled?): ${why}`;
  } finally {
    await fsp.rm(dir, { recursive: true, force: true });
  }
}
