// The IMPORT/EXPORT scenario's seed and figures: a project with a 10,000-commit repository
// (ANVIL_BENCH_COMMITS), 1,000 pipelines (ANVIL_BENCH_IE_PIPELINES) and 10,000 jobs
// (ANVIL_BENCH_IE_JOBS_PER_PIPELINE × pipelines). Times the export (POST → finished) and the
// import of its archive (POST → finished), sampling the server's RSS meanwhile: the archive is
// streamed both ways, so the peak growth must stay well under 100 MB whatever the project's size.
// `npm run bench -- export` runs only this scenario.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BenchContext } from './run.js';
import { COMMIT_COUNT, benchProject, buildHistory, waitForIdleQueue } from './git.js';
import { oncePerServer, rssOf } from './server.js';
import { git, gitText } from '../src/git/git.js';
import { openDatabase } from '../src/db/dialect.js';
import { insertFinishedPipelinesBulk } from '../src/db/repos/bulk_ci.js';

const PIPELINES = Number(process.env.ANVIL_BENCH_IE_PIPELINES ?? 1_000);
const JOBS_PER_PIPELINE = Number(process.env.ANVIL_BENCH_IE_JOBS_PER_PIPELINE ?? 10);
const RSS_BUDGET = 100 * 2 ** 20;

export interface SeededImportExport {
  projectId: number;
}

/** Seeds once per server, however many scenarios ask. */
export const seedImportExport = oncePerServer(seed);

const say = (s: string) => process.stdout.write(`${s}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const mib = (b: number) => `${(b / 2 ** 20).toFixed(1)} MiB`;

/** Runs `until` to completion while sampling the server's RSS; the peak growth over the start. */
async function watched<T>(ctx: BenchContext, until: () => Promise<T>): Promise<{ value: T; seconds: number; growth: number }> {
  const base = rssOf(ctx.pid) ?? 0;
  let peak = base;
  let done = false;
  const sampler = (async () => {
    while (!done) {
      peak = Math.max(peak, rssOf(ctx.pid) ?? 0);
      await sleep(25);
    }
  })();
  const t = process.hrtime.bigint();
  try {
    const value = await until();
    return { value, seconds: Number(process.hrtime.bigint() - t) / 1e9, growth: peak - base };
  } finally {
    done = true;
    await sampler;
  }
}

async function poll(ctx: BenchContext, p: string, field: string, ends: string[]): Promise<string> {
  for (let i = 0; i < 12_000; i++) {
    const v = (await ctx.api('GET', p))[field];
    if (ends.includes(v)) return v;
    await sleep(50);
  }
  throw new Error(`${p} did not end within 10 minutes`);
}

async function seed(ctx: BenchContext): Promise<SeededImportExport> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'anvil-bench-ie-'));
  try {
    const { project, remote } = await benchProject(ctx, 'bench-export');
    const local = path.join(tmp, 'local.git');
    await buildHistory(local, COMMIT_COUNT);
    await git(['push', '--quiet', remote.toString(), 'main:refs/heads/main'], { gitDir: local });
    const sha = await gitText(['rev-parse', 'main'], { gitDir: local });
    await waitForIdleQueue(ctx); // the push's follow-up jobs write too (SQLite has one writer)
    const db = await openDatabase({ databaseUrl: ctx.databaseUrl, dataDir: ctx.dataDir });
    try {
      const root = await ctx.api('GET', '/api/v4/user');
      const options = JSON.stringify({ name: 'job', stage: 'test', stageIdx: 0, type: 'build', when: 'on_success', script: ['true'] });
      await insertFinishedPipelinesBulk(db, { projectId: project.id, userId: root.id, sha, pipelines: PIPELINES, jobsPerPipeline: JOBS_PER_PIPELINE, options });
    } finally {
      await db.destroy();
    }

    const exp = await watched(ctx, async () => {
      await ctx.api('POST', `/api/v4/projects/${project.id}/export`, {});
      return poll(ctx, `/api/v4/projects/${project.id}/export`, 'export_status', ['finished']);
    });
    const archive = path.join(tmp, 'export.tar.gz');
    const res = await fetch(`${ctx.url}/api/v4/projects/${project.id}/export/download`, { headers: { 'private-token': ctx.token } });
    if (res.status !== 200) throw new Error(`download: ${res.status}`);
    fs.writeFileSync(archive, Buffer.from(await res.arrayBuffer()));
    const size = fs.statSync(archive).size;

    const imp = await watched(ctx, async () => {
      const form = new FormData();
      form.set('path', 'bench-imported');
      form.set('file', new Blob([fs.readFileSync(archive)]), 'export.tar.gz');
      const r = await fetch(`${ctx.url}/api/v4/projects/import`, { method: 'POST', headers: { 'private-token': ctx.token }, body: form });
      if (r.status !== 201) throw new Error(`import: ${r.status} ${await r.text()}`);
      const id = (await r.json()).id as number;
      return poll(ctx, `/api/v4/projects/${id}/import`, 'import_status', ['finished', 'failed']);
    });
    if (imp.value !== 'finished') throw new Error(`the import ended ${imp.value}`);

    const over = (g: number) => (g > RSS_BUDGET ? ' OVER the 100 MB budget' : '');
    say(`export/import: ${COMMIT_COUNT} commits, ${PIPELINES} pipelines, ${PIPELINES * JOBS_PER_PIPELINE} jobs; archive ${mib(size)}; ` +
      `export ${exp.seconds.toFixed(1)} s (peak RSS growth ${mib(exp.growth)}${over(exp.growth)}); ` +
      `import ${imp.seconds.toFixed(1)} s (peak RSS growth ${mib(imp.growth)}${over(imp.growth)})`);
    return { projectId: project.id };
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}
