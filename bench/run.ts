// `npm run bench`: Anvil's main endpoints against the ceiling of this stack on this machine.
//
// Per database (SQLite, and PostgreSQL too when ANVIL_BENCH_DATABASE_URL is set), it starts the
// built server (dist/anvil.cjs, bundled first when src/ is newer) on a temp data dir, seeds it,
// records each scenario's answer, and starts the ceiling (bench/bare.ts): a bare Fastify process
// that does the one read a minimal plan would do on the same database, then answers those exact
// bytes. autocannon runs against both. Then a mixed load at a fixed rate (bench/mixed.ts), and the
// server's RSS. Start-up (spawn → first 200, empty data dir) is measured first. A summary table
// with each goal of issue 14 ends the run.
//
// A new scenario is one entry in SCENARIOS (its `seed` creates what it reads).
//
//   ANVIL_BENCH_ONLY=regex          only the scenarios whose name matches (case-insensitive; also
//                                   `npm run bench -- regex`), e.g. 'GET /user|start-up'
//   ANVIL_BENCH_DURATION=s          seconds per measurement (default 5; warm-up half of it)
//   ANVIL_BENCH_CONNECTIONS=n       autocannon connections (default 10)
//   ANVIL_BENCH_DATABASE_URL=url    also run every scenario on PostgreSQL (a scratch database beside url)
//   ANVIL_BENCH_DB=sqlite|postgres  only that database
//   ANVIL_BENCH_MIXED_RATE=n        requests/s of the mixed load (default 1000)
//   ANVIL_BENCH_MIXED_WARMUP=s      seconds of the mixed load before it is measured (default 10)
//   ANVIL_BENCH_STARTUP_RUNS=n      start-ups to take the median of (default 5)
//   ANVIL_BENCH_LOG_LEVEL           the server's log level (default info)
//   seed sizes: ANVIL_BENCH_PROJECTS, ANVIL_BENCH_CI_ROWS, ANVIL_BENCH_BRANCHES, ANVIL_BENCH_COMMITS, …
import { spawn, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import autocannon from 'autocannon';
import { scratchDatabase } from '../test/helpers/postgres.js';
import type { CeilingRead, Fixture } from './bare.js';
import { seedCi, type SeededCi } from './ci.js';
import { seedGit, type SeededGit } from './git.js';
import { seedHooks, type SeededHooks } from './hooks.js';
import { seedImportExport, type SeededImportExport } from './import_export.js';
import { fixedRate, type MixedRequest } from './mixed.js';
import { seedProjects, type SeededProjects } from './projects.js';
import { ROOT, distIsFresh, freePort, rssOf, startServer, waitForHealth, type RunningServer } from './server.js';

const TOKEN = 'bench-root-token-0123456789abcdef';
const DURATION = Number(process.env.ANVIL_BENCH_DURATION ?? 5);
const WARMUP = Math.max(1, Math.round(DURATION / 2));
const CONNECTIONS = Number(process.env.ANVIL_BENCH_CONNECTIONS ?? 10);
const MIXED_RATE = Number(process.env.ANVIL_BENCH_MIXED_RATE ?? 1000);
// The mixed load measures the server warm: each of its 14 endpoints gets a fourteenth of the rate,
// so its code is compiled later than a single scenario's. On PostgreSQL, after 3 s the server was still cold (p99 about 400 ms, twice the
// garbage collection); after 10 s three windows in a row gave 47 ms.
const MIXED_WARMUP = Number(process.env.ANVIL_BENCH_MIXED_WARMUP ?? 10);
const STARTUP_RUNS = Number(process.env.ANVIL_BENCH_STARTUP_RUNS ?? 5);
const MB = 1e6;

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

/** Issue 14's goal for a scenario: a share of the ceiling's requests/s, or a p99 at 10 connections. */
interface Goal {
  ratio?: number;
  p99?: number;
}

export interface Scenario {
  name: string;
  /** GET path with its query, e.g. `/api/v4/projects?per_page=20`; a function when it depends on the seed. */
  path: string | (() => string);
  /** The token sent (default root's). */
  token?: () => string;
  seed?: (ctx: BenchContext) => Promise<unknown>;
  /** What the ceiling reads for this answer; null when the answer does not come from the database. */
  ceiling: () => CeilingRead | null;
  goal?: Goal;
  /** A page: its row also says what it weighs on the wire, uncompressed and gzipped. */
  weigh?: boolean;
}

// The seeds' results of the database being measured (each seed runs once per server).
let projects: SeededProjects;
let git: SeededGit;
let ci: SeededCi;
let importExport: SeededImportExport;
let hooks: SeededHooks;
const withProjects = async (ctx: BenchContext) => (projects = await seedProjects(ctx));
const withGit = async (ctx: BenchContext) => (git = await seedGit(ctx));
const withCi = async (ctx: BenchContext) => (ci = await seedCi(ctx));
let webDiff: { page: string };
let webFile: { page: string };

/** A public project's commit whose diff is ~400 KB: 40 new files of 175 lines (~10 KB each). */
async function seedWebDiff(ctx: BenchContext) {
  const p = await ctx.api('POST', '/api/v4/projects', { name: 'web-diff', visibility: 'public', initialize_with_readme: true });
  const file = (f: number) => Array.from({ length: 175 }, (_, i) => `export const value_${f}_${i} = ${i} * ${f}; // a line of code\n`).join('');
  const actions = Array.from({ length: 40 }, (_, f) => ({ action: 'create', file_path: `src/module_${f}.ts`, content: file(f) }));
  const c = await ctx.api('POST', `/api/v4/projects/${p.id}/repository/commits`, { branch: 'main', commit_message: 'A large change', actions });
  webDiff = { page: `/${p.path_with_namespace}/-/commit/${c.id}` };
}

/** A public project's source file of 3,000 lines (~160 KB of TypeScript), shown highlighted. */
async function seedWebFile(ctx: BenchContext) {
  const p = await ctx.api('POST', '/api/v4/projects', { name: 'web-file', visibility: 'public', initialize_with_readme: true });
  const content = Array.from({ length: 3000 }, (_, i) => `export function step${i}(input: number): number { return input * ${i} + 1; } // line ${i}\n`).join('');
  await ctx.api('POST', `/api/v4/projects/${p.id}/repository/files/src%2Fbig.ts`, { branch: 'main', commit_message: 'A long file', content });
  webFile = { page: `/${p.path_with_namespace}/-/blob/main/src/big.ts` };
}

const one = (sql: string, ...params: (string | number)[]): CeilingRead => ({ sql, params, rows: 1 });
const twenty = (sql: string, ...params: (string | number)[]): CeilingRead => ({ sql, params, rows: 20 });
const projectById = (id: number) => one('SELECT * FROM projects WHERE id = ?', id);
const NEWEST_FIRST = 'ORDER BY created_at DESC, id DESC LIMIT 20';

export const SCENARIOS: Scenario[] = [
  {
    name: 'GET /user',
    path: '/api/v4/user',
    ceiling: () => one('SELECT u.* FROM personal_access_tokens t JOIN users u ON u.id = t.user_id WHERE t.token_digest = ?', crypto.createHash('sha256').update(TOKEN).digest('hex')),
    goal: { ratio: 0.5 },
  },
  // PROJECTS: 100,000 projects (see bench/projects.ts); latencies must not grow with the table.
  { name: 'GET /projects/:id (100k)', path: () => `/api/v4/projects/${projects.middleId}`, seed: withProjects, ceiling: () => projectById(projects.middleId), goal: { ratio: 0.5 } },
  { name: 'GET /projects (100k, root)', path: '/api/v4/projects?per_page=20', seed: withProjects, ceiling: () => twenty(`SELECT * FROM projects ${NEWEST_FIRST}`), goal: { ratio: 0.3 } },
  {
    name: 'GET /projects (100k, member)',
    path: '/api/v4/projects?per_page=20',
    token: () => projects.memberToken,
    seed: withProjects,
    // The unary + keeps SQLite from answering the OR through two indexes and a sort of every
    // visible project: the minimal plan walks the created_at index and stops after 20 matches.
    ceiling: () =>
      twenty(
        `SELECT * FROM projects WHERE +visibility_level IN (10, 20) OR +id IN (SELECT source_id FROM members WHERE source_type = 'Project' AND user_id = ?) ${NEWEST_FIRST}`,
        projects.memberId,
      ),
    goal: { ratio: 0.3 },
  },
  {
    name: 'GET /projects keyset p1000',
    path: () => `/api/v4/projects?pagination=keyset&order_by=id&sort=asc&per_page=20&id_after=${projects.keysetPage1000After}`,
    seed: withProjects,
    ceiling: () => twenty('SELECT * FROM projects WHERE id > ? ORDER BY id LIMIT 20', projects.keysetPage1000After),
  },
  // GIT: push and clone of 10,000 commits are timed by the seed (bench/git.ts); then the branches
  // list with 5,000 branches. Branches come from the repository, not the database: the ceiling
  // only answers the bytes, and the goal is a p99.
  { name: 'git: GET branches (5k)', path: () => `/api/v4/projects/${git.projectId}/repository/branches?per_page=20`, seed: withGit, ceiling: () => null, goal: { p99: 20 } },
  // CI: a 100-job pipeline's POST and the runner's pace are timed by the seed (bench/ci.ts); then
  // the lists with 1,000,000 jobs in the table.
  {
    name: 'ci: GET jobs (1M)',
    path: () => `/api/v4/projects/${ci.projectId}/jobs?per_page=20`,
    seed: withCi,
    ceiling: () => twenty(`SELECT * FROM ci_jobs WHERE project_id = ? AND type = 'build' ORDER BY id DESC LIMIT 20`, ci.projectId),
    goal: { ratio: 0.3 },
  },
  {
    name: 'ci: GET jobs scope=failed (1M)',
    path: () => `/api/v4/projects/${ci.projectId}/jobs?scope[]=failed&per_page=20`,
    seed: withCi,
    ceiling: () => twenty(`SELECT * FROM ci_jobs WHERE project_id = ? AND type = 'build' AND status = 'failed' ORDER BY id DESC LIMIT 20`, ci.projectId),
  },
  {
    name: 'ci: GET pipelines (1M jobs)',
    path: () => `/api/v4/projects/${ci.projectId}/pipelines?per_page=20`,
    seed: withCi,
    ceiling: () => twenty('SELECT * FROM ci_pipelines WHERE project_id = ? ORDER BY id DESC LIMIT 20', ci.projectId),
  },
  {
    name: 'ci: GET pipeline jobs (1M)',
    path: () => `/api/v4/projects/${ci.projectId}/pipelines/${ci.pipelineId}/jobs?per_page=20`,
    seed: withCi,
    ceiling: () => twenty('SELECT * FROM ci_jobs WHERE pipeline_id = ? ORDER BY id LIMIT 20', ci.pipelineId),
  },
  // EXPORT/IMPORT: the export and the import of 1,000 pipelines, 10,000 jobs and 10,000 commits are
  // timed by the seed (bench/import_export.ts), with the server's peak RSS growth; then the status.
  {
    name: 'export: GET export status',
    path: () => `/api/v4/projects/${importExport.projectId}/export`,
    seed: async (ctx) => (importExport = await seedImportExport(ctx)),
    ceiling: () => projectById(importExport.projectId),
  },
  // HOOKS: 10,000 deliveries to a loopback receiver; their pace and GET /projects/:id's p99 during
  // the burst beside a quiet server's are measured by the seed (bench/hooks.ts).
  {
    name: 'hooks: GET /projects/:id',
    path: () => `/api/v4/projects/${hooks.projectId}`,
    seed: async (ctx) => (hooks = await seedHooks(ctx)),
    ceiling: () => projectById(hooks.projectId),
  },
  // WEB: a commit page whose diff is ~400 KB (anonymous, public project; the page collapses what is past its line budget).
  { name: 'web: commit page, 400 KB diff', path: () => webDiff.page, seed: seedWebDiff, ceiling: () => null, weigh: true },
  // WEB: a 3,000-line file, highlighted (the highlighter keeps what it rendered: the steady state of a file many read).
  { name: 'web: file view, 3,000 lines', path: () => webFile.page, seed: seedWebFile, ceiling: () => null, weigh: true },
];

/**
 * The mixed load: the reference's performance tool (its `k6/tests/api` tests) runs each API test at
 * the same rate; these are its tests in the areas Anvil serves (projects, branches, pipelines,
 * jobs, commits, files), one share each, with its query strings (no per_page: the default 20).
 * Left out: file blame (git blame over the whole history), and commit diff and compare, which the
 * spec (and so Anvil) does not have.
 */
function mixedRequests(): MixedRequest[] {
  const repo = `/api/v4/projects/${encodeURIComponent(git.fullPath)}`; // the tool names projects by path
  const pipelines = `/api/v4/projects/${ci.projectId}/pipelines`;
  const file = encodeURIComponent(git.filePath);
  return [
    { name: 'projects (offset)', path: '/api/v4/projects?pagination=offset&order_by=id&sort=asc&owned=true' },
    { name: 'projects (keyset)', path: '/api/v4/projects?pagination=keyset&order_by=id&sort=asc&owned=true' },
    { name: 'project', path: repo },
    { name: 'branches', path: `${repo}/repository/branches` },
    { name: 'branch', path: `${repo}/repository/branches/main` },
    { name: 'branches search', path: `${repo}/repository/branches?search=branch-0001` },
    { name: 'pipelines', path: pipelines },
    { name: 'pipeline', path: `${pipelines}/${ci.pipelineId}` },
    { name: 'pipeline jobs', path: `${pipelines}/${ci.pipelineId}/jobs` },
    { name: 'commits', path: `${repo}/repository/commits` },
    { name: 'commit', path: `${repo}/repository/commits/${git.head}` },
    { name: 'file', path: `${repo}/repository/files/${file}?ref=main` },
    { name: 'file raw', path: `${repo}/repository/files/${file}/raw?ref=main` },
    { name: 'tree', path: `${repo}/repository/tree` },
  ];
}
const MIXED = `mixed load (${MIXED_RATE} req/s)`;
const STARTUP = 'start-up';

const ONLY = new RegExp(process.env.ANVIL_BENCH_ONLY ?? process.argv[2] ?? '', 'i');
const SELECTED = SCENARIOS.filter((sc) => ONLY.test(sc.name));
const RUN_MIXED = ONLY.test(MIXED);
const RUN_STARTUP = ONLY.test(STARTUP);

const pathOf = (sc: Scenario) => (typeof sc.path === 'function' ? sc.path() : sc.path);
const tokenOf = (sc: Scenario) => sc.token?.() ?? TOKEN;
const say = (s: string) => process.stdout.write(`${s}\n`);
const mb = (b: number | null) => (b === null ? '?' : `${(b / MB).toFixed(0)} MB`);

interface Measured {
  rps: number;
  p50: number;
  p99: number;
}

/** One line of the summary: a throughput row, or a single figure (start-up, RSS). */
interface Row {
  name: string;
  db: string;
  anvil?: Measured;
  ceiling?: Measured & { bytesOnly: boolean };
  figure?: string;
  goal: string;
  met: boolean | null;
  /** Printed after the row, e.g. failed requests. */
  note?: string;
}

async function measure(url: string, headers: Record<string, string>): Promise<Measured> {
  await autocannon({ url, headers, connections: CONNECTIONS, duration: WARMUP });
  const r = await autocannon({ url, headers, connections: CONNECTIONS, duration: DURATION });
  if (r.errors + r.timeouts || r.non2xx) say(`  warning: ${url}: ${r.errors + r.timeouts} errors and ${r.non2xx} non-2xx answers`);
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99 };
}

