// CI test helpers, shared by the pipeline, job and runner tests: a project with a CI file (and any
// other files) committed through the commits API, pipelines created as a client would create
// them, the background push-pipeline jobs run on demand (queue workers are off in tests), and
// waiting for a pipeline or job to reach a status.
import type { PlannedJob } from '../../src/ci/config/types.js';
import { registerBackgroundJobs } from '../../src/domain/background.js';
import { PUSH_PIPELINE_JOB } from '../../src/domain/ci/push_pipelines.js';
import type { Res, TestApp } from './build.js';
import { makeProject } from './projects.js';
import { testQueue, waitFor } from './queue.js';

/** The CI file Anvil reads first. */
export const CI_FILE = '.service-ci.yml';

/** A CI file with one job per stage (build, test), enough for most API tests. */
export const SIMPLE_CI = `stages: [build, test]
build-job:
  stage: build
  script: echo build
test-job:
  stage: test
  script: echo test
`;

let projectSeq = 0;

export interface CiProject {
  /** The project as the create API returned it. */
  project: any;
  id: number;
  /** The commit that holds the files. */
  sha: string;
}

/**
 * Commits files to a branch through the commits API (create or update each, as the file exists or
 * not) and returns the new commit's sha. As root unless a token is given.
 */
export async function putFiles(
  t: TestApp,
  projectId: number,
  files: Record<string, string>,
  opts: { branch?: string; startBranch?: string; message?: string; token?: string } = {},
): Promise<string> {
  const token = opts.token ?? t.rootToken;
  const branch = opts.branch ?? 'main';
  const lookupRef = opts.startBranch ?? branch;
  const actions = [];
  for (const [filePath, content] of Object.entries(files)) {
    const r = await t.request('GET', `/api/v4/projects/${projectId}/repository/files/${encodeURIComponent(filePath)}?ref=${encodeURIComponent(lookupRef)}`, { token });
    actions.push({ action: r.status === 200 ? 'update' : 'create', file_path: filePath, content });
  }
  const body: Record<string, unknown> = { branch, commit_message: opts.message ?? 'ci files', actions };
  if (opts.startBranch) body.start_branch = opts.startBranch;
  const r = await t.request('POST', `/api/v4/projects/${projectId}/repository/commits`, { token, body });
  if (r.status !== 201) throw new Error(`commit failed: ${r.status} ${r.text}`);
  return r.body.id as string;
}

/**
 * A project with a README and then `files` committed on main (a string is the CI file's text).
 * `body` adds project attributes (visibility, public_jobs, ci_config_path, namespace_id…).
 */
export async function makeCiProject(
  t: TestApp,
  files: Record<string, string> | string = SIMPLE_CI,
  opts: { token?: string; body?: Record<string, unknown> } = {},
): Promise<CiProject> {
  projectSeq += 1;
  const token = opts.token ?? t.rootToken;
  const project = await makeProject(t, token, {
    name: `ci${projectSeq}${Math.random().toString(36).slice(2, 7)}`,
    initialize_with_readme: true,
    ...opts.body,
  });
  const sha = await putFiles(t, project.id, typeof files === 'string' ? { [CI_FILE]: files } : files, { token });
  return { project, id: project.id, sha };
}

/** POST /projects/:id/pipeline as the token's user (root by default). */
export function createPipeline(
  t: TestApp,
  projectId: number | string,
  ref = 'main',
  opts: { token?: string | null; variables?: unknown[] } = {},
): Promise<Res> {
  const body: Record<string, unknown> = { ref };
  if (opts.variables) body.variables = opts.variables;
  return t.request('POST', `/api/v4/projects/${encodeURIComponent(String(projectId))}/pipeline`, { token: opts.token === undefined ? t.rootToken : opts.token, body });
}

/** Creates a pipeline and fails loudly unless it was created (201); returns its body. */
export async function createPipelineOk(t: TestApp, projectId: number, ref = 'main', opts: { token?: string; variables?: unknown[] } = {}): Promise<any> {
  const r = await createPipeline(t, projectId, ref, opts);
  if (r.status !== 201) throw new Error(`pipeline create failed: ${r.status} ${r.text}`);
  return r.body;
}

/**
 * Runs the queued push-pipeline jobs (what a node's queue workers would do after a push or a
 * commit through the API), then stops. Pipelines of earlier pushes appear once this resolves.
 */
