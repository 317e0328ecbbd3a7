// `npm run bench`: Anvil's main endpoints against the ceiling of this stack on this machine.
//
// Starts the real server (temp data dir; SQLite, or PostgreSQL when ANVIL_BENCH_DATABASE_URL is
// set), seeds it, records each scenario's response, starts a bare Fastify process that returns
// those exact bytes, and runs autocannon against both. Prints requests/s, p50/p99 latency and
// Anvil's share of the bare server's requests/s. Also measures start-up (spawn → first 200 on
// /-/health, empty SQLite data dir) and resident memory.
//
// A new scenario is one entry in SCENARIOS (its `seed` creates what it reads).
//   ANVIL_BENCH_DURATION (s, default 5) · ANVIL_BENCH_CONNECTIONS (default 10) · ANVIL_BENCH_LOG_LEVEL (default info)
import { spawn, spawnSync } from 'node:child_process';
import { scratchDatabase } from '../test/helpers/postgres.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { seedCi, type SeededCi } from './ci.js';
import { seedGit, type SeededGit } from './git.js';
import { seedImportExport, type SeededImportExport } from './import_export.js';
import { seedHooks, type SeededHooks } from './hooks.js';
import { seedProjects, type SeededProjects } from './projects.js';
import { ROOT, distIsFresh, freePort, rssOf, startServer, waitForHealth, type RunningServer } from './server.js';

const TOKEN = 'bench-root-token-0123456789abcdef';
const DURATION = Number(process.env.ANVIL_BENCH_DURATION ?? 5);
const WARMUP = Math.max(1, Math.round(DURATION / 2));
const CONNECTIONS = Number(process.env.ANVIL_BENCH_CONNECTIONS ?? 10);

export interface BenchContext {
  url: string;
  token: string;
  /** Where the server keeps its data, and its PostgreSQL URL (null on SQLite): for seeds that write rows directly. */
  dataDir: string;
  databaseUrl: string | null;
  /** The server's process id (for its memory). */
  pid: number;
  /** A call to the running server as root; throws unless the status is 2xx. */
  api(method: string, path: string, body?: unknown): Promise<any>;
}

export interface Scenario {
  name: string;
  /** GET path with its query, e.g. `/api/v4/projects?per_page=20`; a function when it depends on the seed. */
  path: string | (() => string);
  /** Send root's token (default true). */
  auth?: boolean;
  seed?: (ctx: BenchContext) => Promise<void>;
}

export const SCENARIOS: Scenario[] = [
  { name: 'GET /user', path: '/api/v4/user' },
  // PROJECTS: 100,000 projects (see bench/projects.ts); latencies must not grow with the table.
  { name: 'GET /projects (100k)', path: '/api/v4/projects?per_page=20', seed: async (ctx) => void (await seedProjects(ctx)) },
  {
    name: 'GET /projects keyset p1000',
    path: () => `/api/v4/projects?pagination=keyset&order_by=id&sort=asc&per_page=20&id_after=${seededProjects!.keysetPage1000After}`,
    seed: async (ctx) => void (seededProjects = await seedProjects(ctx)),
  },
  { name: 'GET /projects/:id (100k)', path: () => `/api/v4/projects/${seededProjects!.middleId}`, seed: async (ctx) => void (seededProjects = await seedProjects(ctx)) },
  // GIT: push and clone of 10,000 commits are timed by the seed (bench/git.ts); then the branches list with 5,000 branches.
  {
    name: 'git: GET branches (5k)',
    path: () => `/api/v4/projects/${seededGit!.projectId}/repository/branches?per_page=20`,
    seed: async (ctx) => void (seededGit = await seedGit(ctx)),
  },
  // CI: a 100-job pipeline's POST and the runner's pace are timed by the seed (bench/ci.ts); then
  // the lists with 1,000,000 jobs in the table.
  { name: 'ci: GET jobs (1M)', path: () => `/api/v4/projects/${seededCi!.projectId}/jobs?per_page=20`, seed: async (ctx) => void (seededCi = await seedCi(ctx)) },
  { name: 'ci: GET jobs scope=failed (1M)', path: () => `/api/v4/projects/${seededCi!.projectId}/jobs?scope[]=failed&per_page=20`, seed: async (ctx) => void (seededCi = await seedCi(ctx)) },
  { name: 'ci: GET pipelines (1M jobs)', path: () => `/api/v4/projects/${seededCi!.projectId}/pipelines?per_page=20`, seed: async (ctx) => void (seededCi = await seedCi(ctx)) },
  {
    name: 'ci: GET pipeline jobs (1M)',
    path: () => `/api/v4/projects/${seededCi!.projectId}/pipelines/${seededCi!.pipelineId}/jobs?per_page=20`,
    seed: async (ctx) => void (seededCi = await seedCi(ctx)),
  },
  // EXPORT/IMPORT: the export and the import of 1,000 pipelines, 10,000 jobs and 10,000 commits are
  // timed by the seed (bench/import_export.ts), with the server's peak RSS growth; then the status.
  {
    name: 'export: GET export status',
    path: () => `/api/v4/projects/${seededImportExport!.projectId}/export`,
    seed: async (ctx) => void (seededImportExport = await seedImportExport(ctx)),
  },
  // HOOKS: 10,000 deliveries to a loopback receiver; their pace and GET /projects/:id's p99 during
  // the burst beside a quiet server's are measured by the seed (bench/hooks.ts).
  { name: 'hooks: GET /projects/:id', path: () => `/api/v4/projects/${seededHooks!.projectId}`, seed: async (ctx) => void (seededHooks = await seedHooks(ctx)) },
];

