// What a job may use of the machine, with what the host offers: a control group of its own for
// memory and processes (cgroup v2 where this server's cgroup delegates the controllers, else the
// v1 `memory` and `pids` hierarchies where they are writable), and size-bounded tmpfs mounts for
// its build folder and its own folder (/tmp, HOME). The sandbox's rlimits (index.ts) stay under
// all of it. What the host does not offer is said once at start (describeBounds) and left unbounded.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';

/** A controller's place for this server's jobs: the folder under which each job gets one of its own. */
interface CgroupParent {
  version: 1 | 2;
  dir: string;
}

/** The control groups this host lets the server make for jobs; null where a controller is not available. */
export interface HostCgroups {
  memory: CgroupParent | null;
  pids: CgroupParent | null;
}

/** A job's cgroups: one folder per hierarchy (v1 may need two, v2 has one). */
export interface JobCgroups {
  /** The `cgroup.procs` files the job's first process writes itself into. */
  procs: string[];
  memory: { dir: string; version: 1 | 2; limitMb: number } | null;
  pids: { dir: string; version: 1 | 2; limit: number } | null;
}

/** This process's cgroup path in a hierarchy (`/proc/self/cgroup`): `0::/a/b` for v2, `4:memory:/a` for v1. */
function ownCgroupPath(hierarchy: string): string | null {
  try {
    for (const line of fs.readFileSync('/proc/self/cgroup', 'utf8').split('\n')) {
      const [, controllers, p] = /^\d+:([^:]*):(.*)$/.exec(line) ?? [];
      if (controllers === undefined || p === undefined) continue;
      if (hierarchy === '' ? controllers === '' : controllers.split(',').includes(hierarchy)) return p;
    }
  } catch {
    /* no /proc */
  }
  return null;
}

/** Mount points of a file system type from /proc/self/mountinfo, with their super options. */
function mountsOf(type: string): { dir: string; options: string }[] {
  const out: { dir: string; options: string }[] = [];
  try {
    for (const line of fs.readFileSync('/proc/self/mountinfo', 'utf8').split('\n')) {
      const [left, right] = line.split(' - ');
      if (!left || !right) continue;
      const [fstype, , superOptions] = right.split(' ');
      if (fstype === type) out.push({ dir: unescapeMount(left.split(' ')[4]!), options: superOptions ?? '' });
    }
  } catch {
    /* no /proc */
  }
  return out;
}

/** mountinfo writes a space, tab, newline and backslash as octal escapes. */
const unescapeMount = (s: string): string => s.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));

/** Whether a child cgroup can be made (and removed again) in `dir`. */
function canMakeChild(dir: string): boolean {
  const probe = path.join(dir, `anvil-probe.${process.pid}`);
  try {
    fs.mkdirSync(probe);
    fs.rmdirSync(probe);
    return true;
  } catch {
    return false;
  }
}

function readable(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

/**
 * The cgroups jobs can get here: on cgroup v2, this server's own cgroup when it delegates
 * `memory` and `pids` to children (`cgroup.subtree_control`); else, per controller, this
 * server's cgroup in the v1 hierarchy of that controller when it is writable.
 */
export function hostCgroups(): HostCgroups {
  const found: HostCgroups = { memory: null, pids: null };
  const v2path = ownCgroupPath('');
  if (v2path !== null) {
    for (const m of mountsOf('cgroup2')) {
      const dir = path.join(m.dir, v2path);
      const delegated = (readable(path.join(dir, 'cgroup.subtree_control')) ?? '').split(/\s+/);
      if (!canMakeChild(dir)) continue;
      if (delegated.includes('memory')) found.memory ??= { version: 2, dir };
      if (delegated.includes('pids')) found.pids ??= { version: 2, dir };
    }
  }
  for (const controller of ['memory', 'pids'] as const) {
    if (found[controller]) continue;
    const own = ownCgroupPath(controller);
    if (own === null) continue;
    for (const m of mountsOf('cgroup')) {
      if (!m.options.split(',').includes(controller)) continue;
      const dir = path.join(m.dir, own);
      if (canMakeChild(dir)) found[controller] = { version: 1, dir };
      break;
    }
  }
  return found;
}

/** Whether this process can mount a tmpfs (root with CAP_SYS_ADMIN in the host's mount namespace). */
export async function canMountTmpfs(scratchDir: string): Promise<boolean> {
  const dir = path.join(scratchDir, 'tmpfs-probe');
  await fsp.mkdir(dir, { recursive: true });
  try {
    await mountTmpfs(dir, 1);
    await releaseMounts(dir);
    return true;
  } catch {
    return false;
  } finally {
    await fsp.rmdir(dir).catch(() => undefined);
  }
}

function run(file: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (b: Buffer) => (err += b.toString()));
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`${path.basename(file)} ${args.join(' ')}: ${err.trim()}`))));
  });
}