/** Headers a client sees that are part of the answer (not per connection or per request). */
const KEEP_HEADER = (name: string) => name === 'content-type' || name === 'link' || (name.startsWith('x-') && name !== 'x-request-id');

/** The start-up figure means the bundle (what `npm start` runs): bundle when src/ is newer. */
function ensureBundle(): 'dist' | 'tsx' {
  if (distIsFresh()) return 'dist';
  say('bundling dist/anvil.cjs (src/ changed since) …');
  spawnSync(process.execPath, [path.join(ROOT, 'scripts/bundle.mjs')], { stdio: 'inherit' });
  if (distIsFresh()) return 'dist';
  say('WARNING: dist/anvil.cjs could not be built; measuring through tsx, which starts far slower than `npm start`');
  return 'tsx';
}

async function startup(entry: 'dist' | 'tsx'): Promise<Row> {
  const runs: number[] = [];
  for (let i = 0; i < STARTUP_RUNS; i++) {
    const spawned = process.hrtime.bigint();
    const s = await startServer({ entry, waitForListening: false, env: { ANVIL_ROOT_TOKEN: TOKEN } });
    runs.push(await waitForHealth(s.url, spawned));
    await s.stop();
  }
  runs.sort((a, b) => a - b);
  const median = runs[Math.floor(runs.length / 2)]!;
  say(`start-up (${entry === 'dist' ? 'dist/anvil.cjs' : 'tsx src/main.ts'}, empty SQLite data dir), spawn → first 200 on /-/health: ` +
    `median ${median.toFixed(0)} ms of ${runs.map((ms) => ms.toFixed(0)).join(', ')}`);
  return { name: `${STARTUP} (median of ${STARTUP_RUNS})`, db: 'sqlite', figure: `${median.toFixed(0)} ms`, goal: '≤ 300 ms', met: median <= 300 };
}

