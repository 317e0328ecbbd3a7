// Pipeline lists and the reads the pipeline API needs beyond single rows: the filtered list of a
// project (every order has a matching index from migration 011; the id order's, from 055, holds
// `source` too, so the capped count reads that index alone), the latest pipeline of each
// ref, a push pipeline already made for a ref change, the older unfinished pipelines of a ref
// (auto-cancel), and the junit artifacts of a pipeline.
import type { Kysely, Selectable } from 'kysely';
import type { PageRequest, PageResult } from '../../shared/page.js';
import { runPage } from '../paginate.js';
import type { CiJobArtifactsTable, DB } from '../schema.js';
import type { Db, PipelineRow } from './ci_pipelines.js';

export const PIPELINE_ORDERS = ['id', 'status', 'ref', 'updated_at', 'user_id'] as const;
export type PipelineOrder = (typeof PIPELINE_ORDERS)[number];

export interface PipelineFilters {
  /** Exact statuses (scope running/pending/finished and `status` narrow this). */
  statuses?: string[];
  source?: string;
  ref?: string;
  sha?: string;
  scheduleId?: number;
  /** true: only pipelines with yaml_errors; false: only those without. */
  yamlErrors?: boolean;
  /** null: a username that matches nobody (an empty list). */
  userId?: number | null;
  updatedAfter?: string;
  updatedBefore?: string;
  /** scope branches/tags: the latest pipeline of each of these refs only. */
  latestOfRefs?: string[];
  orderBy: PipelineOrder;
  sort: 'asc' | 'desc';
}

/** The columns a listed pipeline shows (PipelineBasic): reading every column makes a page about twice as slow. */
export const LISTED_PIPELINE_COLUMNS = ['id', 'iid', 'project_id', 'sha', 'ref', 'status', 'source', 'created_at', 'updated_at'] as const;
export type ListedPipeline = Pick<PipelineRow, (typeof LISTED_PIPELINE_COLUMNS)[number]>;

/** A page of a project's pipelines, child pipelines (source parent_pipeline) left out. */
export function pagePipelines(db: Kysely<DB>, projectId: number, f: PipelineFilters, page: PageRequest): Promise<PageResult<ListedPipeline>> {
  let q = db.selectFrom('ci_pipelines').select(LISTED_PIPELINE_COLUMNS).where('project_id', '=', projectId).where('source', '!=', 'parent_pipeline');
  if (f.statuses) q = q.where('status', 'in', f.statuses.length ? f.statuses : ['-']);
  if (f.source !== undefined) q = q.where('source', '=', f.source);
  if (f.ref !== undefined) q = q.where('ref', '=', f.ref);
  if (f.sha !== undefined) q = q.where('sha', '=', f.sha);
  if (f.scheduleId !== undefined) q = q.where('pipeline_schedule_id', '=', f.scheduleId);
  if (f.yamlErrors === true) q = q.where('yaml_errors', 'is not', null);
  if (f.yamlErrors === false) q = q.where('yaml_errors', 'is', null);
  if (f.userId === null) q = q.where('user_id', '=', -1);
  else if (f.userId !== undefined) q = q.where('user_id', '=', f.userId);
  if (f.updatedAfter !== undefined) q = q.where('updated_at', '>', f.updatedAfter);
  if (f.updatedBefore !== undefined) q = q.where('updated_at', '<', f.updatedBefore);
  if (f.latestOfRefs !== undefined) {
    const refs = f.latestOfRefs;
    if (refs.length === 0) q = q.where('id', '=', -1);
    else {
      q = q.where('id', 'in', (eb) =>
        eb
          .selectFrom('ci_pipelines as latest')
          .select((e) => e.fn.max('latest.id').as('id'))
          .where('latest.project_id', '=', projectId)
          .where('latest.source', '!=', 'parent_pipeline')
          .where('latest.ref', 'in', refs)
          .groupBy('latest.ref'),
      );
    }
  }
  if (f.orderBy !== 'id') q = q.orderBy(f.orderBy, f.sort);
  q = q.orderBy('id', f.sort);
  return runPage(db, q, page);
}

/**
 * A push pipeline already created for this ref change at or after `since` (the time the push
 * job was queued): a push job that runs again finds the pipeline of its first run.
 */
export const pushPipelineSince = (db: Db, projectId: number, ref: string, sha: string, beforeSha: string, since: string) =>
  db
    .selectFrom('ci_pipelines')
    .select('id')
    .where('project_id', '=', projectId)
    .where('sha', '=', sha)
    .where('ref', '=', ref)
    .where('source', '=', 'push')
    .where('before_sha', '=', beforeSha)
    .where('created_at', '>=', since)
    .executeTakeFirst();

export type JunitArtifactRow = Selectable<CiJobArtifactsTable> & { job_name: string };

/** The junit artifacts of a pipeline's current (not retried) jobs, in job order. */
export const junitArtifactsOfPipeline = (db: Db, pipelineId: number): Promise<JunitArtifactRow[]> =>
  db
    .selectFrom('ci_job_artifacts')
    .innerJoin('ci_jobs', 'ci_jobs.id', 'ci_job_artifacts.job_id')
    .selectAll('ci_job_artifacts')
    .select('ci_jobs.name as job_name')
    .where('ci_jobs.pipeline_id', '=', pipelineId)
    .where('ci_jobs.retried', '=', 0)
    .where('ci_job_artifacts.file_type', '=', 'junit')
    .orderBy('ci_jobs.stage_idx')
    .orderBy('ci_jobs.id')
    .execute();

/** Child pipelines of a pipeline (source parent_pipeline), oldest first. */
export const childPipelinesOf = (db: Db, pipelineId: number): Promise<PipelineRow[]> =>
  db.selectFrom('ci_pipelines').selectAll().where('parent_pipeline_id', '=', pipelineId).orderBy('id').execute();

export interface RedundantQuery {
  projectId: number;
  ref: string;
  tag: number;
  /** Only pipelines created before this one (id below it). */
  beforeId: number;
  /** Keyset: only ids above this one (0 for the first page). */
  afterId: number;
  /** Only pipelines created after this time. */
  createdAfter: string;
  statuses: readonly string[];
  excludedSources: readonly string[];
  limit: number;
}

/**
 * Older pipelines of a ref in one of `statuses` (auto-cancel's candidates), oldest first, a page
 * at a time. Uses (project_id, ref, id).
 */
export const olderPipelinesOfRef = (db: Db, q: RedundantQuery): Promise<Pick<PipelineRow, 'id' | 'sha' | 'source'>[]> =>
  db
    .selectFrom('ci_pipelines')
    .select(['id', 'sha', 'source'])
    .where('project_id', '=', q.projectId)
    .where('ref', '=', q.ref)
    .where('id', '<', q.beforeId)
    .where('id', '>', q.afterId)
    .where('tag', '=', q.tag)
    .where('created_at', '>', q.createdAfter)
    .where('status', 'in', [...q.statuses])
    .where('source', 'not in', [...q.excludedSources])
    .orderBy('id')
    .limit(q.limit)
    .execute();
