// The jobs API: lists (a project's jobs, a pipeline's jobs and bridges), one job, its log, and
// the actions cancel, retry, erase and play; plus what a running job's own token may read
// (GET /job, /job/allowed_agents). Statuses change only through state.ts.
import { Readable } from 'node:stream';
import { JOB_STATUSES } from '../../ci/status.js';
import type { ByteRange } from '../../storage/blob.js';
import type { Container } from '../context.js';
import { runnersByIds, type RunnerRow } from '../../db/repos/runners.js';
import { findProjectJob, findCiJob, updateJob, type JobRow } from '../../db/repos/ci_jobs.js';
import { pagePipelinePlans, pageProjectJobs, pagePipelineJobs, usersByIds, type JobPlanRow, type ListedJob } from '../../db/repos/ci_job_lists.js';
import { findPipeline, findProjectPipeline, pipelinesByIds, type PipelineRow } from '../../db/repos/ci_pipelines.js';
import { findProjectById, findProjectsByIds, type ProjectRow } from '../../db/repos/projects.js';
import { traceTimesFrom } from '../../db/repos/ci_traces.js';
import type { UserRow } from '../../db/repos/users.js';
import type { Actor } from '../auth/actor.js';
import { forbidden, notFound, recordNotFound, validation } from '../errors.js';
import { view as projectView, type ProjectView } from '../projects/service.js';
import { findProject } from '../projects/find.js';
import { getSettings } from '../settings/service.js';
import { durationSeconds } from '../../shared/duration.js';
import { mapPage, type PageRequest, type PageResult } from '../../shared/page.js';
import { nowIso } from '../../shared/time.js';
import type { UserView } from '../users/service.js';
import { canReadProfile } from '../users/policy.js';
import { artifactsOfJobs, eraseJobArtifacts, type ArtifactRow } from './artifacts.js';
import { canEraseJob, canReadTrace, canUpdateRef, ciAccess, requireCiRead, requireCiWrite, type CiAccess } from './policy.js';
import { cancelJob, jobPlan, playJob, retryJob } from './state.js';
import { readTrace } from './traces.js';
import { now as clockNow } from '../../shared/clock.js';
import { isDebugJob } from './variables.js';

/** A job with what its Job (or Bridge) shape shows, loaded in a few queries per page. */
export interface JobView {
  job: ListedJob;
  pipeline: PipelineRow;
  /** The job's project (web_url). */
  project: ProjectRow;
  user: UserView | null;
  artifacts: ArtifactRow[];
  /** Bridges: the pipeline they triggered (its project may be another one), or null. */
  downstream: { pipeline: PipelineRow; project: ProjectRow } | null;
  /** The runner that took the job (the built-in one is row 1), or null. */
  runner: RunnerRow | null;
}

/** The values `scope` takes: every job status (the reference's CommitStatus::AVAILABLE_STATUSES). */
export const JOB_SCOPE_VALUES: readonly string[] = JOB_STATUSES;

/** The reference's RecordNotFound answer for a job or pipeline id that is not the project's. */

/** `scope` as given (string or array, already checked against the statuses); empty = all. */
const statusesOf = (scope: readonly string[] | undefined): readonly string[] | null => (scope && scope.length ? scope : null);

const userView = (actor: Actor | null, user: UserRow): UserView => ({
  user,
  form: 'profile',
  profileVisible: canReadProfile(actor, user),
  viewerSignedIn: actor !== null,
  highestRole: 0,
});

/**
 * Views of jobs of one project: pipelines, users, artifacts and downstream pipelines in one query
 * each. `known`: pipelines already read (a pipeline's own job list), not read again.
 */
