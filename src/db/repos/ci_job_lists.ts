// CI job lists: a project's jobs, a pipeline's jobs or bridges (or their plans), newest first, one page at a time;
// and the rows a page of jobs needs to be presented (users), each in one query.
import type { Kysely } from 'kysely';
import type { PageRequest, PageResult } from '../../shared/page.js';
import { runPage } from '../paginate.js';
import type { DB } from '../schema.js';
import type { JobRow } from './ci_jobs.js';
import type { UserRow } from './users.js';

/**
 * The columns a listed job shows (its Job or Bridge shape), not its plan (`options`, the largest
 * column) nor its token: a page of 20 jobs reads about a third faster without them.
 */
export const LISTED_JOB_COLUMNS = [
  'id', 'project_id', 'pipeline_id', 'type', 'name', 'stage', 'status', 'failure_reason', 'ref', 'tag', 'allow_failure', 'coverage',
  'created_at', 'started_at', 'finished_at', 'duration', 'queued_duration', 'artifacts_expire_at', 'tag_list', 'user_id', 'runner_id',
  'downstream_pipeline_id',
] as const;
export type ListedJob = Pick<JobRow, (typeof LISTED_JOB_COLUMNS)[number]>;

export interface JobListFilter {
  /** `build` (jobs) or `bridge` (trigger jobs). */
  type: 'build' | 'bridge';
  /** Only jobs in one of these statuses; null = any. */
  statuses: readonly string[] | null;
  /** Retried jobs (replaced by a newer try) too. */
  includeRetried: boolean;
}

/**
 * A project's jobs by descending id. Uses (project_id, type, status, id) with a status filter,
 * (project_id, type, id) without; the id order is the index order, so a page reads only its rows.
 */
export function pageProjectJobs(db: Kysely<DB>, projectId: number, f: JobListFilter, page: PageRequest): Promise<PageResult<ListedJob>> {
  let q = db.selectFrom('ci_jobs').select(LISTED_JOB_COLUMNS).where('project_id', '=', projectId).where('type', '=', f.type);
  if (f.statuses) q = q.where('status', 'in', [...f.statuses]);
  if (!f.includeRetried) q = q.where('retried', '=', 0);
  return runPage(db, q.orderBy('id', 'desc'), page);
}

/** The jobs of these pipelines (one, or a pipeline and its children) by descending id. Uses (pipeline_id, id). */
export function pagePipelineJobs(db: Kysely<DB>, pipelineIds: number[], f: JobListFilter, page: PageRequest): Promise<PageResult<ListedJob>> {
  let q = db.selectFrom('ci_jobs').select(LISTED_JOB_COLUMNS).where('pipeline_id', 'in', pipelineIds).where('type', '=', f.type);
  if (f.statuses) q = q.where('status', 'in', [...f.statuses]);
  if (!f.includeRetried) q = q.where('retried', '=', 0);
  return runPage(db, q.orderBy('id', 'desc'), page);
}

/** A job's id, name and plan (`options`): what its `needs` are read from. */
export type JobPlanRow = Pick<JobRow, 'id' | 'name' | 'options'>;

/**
 * The current (not retried) jobs and bridges of one pipeline by descending id, with their plans.
 * Uses (pipeline_id, id).
 */
export function pagePipelinePlans(db: Kysely<DB>, pipelineId: number, page: PageRequest): Promise<PageResult<JobPlanRow>> {
  const q = db.selectFrom('ci_jobs').select(['id', 'name', 'options']).where('pipeline_id', '=', pipelineId).where('retried', '=', 0);
  return runPage(db, q.orderBy('id', 'desc'), page);
}

/** A job or bridge as a list of pipelines shows it: its stage and status. */
export type StageJobRow = Pick<JobRow, 'id' | 'pipeline_id' | 'name' | 'stage' | 'status' | 'allow_failure'>;

/** The current (not retried) jobs and bridges of some pipelines of a project, all in one query. Uses (pipeline_id, id). */
export const currentJobsOfPipelines = (db: Kysely<DB>, projectId: number, pipelineIds: number[]): Promise<StageJobRow[]> =>
  pipelineIds.length === 0
    ? Promise.resolve([])
    : db
        .selectFrom('ci_jobs')
        .select(['id', 'pipeline_id', 'name', 'stage', 'status', 'allow_failure'])
        .where('project_id', '=', projectId)
        .where('pipeline_id', 'in', pipelineIds)
        .where('retried', '=', 0)
        .orderBy('id')
        .execute();

/** Users by id in one query (the job users of a page). */
export const usersByIds = (db: Kysely<DB>, ids: number[]): Promise<UserRow[]> =>
  ids.length === 0 ? Promise.resolve([]) : db.selectFrom('users').selectAll().where('id', 'in', ids).execute();
