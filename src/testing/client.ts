// `import { startAnvil } from 'anvil/testing'`: an ephemeral Anvil for a Node test suite. It runs
// `anvil serve --ephemeral` (the built command of this package) as a child process, reads its
// ready line, and drives the test endpoints (/-/test/…) with root's token. Nothing here imports
// the server: the package's dist/testing.mjs is this file alone, and its types are this file's.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';

export interface StartOptions {
  /** A seed: the path of a YAML or JSON file, or the seed itself as an object. */
  seed?: string | Record<string, unknown>;
  /** The port to listen on; 0 (the default) picks a free one. */
  port?: number;
  /** Let the test move Anvil's clock (`clock.advance`, `clock.set`). */
  clock?: boolean;
  /** More environment for the server (ANVIL_*); the caller's own ANVIL_* are not passed on. */
  env?: Record<string, string>;
  /** The command to run instead of this package's `anvil` (its arguments follow). */
  command?: string[];
  /** How long to wait for the ready line, in ms (default 120 s: a seed on a loaded machine takes its time). */
  timeoutMs?: number;
}

/** One outbound request recorded in test mode (GET /-/test/deliveries). */
export interface Delivery {
  id: number;
  created_at: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string | null;
  response: { status: number; headers: Record<string, string>; body: string } | null;
  error: string | null;
  origin: Record<string, unknown> | null;
}

export interface AnvilClock {
  now(): Promise<Date>;
  /** Moves the clock forward by a duration such as `25h`, `90s`, `2d`. */
  advance(duration: string): Promise<Date>;
  set(at: string | Date): Promise<Date>;
  /** Stops the clock (at `at` when given): it moves only when set or advanced. */
  freeze(at?: string | Date): Promise<Date>;
  /** Time goes on from where the frozen clock stands. */
  unfreeze(): Promise<Date>;
  /** Back to the system's time, running. */
  real(): Promise<Date>;
}

/** One request made to Anvil (GET /-/test/requests); secrets are masked. */
export interface JournalEntry {
  id: number;
  created_at: string;
  method: string;
  url: string;
  path: string;
  status: number | null;
  user: string | null;
  duration_ms: number;
  fault_id: number | null;
  request: { headers: Record<string, string>; body: string | null; body_truncated: boolean };
  response: { headers: Record<string, string>; body: string | null; body_truncated: boolean };
}

/** Which requests: `path` is a pattern (`*` within a segment, `**` across), `status` a code, `4xx` or `none`, `since` an id. */
export interface RequestFilter {
  method?: string;
  path?: string;
  user?: string;
  status?: number | string;
  since?: number;
}

/** A fault or latency rule: match (method, path or url, user, times) and do one of status (with headers, body), drop, reset, or delay alone. */
export interface FaultRule {
  method?: string;
  path?: string;
  url?: string;
  user?: string;
  status?: number;
  headers?: Record<string, string>;
  body?: unknown;
  drop?: boolean;
  reset?: boolean;
  /** Milliseconds, or a random delay between min and max. */
  delay?: number | { min: number; max: number };
  times?: number;
}

export interface FaultRules {
  add(rule: FaultRule): Promise<FaultRule & { id: number; hits: number }>;
  list(): Promise<(FaultRule & { id: number; hits: number })[]>;
  clear(): Promise<void>;
}

export interface Anvil {
  url: string;
  /** Root's API token (scopes api, read_user, sudo, admin_mode). */
  token: string;
  pid: number;
  dataDir: string;
  /** Back to the state right after start-up and seeding. */
  reset(): Promise<void>;
  snapshot(name: string): Promise<void>;
  restore(name: string): Promise<void>;
  /** What went out after `since` (a delivery id); with `wait` seconds, waits for the next one. */
  deliveries(opts?: { since?: number; wait?: number }): Promise<Delivery[]>;
  clock: AnvilClock;
  /** The requests made to Anvil, oldest first (the newest 1000 are kept); a reset forgets them. */
  requests(filter?: RequestFilter): Promise<JournalEntry[]>;
  /** How many requests a filter selects. */
  requestCount(filter?: RequestFilter): Promise<number>;
  /** Faults and latency for requests to Anvil (rules by `path`); a reset clears them. */
  faults: FaultRules;
  /** Faults and latency for the delivery inbox's answers to hooks (rules by `url`); a reset clears them. */
  inboxFaults: FaultRules;
  /** Applies one more seed; a reset then comes back to its result. */
  seed(seed: Record<string, unknown>): Promise<void>;
  /** Stops the server; its data dir is removed. */
  stop(): Promise<void>;
}

/** This package's `anvil` command: dist/anvil.cjs of the nearest folder above with a package.json. */
function anvilCommand(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!fs.existsSync(path.join(dir, 'package.json')) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return path.join(dir, 'dist', 'anvil.cjs');
}