export async function jobViews(c: Container, actor: Actor | null, project: ProjectRow, jobs: ListedJob[], known: PipelineRow[] = []): Promise<JobView[]> {
  if (jobs.length === 0) return [];
  const uniq = (xs: (number | null)[]) => [...new Set(xs.filter((x): x is number => x !== null))];
  const downstreamIds = uniq(jobs.map((j) => (j.type === 'bridge' ? j.downstream_pipeline_id : null)));
  const knownIds = new Set(known.map((p) => p.id));
  const [read, users, artifacts, downstreams, runners] = await Promise.all([
    pipelinesByIds(c.db, uniq(jobs.map((j) => (knownIds.has(j.pipeline_id) ? null : j.pipeline_id)))),
    usersByIds(c.db, uniq(jobs.map((j) => j.user_id))),
    artifactsOfJobs(c, jobs.map((j) => j.id)),
    pipelinesByIds(c.db, downstreamIds),
    runnersByIds(c.db, uniq(jobs.map((j) => j.runner_id))),
  ]);
  const runnerById = new Map(runners.map((r) => [r.id, r]));
  const otherProjectIds = uniq(downstreams.map((p) => (p.project_id === project.id ? null : p.project_id)));
  const projects = new Map<number, ProjectRow>([[project.id, project]]);
  for (const p of await findProjectsByIds(c.db, otherProjectIds)) projects.set(p.id, p);
  const pipelineById = new Map([...known, ...read].map((p) => [p.id, p]));
  const userById = new Map(users.map((u) => [u.id, u]));
  const downstreamById = new Map(downstreams.map((p) => [p.id, p]));
  return jobs.map((job) => {
    const user = job.user_id === null ? undefined : userById.get(job.user_id);
    const down = job.type === 'bridge' && job.downstream_pipeline_id !== null ? downstreamById.get(job.downstream_pipeline_id) : undefined;
    const downProject = down ? projects.get(down.project_id) : undefined;
    return {
      job,
      pipeline: pipelineById.get(job.pipeline_id)!,
      project,
      user: user ? userView(actor, user) : null,
      artifacts: artifacts.get(job.id) ?? [],
      downstream: down && downProject ? { pipeline: down, project: downProject } : null,
      runner: job.runner_id === null ? null : (runnerById.get(job.runner_id) ?? null),
    };
  });
}

async function viewPage(
  c: Container, actor: Actor | null, project: ProjectRow, page: PageResult<ListedJob>, known: PipelineRow[] = [],
): Promise<PageResult<JobView>> {
  return { ...page, items: await jobViews(c, actor, project, page.items, known) };
}

const oneView = async (c: Container, actor: Actor | null, project: ProjectRow, job: JobRow): Promise<JobView> =>
  (await jobViews(c, actor, project, [job]))[0];

// ---- lists ----

/** GET /projects/:id/jobs: the project's builds (retried ones too), newest first. */
export async function listProjectJobs(
  c: Container,
  actor: Actor | null,
  idOrPath: number | string,
  scope: readonly string[] | undefined,
  page: PageRequest,
): Promise<PageResult<JobView>> {
  const found = await findProject(c, actor, idOrPath);
  const row = found.row;
  await requireCiRead(c, actor, found);
  const jobs = await pageProjectJobs(c.db, row.id, { type: 'build', statuses: statusesOf(scope), includeRetried: true }, page);
  return viewPage(c, actor, row, jobs);
}

const NO_JOBS: PageResult<never> = { items: [], total: 0, hasNext: false };

async function projectPipeline(c: Container, project: ProjectRow, pipelineId: number): Promise<PipelineRow> {
  const p = await findProjectPipeline(c.db, project.id, pipelineId);
  if (!p) throw recordNotFound();
  return p;
}

/**
 * GET /projects/:id/pipelines/:pipeline_id/jobs: the builds of that pipeline only (any pipeline of
 * the project, a child pipeline too; a parent does not list its children's builds, as the
 * reference), newest first, without retried ones unless asked. A caller
 * who may see pipelines but not jobs gets an empty list, as the reference's finder answers.
 */
export async function listPipelineJobs(
  c: Container,
  actor: Actor | null,
  idOrPath: number | string,
  pipelineId: number,
  opts: { scope?: readonly string[]; includeRetried: boolean },
  page: PageRequest,
): Promise<PageResult<JobView>> {
  const { row, pipeline, read } = await pipelineJobsAccess(c, actor, idOrPath, pipelineId);
  if (!read) return NO_JOBS;
  const filter = { type: 'build' as const, statuses: statusesOf(opts.scope), includeRetried: opts.includeRetried };
  return viewPage(c, actor, row, await pagePipelineJobs(c.db, [pipeline.id], filter, page), [pipeline]);
}

/**
 * Who may list a pipeline's jobs (the reference's jobs finder): 404 'Project' for a project the
 * actor cannot see, 403 without read_pipeline, the pipeline's 404 for an id that is not the
 * project's; `read` false (read_pipeline without read_build) lists nothing.
 */
