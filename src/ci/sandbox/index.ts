// How a CI job's processes are confined: the only module that knows bubblewrap. The executor asks
// it for a command line (a `Confinement`); the runner asks it whether it can start at all.
//
// A job runs as
//   [sh: joins the job's cgroups (bounds.ts)] → [nsenter: the job's private network (network.ts)]
//   → bwrap (as root: pid, ipc, uts, mount [, net] namespaces; a root of its own)
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
//
// Every folder a root process binds for the job lies in a folder only root may change (the
// builds folder, or the job's `own` folder): the job cannot swap one for a link between its
// script and its after_script.
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { RunnerNetwork, RunnerSandboxConfig } from '../../config.js';
import type { Confinement } from '../runner/execute.js';
import { canMountTmpfs, cgroupReport, describeBounds, diskReport, enterCgroups, hostCgroups, makeJobCgroups, mountJobDisk, releaseJobCgroups, releaseMounts, type HostCgroups, type JobCgroups } from './bounds.js';
import { forwardAddresses, privateResolvConf, startJobNetwork, type ApiEndpoint, type JobNetwork } from './network.js';

export { apiEndpoint, type ApiEndpoint } from './network.js';
export { releaseMounts, sweepJobCgroups } from './bounds.js';

/** Where checkouts are seen inside: `/builds/<namespace>/<project>`, as the reference's container executors place them. */
export const SANDBOX_BUILDS_DIR = '/builds';

/** What the system offers read-only; a symlink (merged /usr) stays a symlink. */
const SYSTEM_DIRS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc'];
/** Masked with an empty file where they exist. */
const SECRET_FILES = ['/etc/shadow', '/etc/shadow-', '/etc/gshadow', '/etc/gshadow-', '/etc/security/opasswd', '/etc/sudoers'];
/** Masked with an empty folder where they exist. */
const SECRET_DIRS = ['/etc/ssl/private', '/etc/sudoers.d'];

/** What this host offers the sandbox, found once at start (probeSandbox). */
export interface SandboxHost {
  /** The network jobs get: the setting, or `none` where `private` cannot be made here. */
  network: RunnerNetwork;
  cgroups: HostCgroups;
  /** Whether the job's folders can be size-bounded tmpfs mounts. */
  tmpfs: boolean;
  /** Where the forward to the API listens in a job's private network (forwardAddresses, resolved at start). */
  apiForward: string[];
}

/** A job's folders on the host. */
export interface JobFolders {
  /** The checkout (read-write inside at `projectDir`). */
  workspace: string;
  /**
   * Root's own folder for the job (mode 0700): `job/` is the job's own folder (read-write inside at
   * `${projectDir}.tmp`: file variables, scripts, home/), `tmp/` its /tmp; also the network
   * namespace and the job's resolv.conf.
   */
  own: string;
}

export const jobScratch = (own: string): string => path.join(own, 'job');
const jobTmp = (own: string): string => path.join(own, 'tmp');

export interface JobSandboxSpec {
  settings: RunnerSandboxConfig;
  host: SandboxHost;
  /** The server's data dir: never visible inside, even where it lies below a system folder. */
  dataDir: string;
  /** This job slot's uid and gid. */
  uid: number;
  folders: JobFolders;
  /** The checkout as the job sees it. */
  projectDir: string;
  /** Where the job reaches the server's API (CI_SERVER_URL's host and port): forwarded into a private network. */
  api: ApiEndpoint;
  /** Names the job's cgroups (unique in this process). */
  key: string;
}

