// The Job and Bridge resources (spec "Job", "Bridge"; the reference's Entities::Ci::Job <
// JobBasic and Entities::Ci::Bridge of 15.1, in their field order) and the job-token lookups.
import { Type as T } from '@sinclair/typebox';
import { JOB_SCOPE_VALUES } from '../../domain/ci/jobs.js';
import { Nullable, OneOf, Timestamp } from '../schemas.js';
import { PipelineBasic } from '../pipelines/schemas.js';
import { ProjectIdentity } from '../projects/schemas.js';
import { UserBasic, UserProfile } from '../users/schemas.js';

/** `scope`: one status or an array of them (`scope[]=a&scope[]=b`); anything else is a 400. */
export const JobScope = T.Optional(T.Array(OneOf(JOB_SCOPE_VALUES)));

/** A job's pipeline and a bridge's downstream pipeline: the reference's PipelineBasic. */
const JobPipeline = PipelineBasic;

/** The job's commit, from the pipeline's cached commit (job lists never run git). */
export const JobCommit = T.Object({
  id: T.String(),
  short_id: T.String(),
  created_at: Nullable(T.String()),
  title: T.String(),
  message: T.String(),
  author_name: Nullable(T.String()),
  author_email: Nullable(T.String()),
});

/** The reference's Entities::Ci::Runner (the built-in runner). */
export const JobRunner = T.Object({
  id: T.Integer(),
  description: T.String(),
  ip_address: Nullable(T.String()),
  active: T.Boolean(),
  paused: T.Boolean(),
  is_shared: T.Boolean(),
  runner_type: T.String(),
  name: Nullable(T.String()),
  online: T.Boolean(),
  status: T.String(),
});

export const JobArtifact = T.Object({
  file_type: T.String(),
  size: T.Integer(),
  filename: T.String(),
  file_format: Nullable(T.String()),
});

/** JobBasic: the fields jobs and bridges share. */
const basicFields = {
  id: T.Integer(),
  status: T.String(),
  stage: T.String(),
  name: T.String(),
  ref: T.String(),
  tag: T.Boolean(),
  coverage: Nullable(T.Number()),
  allow_failure: T.Boolean(),
  created_at: Timestamp,
  started_at: Nullable(Timestamp),
  finished_at: Nullable(Timestamp),
  duration: Nullable(T.Number()),
  queued_duration: Nullable(T.Number()),
  user: Nullable(UserProfile),
  commit: Nullable(JobCommit),
  pipeline: JobPipeline,
  /** Only on failed jobs. */
  failure_reason: T.Optional(T.String()),
  web_url: T.String(),
};

export const Job = T.Object({
  ...basicFields,
  /** Only when the job has an archive. */
  artifacts_file: T.Optional(T.Object({ filename: T.String(), size: T.Integer() })),
  artifacts: T.Array(JobArtifact),
  runner: Nullable(JobRunner),
  artifacts_expire_at: Nullable(Timestamp),
  tag_list: T.Array(T.String()),
});

/** The erase answer: the Job with `download_url` (null: nothing is left to download). */
export const ErasedJob = T.Object({ ...Job.properties, download_url: T.Null() });

export const Bridge = T.Object({
  ...basicFields,
  downstream_pipeline: Nullable(JobPipeline),
});

/**
 * An Anvil extension (GET /projects/:id/pipelines/:pipeline_id/needs): a job or bridge and the
 * jobs it needs by name; `needs` null when it waits for the stages before its own, [] for `needs: []`.
 */
export const JobNeeds = T.Object({
  id: T.Integer(),
  name: T.String(),
  needs: Nullable(T.Array(T.String())),
});

/**
 * An Anvil extension (GET /projects/:id/jobs/:job_id/trace_times): a piece of the job's log,
 * by the offset of its first byte in the trace, and when it was stored.
 */
export const TraceTime = T.Object({
  offset: T.Integer(),
  created_at: T.String(),
});

/** GET /job/allowed_agents (spec "Job-token lookup: allowed agents response"). */
export const AllowedAgents = T.Object({
  allowed_agents: T.Array(T.Object({ id: T.Integer(), config_project: ProjectIdentity })),
  job: T.Object({ id: T.Integer(), name: T.String(), stage: T.String(), project_id: T.Integer(), project_name: T.String() }),
  pipeline: T.Object({
    id: T.Integer(),
    project_id: T.Integer(),
    sha: T.String(),
    ref: T.String(),
    status: T.String(),
    created_at: Timestamp,
    updated_at: Timestamp,
    web_url: T.String(),
  }),
  project: ProjectIdentity,
  user: UserBasic,
});

export const PlayVariable = T.Object({ key: T.String(), value: T.String() });