async function pipelineJobsAccess(
  c: Container, actor: Actor | null, idOrPath: number | string, pipelineId: number,
): Promise<{ row: ProjectRow; pipeline: PipelineRow; read: boolean }> {
  const found = await findProject(c, actor, idOrPath);
  const a = await ciAccess(c, actor, found);
  if (!a.visible) throw notFound('Project');
  if (!a.readPipelines) throw forbidden();
  const pipeline = await projectPipeline(c, found.row, pipelineId);
  return { row: found.row, pipeline, read: a.read };
}

/** A job or bridge of a pipeline and the names of the jobs it needs. */
export interface JobNeeds {
  id: number;
  name: string;
  /** null: the job waits for the stages before its own (no `needs:`); [] (`needs: []`): it starts at once. */
  needs: string[] | null;
}

/**
 * The jobs a job needs, by name, as its stored plan has them (parallel jobs expanded, optional
 * needs of jobs that are not in the pipeline dropped); null when it keeps stage order. A plan that
 * does not say (a row written by an older importer, a seeding script) keeps stage order.
 */
export function neededJobNames(row: Pick<JobRow, 'options'>): string[] | null {
  let needs: unknown;
  try {
    needs = jobPlan(row).needs;
  } catch {
    return null;
  }
  if (!Array.isArray(needs)) return null;
  return needs.map((n: unknown) => (n && typeof n === 'object' ? (n as { job?: unknown }).job : null)).filter((n): n is string => typeof n === 'string');
}

const jobNeeds = (row: JobPlanRow): JobNeeds => ({ id: row.id, name: row.name, needs: neededJobNames(row) });

/**
 * GET /projects/:id/pipelines/:pipeline_id/needs (an Anvil extension: the reference has no REST
 * answer with needs; its pipeline page reads them from a web-only JSON): the pipeline's current
 * jobs and bridges with the names of the jobs each needs, newest first. Who may call it and what
 * they get are those of the pipeline's jobs list (pipelineJobsAccess).
 */
export async function listPipelineNeeds(
  c: Container,
  actor: Actor | null,
  idOrPath: number | string,
  pipelineId: number,
  page: PageRequest,
): Promise<PageResult<JobNeeds>> {
  const { pipeline, read } = await pipelineJobsAccess(c, actor, idOrPath, pipelineId);
  if (!read) return NO_JOBS;
  return mapPage(await pagePipelinePlans(c.db, pipeline.id, page), jobNeeds);
}

/** GET /projects/:id/pipelines/:pipeline_id/bridges: the pipeline's trigger jobs, newest first. */
export async function listPipelineBridges(
  c: Container,
  actor: Actor | null,
  idOrPath: number | string,
  pipelineId: number,
  scope: readonly string[] | undefined,
  page: PageRequest,
): Promise<PageResult<JobView>> {
  const found = await findProject(c, actor, idOrPath);
  const row = found.row;
  const a = await requireCiRead(c, actor, found);
  if (!a.readPipelines) throw forbidden();
  const pipeline = await projectPipeline(c, row, pipelineId);
  const filter = { type: 'bridge' as const, statuses: statusesOf(scope), includeRetried: false };
  return viewPage(c, actor, row, await pagePipelineJobs(c.db, [pipeline.id], filter, page), [pipeline]);
}

// ---- one job ----

/** A build of the project (bridges are not jobs here, as the reference's `find_build!`), else 404. */
async function projectBuild(c: Container, project: ProjectRow, jobId: number): Promise<JobRow> {
  const job = await findProjectJob(c.db, project.id, jobId);
  if (!job || job.type !== 'build') throw recordNotFound();
  return job;
}

export async function getJob(c: Container, actor: Actor | null, idOrPath: number | string, jobId: number): Promise<JobView> {
  const found = await findProject(c, actor, idOrPath);
  const row = found.row;
  await requireCiRead(c, actor, found);
  return oneView(c, actor, row, await projectBuild(c, row, jobId));
}

/** A trigger job of the project by id, for those who may read its pipelines (the API lists bridges only by pipeline; the web's bridge page finds one by its id). */
export async function getBridge(c: Container, actor: Actor | null, idOrPath: number | string, jobId: number): Promise<JobView> {
  const found = await findProject(c, actor, idOrPath);
  const row = found.row;
  const a = await requireCiRead(c, actor, found);
  if (!a.readPipelines) throw forbidden();
  const job = await findProjectJob(c.db, row.id, jobId);
  if (!job || job.type !== 'bridge') throw recordNotFound();
  return oneView(c, actor, row, job);
}