export async function startAnvil(opts: StartOptions = {}): Promise<Anvil> {
  let seedFile: string | null = null;
  const args = ['serve', '--ephemeral', '--port', String(opts.port ?? 0)];
  if (typeof opts.seed === 'string') args.push('--seed', path.resolve(opts.seed));
  else if (opts.seed) {
    seedFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'anvil-seed-')), 'seed.json');
    fs.writeFileSync(seedFile, JSON.stringify(opts.seed));
    args.push('--seed', seedFile);
  }
  if (opts.clock) args.push('--clock');
  const [cmd, ...pre] = opts.command ?? [anvilCommand()];
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('ANVIL_')));
  const proc = spawn(cmd!, [...pre, ...args], { env: { ...env, ...opts.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  // A suite that ends without stop() does not leave its server running (nor one killed outright:
  // the server watches the process that started it).
  let serverPid: number | null = null;
  const killAtExit = () => {
    try {
      process.kill(serverPid ?? proc.pid!, 'SIGTERM');
    } catch {
      // gone already
    }
  };
  process.once('exit', killAtExit);
  proc.once('exit', () => process.off('exit', killAtExit));
  const dropSeed = () => seedFile && fs.rmSync(path.dirname(seedFile), { recursive: true, force: true });
  let ready: { url: string; token: string; pid: number; data_dir: string };
  try {
    ready = await readyLine(proc, opts.timeoutMs ?? 120_000);
    serverPid = ready.pid;
  } finally {
    dropSeed();
  }

  const call = async (method: string, p: string, body?: unknown): Promise<unknown> => {
    const res = await fetch(`${ready.url}${p}`, {
      method,
      headers: { 'private-token': ready.token, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${p} answered ${res.status}: ${text}`);
    return text ? JSON.parse(text) : null;
  };
  const clockAt = (r: unknown) => new Date((r as { now: string }).now);
  const exited = new Promise<void>((resolve) => (proc.exitCode !== null || proc.signalCode !== null ? resolve() : proc.once('exit', () => resolve())));

  return {
    url: ready.url,
    token: ready.token,
    pid: ready.pid,
    dataDir: ready.data_dir,
    reset: async () => void (await call('POST', '/-/test/reset')),
    snapshot: async (name) => void (await call('POST', '/-/test/snapshots', { name })),
    restore: async (name) => void (await call('POST', `/-/test/snapshots/${encodeURIComponent(name)}/restore`)),
    deliveries: async ({ since, wait } = {}) => {
      const q = new URLSearchParams();
      if (since !== undefined) q.set('since', String(since));
      if (wait !== undefined) q.set('wait', String(wait));
      return (await call('GET', `/-/test/deliveries${q.size ? `?${q}` : ''}`)) as Delivery[];
    },
    clock: {
      now: async () => clockAt(await call('GET', '/-/test/clock')),
      advance: async (duration) => clockAt(await call('POST', '/-/test/clock', { advance: duration })),
      set: async (at) => clockAt(await call('POST', '/-/test/clock', { set: iso(at) })),
      freeze: async (at) => clockAt(await call('POST', '/-/test/clock', { freeze: true, ...(at === undefined ? {} : { set: iso(at) }) })),
      unfreeze: async () => clockAt(await call('POST', '/-/test/clock', { freeze: false })),
      real: async () => clockAt(await call('POST', '/-/test/clock', { real: true })),
    },
    requests: async (filter = {}) => (await call('GET', `/-/test/requests${query(filter)}`)) as JournalEntry[],
    requestCount: async (filter = {}) => ((await call('GET', `/-/test/requests/count${query(filter)}`)) as { count: number }).count,
    faults: faultRules(call, '/-/test/faults'),
    inboxFaults: faultRules(call, '/-/test/inbox/faults'),
    seed: async (seed) => void (await call('POST', '/-/test/seed', { seed })),
    stop: async () => {
      // The server itself (its pid from the ready line): a wrapper in `command` may not pass a signal on.
      if (proc.exitCode === null && proc.signalCode === null) {
        try {
          process.kill(ready.pid, 'SIGTERM');
        } catch {
          proc.kill('SIGTERM');
        }
      }
      await exited;
    },
  };
}

const iso = (at: string | Date): string => (at instanceof Date ? at.toISOString() : at);

function query(filter: RequestFilter): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(filter)) if (v !== undefined) q.set(k, String(v));
  return q.size ? `?${q}` : '';
}

function faultRules(call: (method: string, p: string, body?: unknown) => Promise<unknown>, base: string): FaultRules {
  return {
    add: async (rule) => (await call('POST', base, rule)) as FaultRule & { id: number; hits: number },
    list: async () => (await call('GET', base)) as (FaultRule & { id: number; hits: number })[],
    clear: async () => void (await call('DELETE', base)),
  };
}

/** The server's one JSON line; its stderr is the error when it exits first. */
function readyLine(proc: ChildProcess, timeoutMs: number): Promise<{ url: string; token: string; pid: number; data_dir: string }> {
  let stderr = '';
  proc.stderr!.setEncoding('utf8');
  const keep = (d: string) => (stderr = (stderr + d).slice(-10_000));
  proc.stderr!.on('data', keep);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`anvil was not ready after ${timeoutMs} ms: ${stderr}`));
    }, timeoutMs);
    const lines = readline.createInterface({ input: proc.stdout! });
    lines.once('line', (line) => {
      clearTimeout(timer);
      lines.close();
      proc.stderr!.off('data', keep);
      proc.stderr!.resume(); // the logs are not kept; the pipe must not fill
      proc.stdout!.resume();
      try {
        resolve(JSON.parse(line));
      } catch {
        reject(new Error(`anvil printed ${line}`));
      }
    });
    proc.once('error', (err) => (clearTimeout(timer), reject(err)));
    proc.once('exit', (code, signal) => (clearTimeout(timer), reject(new Error(`anvil exited (${code ?? signal}) before it was ready: ${stderr.trim()}`))));
  });
}