async function startBare(fixturesFile: string, target: string): Promise<{ url: string; stop: () => Promise<void> }> {
  const port = await freePort();
  const proc = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench/bare.ts'), fixturesFile, String(port), target], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    proc.stdout!.on('data', (d) => String(d).includes('listening') && resolve());
    proc.on('exit', (code) => reject(new Error(`bare server exited (${code})`)));
  });
  const exited = new Promise((r) => proc.on('exit', r));
  return { url: `http://127.0.0.1:${port}`, stop: async () => (proc.kill('SIGTERM'), void (await exited)) };
}

/**
 * A page's size on the wire: its bytes, and gzipped. When the server compressed its answer (fetch
 * decodes it) that is said; otherwise the gzip figure is zlib's at its default level, what a
 * compressing server would send. autocannon asks without accept-encoding: its times are uncompressed.
 */
function weightOf(body: Buffer, encoding: string | null): string {
  const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
  const by = encoding ? `the server sends ${encoding}` : 'gzip by zlib, the server sent it uncompressed';
  return `HTML ${kb(body.length)}, gzip ${kb(zlib.gzipSync(body).length)} (${by})`;
}

function goalOf(g: Goal | undefined, a: Measured, ceiling: Measured): { goal: string; met: boolean | null } {
  if (g?.ratio !== undefined) return { goal: `ratio ≥ ${g.ratio}`, met: a.rps / ceiling.rps >= g.ratio };
  if (g?.p99 !== undefined) return { goal: `p99 ≤ ${g.p99} ms`, met: a.p99 <= g.p99 };
  return { goal: '', met: null };
}