/** A build whose log the actor may read (403 for a debug job's log without the right). */
async function traceReadableJob(c: Container, actor: Actor | null, idOrPath: number | string, jobId: number): Promise<JobRow> {
  const found = await findProject(c, actor, idOrPath);
  const row = found.row;
  const a = await requireCiRead(c, actor, found);
  const job = await projectBuild(c, row, jobId);
  const pipeline = (await findPipeline(c.db, job.pipeline_id))!;
  if (!canReadTrace(a, await isDebugJob(c, row, pipeline, job))) throw forbidden();
  return job;
}

/** The job's log as text: what there is so far while it runs (maybe nothing yet). 404 when the job or its log is missing. */
export async function jobTrace(c: Container, actor: Actor | null, idOrPath: number | string, jobId: number): Promise<{ jobId: number; stream: Readable }> {
  const job = await traceReadableJob(c, actor, idOrPath, jobId);
  const stream = await readTrace(c, job.id);
  if (stream) return { jobId: job.id, stream };
  // A running job has a log, empty until the runner's first flush: 200 with nothing yet (as the
  // reference's `trace.raw || ''`), so a client tailing a job that just started gets no error.
  if (job.status === 'running') return { jobId: job.id, stream: Readable.from([]) };
  throw notFound();
}

/**
 * When each piece of the job's log from byte `from` on was stored, in order: the web log's time
 * for lines without one of their own. Empty for a log stored before Anvil kept these times.
 */
export async function jobTraceTimes(
  c: Container, actor: Actor | null, idOrPath: number | string, jobId: number, from: number,
): Promise<{ offset: number; created_at: string }[]> {
  const job = await traceReadableJob(c, actor, idOrPath, jobId);
  return (await traceTimesFrom(c.db, job.id, from)).map((r) => ({ offset: r.byte_offset, created_at: r.created_at }));
}

/**
 * The job's artifacts archive (the reference's GET …/jobs/:job_id/artifacts): read access to the
 * project's jobs, as for the log; 404 when the job has no archive (none kept, expired, erased).
 */
export async function jobArtifactsArchive(
  c: Container, actor: Actor | null, idOrPath: number | string, jobId: number,
): Promise<{ size: number; filename: string; open(range?: ByteRange): Promise<Readable> }> {
  const found = await findProject(c, actor, idOrPath);
  await requireCiRead(c, actor, found);
  const job = await projectBuild(c, found.row, jobId);
  const archive = (await artifactsOfJobs(c, [job.id])).get(job.id)?.find((a) => a.file_type === 'archive');
  if (!archive || !(await c.storage.stat(archive.blob_key))) throw notFound();
  return {
    size: archive.size,
    filename: archive.filename,
    async open(range) {
      const stream = await c.storage.get(archive.blob_key, range);
      if (!stream) throw notFound(); // erased since the check above
      return stream;
    },
  };
}

// ---- actions ----

/**
 * A job older than the instance's archive_builds_in_human_readable is archived: it can no longer
 * be retried, played, canceled or erased (the reference's Ci::Build#archived?).
 */
export async function isJobArchived(c: Container, job: JobRow): Promise<boolean> {
  const setting = (await getSettings(c)).archive_builds_in_human_readable;
  const secs = setting ? durationSeconds(setting) : null; // unset, blank or zero: never archived
  return secs !== null && Date.parse(job.created_at) < clockNow() - secs * 1000;
}

/**
 * update_build on one job (the reference's BuildPolicy): developer access to the project (checked
 * first, before the job is looked up), the job's ref not protected against the actor, and the
 * job not archived.
 */
async function requireJobUpdate(c: Container, actor: Actor, project: ProjectRow, a: CiAccess, job: JobRow): Promise<void> {
  if (!(await canUpdateRef(c, actor, project, a, job.ref, job.tag === 1))) throw forbidden();
  if (await isJobArchived(c, job)) throw forbidden();
}

async function writableProject(c: Container, actor: Actor | null, idOrPath: number | string): Promise<{ row: ProjectRow; a: CiAccess }> {
  const found = await findProject(c, actor, idOrPath);
  const row = found.row;
  return { row, a: await requireCiWrite(c, actor, found) };
}

/** POST …/cancel: stops the job if it has not finished; a finished one is returned as it is. */
export async function cancelProjectJob(c: Container, actor: Actor, idOrPath: number | string, jobId: number): Promise<JobView> {
  const { row, a } = await writableProject(c, actor, idOrPath);
  const job = await projectBuild(c, row, jobId);
  await requireJobUpdate(c, actor, row, a, job);
  const after = (await cancelJob(c, job.id)) ?? job;
  return oneView(c, actor, row, after);
}

