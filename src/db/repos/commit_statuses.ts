// Commit statuses: every job of a commit's pipelines (builds, bridges and external statuses),
// and the fields only external statuses have.
import type { Kysely } from 'kysely';
import { runPage } from '../paginate.js';
import type { PageRequest, PageResult } from '../../shared/page.js';
import type { DB } from '../schema.js';
import type { Db } from './ci_pipelines.js';
import type { JobRow } from './ci_jobs.js';

export interface CommitStatusRow extends JobRow {
  sha: string;
  target_url: string | null;
  description: string | null;
}

export interface CommitStatusFilter {
  ref?: string;
  stage?: string;
  name?: string;
  /** Retried ones too. */
  all: boolean;
}

/** A page of the statuses of a project's pipelines at `sha`, oldest first (by id), with their pipeline's sha and external fields. */
export function pageCommitStatuses(db: Kysely<DB>, projectId: number, sha: string, f: CommitStatusFilter, page: PageRequest): Promise<PageResult<CommitStatusRow>> {
  let q = db
    .selectFrom('ci_jobs')
    .innerJoin('ci_pipelines', 'ci_pipelines.id', 'ci_jobs.pipeline_id')
    .leftJoin('ci_commit_statuses', 'ci_commit_statuses.job_id', 'ci_jobs.id')
    .selectAll('ci_jobs')
    .select(['ci_pipelines.sha as sha', 'ci_commit_statuses.target_url as target_url', 'ci_commit_statuses.description as description'])
    .where('ci_pipelines.project_id', '=', projectId)
    .where('ci_pipelines.sha', '=', sha);
  if (!f.all) q = q.where('ci_jobs.retried', '=', 0);
  if (f.ref) q = q.where('ci_jobs.ref', '=', f.ref);
  if (f.stage) q = q.where('ci_jobs.stage', '=', f.stage);
  if (f.name) q = q.where('ci_jobs.name', '=', f.name);
  // A joined row: its id is the job's (the left join's key may be null), so the page is typed by hand.
  return runPage(db as Kysely<any>, q.orderBy('ci_jobs.id') as any, page, { idColumn: 'ci_jobs.id' }) as Promise<PageResult<CommitStatusRow>>;
}

/** The newest pending or running external status of this name, ref and user in the pipeline (what a new state applies to). */
export const openExternalStatus = (db: Db, pipelineId: number, name: string, ref: string, userId: number): Promise<JobRow | undefined> =>
  db
    .selectFrom('ci_jobs')
    .selectAll()
    .where('pipeline_id', '=', pipelineId)
    .where('type', '=', 'generic')
    .where('name', '=', name)
    .where('ref', '=', ref)
    .where('user_id', '=', userId)
    .where('status', 'in', ['pending', 'running'])
    .orderBy('id', 'desc')
    .executeTakeFirst();

export const commitStatusFields = (db: Db, jobId: number) =>
  db.selectFrom('ci_commit_statuses').select(['target_url', 'description']).where('job_id', '=', jobId).executeTakeFirst();

export async function saveCommitStatusFields(db: Db, jobId: number, fields: { target_url: string | null; description: string | null }): Promise<void> {
  await db
    .insertInto('ci_commit_statuses')
    .values({ job_id: jobId, ...fields })
    .onConflict((oc) => oc.column('job_id').doUpdateSet(fields))
    .execute();
}

/** Older jobs of this name in the pipeline are superseded by a new status (the reference marks them retried). */
export async function supersedeJobsNamed(db: Db, pipelineId: number, name: string, keepId: number): Promise<void> {
  await db.updateTable('ci_jobs').set({ retried: 1 }).where('pipeline_id', '=', pipelineId).where('name', '=', name).where('id', '!=', keepId).where('retried', '=', 0).execute();
}