async function mountTmpfs(dir: string, sizeMb: number): Promise<void> {
  // Only root may enter; the job's folders inside are handed to its uid (handOver).
  await run('mount', ['-t', 'tmpfs', '-o', `size=${sizeMb}m,mode=0700,nosuid,nodev`, 'anvil-job', dir]);
}

/** Unmounts (lazily) everything mounted at or below `dir`, deepest first: a job's tmpfs, its network namespace. */
export async function releaseMounts(dir: string): Promise<void> {
  const root = path.resolve(dir);
  const points: string[] = [];
  try {
    for (const line of (await fsp.readFile('/proc/self/mountinfo', 'utf8')).split('\n')) {
      const p = line.split(' ')[4];
      if (!p) continue;
      const point = unescapeMount(p);
      if (point === root || point.startsWith(`${root}/`)) points.push(point);
    }
  } catch {
    return;
  }
  points.sort((a, b) => b.length - a.length);
  for (const point of [...new Set(points)]) await run('umount', ['--lazy', point]).catch(() => undefined);
}

let cgroupSeq = 0;
/**
 * The name of a job's cgroups: unique among the servers of this host (several share a cgroup in
 * tests) and among the runners of this process (tests run several, on databases of their own).
 */
const jobCgroupName = (key: string): string => `anvil-job.${process.pid}.${key}.${(cgroupSeq += 1)}`;

/** Mounts a tmpfs of `sizeMb` MiB on each folder (which must exist and be empty); on failure none stays. */
export async function mountJobDisk(folders: string[], sizeMb: number): Promise<void> {
  try {
    for (const folder of folders) await mountTmpfs(folder, sizeMb);
  } catch (err) {
    for (const folder of folders) await releaseMounts(folder);
    throw err;
  }
}

/** Makes a job's cgroups with their limits; on failure none stays. */
export async function makeJobCgroups(cgroups: HostCgroups, limits: { memoryMb: number; processes: number }, key: string): Promise<JobCgroups> {
  const g: JobCgroups = { procs: [], memory: null, pids: null };
  try {
    const made = new Map<string, string>(); // parent → the job's folder (v2: one for both controllers)
    const dirIn = async (parent: CgroupParent): Promise<string> => {
      let dir = made.get(parent.dir);
      if (!dir) {
        dir = path.join(parent.dir, jobCgroupName(key));
        await fsp.mkdir(dir);
        made.set(parent.dir, dir);
        g.procs.push(path.join(dir, 'cgroup.procs'));
      }
      return dir;
    };
    if (cgroups.memory && limits.memoryMb > 0) {
      const dir = await dirIn(cgroups.memory);
      const bytes = String(limits.memoryMb * 1024 * 1024);
      if (cgroups.memory.version === 2) {
        await fsp.writeFile(path.join(dir, 'memory.max'), bytes);
        await fsp.writeFile(path.join(dir, 'memory.swap.max'), '0').catch(() => undefined);
      } else {
        await fsp.writeFile(path.join(dir, 'memory.limit_in_bytes'), bytes);
        // Memory and swap together, where the kernel accounts swap: no way around the bound through swap.
        await fsp.writeFile(path.join(dir, 'memory.memsw.limit_in_bytes'), bytes).catch(() => undefined);
      }
      g.memory = { dir, version: cgroups.memory.version, limitMb: limits.memoryMb };
    }
    if (cgroups.pids) {
      const dir = await dirIn(cgroups.pids);
      await fsp.writeFile(path.join(dir, 'pids.max'), String(limits.processes));
      g.pids = { dir, version: cgroups.pids.version, limit: limits.processes };
    }
    return g;
  } catch (err) {
    await releaseJobCgroups(g);
    throw err;
  }
}

/** The command line prefix that puts the job's first process (and so all of it) in its cgroups. */
export function enterCgroups(g: JobCgroups): string[] {
  if (!g.procs.length) return [];
  return ['/bin/sh', '-c', 'while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done; shift; exec "$@"', 'anvil-cgroup', ...g.procs, '--'];
}

/** `key N` from a flat keyed file (memory.events, pids.events, memory.oom_control). */
function counter(text: string | null, key: string): number {
  const m = new RegExp(`^${key}\\s+(\\d+)$`, 'm').exec(text ?? '');
  return m ? Number(m[1]) : 0;
}

