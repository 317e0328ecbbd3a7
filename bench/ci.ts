// The CI scenario's seed and figures:
//  1. a project whose .service-ci.yml has 100 trivial jobs (ANVIL_BENCH_CI_JOBS) in 3 stages;
//     the time from `POST /projects/:id/pipeline` to its 201, over several pipelines (timed);
//  2. jobs started per second by the built-in runner (its default concurrency): from the first
//     job's start to the last one's, over all those pipelines' jobs;
//  3. then 1,000,000 finished jobs (ANVIL_BENCH_CI_ROWS) in 10,000 pipelines inserted straight
//     into the database, for the list scenarios (GET …/jobs and GET …/pipelines).
// `npm run bench -- ci` runs only these scenarios.
import type { BenchContext } from './run.js';
import { oncePerServer } from './server.js';
import { openDatabase } from '../src/db/dialect.js';
import { insertFinishedPipelinesBulk } from '../src/db/repos/bulk_ci.js';

export const CI_JOBS = Number(process.env.ANVIL_BENCH_CI_JOBS ?? 100);
export const CI_ROWS = Number(process.env.ANVIL_BENCH_CI_ROWS ?? 1_000_000);
const PIPELINES_TIMED = 5;
const JOBS_PER_SEEDED_PIPELINE = 100;

export interface SeededCi {
  projectId: number;
  /** A pipeline in the middle of the seeded ones. */
  pipelineId: number;
}

/** Seeds once per server, however many scenarios ask. */
export const seedCi = oncePerServer(seed);

const say = (s: string) => process.stdout.write(`${s}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function ciFile(jobs: number): string {
  const stages = ['build', 'test', 'deploy'];
  let yml = `stages: [${stages.join(', ')}]\n`;
  for (let i = 0; i < jobs; i++) yml += `job-${i}:\n  stage: ${stages[i % 3]}\n  script: ["true"]\n`;
  return yml;
}

async function seed(ctx: BenchContext): Promise<SeededCi> {
  const project = await ctx.api('POST', '/api/v4/projects', { name: 'bench-ci', visibility: 'private', initialize_with_readme: true });
  // Committing the CI file creates a push pipeline of its own; wait for it before timing.
  const commit = await ctx.api('POST', `/api/v4/projects/${project.id}/repository/commits`, {
    branch: 'main',
    commit_message: 'Add CI',
    actions: [{ action: 'create', file_path: '.service-ci.yml', content: ciFile(CI_JOBS) }],
  });
  await waitForPipelines(ctx, project.id, 1);
  await waitForIdle(ctx, project.id);

  const createMs: number[] = [];
  const ids: number[] = [];
  for (let i = 0; i < PIPELINES_TIMED; i++) {
    const t = process.hrtime.bigint();
    const p = await ctx.api('POST', `/api/v4/projects/${project.id}/pipeline`, { ref: 'main' });
    createMs.push(Number(process.hrtime.bigint() - t) / 1e6);
    ids.push(p.id);
  }
  const finishedAll = await waitForIdle(ctx, project.id);
  const started = await startedTimes(ctx, ids);
  const span = (started[started.length - 1]! - started[0]!) / 1000;
  const sorted = [...createMs].sort((a, b) => a - b);
  say(
    `ci: POST /pipeline with ${CI_JOBS} jobs → 201 in median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(0)} ms ` +
      `(min ${sorted[0]!.toFixed(0)}, max ${sorted[sorted.length - 1]!.toFixed(0)}, ${PIPELINES_TIMED} pipelines); ` +
      `runner started ${started.length} jobs in ${span.toFixed(1)} s = ${(started.length / Math.max(span, 0.001)).toFixed(1)} jobs/s ` +
      `(${finishedAll ? 'all finished' : 'NOT all finished'})`,
  );

  const t = process.hrtime.bigint();
  const db = await openDatabase({ databaseUrl: ctx.databaseUrl, dataDir: ctx.dataDir });
  try {
    const root = await ctx.api('GET', '/api/v4/user');
    const options = (await db.selectFrom('ci_jobs').select('options').where('project_id', '=', project.id).limit(1).executeTakeFirstOrThrow()).options;
    await insertFinishedPipelinesBulk(db, {
      projectId: project.id,
      userId: root.id,
      sha: commit.id,
      pipelines: Math.ceil(CI_ROWS / JOBS_PER_SEEDED_PIPELINE),
      jobsPerPipeline: JOBS_PER_SEEDED_PIPELINE,
      options,
    });
    const total = await db.selectFrom('ci_jobs').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    const mid = await db.selectFrom('ci_pipelines').select('id').where('project_id', '=', project.id).orderBy('id').offset(Math.floor(CI_ROWS / JOBS_PER_SEEDED_PIPELINE / 2)).limit(1).executeTakeFirstOrThrow();
    say(`ci: seeded ${Number(total.n)} jobs in all in ${(Number(process.hrtime.bigint() - t) / 1e9).toFixed(1)} s`);
    return { projectId: project.id, pipelineId: mid.id };
  } finally {
    await db.destroy();
  }
}

async function waitForPipelines(ctx: BenchContext, projectId: number, count: number): Promise<void> {
  for (let i = 0; i < 600; i++) {
    const list = await ctx.api('GET', `/api/v4/projects/${projectId}/pipelines`);
    if (list.length >= count) return;
    await sleep(100);
  }
  throw new Error('the push pipeline did not appear');
}

/** Waits (up to 10 minutes) until no pipeline of the project is still active. */
async function waitForIdle(ctx: BenchContext, projectId: number): Promise<boolean> {
  for (let i = 0; i < 6000; i++) {
    const active = await ctx.api('GET', `/api/v4/projects/${projectId}/pipelines?scope=running`);
    const pending = await ctx.api('GET', `/api/v4/projects/${projectId}/pipelines?scope=pending`);
    if (active.length === 0 && pending.length === 0) return true;
    await sleep(100);
  }
  return false;
}

/** started_at of every job of these pipelines, ascending (ms since epoch). */
async function startedTimes(ctx: BenchContext, pipelineIds: number[]): Promise<number[]> {
  const db = await openDatabase({ databaseUrl: ctx.databaseUrl, dataDir: ctx.dataDir });
  try {
    const rows = await db.selectFrom('ci_jobs').select('started_at').where('pipeline_id', 'in', pipelineIds).where('started_at', 'is not', null).execute();
    return rows.map((r) => Date.parse(r.started_at!)).sort((a, b) => a - b);
  } finally {
    await db.destroy();
  }
}
