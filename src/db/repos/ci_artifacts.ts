// Job artifacts: one row per job and file type (archive, metadata, trace, junit, security
// reports), the bytes in blob storage under `blob_key`.
import type { Insertable, Kysely, Selectable } from 'kysely';
import type { CiJobArtifactsTable, DB } from '../schema.js';

export type ArtifactRow = Selectable<CiJobArtifactsTable>;
export type NewArtifact = Insertable<CiJobArtifactsTable>;

/** Stores the row, replacing the job's row of the same file type (a job has one of each). */
export const upsertArtifact = (db: Kysely<DB>, row: NewArtifact): Promise<ArtifactRow> =>
  db
    .insertInto('ci_job_artifacts')
    .values(row)
    .onConflict((oc) =>
      oc.columns(['job_id', 'file_type']).doUpdateSet({
        file_format: row.file_format,
        filename: row.filename,
        size: row.size,
        blob_key: row.blob_key,
        expire_at: row.expire_at ?? null,
        created_at: row.created_at,
      }))
    .returningAll()
    .executeTakeFirstOrThrow();

/** The artifacts of these jobs in one query, by job then id. */
export const artifactRowsOfJobs = (db: Kysely<DB>, jobIds: number[]): Promise<ArtifactRow[]> =>
  jobIds.length === 0
    ? Promise.resolve([])
    : db.selectFrom('ci_job_artifacts').selectAll().where('job_id', 'in', jobIds).orderBy('job_id').orderBy('id').execute();

export const findJobArtifact = (db: Kysely<DB>, jobId: number, fileType: string) =>
  db.selectFrom('ci_job_artifacts').selectAll().where('job_id', '=', jobId).where('file_type', '=', fileType).executeTakeFirst();

/** Deletes a job's artifact rows (all, or all but the trace) and returns them (their blobs go next). */
export const deleteJobArtifactRows = (db: Kysely<DB>, jobId: number, opts: { keepTrace: boolean }): Promise<ArtifactRow[]> =>
  db
    .deleteFrom('ci_job_artifacts')
    .where('job_id', '=', jobId)
    .$if(opts.keepTrace, (q) => q.where('file_type', '!=', 'trace'))
    .returningAll()
    .execute();

export async function deleteArtifactRow(db: Kysely<DB>, id: number): Promise<void> {
  await db.deleteFrom('ci_job_artifacts').where('id', '=', id).execute();
}

/** The job row's `artifacts_expire_at` (what the Job shape shows). */
export async function setJobArtifactsExpireAt(db: Kysely<DB>, jobId: number, expireAt: string | null): Promise<void> {
  await db.updateTable('ci_jobs').set({ artifacts_expire_at: expireAt }).where('id', '=', jobId).execute();
}

export interface ExpiredArtifact extends ArtifactRow {
  pipeline_id: number;
  ref: string;
}

/**
 * Artifacts (never traces) whose expire_at has passed, oldest expiry first, after the position
 * (expire_at, id) of the previous batch; with the pipeline and ref of their job.
 */
export function expiredArtifacts(
  db: Kysely<DB>,
  now: string,
  after: { expireAt: string; id: number } | null,
  limit: number,
): Promise<ExpiredArtifact[]> {
  let q = db
    .selectFrom('ci_job_artifacts as a')
    .innerJoin('ci_jobs as j', 'j.id', 'a.job_id')
    .innerJoin('ci_pipelines as p', 'p.id', 'j.pipeline_id')
    .selectAll('a')
    .select(['j.pipeline_id', 'p.ref'])
    .where('a.expire_at', 'is not', null)
    .where('a.expire_at', '<=', now)
    .where('a.file_type', '!=', 'trace');
  if (after) {
    q = q.where((eb) => eb.or([eb('a.expire_at', '>', after.expireAt), eb.and([eb('a.expire_at', '=', after.expireAt), eb('a.id', '>', after.id)])]));
  }
  return q.orderBy('a.expire_at').orderBy('a.id').limit(limit).execute() as Promise<ExpiredArtifact[]>;
}

/** The newest successful pipeline of a project's ref (the one whose artifacts keep_latest_artifact keeps). */
export async function latestSuccessfulPipelineId(db: Kysely<DB>, projectId: number, ref: string): Promise<number | null> {
  const r = await db
    .selectFrom('ci_pipelines')
    .select('id')
    .where('project_id', '=', projectId)
    .where('ref', '=', ref)
    .where('status', '=', 'success')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return r ? r.id : null;
}

/** Job ids of a pipeline after `afterId`, ascending: walks a pipeline in bounded batches. */
export async function pipelineJobIdsAfter(db: Kysely<DB>, pipelineId: number, afterId: number, limit: number): Promise<number[]> {
  const rows = await db
    .selectFrom('ci_jobs')
    .select('id')
    .where('pipeline_id', '=', pipelineId)
    .where('id', '>', afterId)
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((r) => r.id);
}