let seededImportExport: SeededImportExport | null = null;
let seededCi: SeededCi | null = null;
let seededGit: SeededGit | null = null;
let seededHooks: SeededHooks | null = null;
/** `npm run bench -- <word>` runs only the scenarios whose name contains the word (e.g. `git`). */
const ONLY = process.argv[2]?.toLowerCase();
const SELECTED = ONLY ? SCENARIOS.filter((sc) => sc.name.toLowerCase().includes(ONLY)) : SCENARIOS;

let seededProjects: SeededProjects | null = null;
const pathOf = (sc: Scenario) => (typeof sc.path === 'function' ? sc.path() : sc.path);

interface Measured {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}

async function measure(url: string, headers: Record<string, string>): Promise<Measured> {
  await autocannon({ url, headers, connections: CONNECTIONS, duration: WARMUP });
  const r = await autocannon({ url, headers, connections: CONNECTIONS, duration: DURATION });
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors + r.timeouts, non2xx: r.non2xx };
}

/** Headers a client sees that are part of the answer (not per connection or per request). */
const KEEP_HEADER = (name: string) => name === 'content-type' || name === 'link' || name.startsWith('x-') && name !== 'x-request-id';


/** Builds dist/ when src/ changed since (as `npm start` does); type errors elsewhere do not stop the emit. */
function ensureBuild(): 'dist' | 'tsx' {
  if (distIsFresh()) return 'dist';
  process.stdout.write('building dist/ …\n');
  spawnSync(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', path.join(ROOT, 'tsconfig.build.json')], { stdio: 'ignore' });
  return distIsFresh() ? 'dist' : 'tsx';
}

async function startup(entry: 'dist' | 'tsx', runs = 3): Promise<{ ms: number; rss: number | null }> {
  const results: { ms: number; rss: number | null }[] = [];
  for (let i = 0; i < runs; i++) {
    const spawned = process.hrtime.bigint();
    const s = await startServer({ entry, waitForListening: false, env: { ANVIL_ROOT_TOKEN: TOKEN } });
    const ms = await waitForHealth(s.url, spawned);
    results.push({ ms, rss: rssOf(s.proc.pid!) });
    await s.stop();
  }
  results.sort((a, b) => a.ms - b.ms);
  return results[Math.floor(runs / 2)]; // the median run
}

async function startBare(fixturesFile: string): Promise<{ url: string; stop: () => Promise<void> }> {
  const port = await freePort();
  const proc = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench/bare.ts'), fixturesFile, String(port)], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    proc.stdout!.on('data', (d) => String(d).includes('listening') && resolve());
    proc.on('exit', (code) => reject(new Error(`bare server exited (${code})`)));
  });
  const exited = new Promise((r) => proc.on('exit', r));
  return { url: `http://127.0.0.1:${port}`, stop: async () => (proc.kill('SIGTERM'), void (await exited)) };
}

const fmt = (n: number, d = 0) => n.toFixed(d).padStart(8);