/** The lines the job's log gets about the cgroup bounds it ran into, each naming the bound and its setting. */
export function cgroupReport(g: JobCgroups): string[] {
  const lines: string[] = [];
  if (g.memory) {
    const kills = counter(readable(path.join(g.memory.dir, g.memory.version === 2 ? 'memory.events' : 'memory.oom_control')), 'oom_kill');
    if (kills > 0) {
      lines.push(
        `the job went over its memory limit of ${g.memory.limitMb} MiB (ANVIL_RUNNER_MAX_MEMORY_MB): ${kills === 1 ? 'a process was' : `${kills} processes were`} killed for lack of memory`,
      );
    }
  }
  if (g.pids && counter(readable(path.join(g.pids.dir, 'pids.events')), 'max') > 0) {
    lines.push(`the job reached its limit of ${g.pids.limit} processes (ANVIL_RUNNER_MAX_PROCESSES): a new process could not start`);
  }
  return lines;
}

/** A line for each of the job's disks that is full to its last MiB (what a write that failed for lack of space leaves). */
export async function diskReport(disks: { dir: string; what: string }[], sizeMb: number): Promise<string[]> {
  const lines: string[] = [];
  for (const d of disks) {
    const s = await fsp.statfs(d.dir).catch(() => null);
    if (s && s.bavail * s.bsize < 1024 * 1024) lines.push(`the job filled its disk limit of ${sizeMb} MiB (ANVIL_RUNNER_MAX_DISK_MB): no space left in ${d.what}`);
  }
  return lines;
}

/** Removes the job's cgroups, ending what is still in them. Never throws. */
export async function releaseJobCgroups(g: JobCgroups): Promise<void> {
  for (const procs of g.procs.splice(0)) await removeCgroup(path.dirname(procs));
}

async function removeCgroup(dir: string): Promise<void> {
  for (let i = 0; i < 50; i++) {
    const pids = (readable(path.join(dir, 'cgroup.procs')) ?? '').split('\n').filter(Boolean);
    for (const pid of pids) {
      try {
        process.kill(Number(pid), 'SIGKILL');
      } catch {
        /* gone */
      }
    }
    try {
      await fsp.rmdir(dir);
      return;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Removes cgroups of jobs whose server process is gone (a crash); those of live servers stay. */
export async function sweepJobCgroups(cgroups: HostCgroups): Promise<void> {
  for (const parent of new Set([cgroups.memory?.dir, cgroups.pids?.dir])) {
    if (!parent) continue;
    let names: string[];
    try {
      names = await fsp.readdir(parent);
    } catch {
      continue;
    }
    for (const name of names) {
      const pid = /^anvil-job\.(\d+)\./.exec(name)?.[1];
      if (!pid) continue;
      let alive = true;
      try {
        process.kill(Number(pid), 0);
      } catch (e) {
        alive = (e as NodeJS.ErrnoException).code === 'EPERM';
      }
      if (!alive) await removeCgroup(path.join(parent, name));
    }
  }
}

/** One line for the start log: what a job is bounded by here, and what is not bounded. */
export function describeBounds(host: { cgroups: HostCgroups; tmpfs: boolean }, limits: { memoryMb: number; processes: number; diskMb: number }): { bounded: string[]; unbounded: string[] } {
  const bounded: string[] = [];
  const unbounded: string[] = [];
  const v = (p: CgroupParent) => `cgroup v${p.version}`;
  if (limits.memoryMb === 0) unbounded.push('memory (ANVIL_RUNNER_MAX_MEMORY_MB=0)');
  else if (host.cgroups.memory) bounded.push(`memory ${limits.memoryMb} MiB (${v(host.cgroups.memory)})`);
  else unbounded.push('memory (no memory cgroup this server can make)');
  bounded.push(`processes ${limits.processes} (${host.cgroups.pids ? `${v(host.cgroups.pids)} and ` : ''}RLIMIT_NPROC)`);
  if (limits.diskMb === 0) unbounded.push('disk (ANVIL_RUNNER_MAX_DISK_MB=0)');
  else if (host.tmpfs) bounded.push(`disk ${limits.diskMb} MiB for the build folder and ${limits.diskMb} MiB for /tmp and HOME (tmpfs)`);
  else unbounded.push('disk (this server cannot mount a tmpfs)');
  unbounded.push('CPU time beside the job timeout');
  return { bounded, unbounded };
}