/** What a job's command line enters before bwrap: its cgroups, its network namespace. */
interface Entry {
  cgroups: JobCgroups | null;
  nsPath: string | null;
  resolvConf: string | null;
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
  nsenter: string | null;
  unshare: string | null;
  slirp4netns: string | null;
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
  return { bwrap, prlimit, setpriv, nsenter: which('nsenter'), unshare: which('unshare'), slirp4netns: which('slirp4netns') };
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
export function sandboxArgv(t: Tools, spec: Omit<JobSandboxSpec, 'api' | 'key'>, entry: Entry, command: string[]): string[] {
  const { settings: s, uid, projectDir, folders } = spec;
  const a = entry.cgroups ? enterCgroups(entry.cgroups) : [];
  if (entry.nsPath) a.push(t.nsenter!, `--net=${entry.nsPath}`, '--');
  a.push(t.bwrap, '--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try');
  if (spec.host.network === 'none') a.push('--unshare-net');
  a.push('--die-with-parent', '--new-session', '--hostname', 'anvil-job');
  a.push(...systemMounts(spec.dataDir));
  if (entry.resolvConf) a.push('--ro-bind', entry.resolvConf, '/etc/resolv.conf');
  a.push('--proc', '/proc', '--dev', '/dev');
  a.push('--bind', jobTmp(folders.own), '/tmp');
  const parents: string[] = [];
  for (let d = path.posix.dirname(projectDir); d !== '/'; d = path.posix.dirname(d)) parents.unshift(d);
  for (const d of parents) a.push('--perms', '0755', '--dir', d);
  a.push('--bind', folders.workspace, projectDir, '--bind', jobScratch(folders.own), `${projectDir}.tmp`, '--chdir', projectDir);
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

/**
 * Makes the job's folders (see JobFolders), each of its two disks a tmpfs of
 * ANVIL_RUNNER_MAX_DISK_MB where the host allows. `workspace` is left empty for the checkout.
 * releaseMounts on both undoes it.
 */
export async function openJobFolders(host: SandboxHost, settings: RunnerSandboxConfig, folders: JobFolders): Promise<void> {
  await fsp.mkdir(folders.workspace, { recursive: true, mode: 0o700 });
  await fsp.mkdir(folders.own, { recursive: true, mode: 0o700 });
  if (host.tmpfs && settings.maxDiskMb > 0) await mountJobDisk([folders.workspace, folders.own], settings.maxDiskMb);
  await fsp.mkdir(path.join(jobScratch(folders.own), 'home'), { recursive: true, mode: 0o700 });
  await fsp.mkdir(jobTmp(folders.own), { mode: 0o700 });
}

/** The folders handOver gives to the job's uid. */
export const jobOwnedFolders = (folders: JobFolders): string[] => [folders.workspace, jobScratch(folders.own), jobTmp(folders.own)];

/** A job's run in its sandbox: how to run its commands, and its end. */
export interface JobSandbox {
  confinement: Confinement;
  /**
   * Ends what the sandbox made for the run (its network, its cgroups) once the job's processes
   * are gone, and says which bounds the job ran into (lines for its log). Never throws.
   */
  end(failed: boolean): Promise<string[]>;
}

/**
 * Starts the job's sandbox: its cgroups, its private network (with the forward to the API). Its
 * folders must exist and belong to `spec.uid` (openJobFolders, handOver).
 */
export async function startJobSandbox(spec: JobSandboxSpec): Promise<JobSandbox> {
  const t = tools();
  if (typeof t === 'string') throw new Error(t);
  const { host, settings, folders } = spec;
  const cgroups = await makeJobCgroups(host.cgroups, { memoryMb: settings.maxMemoryMb, processes: settings.maxProcesses }, spec.key);
  let network: JobNetwork | null = null;
  let resolvConf: string | null = null;
  try {
    if (host.network === 'private') {
      network = await startJobNetwork({ unshare: t.unshare!, nsenter: t.nsenter!, slirp4netns: t.slirp4netns! }, path.join(folders.own, 'netns'), spec.api, host.apiForward);
      resolvConf = path.join(folders.own, 'resolv.conf');
      await fsp.writeFile(resolvConf, privateResolvConf(), { mode: 0o644 });
    }
  } catch (err) {
    await releaseJobCgroups(cgroups);
    throw err;
  }
  const entry: Entry = { cgroups, nsPath: network?.nsPath ?? null, resolvConf };
  const inside = `${spec.projectDir}.tmp`;
  let ended: Promise<string[]> | null = null;
  return {
    confinement: {
      scripts: { host: jobScratch(folders.own), inside },
      home: `${inside}/home`,
      command: (argv) => sandboxArgv(t, spec, entry, argv),
      alive: () => uidHasProcesses(spec.uid),
    },
    end: (failed) =>
      (ended ??= (async () => {
        const lines = cgroupReport(cgroups);
        if (failed && host.tmpfs && settings.maxDiskMb > 0) {
          lines.push(...(await diskReport([{ dir: folders.workspace, what: 'its build folder' }, { dir: folders.own, what: 'its /tmp and HOME' }], settings.maxDiskMb)));
        }
        await network?.stop().catch(() => undefined);
        await releaseJobCgroups(cgroups);
        return lines;
      })()),
  };
}

/** What the sandbox finds on this host: its tools, the network it can give, the bounds it can set. */
export interface SandboxProbe {
  /** Null when jobs can run in the sandbox here; else why not (no bwrap, user namespaces off, the server not root). */
  problem: string | null;
  host: SandboxHost;
  /** What the start log says: a fallback from the setting, what is bounded and what is not. */
  warnings: string[];
  info: string;
}

/**
 * Finds what this host offers (the private network's tools, cgroups, tmpfs) and tries a real job
 * that prints its uid, on the network it will give jobs. Where `private` cannot be made here,
 * jobs get `none`, and a warning says why: never the host's network.
 */
export async function probeSandbox(settings: RunnerSandboxConfig, dataDir: string, api: ApiEndpoint): Promise<SandboxProbe> {
  const host: SandboxHost = { network: settings.network, cgroups: { memory: null, pids: null }, tmpfs: false, apiForward: [] };
  const warnings: string[] = [];
  const fail = (problem: string): SandboxProbe => ({ problem, host, warnings, info: '' });
  const t = tools();
  if (typeof t === 'string') return fail(t);
  if (process.getuid?.() !== 0) return fail('the server does not run as root, so jobs cannot run as a user of their own');
  if (settings.network === 'private') {
    const missing = !t.slirp4netns ? 'slirp4netns (Debian package slirp4netns)' : !t.nsenter || !t.unshare ? 'nsenter and unshare (package util-linux)' : null;
    if (missing) {
      host.network = 'none';
      warnings.push(`ANVIL_RUNNER_NETWORK=private needs ${missing}, which is not installed: jobs run with ANVIL_RUNNER_NETWORK=none (a loopback of their own, no network)`);
    }
  }
  host.cgroups = hostCgroups();
  if (host.network === 'private') host.apiForward = await forwardAddresses(api);
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'anvil-sandbox-probe-'));
  try {
    host.tmpfs = settings.maxDiskMb > 0 && (await canMountTmpfs(dir));
    const tryJob = async (): Promise<string | null> => {
      const folders: JobFolders = { workspace: path.join(dir, 'w'), own: path.join(dir, 'o') };
      try {
        await openJobFolders(host, settings, folders);
        await handOver(jobOwnedFolders(folders), settings.uid);
        const sandbox = await startJobSandbox({ settings, host, dataDir, uid: settings.uid, folders, projectDir: '/builds/probe', api, key: 'probe' });
        try {
          const argv = sandbox.confinement.command(['/bin/sh', '-c', 'id -u; id -g']);
          const r = await new Promise<{ stdout: string; stderr: string; failed: boolean }>((resolve) => {
            execFile(argv[0]!, argv.slice(1), { encoding: 'utf8', timeout: 10_000, env: { PATH: '/usr/bin:/bin' } }, (err, stdout, stderr) =>
              resolve({ stdout, stderr: stderr || (err ? err.message : ''), failed: err !== null }),
            );
          });
          if (!r.failed && r.stdout === `${settings.uid}\n${settings.uid}\n`) return null;
          return (r.stderr || r.stdout).trim().split('\n')[0] ?? '';
        } finally {
          await sandbox.end(false);
        }
      } catch (err) {
        return (err as Error).message.split('\n')[0] ?? '';
      } finally {
        await releaseMounts(folders.workspace);
        await releaseMounts(folders.own);
        await fsp.rm(folders.workspace, { recursive: true, force: true });
        await fsp.rm(folders.own, { recursive: true, force: true });
      }
    };
    let why = await tryJob();
    if (why !== null && host.network === 'private') {
      host.network = 'none';
      warnings.push(`ANVIL_RUNNER_NETWORK=private could not be made here (${why}): jobs run with ANVIL_RUNNER_NETWORK=none (a loopback of their own, no network)`);
      why = await tryJob();
    }
    if (why !== null) return fail(`the sandbox could not start (are user namespaces disabled?): ${why}`);
  } finally {
    await fsp.rm(dir, { recursive: true, force: true });
  }
  const { bounded, unbounded } = describeBounds(host, { memoryMb: settings.maxMemoryMb, processes: settings.maxProcesses, diskMb: settings.maxDiskMb });
  if (unbounded.length > 1) warnings.push(`a job's ${unbounded.slice(0, -1).join(', ')} ${unbounded.length > 2 ? 'are' : 'is'} not bounded on this host`);
  const forward = host.apiForward.length ? ` (the API forwarded in at ${host.apiForward.map((a) => (a.includes(':') ? `[${a}]` : a)).join(', ')} port ${api.port})` : '';
  const info = `runner: jobs run in their sandbox: network ${host.network}${forward}; bounded: ${bounded.join(', ')}; not bounded: ${unbounded.join(', ')}`;
  return { problem: null, host, warnings, info };
}