async function main() {
  const entry = ensureBuild();
  const up = await startup(entry);
  const mib = (b: number | null) => (b === null ? '?' : `${(b / 2 ** 20).toFixed(0)} MiB`);
  process.stdout.write(`start-up (${entry === 'dist' ? 'node dist/anvil.mjs' : 'node --import tsx src/main.ts'}, empty SQLite data dir): ` +
    `${up.ms.toFixed(0)} ms from spawn to the first 200 on /-/health (median of 3), RSS ${mib(up.rss)}\n`);

  const pgBase = process.env.ANVIL_BENCH_DATABASE_URL;
  const pgDb = pgBase ? await scratchDatabase(pgBase, 'anvil_bench') : null;
  let server: RunningServer | null = null;
  let bare: Awaited<ReturnType<typeof startBare>> | null = null;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'anvil-bench-'));
  try {
    server = await startServer({
      entry,
      dropOutputAfterStart: true,
      env: {
        ANVIL_ROOT_TOKEN: TOKEN,
        ANVIL_LOG_LEVEL: process.env.ANVIL_BENCH_LOG_LEVEL ?? 'info',
        ...(pgDb ? { ANVIL_DATABASE_URL: pgDb.url } : {}),
      },
    });
    const url = server.url;
    const ctx: BenchContext = {
      url,
      token: TOKEN,
      dataDir: server.dataDir,
      databaseUrl: pgDb?.url ?? null,
      pid: server.proc.pid!,
      async api(method, p, body) {
        const r = await fetch(url + p, {
          method,
          headers: { 'private-token': TOKEN, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        if (r.status >= 300) throw new Error(`${method} ${p}: ${r.status} ${await r.text()}`);
        return r.headers.get('content-type')?.startsWith('application/json') ? r.json() : r.text();
      },
    };

    // Record each scenario's exact answer for the bare server.
    const fixtures = [];
    for (const sc of SELECTED) {
      await sc.seed?.(ctx);
      const r = await fetch(url + pathOf(sc), { headers: sc.auth === false ? {} : { 'private-token': TOKEN } });
      if (r.status !== 200) throw new Error(`${sc.name}: ${r.status} ${await r.text()}`);
      const headers: Record<string, string> = {};
      r.headers.forEach((v, k) => KEEP_HEADER(k) && (headers[k] = v));
      fixtures.push({ url: pathOf(sc), status: r.status, headers, body: Buffer.from(await r.arrayBuffer()).toString('base64') });
    }
    const fixturesFile = path.join(tmp, 'fixtures.json');
    fs.writeFileSync(fixturesFile, JSON.stringify(fixtures));
    bare = await startBare(fixturesFile);

    process.stdout.write(`\n${SELECTED.length} scenario(s) on ${pgDb ? 'PostgreSQL' : 'SQLite'}, ${CONNECTIONS} connections, ${WARMUP} s warm-up + ${DURATION} s each, ` +
      `${os.cpus().length} CPUs, load average ${os.loadavg()[0].toFixed(1)}\n\n`);
    process.stdout.write(`${'scenario'.padEnd(28)}${'target'.padEnd(8)}${'req/s'.padStart(8)}${'p50 ms'.padStart(8)}${'p99 ms'.padStart(8)}${'ratio'.padStart(8)}\n`);
    for (const sc of SELECTED) {
      const headers: Record<string, string> = sc.auth === false ? {} : { 'private-token': TOKEN };
      const a = await measure(url + pathOf(sc), headers);
      const b = await measure(bare.url + pathOf(sc), headers);
      for (const [who, m] of [['anvil', a], ['bare', b]] as const) {
        if (m.errors || m.non2xx) process.stdout.write(`  warning: ${who} had ${m.errors} errors and ${m.non2xx} non-2xx answers\n`);
      }
      process.stdout.write(`${sc.name.padEnd(28)}${'anvil'.padEnd(8)}${fmt(a.rps)}${fmt(a.p50, 1)}${fmt(a.p99, 1)}${fmt(a.rps / b.rps, 2)}\n`);
      process.stdout.write(`${''.padEnd(28)}${'bare'.padEnd(8)}${fmt(b.rps)}${fmt(b.p50, 1)}${fmt(b.p99, 1)}\n`);
    }
    process.stdout.write(`\nAnvil RSS after the run: ${mib(rssOf(server.proc.pid!))}\n`);
  } finally {
    await bare?.stop();
    await server?.stop();
    await pgDb?.drop();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

await main();
