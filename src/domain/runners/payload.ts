// The job as `POST /jobs/request` hands it to a runner: every field gitlab-runner decodes
// (common/spec: Job), as the reference's Entities::Ci::JobRequest::Response builds them.
import type { Container } from '../context.js';
import { createHash } from 'node:crypto';
import type { ArtifactsSpec, CacheSpec, ContainerImageSpec, PlannedJob } from '../../ci/config/types.js';
import { lastCommitFor } from '../../git/log.js';
import { repositoryDir } from '../repository/service.js';
import { findJobArtifact } from '../../db/repos/ci_artifacts.js';
import type { JobRow } from '../../db/repos/ci_jobs.js';
import type { PipelineRow } from '../../db/repos/ci_pipelines.js';
import type { ProjectRow } from '../../db/repos/projects.js';
import type { RunnerRow } from '../../db/repos/runners.js';
import { dependencyJobs } from '../ci/dependencies.js';
import { jobPlan } from '../ci/state.js';
import { jobTimeoutSeconds } from '../ci/timeout.js';
import { jobVariableList, type JobVariable } from '../ci/variables.js';
import { fileFormatOf } from '../ci/artifacts.js';
import { tagsOf } from './runners.js';

/** The failure reasons a runner may report (the reference's Ci::Build failure_reason enum, what runners send). */
export const FAILURE_REASONS = [
  'unknown_failure', 'script_failure', 'api_failure', 'stuck_or_timeout_failure', 'runner_system_failure', 'missing_dependency_failure',
  'runner_unsupported', 'stale_schedule', 'job_execution_timeout', 'archived_failure', 'unmet_prerequisites', 'scheduler_failure',
  'data_integrity_failure', 'forward_deployment_failure', 'user_blocked', 'project_deleted', 'ci_quota_exceeded', 'pipeline_loop_detected',
  'no_matching_runner', 'trace_size_exceeded', 'builds_disabled', 'environment_creation_failure', 'deployment_rejected',
  'image_pull_failure', 'runner_external_dependency_failure',
];

/** The job's timeout for this runner: the job's (or the project's), capped by the runner's maximum_timeout. */
export function runnerTimeout(plan: PlannedJob, project: ProjectRow, runner: Pick<RunnerRow, 'maximum_timeout'>): number {
  const own = jobTimeoutSeconds(plan, project);
  return runner.maximum_timeout !== null ? Math.min(own, runner.maximum_timeout) : own;
}

/** The clone URL with the job token as the password (the git username the reference uses). */
export function repoUrlWithToken(c: Container, project: ProjectRow, token: string): string {
  const external = new URL(c.config.externalUrl);
  return `${external.protocol}//gitlab-ci-token:${token}@${external.host}${external.pathname.replace(/\/$/, '')}/${project.full_path}.git`;
}

function artifactsOf(spec: ArtifactsSpec | null): unknown[] {
  if (!spec) return [];
  const out: unknown[] = [];
  if (spec.paths.length || spec.untracked) {
    out.push({
      name: spec.name ?? 'artifacts',
      untracked: spec.untracked,
      paths: spec.paths,
      exclude: spec.exclude,
      when: spec.when,
      artifact_type: 'archive',
      artifact_format: 'zip',
      expire_in: spec.expireIn,
    });
  }
  for (const [type, paths] of Object.entries(spec.reports ?? {})) {
    out.push({ name: type, untracked: false, paths, exclude: [], when: 'always', artifact_type: type, artifact_format: fileFormatOf(type), expire_in: spec.expireIn });
  }
  return out;
}

/** An image or service as the runner decodes it (spec.Image). */
function imageEntry(i: ContainerImageSpec, service: boolean): Record<string, unknown> {
  return {
    name: i.name,
    ...(service ? { alias: i.alias, command: i.command } : {}),
    entrypoint: i.entrypoint,
    ports: i.ports.map((p) => ({ number: p.number, ...(p.protocol ? { protocol: p.protocol } : {}), ...(p.name ? { name: p.name } : {}) })),
    ...(service ? { variables: Object.entries(i.variables).map(([key, value]) => ({ key, value, public: true, file: false, masked: false, raw: false })) } : {}),
    executor_opts: i.executorOpts,
    pull_policy: i.pullPolicy,
  };
}