/** POST …/retry: a NEW job (new id) takes the finished job's place. 403 when it cannot be retried. */
export async function retryProjectJob(c: Container, actor: Actor, idOrPath: number | string, jobId: number): Promise<JobView> {
  const { row, a } = await writableProject(c, actor, idOrPath);
  const job = await projectBuild(c, row, jobId);
  await requireJobUpdate(c, actor, row, a, job);
  return oneView(c, actor, row, await retryJob(c, actor, job.id));
}

/**
 * POST …/erase: removes the job's artifacts and log and records who erased it. Developers erase
 * their own jobs, maintainers anyone's (erase_build); only a finished job is erasable.
 */
export async function eraseProjectJob(c: Container, actor: Actor, idOrPath: number | string, jobId: number): Promise<JobView> {
  const { row, a } = await writableProject(c, actor, idOrPath);
  const job = await projectBuild(c, row, jobId);
  await requireJobUpdate(c, actor, row, a, job);
  if (!canEraseJob(a, actor, job.user_id)) throw forbidden();
  // A job that has not finished, or was erased already, is not erasable (the reference's
  // Ci::Build#erasable? wants it complete and with something left); a finished one is, even with
  // nothing stored (canceled while pending).
  if (!['success', 'failed', 'canceled', 'skipped'].includes(job.status) || job.erased_at !== null) throw forbidden('Job is not erasable!');
  await eraseJobArtifacts(c, job.id);
  const now = nowIso();
  const erased = await updateJob(c.db, job.id, { erased_at: now, erased_by_id: actor.user.id, artifacts_expire_at: null, updated_at: now });
  return oneView(c, actor, row, erased ?? job);
}

const VARIABLE_KEY = /^[a-zA-Z0-9_]+$/;

/**
 * POST …/play: starts a manual job (a finished manual job runs again as a new job), with
 * optional variables for that run. 400 "Unplayable Job" for anything else.
 */
export async function playProjectJob(
  c: Container,
  actor: Actor,
  idOrPath: number | string,
  jobId: number,
  variables: { key: string; value: string }[] = [],
): Promise<JobView> {
  const found = await findProject(c, actor, idOrPath);
  const row = found.row;
  await requireCiRead(c, actor, found);
  // Builds and bridges alike (the reference's find_job!); a bridge is never playable.
  const job = await findProjectJob(c.db, row.id, jobId);
  if (!job) throw recordNotFound();
  const a = await requireCiWrite(c, actor, found);
  await requireJobUpdate(c, actor, row, a, job);
  const badKey = variables.find((v) => !VARIABLE_KEY.test(v.key) || v.key.length > 255);
  if (badKey) throw validation({ 'job_variables.key': ["can contain only letters, digits and '_'."] });
  return oneView(c, actor, row, await playJob(c, actor, job.id, variables));
}

// ---- the job token's own job ----

/** The running job behind a job token; 404 'Job' for any other credential, as the reference answers. */
async function tokenJob(c: Container, actor: Actor): Promise<{ job: JobRow; project: ProjectRow }> {
  if (actor.via !== 'job_token' || !actor.job) throw notFound('Job');
  const job = await findCiJob(c.db, actor.job.id);
  const project = job ? await findProjectById(c.db, job.project_id) : undefined;
  if (!job || !project) throw notFound('Job');
  return { job, project };
}

/** GET /job: the Job shape of the token's job. */
export async function currentJob(c: Container, actor: Actor): Promise<JobView> {
  const { job, project } = await tokenJob(c, actor);
  return oneView(c, actor, project, job);
}

export interface AllowedAgentsView {
  job: JobRow;
  pipeline: PipelineRow;
  project: ProjectView;
  user: UserRow;
}

/** GET /job/allowed_agents: no cluster agents in Anvil, so the list is empty; the rest describes the job. */
export async function allowedAgents(c: Container, actor: Actor): Promise<AllowedAgentsView> {
  const { job, project } = await tokenJob(c, actor);
  const [pipeline] = await pipelinesByIds(c.db, [job.pipeline_id]);
  if (!pipeline) throw notFound('Job');
  return { job, pipeline, project: await projectView(c, actor, project, { full: false }), user: actor.user };
}
