// Starts the real Anvil server as a child process (the way `anvil serve` runs), for the
// benchmark and for the tests that need a real process (shutdown, start-up time).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Removes a server's data dir. A server killed mid-job leaves its jobs' tmpfs folders and network
 * namespaces mounted there (its next start would remove them): they are unmounted first.
 */
export function removeDataDir(dataDir: string): void {
  const root = path.resolve(dataDir);
  let points: string[] = [];
  try {
    points = fs
      .readFileSync('/proc/self/mountinfo', 'utf8')
      .split('\n')
      .map((l) => (l.split(' ')[4] ?? '').replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8))))
      .filter((p) => p.startsWith(`${root}/`));
  } catch {
    /* no /proc */
  }
  for (const p of points.sort((a, b) => b.length - a.length)) spawnSync('umount', ['--lazy', p]);
  fs.rmSync(dataDir, { recursive: true, force: true });
}

/** A port that was free a moment ago (the server's log line needs a real port, so no port 0). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.unref();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

export interface RunningServer {
  proc: ChildProcess;
  port: number;
  url: string;
  dataDir: string;
  /** Everything the process wrote to stdout so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code (or signal name) once the process has exited. */
  exited: Promise<number | string>;
  /** SIGTERM, wait for the exit, remove the data dir. */
  stop(): Promise<void>;
}

export interface StartOptions {
  env?: Record<string, string>;
  /** Resolve once the process prints its "listening" line (default) or not wait at all. */
  waitForListening?: boolean;
  /** `tsx` runs src/ directly (default); `dist` runs the build, as `npm start` does. */
  entry?: 'tsx' | 'dist';
  /** Run the server as this uid (and gid) instead of this process's; its data dir is given to it. */
  uid?: number;
  /** Stop keeping stdout once listening (a benchmark's request log lines would pile up). */
  dropOutputAfterStart?: boolean;
  /** More arguments after `serve` (e.g. `--seed FILE`). */
  serveArgs?: string[];
}

const DIST_MAIN = path.join(ROOT, 'dist/anvil.cjs');

function newest(dir: string): number {
  let t = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p) : fs.statSync(p).mtimeMs);
  }
  return t;
}

/** True when dist/ was built after the last change in src/. */
export const distIsFresh = (): boolean => fs.existsSync(DIST_MAIN) && newest(path.join(ROOT, 'src')) <= fs.statSync(DIST_MAIN).mtimeMs;

/** Spawns `anvil serve` (through tsx, or the build) with a fresh data dir on a free port. */
export async function startServer(opts: StartOptions = {}): Promise<RunningServer> {
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'anvil-proc-'));
  if (opts.uid !== undefined) fs.chownSync(dataDir, opts.uid, opts.uid);
  // The child gets no ANVIL_* from our environment except what we pass: a test must not hit a shared database.
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('ANVIL_')));
  // The build runs as itself, as `npm start` runs it: its first line holds Node's memory settings.
  const [command, args] =
    opts.entry === 'dist'
      ? [DIST_MAIN, ['serve', ...(opts.serveArgs ?? [])]]
      : [process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/main.ts'), 'serve', ...(opts.serveArgs ?? [])]];
  const proc = spawn(command, args, {
    cwd: ROOT,
    env: {
      ...env,
      ANVIL_HOST: '127.0.0.1',
      ANVIL_PORT: String(port),
      ANVIL_DATA_DIR: dataDir,
      ANVIL_LOG_LEVEL: 'warn',
      // no SSH server unless a test asks for one: servers started side by side would all want port 2222
      ANVIL_SSH_PORT: '',
      ...opts.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(opts.uid !== undefined ? { uid: opts.uid, gid: opts.uid } : {}),
  });
  let out = '';
  let err = '';
  const keep = (d: Buffer) => (out += d);
  proc.stdout!.on('data', keep);
  proc.stderr!.on('data', (d) => (err += d));
  const exited = new Promise<number | string>((resolve) => proc.on('exit', (code, signal) => resolve(code ?? signal ?? -1)));

  const server: RunningServer = {
    proc,
    port,
    url: `http://127.0.0.1:${port}`,
    dataDir,
    stdout: () => out,
    stderr: () => err,
    exited,
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
      await exited;
      removeDataDir(dataDir);
    },
  };
  if (opts.waitForListening !== false) {
    await new Promise<void>((resolve, reject) => {
      const check = () => {
        if (out.includes(' listening on ')) {
          proc.stdout!.off('data', check);
          if (opts.dropOutputAfterStart) proc.stdout!.off('data', keep).resume();
          resolve();
        }
      };
      proc.stdout!.on('data', check);
      void exited.then((code) => reject(new Error(`server exited (${code}) before listening:\n${out}\n${err}`)));
      check();
    });
  }
  return server;
}

/** Polls `GET /-/health` until it answers 200; returns the milliseconds since `since` (hrtime ns). */
export async function waitForHealth(url: string, since: bigint, timeoutMs = 20_000): Promise<number> {
  for (;;) {
    try {
      const r = await fetch(`${url}/-/health`);
      if (r.status === 200) return Number(process.hrtime.bigint() - since) / 1e6;
    } catch {
      // not listening yet
    }
    if (Number(process.hrtime.bigint() - since) / 1e6 > timeoutMs) throw new Error('no 200 from /-/health in time');
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Resident memory of a process in bytes (Linux /proc), or null elsewhere. */
export function rssOf(pid: number): number | null {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/** A seed that runs once per server (per bench context), however many scenarios ask for it. */
export function oncePerServer<C extends object, T>(seed: (ctx: C) => Promise<T>): (ctx: C) => Promise<T> {
  const done = new WeakMap<C, Promise<T>>();
  return (ctx) => {
    let p = done.get(ctx);
    if (!p) done.set(ctx, (p = seed(ctx)));
    return p;
  };
}