/** `key:files`: a digest of the last commits that changed those files, after the prefix; `default` when none exist. */
async function cacheKey(c: Container, project: ProjectRow, sha: string, key: CacheSpec['key']): Promise<string> {
  if (typeof key === 'string') return key;
  const dir = repositoryDir(c, project.id);
  const ids = new Set<string>();
  for (const f of key.files.slice(0, 2)) {
    const id = await lastCommitFor(dir, sha, f.replace(/^\.?\//, '')).catch(() => null);
    if (id) ids.add(id);
  }
  const value = ids.size ? createHash('sha1').update([...ids].sort().join('-')).digest('hex') : 'default';
  return key.prefix ? `${key.prefix}-${value}` : value;
}

/**
 * The job's caches as the reference hands them out: each key (and fallback key) ends in
 * `-protected` for a protected ref (unless `unprotect`), else `-non_protected`.
 */
async function cachesOf(c: Container, project: ProjectRow, sha: string, specs: CacheSpec[], protectedRef: boolean): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const s of specs) {
    const suffix = protectedRef && !s.unprotect ? 'protected' : 'non_protected';
    out.push({
      key: `${await cacheKey(c, project, sha, s.key)}-${suffix}`,
      untracked: s.untracked,
      policy: s.policy,
      paths: s.paths,
      when: s.when,
      fallback_keys: s.fallbackKeys.map((k) => `${k}-${suffix}`),
    });
  }
  return out;
}

const variableEntry = (v: Pick<JobVariable, 'key' | 'value' | 'public' | 'file' | 'masked' | 'raw'>) => ({
  key: v.key, value: v.value, public: v.public, file: v.file, masked: v.masked, raw: v.raw,
});

export interface JobPayloadInput {
  job: JobRow;
  token: string;
  project: ProjectRow;
  pipeline: PipelineRow;
  runner: RunnerRow;
}

/** The whole job answer of `POST /jobs/request` (201). */
export async function jobPayload(c: Container, { job, token, project, pipeline, runner }: JobPayloadInput): Promise<Record<string, unknown>> {
  const plan = jobPlan(job);
  const timeout = runnerTimeout(plan, project, runner);
  const repoUrl = repoUrlWithToken(c, project, token);
  const refType = pipeline.tag === 1 ? 'tag' : 'branch';
  const refspecs = [pipeline.tag === 1 ? `+refs/tags/${pipeline.ref}:refs/tags/${pipeline.ref}` : `+refs/heads/${pipeline.ref}:refs/remotes/origin/${pipeline.ref}`];
  const variables = (await jobVariableList(c, project, pipeline, job, token)).map(variableEntry);
  const runnerOwn: Record<string, string> = {
    CI_RUNNER_ID: String(runner.id),
    CI_RUNNER_DESCRIPTION: runner.description,
    CI_RUNNER_TAGS: JSON.stringify(tagsOf(runner)),
    CI_JOB_TIMEOUT: String(timeout),
  };
  for (const [key, value] of Object.entries(runnerOwn)) variables.push({ key, value, public: true, file: false, masked: false, raw: true });
  const dependencies: unknown[] = [];
  for (const dep of await dependencyJobs(c, job, plan)) {
    const archive = await findJobArtifact(c.db, dep.id, 'archive');
    if (archive) dependencies.push({ id: dep.id, name: dep.name, token, artifacts_file: { filename: archive.filename, size: Number(archive.size) } });
  }
  const queued = job.queued_duration ?? 0;
  const protectedRef = variables.some((v) => v.key === 'CI_COMMIT_REF_PROTECTED' && v.value === 'true');
  const image = plan.imageSpec ?? (plan.image ? { name: plan.image, alias: null, entrypoint: null, command: null, pullPolicy: null, ports: [], variables: {}, executorOpts: {} } : null);
  return {
    id: job.id,
    token,
    allow_git_fetch: true,
    job_info: {
      id: job.id,
      name: job.name,
      stage: job.stage,
      project_id: project.id,
      project_name: project.name,
      project_full_path: project.full_path,
      pipeline_id: pipeline.id,
      namespace_id: project.namespace_id,
      root_namespace_id: project.namespace_id,
      user_id: job.user_id ?? 0,
      time_in_queue_seconds: queued,
      project_jobs_running_on_instance_runners_count: '+Inf',
      queue_size: 0,
      queue_depth: 0,
    },
    git_info: {
      repo_url: repoUrl,
      repo_object_format: 'sha1',
      ref: pipeline.ref,
      sha: pipeline.sha,
      before_sha: pipeline.before_sha,
      ref_type: refType,
      refspecs,
      depth: project.ci_default_git_depth ?? 0,
      protected: protectedRef,
    },
    runner_info: { timeout, runner_session_url: null },
    variables,
    steps: [
      { name: 'script', script: [...(plan.beforeScript ?? []), ...(plan.script ?? [])], timeout, when: 'on_success', allow_failure: false },
      ...(plan.afterScript?.length ? [{ name: 'after_script', script: plan.afterScript, timeout, when: 'always', allow_failure: true }] : []),
    ],
    image: image ? imageEntry(image, false) : null,
    services: (plan.services ?? []).map((s) => imageEntry(s, true)),
    artifacts: artifactsOf(plan.artifacts),
    cache: await cachesOf(c, project, pipeline.sha, plan.cache ?? [], protectedRef),
    // Registry credentials go with a container registry, which Anvil does not have.
    credentials: [],
    dependencies,
    features: { trace_sections: true, failure_reasons: FAILURE_REASONS },
  };
}
