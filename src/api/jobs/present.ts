// Job views → the Job and Bridge shapes; the job-token lookups.
import type { Static } from '@sinclair/typebox';
import type { Container } from '../../domain/context.js';
import type { PipelineRow } from '../../db/repos/ci_pipelines.js';
import type { ProjectRow } from '../../db/repos/projects.js';
import type { AllowedAgentsView, JobNeeds as JobNeedsView, JobView } from '../../domain/ci/jobs.js';
import { BUILT_IN_RUNNER_ID } from '../../domain/ci/built_in_runner.js';
import { runnerStatus } from '../../domain/runners/runners.js';
import type { RunnerRow } from '../../db/repos/runners.js';
import { jobWebUrl, pipelineWebUrl } from '../../domain/ci/variables.js';
import { presentPipelineBasic } from '../pipelines/present.js';
import { presentProjectSimple } from '../projects/present.js';
import { presentUser, presentUserBasic } from '../users/present.js';
import type { UserProfile } from '../users/schemas.js';
import type { PipelineBasic } from '../pipelines/schemas.js';
import type { AllowedAgents, Bridge, Job, JobCommit, JobNeeds, JobRunner } from './schemas.js';

/** A job's runner (the reference's Entities::Ci::Runner): registered, or the built-in one (row 1). */
export function presentRunner(c: Container, r: RunnerRow): Static<typeof JobRunner> {
  const status = runnerStatus(c, r);
  return {
    id: r.id,
    description: r.description,
    ip_address: r.id === BUILT_IN_RUNNER_ID ? '127.0.0.1' : r.ip_address,
    active: r.paused === 0,
    paused: r.paused === 1,
    is_shared: r.runner_type === 'instance_type',
    runner_type: r.runner_type,
    name: r.name,
    online: status === 'online',
    status,
  };
}

/** A job's pipeline, a bridge's downstream pipeline: the pipelines area's PipelineBasic. */
const presentJobPipeline = (c: Container, project: ProjectRow, pipeline: PipelineRow) => presentPipelineBasic(c, { project, pipeline });

function presentCommit(p: PipelineRow): Static<typeof JobCommit> | null {
  if (p.commit_message === null) return null;
  return {
    id: p.sha,
    short_id: p.sha.slice(0, 8),
    created_at: p.commit_created_at,
    title: p.commit_message.split('\n')[0],
    message: p.commit_message,
    author_name: p.commit_author_name,
    author_email: p.commit_author_email,
  };
}

/**
 * The parts that the jobs of a page share (most of a page's jobs have one user and one pipeline):
 * each is built once per page and the same object is serialized for every job that shows it.
 */
interface SharedParts {
  user(v: JobView): Static<typeof UserProfile> | null;
  pipeline(project: ProjectRow, p: PipelineRow): Static<typeof PipelineBasic>;
  commit(p: PipelineRow): Static<typeof JobCommit> | null;
  runner(r: RunnerRow): Static<typeof JobRunner>;
}

function sharedParts(c: Container): SharedParts {
  const once = <V>(cache: Map<number, V>, id: number, build: () => V): V => {
    if (!cache.has(id)) cache.set(id, build());
    return cache.get(id)!;
  };
  const users = new Map<number, Static<typeof UserProfile>>();
  const pipelines = new Map<number, Static<typeof PipelineBasic>>();
  const commits = new Map<number, Static<typeof JobCommit> | null>();
  const runners = new Map<number, Static<typeof JobRunner>>();
  return {
    // A `profile` view: the reference's Entities::User.
    user: (v) => (v.user ? once(users, v.user.user.id, () => presentUser(c, v.user!) as Static<typeof UserProfile>) : null),
    pipeline: (project, p) => once(pipelines, p.id, () => presentJobPipeline(c, project, p)),
    commit: (p) => once(commits, p.id, () => presentCommit(p)),
    runner: (r) => once(runners, r.id, () => presentRunner(c, r)),
  };
}

function presentBasic(c: Container, v: JobView, parts: SharedParts) {
  const j = v.job;
  return {
    id: j.id,
    status: j.status,
    stage: j.stage,
    name: j.name,
    ref: j.ref,
    tag: j.tag === 1,
    coverage: j.coverage,
    allow_failure: j.allow_failure === 1,
    created_at: j.created_at,
    started_at: j.started_at,
    finished_at: j.finished_at,
    duration: j.duration,
    queued_duration: j.queued_duration,
    user: parts.user(v),
    commit: parts.commit(v.pipeline),
    pipeline: parts.pipeline(v.project, v.pipeline),
    ...(j.status === 'failed' ? { failure_reason: j.failure_reason ?? 'unknown_failure' } : {}),
    web_url: jobWebUrl(c, v.project, j.id),
  };
}

function presentJobWith(c: Container, v: JobView, parts: SharedParts): Static<typeof Job> {
  const archive = v.artifacts.find((a) => a.file_type === 'archive');
  // Object.assign onto the basic form, not a spread of it: V8 builds that spread many times slower.
  return Object.assign(presentBasic(c, v, parts), {
    ...(archive ? { artifacts_file: { filename: archive.filename, size: Number(archive.size) } } : {}),
    artifacts: v.artifacts.map((a) => ({ file_type: a.file_type, size: Number(a.size), filename: a.filename, file_format: a.file_format })),
    runner: v.runner ? parts.runner(v.runner) : null,
    artifacts_expire_at: v.job.artifacts_expire_at,
    tag_list: (JSON.parse(v.job.tag_list) as string[]).sort(),
  });
}

export const presentJob = (c: Container, v: JobView): Static<typeof Job> => presentJobWith(c, v, sharedParts(c));

/** A page of jobs, their shared parts built once (SharedParts). */
export function presentJobs(c: Container, views: JobView[]): Static<typeof Job>[] {
  const parts = sharedParts(c);
  return views.map((v) => presentJobWith(c, v, parts));
}

/** A page of bridges, their shared parts built once (SharedParts). */
export function presentBridges(c: Container, views: JobView[]): Static<typeof Bridge>[] {
  const parts = sharedParts(c);
  return views.map((v) =>
    Object.assign(presentBasic(c, v, parts), {
      downstream_pipeline: v.downstream ? parts.pipeline(v.downstream.project, v.downstream.pipeline) : null,
    }),
  );
}

export function presentAllowedAgents(c: Container, v: AllowedAgentsView): Static<typeof AllowedAgents> {
  const p = presentProjectSimple(c, v.project);
  return {
    allowed_agents: [],
    job: { id: v.job.id, name: v.job.name, stage: v.job.stage, project_id: v.job.project_id, project_name: v.project.row.name },
    pipeline: {
      id: v.pipeline.id,
      project_id: v.pipeline.project_id,
      sha: v.pipeline.sha,
      ref: v.pipeline.ref,
      status: v.pipeline.status,
      created_at: v.pipeline.created_at,
      updated_at: v.pipeline.updated_at,
      web_url: pipelineWebUrl(c, v.project.row, v.pipeline.id),
    },
    project: {
      id: p.id,
      description: p.description,
      name: p.name,
      name_with_namespace: p.name_with_namespace,
      path: p.path,
      path_with_namespace: p.path_with_namespace,
      created_at: p.created_at,
    },
    user: presentUserBasic(c, v.user),
  };
}

/** A job's needs (the Anvil extension's item). */
export const presentJobNeeds = (v: JobNeedsView): Static<typeof JobNeeds> => ({ id: v.id, name: v.name, needs: v.needs });
