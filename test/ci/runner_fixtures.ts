// Fixtures of the runner and artifacts tests: a project with a commit, pipelines made from a
// hand-built plan through state.createPipelineRecords (the parser has its own tests), a runner
// with test-friendly timings, and waiting on a job.
import fs from 'node:fs';
import { after, before } from 'node:test';
import type { PlannedJob } from '../../src/ci/config/types.js';
import { findCiJob, type JobRow } from '../../src/db/repos/ci_jobs.js';
import { findPipeline, type PipelineRow } from '../../src/db/repos/ci_pipelines.js';
import { findProjectById, type ProjectRow } from '../../src/db/repos/projects.js';
import { CiRunner, type RunnerOptions } from '../../src/domain/ci/runner.js';
import { createPipelineRecords, type PipelineVariableInput } from '../../src/domain/ci/state.js';
import { readTrace } from '../../src/domain/ci/traces.js';
import type { RunningServer } from '../../bench/server.js';
import { buildTestApp, ROOT_TOKEN, TEST_RUNNER_UID, type TestApp, type TestDialect } from '../helpers/build.js';
import { waitFor } from '../helpers/queue.js';
import { commit, makeRepoProject } from '../helpers/repository_content.js';

export const FINISHED = ['success', 'failed', 'canceled', 'skipped'];

export { plannedJob } from '../helpers/ci.js';

export interface RepoProject {
  project: ProjectRow;
  sha: string;
}

/** A project whose main branch has a commit with a file `hello.txt` ("hello from the repo"). */
export async function repoProject(t: TestApp): Promise<RepoProject> {
  const p = await makeRepoProject(t);
  const c = await commit(t, p.id, { actions: [{ action: 'create', file_path: 'hello.txt', content: 'hello from the repo\n' }] });
  return { project: (await findProjectById(t.c.db, p.id))!, sha: c.id };
}

export async function makePipeline(
  t: TestApp,
  rp: RepoProject,
  jobs: PlannedJob[],
  opts: { variables?: PipelineVariableInput[]; globalVariables?: Record<string, string>; ref?: string; userId?: number | null } = {},
): Promise<PipelineRow> {
  return createPipelineRecords(t.c, {
    project: rp.project,
    ref: opts.ref ?? 'main',
    sha: rp.sha,
    beforeSha: '0'.repeat(40),
    tag: false,
    source: 'api',
    userId: opts.userId ?? null,
    commit: null,
    variables: opts.variables ?? [],
    plan: { stages: ['.pre', 'build', 'test', 'deploy', '.post'], variables: opts.globalVariables ?? {}, jobs },
  });
}

/** The pipeline's jobs by name (the first job of each name). */
export async function jobsOf(t: TestApp, pipelineId: number): Promise<Record<string, JobRow>> {
  const rows = await t.c.db.selectFrom('ci_jobs').selectAll().where('pipeline_id', '=', pipelineId).orderBy('id').execute();
  const out: Record<string, JobRow> = {};
  for (const r of rows) out[r.name] ??= r;
  return out;
}

let runnerSeq = 0;

/** A runner with quick polls; each one a runner node of its own (one process, several runners). */
export function testRunner(t: TestApp, opts: RunnerOptions = {}): CiRunner {
  runnerSeq += 1;
  return new CiRunner(t.c, { concurrency: 2, pollMs: 50, flushMs: 100, nodeId: `test-runner-${process.pid}-${runnerSeq}`, ...opts });
}

/**
 * For a describe block: an app with a started test runner, built before its tests and stopped
 * after them. Returns the app's getter (the app exists once the tests run).
 */
export function appWithRunner(dialect: TestDialect, env: Record<string, string> = {}): () => TestApp {
  let t: TestApp | undefined;
  let runner: CiRunner | undefined;
  before(async () => {
    t = await buildTestApp(dialect, env);
    runner = testRunner(t);
    runner.start();
  });
  after(async () => {
    await runner?.stop();
    await t?.close();
  });
  return () => t!;
}

export const waitForJob = (t: TestApp, jobId: number, statuses: string[], timeoutMs = 60_000): Promise<JobRow> =>
  waitFor(`job ${jobId} in ${statuses.join('/')}`, async () => {
    const j = await findCiJob(t.c.db, jobId);
    return j && statuses.includes(j.status) ? j : null;
  }, timeoutMs);

/** The pipeline once its status is final (its last job's processing is done). */
export const waitForPipeline = (t: TestApp, pipelineId: number, timeoutMs = 60_000): Promise<PipelineRow> =>
  waitFor(`pipeline ${pipelineId} finished`, async () => {
    const p = await findPipeline(t.c.db, pipelineId);
    return p && FINISHED.includes(p.status) ? p : null;
  }, timeoutMs);

export async function traceText(t: TestApp, jobId: number): Promise<string | null> {
  const s = await readTrace(t.c, jobId);
  if (!s) return null;
  const parts: Buffer[] = [];
  for await (const b of s) parts.push(b as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

/** True while a process with this pid exists and is not a zombie (a container's init may not reap orphans). */
/** A job's checkout on the host (the sandboxed job sees it as $CI_PROJECT_DIR). */
export const jobDir = (t: TestApp, jobId: number): string => `${t.c.config.dataDir}/ci/builds/${jobId}`;

/** Host pids of this test process's sandboxed job processes (their uids start at TEST_RUNNER_UID). */
export function jobPids(): number[] {
  const out: number[] = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const uid = Number(/^Uid:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${name}/status`, 'utf8'))?.[1]);
      if (uid >= TEST_RUNNER_UID && uid < TEST_RUNNER_UID + 64 && alive(Number(name))) out.push(Number(name));
    } catch {
      /* gone */
    }
  }
  return out;
}

/** Waits until the job has made `file` in its checkout; returns the host pids of the job's processes then. */
export async function startedJobPids(t: TestApp, jobId: number, file = 'started'): Promise<number[]> {
  await waitFor(`${file} in job ${jobId}'s checkout`, () => fs.existsSync(`${jobDir(t, jobId)}/${file}`), 60_000);
  const pids = jobPids();
  if (!pids.length) throw new Error(`job ${jobId} has no process`);
  return pids;
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return !fs.existsSync('/proc/self/stat'); // no /proc: trust kill(0)
  }
}

/** A request to a server process as root: the JSON (or text) body; throws on a status of 300 or more. */
export async function serverApi(s: RunningServer, method: string, url: string, body?: unknown): Promise<any> {
  const r = await fetch(`${s.url}/api/v4${url}`, {
    method,
    headers: { 'private-token': ROOT_TOKEN, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await r.text();
  if (r.status >= 300) throw new Error(`${method} ${url}: ${r.status} ${text}`);
  return r.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text;
}