export async function runPushPipelineJobs(t: TestApp, timeoutMs = 20_000): Promise<void> {
  const queue = testQueue(t.c.db);
  registerBackgroundJobs({ ...t.c, queue }, [PUSH_PIPELINE_JOB]);
  queue.start();
  try {
    await waitFor(
      'push pipeline jobs to finish',
      async () => {
        const left = await t.c.db
          .selectFrom('background_jobs')
          .select(['id', 'state', 'last_error'])
          .where('kind', '=', PUSH_PIPELINE_JOB)
          .where('state', 'in', ['queued', 'running'])
          .execute();
        return left.length === 0;
      },
      timeoutMs,
    );
  } finally {
    await queue.stop();
  }
  const dead = await t.c.db.selectFrom('background_jobs').select(['last_error']).where('kind', '=', PUSH_PIPELINE_JOB).where('state', '=', 'dead').execute();
  if (dead.length) throw new Error(`push pipeline job failed: ${dead[0]!.last_error}`);
}

/** The project's pipelines through the API (newest first), as root unless told otherwise. */
export async function listPipelines(t: TestApp, projectId: number, query = '', token?: string | null): Promise<any[]> {
  const r = await t.request('GET', `/api/v4/projects/${projectId}/pipelines${query ? `?${query}` : ''}`, { token: token === undefined ? t.rootToken : token });
  if (r.status !== 200) throw new Error(`pipeline list failed: ${r.status} ${r.text}`);
  return r.body;
}

const asList = (s: string | string[]) => (Array.isArray(s) ? s : [s]);

/** Polls GET …/pipelines/:id until its status is one of `statuses`; returns the pipeline. */
export async function waitForPipeline(t: TestApp, projectId: number, pipelineId: number, statuses: string | string[], timeoutMs = 30_000): Promise<any> {
  const want = asList(statuses);
  let last: any = null;
  try {
    return await waitFor(
      `pipeline ${pipelineId} to be ${want.join('|')}`,
      async () => {
        const r = await t.request('GET', `/api/v4/projects/${projectId}/pipelines/${pipelineId}`);
        last = r.body;
        return r.status === 200 && want.includes(r.body.status) ? r.body : null;
      },
      timeoutMs,
    );
  } catch (e) {
    throw new Error(`${(e as Error).message}; last seen ${JSON.stringify(last?.status)}`);
  }
}

/** Polls GET …/jobs/:id until its status is one of `statuses`; returns the job. */
export async function waitForJob(t: TestApp, projectId: number, jobId: number, statuses: string | string[], timeoutMs = 30_000): Promise<any> {
  const want = asList(statuses);
  return waitFor(
    `job ${jobId} to be ${want.join('|')}`,
    async () => {
      const r = await t.request('GET', `/api/v4/projects/${projectId}/jobs/${jobId}`);
      return r.status === 200 && want.includes(r.body.status) ? r.body : null;
    },
    timeoutMs,
  );
}

/** A pipeline's current jobs straight from the database (id order), for tests that do not test the jobs API. */
export async function jobRows(t: TestApp, pipelineId: number, opts: { includeRetried?: boolean } = {}) {
  let q = t.c.db.selectFrom('ci_jobs').selectAll().where('pipeline_id', '=', pipelineId);
  if (!opts.includeRetried) q = q.where('retried', '=', 0);
  return q.orderBy('id').execute();
}

/** A pipeline row straight from the database. */
export const pipelineRow = (t: TestApp, pipelineId: number) =>
  t.c.db.selectFrom('ci_pipelines').selectAll().where('id', '=', pipelineId).executeTakeFirst();

/** Pipelines of a project straight from the database, child pipelines included (id order). */
export const pipelineRows = (t: TestApp, projectId: number) =>
  t.c.db.selectFrom('ci_pipelines').selectAll().where('project_id', '=', projectId).orderBy('id').execute();

/** A planned job (stage `test` of .pre/build/test/deploy/.post) with every keyword at its default; `o` overrides. */
export function plannedJob(name: string, o: Partial<PlannedJob> = {}): PlannedJob {
  return {
    name,
    stage: 'test',
    stageIdx: 2,
    type: 'build',
    when: 'on_success',
    startIn: null,
    allowFailure: false,
    allowFailureExitCodes: null,
    beforeScript: [],
    script: ['true'],
    afterScript: [],
    image: null,
    variables: {},
    needs: null,
    dependencies: null,
    artifacts: null,
    coverage: null,
    retry: { max: 0, when: [] },
    timeout: null,
    tags: [],
    environment: null,
    interruptible: false,
    trigger: null,
    ...o,
  };
}

/** A child pipeline's CI file with one job (for `trigger: include: child.yml`). */
export const CHILD_CI = `child-job:
  script: echo "in the child"
`;

/** A junit report with one passing and one failing case (suite `math`). */
export const JUNIT_REPORT = `<?xml version="1.0"?>
<testsuites>
  <testsuite name="math" tests="2">
    <testcase classname="math" name="adds" time="0.25"/>
    <testcase classname="math" name="divides" time="0.5"><failure message="boom">expected 2</failure></testcase>
  </testsuite>
</testsuites>
`;
