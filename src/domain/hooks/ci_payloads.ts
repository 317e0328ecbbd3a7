// Pipeline Hook and Job Hook bodies (the reference's DataBuilder::Pipeline and ::Build). Read in
// the transaction that moved the status, so the body shows the state that was committed.
import type { Kysely } from 'kysely';
import type { Container } from '../context.js';
import { artifactRowsOfJobs } from '../../db/repos/ci_artifacts.js';
import { latestJobsOfPipeline, type JobRow } from '../../db/repos/ci_jobs.js';
import { findPipeline, type PipelineRow } from '../../db/repos/ci_pipelines.js';
import { findProjectById } from '../../db/repos/projects.js';
import { findUserById } from '../../db/repos/users.js';
import type { DB } from '../../db/schema.js';
import { findRunnerById } from '../../db/repos/runners.js';
import { pipelineVariables } from '../ci/variables.js';
import { ciTime, hookProject, hookUser, projectObject, repositoryObject, type HookProject } from './payloads.js';

/** The job's runner as the reference's hooks show it (its runner_hook_attrs): the runner's own tags, not the job's. */
async function runnerObject(db: Kysely<DB>, job: Pick<JobRow, 'runner_id'>) {
  if (job.runner_id === null) return null;
  const r = await findRunnerById(db, job.runner_id);
  if (!r) return null;
  return { id: r.id, description: r.description, runner_type: r.runner_type, active: r.paused === 0, is_shared: r.runner_type === 'instance_type', tags: JSON.parse(r.tag_list) as string[] };
}

async function userObject(c: Container, db: Kysely<DB>, id: number | null) {
  const u = id === null ? undefined : await findUserById(db, id);
  return u ? hookUser(c, u) : null;
}

const titleLine = (m: string) => m.replace(/^\s+/, '').split('\n')[0].trim();

function commitObject(c: Container, hp: HookProject, p: PipelineRow) {
  const message = p.commit_message ?? '';
  return {
    id: p.sha,
    message,
    title: titleLine(message),
    timestamp: p.commit_created_at,
    url: `${c.config.externalUrl}/${hp.fullPath}/-/commit/${p.sha}`,
    author: { name: p.commit_author_name, email: p.commit_author_email },
  };
}

/** The reference's detailed status text of a pipeline status. */
const DETAILED: Record<string, string> = { success: 'passed', failed: 'failed', canceled: 'canceled', running: 'running', pending: 'pending', skipped: 'skipped', manual: 'blocked', created: 'created', scheduled: 'scheduled' };

export async function pipelinePayload(c: Container, db: Kysely<DB>, pipelineId: number): Promise<object | null> {
  const p = await findPipeline(db, pipelineId);
  const project = p ? await findProjectById(db, p.project_id) : undefined;
  if (!p || !project) return null;
  const hp = await hookProject(db, project);
  const jobs = await latestJobsOfPipeline(db, p.id);
  const builds = jobs.filter((j) => j.type === 'build');
  const archives = new Map((await artifactRowsOfJobs(db, builds.map((j) => j.id))).filter((a) => a.file_type === 'archive').map((a) => [a.job_id, a]));
  const stages = [...new Map([...jobs].sort((a, b) => a.stage_idx - b.stage_idx).map((j) => [j.stage, true])).keys()];
  const variables = (await pipelineVariables(c, p.id, db)).map((v) => ({ key: v.key, value: v.value }));
  return {
    object_kind: 'pipeline',
    object_attributes: {
      id: p.id,
      iid: p.iid,
      ref: p.ref,
      tag: p.tag === 1,
      sha: p.sha,
      before_sha: p.before_sha,
      source: p.source,
      status: p.status,
      detailed_status: DETAILED[p.status] ?? p.status,
      stages,
      created_at: ciTime(p.created_at),
      finished_at: ciTime(p.finished_at),
      duration: p.duration,
      queued_duration: p.queued_duration,
      variables,
      url: `${c.config.externalUrl}/${hp.fullPath}/-/pipelines/${p.id}`,
    },
    merge_request: null,
    user: await userObject(c, db, p.user_id),
    project: projectObject(c, hp),
    commit: commitObject(c, hp, p),
    builds: await Promise.all(
      builds.map(async (j) => {
        const archive = archives.get(j.id);
        return {
          id: j.id,
          stage: j.stage,
          name: j.name,
          status: j.status,
          created_at: ciTime(j.created_at),
          started_at: ciTime(j.started_at),
          finished_at: ciTime(j.finished_at),
          duration: j.duration,
          queued_duration: j.queued_duration,
          failure_reason: j.failure_reason,
          when: j.when,
          manual: j.when === 'manual',
          allow_failure: j.allow_failure === 1,
          user: await userObject(c, db, j.user_id),
          runner: await runnerObject(db, j),
          artifacts_file: { filename: archive ? archive.filename : null, size: archive ? archive.size : null },
          environment: null,
        };
      }),
    ),
  };
}

export async function jobPayload(c: Container, db: Kysely<DB>, job: JobRow): Promise<object | null> {
  const p = await findPipeline(db, job.pipeline_id);
  const project = await findProjectById(db, job.project_id);
  if (!p || !project) return null;
  const hp = await hookProject(db, project);
  return {
    object_kind: 'build',
    ref: job.ref,
    tag: job.tag === 1,
    before_sha: p.before_sha,
    sha: p.sha,
    retries_count: job.retry_count,
    build_id: job.id,
    build_name: job.name,
    build_stage: job.stage,
    build_status: job.status,
    build_created_at: ciTime(job.created_at),
    build_started_at: ciTime(job.started_at),
    build_finished_at: ciTime(job.finished_at),
    build_duration: job.duration,
    build_queued_duration: job.queued_duration,
    build_allow_failure: job.allow_failure === 1,
    build_failure_reason: job.failure_reason ?? 'unknown_failure',
    pipeline_id: p.id,
    runner: await runnerObject(db, job),
    project_id: project.id,
    project_name: `${hp.namespace.name} / ${project.name}`,
    user: await userObject(c, db, job.user_id),
    commit: {
      id: p.id,
      sha: p.sha,
      message: p.commit_message ?? '',
      author_name: p.commit_author_name,
      author_email: p.commit_author_email,
      author_url: p.commit_author_email ? `mailto:${p.commit_author_email}` : null,
      status: p.status,
      duration: p.duration,
      started_at: ciTime(p.started_at),
      finished_at: ciTime(p.finished_at),
    },
    repository: repositoryObject(c, hp),
    environment: null,
  };
}