/** Every selected scenario, the mixed load and the RSS figures on one database. */
async function runOn(db: 'sqlite' | 'postgres', entry: 'dist' | 'tsx'): Promise<Row[]> {
  const pgDb = db === 'postgres' ? await scratchDatabase(process.env.ANVIL_BENCH_DATABASE_URL!, 'anvil_bench') : null;
  let server: RunningServer | null = null;
  let bare: Awaited<ReturnType<typeof startBare>> | null = null;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'anvil-bench-'));
  const rows: Row[] = [];
  try {
    server = await startServer({
      entry,
      dropOutputAfterStart: true,
      env: { ANVIL_ROOT_TOKEN: TOKEN, ANVIL_LOG_LEVEL: process.env.ANVIL_BENCH_LOG_LEVEL ?? 'info', ...(pgDb ? { ANVIL_DATABASE_URL: pgDb.url } : {}) },
    });
    await new Promise((r) => setTimeout(r, 2000));
    const idle = rssOf(server.proc.pid!);
    say(`\n== ${db}: server RSS idle after start ${mb(idle)}`);
    rows.push({ name: 'RSS idle after start', db, figure: mb(idle), goal: '≤ 100 MB', met: idle === null ? null : idle <= 100 * MB });

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

    // Record each scenario's exact answer for the ceiling.
    const fixtures: Fixture[] = [];
    const weights = new Map<string, string>();
    for (const sc of SELECTED) {
      await sc.seed?.(ctx);
      const token = tokenOf(sc);
      const r = await fetch(url + pathOf(sc), { headers: { 'private-token': token } });
      if (r.status !== 200) throw new Error(`${sc.name}: ${r.status} ${await r.text()}`);
      const headers: Record<string, string> = {};
      r.headers.forEach((v, k) => KEEP_HEADER(k) && (headers[k] = v));
      const body = Buffer.from(await r.arrayBuffer());
      fixtures.push({ url: pathOf(sc), token, status: r.status, headers, body: body.toString('base64'), read: sc.ceiling() });
      if (sc.weigh) weights.set(sc.name, weightOf(body, r.headers.get('content-encoding')));
    }

    if (SELECTED.length) {
      const fixturesFile = path.join(tmp, 'fixtures.json');
      fs.writeFileSync(fixturesFile, JSON.stringify(fixtures));
      bare = await startBare(fixturesFile, pgDb?.url ?? path.join(server.dataDir, 'anvil.sqlite3'));
      say(`\n${SELECTED.length} scenario(s) on ${db}, ${CONNECTIONS} connections, ${WARMUP} s warm-up + ${DURATION} s each, ` +
        `${os.cpus().length} CPUs, load average ${os.loadavg()[0].toFixed(1)}`);
      for (const [i, sc] of SELECTED.entries()) {
        const headers = { 'private-token': tokenOf(sc) };
        const a = await measure(url + pathOf(sc), headers);
        const c = await measure(bare.url + pathOf(sc), headers);
        const row: Row = { name: sc.name, db, anvil: a, ceiling: { ...c, bytesOnly: fixtures[i]!.read === null }, ...goalOf(sc.goal, a, c), note: weights.get(sc.name) };
        say(line(row));
        rows.push(row);
      }
    }

    if (RUN_MIXED) {
      await withProjects(ctx);
      await withGit(ctx);
      await withCi(ctx);
      const requests = mixedRequests();
      for (const r of requests) {
        const res = await fetch(url + r.path, { headers: { 'private-token': TOKEN } });
        if (res.status !== 200) throw new Error(`mixed load, ${r.name}: ${r.path} answered ${res.status} ${await res.text()}`);
      }
      await fixedRate(url, TOKEN, requests, MIXED_RATE, MIXED_WARMUP);
      const m = await fixedRate(url, TOKEN, requests, MIXED_RATE, DURATION);
      const slowest = [...m.byName].sort((x, y) => y[1].p99 - x[1].p99).slice(0, 5);
      say(`\n${MIXED} on ${db}, ${requests.length} endpoints in equal shares, ${MIXED_WARMUP} s warm-up + ${DURATION} s: ${m.rps.toFixed(0)} req/s answered, ` +
        `p50 ${m.p50.toFixed(1)} ms, p99 ${m.p99.toFixed(1)} ms, ${m.failed} of ${m.sent} failed or unanswered`);
      say(`  slowest p99: ${slowest.map(([n, s]) => `${n} ${s.p99.toFixed(0)} ms${s.failed ? ` (${s.failed} failed)` : ''}`).join(', ')}`);
      const note = m.failed ? `${m.failed} of ${m.sent} failed or unanswered; the percentiles are of the answered ones` : undefined;
      rows.push({ name: MIXED, db, anvil: { rps: m.rps, p50: m.p50, p99: m.p99 }, goal: 'p99 < 50 ms', met: m.p99 < 50 && m.failed === 0, note });
    }

    const after = rssOf(server.proc.pid!);
    say(`${db}: server RSS after the bench ${mb(after)}`);
    rows.push({ name: 'RSS after the bench', db, figure: mb(after), goal: '≤ 150 MB', met: after === null ? null : after <= 150 * MB });
    return rows;
  } finally {
    await bare?.stop();
    await server?.stop();
    await pgDb?.drop();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

const COLUMNS: [string, number][] = [['scenario', 33], ['db', 9], ['req/s', 8], ['p50 ms', 8], ['p99 ms', 8], ['ceiling', 9], ['ratio', 7], ['goal', 15], ['met', 4]];
const cell = (s: string, i: number) => (i < 2 || i > 6 ? s.padEnd(COLUMNS[i]![1]) : s.padStart(COLUMNS[i]![1] - 1) + ' ');
const n = (x: number | undefined, d: number) => (x === undefined ? '' : x.toFixed(d));

function line(r: Row): string {
  const ratio = r.anvil && r.ceiling ? n(r.anvil.rps / r.ceiling.rps, 2) : '';
  const ceiling = r.ceiling ? `${n(r.ceiling.rps, 0)}${r.ceiling.bytesOnly ? '*' : ''}` : '';
  const values = r.figure !== undefined ? [r.name, r.db, '', r.figure, '', '', ''] : [r.name, r.db, n(r.anvil?.rps, 0), n(r.anvil?.p50, 1), n(r.anvil?.p99, 1), ceiling, ratio];
  return [...values, r.goal, r.met === null ? '' : r.met ? 'yes' : 'NO'].map(cell).join('') + (r.note ? `  (${r.note})` : '');
}

async function main() {
  const entry = ensureBundle();
  const rows: Row[] = [];
  if (RUN_STARTUP) rows.push(await startup(entry));
  const pgUrl = process.env.ANVIL_BENCH_DATABASE_URL;
  const only = process.env.ANVIL_BENCH_DB;
  const dbs = (['sqlite', 'postgres'] as const).filter((db) => (only ? only === db : db === 'sqlite' || pgUrl));
  if (dbs.includes('postgres') && !pgUrl) throw new Error('ANVIL_BENCH_DB=postgres needs ANVIL_BENCH_DATABASE_URL');
  for (const db of dbs) rows.push(...(await runOn(db, entry)));

  // The summary: each scenario's figures on every database side by side, then the single figures.
  const order = [...new Set(rows.map((r) => r.name))];
  say(`\nSummary (${new Date().toISOString()}, ${os.cpus().length} CPUs, load average ${os.loadavg()[0].toFixed(1)}; ` +
    `ceiling = bare Fastify doing the minimal read, * = bytes only; ratio = req/s ÷ ceiling req/s)\n`);
  say(COLUMNS.map(([h], i) => cell(h, i)).join(''));
  for (const name of order) for (const r of rows.filter((x) => x.name === name)) say(line(r));
}

await main();
