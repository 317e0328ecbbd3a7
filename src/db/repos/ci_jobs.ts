// CI jobs (builds and bridges): single-row reads and the conditional status updates that make
// every transition safe against a concurrent one (lists live in ci_job_lists.ts).
import type { Insertable, Selectable, Updateable } from 'kysely';
import type { CiJobsTable, CiJobVariablesTable } from '../schema.js';
import type { Db } from './ci_pipelines.js';

export type JobRow = Selectable<CiJobsTable>;

export const findCiJob = (db: Db, id: number): Promise<JobRow | undefined> =>
  db.selectFrom('ci_jobs').selectAll().where('id', '=', id).executeTakeFirst();

export const findProjectJob = (db: Db, projectId: number, id: number): Promise<JobRow | undefined> =>
  db.selectFrom('ci_jobs').selectAll().where('id', '=', id).where('project_id', '=', projectId).executeTakeFirst();

export const jobsByIds = (db: Db, ids: number[]): Promise<JobRow[]> =>
  ids.length === 0 ? Promise.resolve([]) : db.selectFrom('ci_jobs').selectAll().where('id', 'in', ids).execute();

/** The pipeline's current jobs (retried ones excluded), in stage order. */
export const latestJobsOfPipeline = (db: Db, pipelineId: number): Promise<JobRow[]> =>
  db
    .selectFrom('ci_jobs')
    .selectAll()
    .where('pipeline_id', '=', pipelineId)
    .where('retried', '=', 0)
    .orderBy('stage_idx')
    .orderBy('id')
    .execute();

/**
 * Sets `patch` on the job only while its status is one of `from`: the one way statuses change.
 * Undefined when the job moved on meanwhile (another node, a cancel) or is gone.
 */
export const transitionJob = (db: Db, id: number, from: readonly string[], patch: Updateable<CiJobsTable>): Promise<JobRow | undefined> =>
  db
    .updateTable('ci_jobs')
    .set(patch)
    .where('id', '=', id)
    .where('status', 'in', [...from])
    .returningAll()
    .executeTakeFirst();

/**
 * A runner node takes a pending job: like transitionJob from `pending`, and only while the node's
 * row still carries its boot id, so a runner displaced by another process can never take a job.
 */
export const takePendingJob = (db: Db, id: number, node: { nodeId: string; bootId: string }, patch: Updateable<CiJobsTable>): Promise<JobRow | undefined> =>
  db
    .updateTable('ci_jobs')
    .set(patch)
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .where(({ exists, selectFrom }) =>
      exists(selectFrom('ci_runner_nodes').select('node_id').where('node_id', '=', node.nodeId).where('boot_id', '=', node.bootId)),
    )
    .returningAll()
    .executeTakeFirst();

/**
 * The builds of these pipelines that started (running, success or failed), retried ones included,
 * with their planned job (which says `interruptible`). Uses (pipeline_id, id).
 */
export const startedBuildsOfPipelines = (db: Db, pipelineIds: number[]): Promise<Pick<JobRow, 'id' | 'pipeline_id' | 'options'>[]> =>
  pipelineIds.length === 0
    ? Promise.resolve([])
    : db
        .selectFrom('ci_jobs')
        .select(['id', 'pipeline_id', 'options'])
        .where('pipeline_id', 'in', pipelineIds)
        .where('type', '=', 'build')
        .where('status', 'in', ['running', 'success', 'failed'])
        .execute();

export const updateJob = (db: Db, id: number, patch: Updateable<CiJobsTable>): Promise<JobRow | undefined> =>
  db.updateTable('ci_jobs').set(patch).where('id', '=', id).returningAll().executeTakeFirst();

export const insertCiJob = (db: Db, row: Insertable<CiJobsTable>): Promise<JobRow> =>
  db.insertInto('ci_jobs').values(row).returningAll().executeTakeFirstOrThrow();

/** Delayed jobs whose start time came. Uses (status, id). */
export const dueScheduledJobs = (db: Db, now: string, limit: number) =>
  db
    .selectFrom('ci_jobs')
    .select(['id', 'pipeline_id'])
    .where('status', '=', 'scheduled')
    .where('scheduled_at', '<=', now)
    .orderBy('id')
    .limit(limit)
    .execute();

export const jobByTokenDigest = (db: Db, digest: string): Promise<JobRow | undefined> =>
  db.selectFrom('ci_jobs').selectAll().where('token_digest', '=', digest).executeTakeFirst();

export type JobVariableRow = Selectable<CiJobVariablesTable>;

export const jobVariableRows = (db: Db, jobId: number): Promise<JobVariableRow[]> =>
  db.selectFrom('ci_job_variables').selectAll().where('job_id', '=', jobId).orderBy('id').execute();

export async function replaceJobVariables(db: Db, jobId: number, rows: Omit<Insertable<CiJobVariablesTable>, 'job_id'>[]): Promise<void> {
  await db.deleteFrom('ci_job_variables').where('job_id', '=', jobId).execute();
  if (rows.length) await db.insertInto('ci_job_variables').values(rows.map((r) => ({ ...r, job_id: jobId }))).execute();
}
