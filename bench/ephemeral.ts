// `npm run bench:ephemeral`: Anvil as a test double. Measures, on the build (dist/anvil.cjs):
// - `serve --ephemeral` start-up, spawn → the ready JSON line on stdout (median of ANVIL_BENCH_STARTUP_RUNS, default 7);
// - eight ephemeral servers started at once: when the last is ready, and each one's RSS;
// - seeding 10 users, 5 groups and 20 projects with small repositories (`serve --seed`), and a reset of that seed;
// - with ANVIL_BENCH_DATABASE_URL, the same seed's reset in test mode on PostgreSQL (a scratch database beside that URL).
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { ROOT, rssOf, startServer } from './server.js';
import { scratchDatabase } from '../test/helpers/postgres.js';

const RUNS = Number(process.env.ANVIL_BENCH_STARTUP_RUNS ?? 7);
const ANVIL = path.join(ROOT, 'dist/anvil.cjs');

interface Ready {
  url: string;
  token: string;
  pid: number;
  data_dir: string;
}

/** Starts `anvil serve --ephemeral …`; resolves with its ready line and the ms it took. */
export function startEphemeral(args: string[] = []): Promise<{ ready: Ready; ms: number; proc: ChildProcess }> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('ANVIL_')));
  const started = performance.now();
  const proc = spawn(ANVIL, ['serve', '--ephemeral', ...args], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    readline.createInterface({ input: proc.stdout! }).once('line', (line) => resolve({ ready: JSON.parse(line), ms: performance.now() - started, proc }));
    proc.once('exit', (code) => reject(new Error(`anvil exited with ${code} before it was ready`)));
  });
}

const stop = (proc: ChildProcess) => new Promise<void>((resolve) => (proc.kill('SIGTERM'), proc.once('exit', () => resolve())));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function seedFile(): string {
  const seed = {
    users: Array.from({ length: 10 }, (_, i) => ({ username: `user${i}`, password: `Password-${i}-2026!`, tokens: [{ name: 't', token: `user${i}-token-00000000000000`, scopes: ['api'] }] })),
    groups: Array.from({ length: 5 }, (_, i) => ({ path: `group${i}`, visibility: 'internal', members: [{ user: `user${i}`, access_level: 40 }, { user: `user${i + 5}`, access_level: 30 }] })),
    projects: Array.from({ length: 20 }, (_, i) => ({
      path: `group${i % 5}/project${i}`,
      visibility: i % 2 ? 'private' : 'internal',
      files: { 'README.md': `# project ${i}\n`, 'src/main.txt': 'hello\n', '.service-ci.yml': 'test:\n  script: [echo hi]\n' },
      branches: ['develop'],
      tags: [{ name: 'v1.0.0' }],
      protected_branches: [{ name: 'main', push_access_level: 40 }],
    })),
  };
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'anvil-bench-seed-')), 'seed.json');
  fs.writeFileSync(file, JSON.stringify(seed));
  return file;
}

async function main(): Promise<void> {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const s = await startEphemeral();
    times.push(s.ms);
    await stop(s.proc);
  }
  console.log(`serve --ephemeral, spawn → ready line: median ${median(times).toFixed(0)} ms of ${RUNS} (${times.map((t) => t.toFixed(0)).join(', ')})`);

  const t0 = performance.now();
  const eight = await Promise.all(Array.from({ length: 8 }, () => startEphemeral()));
  const all = performance.now() - t0;
  const rss = eight.map((s) => (rssOf(s.ready.pid) ?? 0) / 1e6);
  console.log(`8 at once: all ready after ${all.toFixed(0)} ms; RSS each ${rss.map((r) => r.toFixed(0)).join(', ')} MB`);
  await Promise.all(eight.map((s) => stop(s.proc)));

  const file = seedFile();
  const bare = await startEphemeral();
  await stop(bare.proc);
  const seeded = await startEphemeral(['--seed', file]);
  console.log(`serve --ephemeral --seed (10 users, 5 groups, 20 projects with files, a branch and a tag each): ready after ${seeded.ms.toFixed(0)} ms (${(seeded.ms - bare.ms).toFixed(0)} ms more than without the seed)`);
  const resets = await timeResets(seeded.ready.url, seeded.ready.token);
  console.log(`POST /-/test/reset of that seed: median ${median(resets).toFixed(0)} ms (${resets.map((t) => t.toFixed(0)).join(', ')}); RSS ${((rssOf(seeded.ready.pid) ?? 0) / 1e6).toFixed(0)} MB`);
  await stop(seeded.proc);

  const pgUrl = process.env.ANVIL_BENCH_DATABASE_URL;
  if (pgUrl) {
    const db = await scratchDatabase(pgUrl, 'anvil_bench_reset');
    const token = 'bench-root-token-0000000000';
    const s = await startServer({
      entry: 'dist',
      serveArgs: ['--seed', file],
      env: { ANVIL_TEST_MODE: 'true', ANVIL_DATABASE_URL: db.url, ANVIL_ROOT_TOKEN: token },
    });
    try {
      const pgResets = await timeResets(s.url, token);
      console.log(`the same on PostgreSQL (test mode): reset median ${median(pgResets).toFixed(0)} ms (${pgResets.map((t) => t.toFixed(0)).join(', ')})`);
    } finally {
      await s.stop();
      await db.drop();
    }
  }
  fs.rmSync(path.dirname(file), { recursive: true, force: true });
}

/** Five resets back to back; each one's milliseconds. */
async function timeResets(url: string, token: string): Promise<number[]> {
  const resets: number[] = [];
  for (let i = 0; i < 5; i++) {
    const r0 = performance.now();
    const res = await fetch(`${url}/-/test/reset`, { method: 'POST', headers: { 'private-token': token } });
    if (res.status !== 204) throw new Error(`reset answered ${res.status}`);
    resets.push(performance.now() - r0);
  }
  return resets;
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
